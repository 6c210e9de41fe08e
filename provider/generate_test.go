package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/spec"
)

// The generator draws Karpenter component inputs from schema.json — right by type, often wrong
// by meaning — and requires each either to fail naming a path, or to render children within
// AWS's limits. Seeded and reproducible: a failure prints its seed; KARPENTER_GEN_SEED=<seed>
// replays that one case, KARPENTER_GEN_CASES=<n> runs more (make test runs the default).

const defaultGeneratedCases = 1500

type schemaProperty struct {
	Type                 string          `json:"type"`
	Ref                  string          `json:"$ref"`
	Items                *schemaProperty `json:"items"`
	AdditionalProperties *schemaProperty `json:"additionalProperties"`
}

type schemaType struct {
	Type       string                    `json:"type"`
	Properties map[string]schemaProperty `json:"properties"`
	Required   []string                  `json:"required"`
	Enum       []struct{ Value any }     `json:"enum"`
}

type generator struct {
	rng   *rand.Rand
	types map[string]schemaType
}

// Values worth trying: valid ones of each kind, near misses, limits.
var (
	genStrings = []string{"demo", "default", "team-a", "", "Not_Valid", "720h", "1m", "Never", "10%", "5", "@daily",
		"0 9 * * 1-5", "8h", "100Gi", "al2023@latest", "bottlerocket@latest", "al2@latest", "windows2022@latest", "AL2023",
		"Bottlerocket", "Custom", "arn:aws:iam::123456789012:role/node", "node-role", "subnet-0abc123", "sg-0abc123",
		"ami-0abc123", "cr-0abc123", "on-demand", "spot", "on-demnd", "amd64", "arm64", "aws:team", strings.Repeat("x", 300),
		"enabled", "required", "RAID0", "gp3", "[settings.kubernetes]\nmax-pods = 110", "[settings\n",
		"MIME-Version: 1.0\nContent-Type: text/plain\n\nx", "#!/bin/bash\necho hi"}
	genByName = map[string][]string{
		"version":           {"1.15.1", "1.14.1", "1.8.6", "1.2.1", "1.0.8", "0.37.0", "0.32.0", "0.31.0", "1.16.0", "v1.15.1"},
		"kubernetesVersion": {"1.33", "1.37", "1.22"},
		"key": {"karpenter.sh/capacity-type", "kubernetes.io/arch", "kubernetes.io/os", "node.kubernetes.io/instance-type",
			"karpenter.k8s.aws/instance-category", "karpenter.sh/nodepool", "example.com/team", "eks.amazonaws.com/instance-family"},
		"amiAlias":            {"al2023@latest", "al2@latest", "bottlerocket@latest", "windows2022@latest", "al2023@v20250101", "ubuntu@latest"},
		"amiFamily":           {"AL2", "AL2023", "Bottlerocket", "Custom", "Windows2022", "Ubuntu"},
		"chartRepository":     {"oci://registry.example.com/karpenter", "https://charts.example.com", "./charts"},
		"clusterEndpoint":     {"https://ABC.gr7.us-west-2.eks.amazonaws.com", "http://x"},
		"nodeRoleArn":         {"arn:aws:iam::123456789012:role/node"},
		"controllerRoleArn":   {"arn:aws:iam::123456789012:role/controller"},
		"expireAfter":         {"720h", "Never", "336h", "30m"},
		"consolidateAfter":    {"1m", "Never", "30s"},
		"nodes":               {"10%", "5", "0"},
		"volumeSize":          {"100Gi", "20Gi", "1Ti"},
		"httpTokens":          {"required", "optional"},
		"nodeClassRef":        {"default", "c0", "c1"},
		"name":                {"default", "c0", "c1", "p0", "gpu"},
		"instanceStorePolicy": {"RAID0"},
	}
	genKeys     = []string{"team", "env", "aws:x", "karpenter.sh/nodepool", "example.com/a", "cpu", "memory", "nodes", "memory.available", "containerLogMaxSize", "a"}
	genIntegers = []int{-1, 0, 1, 2, 5, 10, 50, 100, 101, 3000, 100000}
	genValues   = []map[string]any{
		{"settings": map[string]any{"batchMaxDuration": "10s"}},
		{"settings": map[string]any{"clusterName": "other"}},
		{"replicas": 2, "serviceAccount": map[string]any{"annotations": map[string]any{"example.com/a": "b"}}},
		{"settings": map[string]any{"enableDRA": true, "ignoreDRARequests": false}},
	}
)

func (g *generator) pick(options []string) string { return options[g.rng.IntN(len(options))] }

func (g *generator) value(name string, p schemaProperty, depth int) any {
	if p.Ref != "" {
		return g.typed(strings.TrimPrefix(p.Ref, "#/types/"), depth)
	}
	switch p.Type {
	case "string":
		if hints, ok := genByName[name]; ok && g.rng.IntN(5) > 0 {
			return g.pick(hints)
		}
		return g.pick(genStrings)
	case "integer", "number":
		return genIntegers[g.rng.IntN(len(genIntegers))]
	case "boolean":
		return g.rng.IntN(2) == 0
	case "array":
		out := []any{}
		for range g.rng.IntN(3) {
			out = append(out, g.value(name, *p.Items, depth+1))
		}
		return out
	case "object":
		if p.AdditionalProperties != nil && p.AdditionalProperties.Ref == "pulumi.json#/Any" {
			return genValues[g.rng.IntN(len(genValues))]
		}
		out := map[string]any{}
		for range g.rng.IntN(3) {
			out[g.pick(genKeys)] = g.value("", *p.AdditionalProperties, depth+1)
		}
		return out
	}
	return nil
}

func (g *generator) typed(token string, depth int) any {
	t, ok := g.types[token]
	if !ok {
		panic("no schema type " + token)
	}
	if len(t.Enum) > 0 {
		if g.rng.IntN(10) == 0 {
			return "NotAValue"
		}
		return t.Enum[g.rng.IntN(len(t.Enum))].Value
	}
	out := map[string]any{}
	for _, name := range slices.Sorted(mapsKeys(t.Properties)) {
		required := slices.Contains(t.Required, name)
		if (required && g.rng.IntN(20) > 0) || (depth < 4 && g.rng.IntN(4) == 0) {
			out[name] = g.value(name, t.Properties[name], depth+1)
		}
	}
	return out
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// component draws the inputs of one Karpenter component; most keep the cluster and its OIDC
// provider valid, so the rest of the inputs get checked.
func (g *generator) component(inputs map[string]schemaProperty) map[string]any {
	out := map[string]any{"clusterName": "demo", "oidcProviderArn": "arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/EXAMPLE"}
	for _, name := range slices.Sorted(mapsKeys(inputs)) {
		if g.rng.IntN(6) == 0 {
			out[name] = g.value(name, inputs[name], 0)
		}
	}
	return out
}

func TestGeneratedInputsFailNamingAPathOrRenderWithinLimits(t *testing.T) {
	var schema struct {
		Types     map[string]schemaType `json:"types"`
		Resources map[string]struct {
			InputProperties map[string]schemaProperty `json:"inputProperties"`
		} `json:"resources"`
	}
	data, err := os.ReadFile("../schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatal(err)
	}
	inputs := schema.Resources[componentToken].InputProperties
	first, cases := uint64(1), uint64(defaultGeneratedCases)
	if s := os.Getenv("KARPENTER_GEN_SEED"); s != "" {
		first, _ = strconv.ParseUint(s, 10, 64)
		cases = 1
	} else if n := os.Getenv("KARPENTER_GEN_CASES"); n != "" {
		cases, _ = strconv.ParseUint(n, 10, 64)
	} else if testing.Short() {
		cases = 200
	}
	rendered, rejected := 0, 0
	for seed := first; seed < first+cases; seed++ {
		g := &generator{rng: rand.New(rand.NewPCG(seed, 0x6b61727065)), types: schema.Types}
		args, _ := json.Marshal(g.component(inputs))
		fail := func(format string, a ...any) {
			t.Fatalf("seed %d (replay: KARPENTER_GEN_SEED=%d go test ./provider -run TestGenerated): %s\ninputs: %s", seed, seed, fmt.Sprintf(format, a...), args)
		}
		parsed, err := ParseRenderArgs(args)
		if err != nil {
			fail("the generated args do not parse: %v", err)
		}
		out, err := Render(context.Background(), parsed)
		if err != nil {
			rejected++
			for _, line := range strings.Split(err.Error(), "\n") {
				if !pathError.MatchString(line) {
					fail("a rejection does not start with the path of what it refuses: %q", line)
				}
			}
			continue
		}
		rendered++
		if msg := withinAWSLimits(out); msg != "" {
			fail("rendered, but AWS would refuse it: %s", msg)
		}
	}
	t.Logf("%d cases from seed %d: %d rendered, %d rejected naming a path", cases, first, rendered, rejected)
	if cases >= 100 && (rendered == 0 || rejected == 0) {
		t.Errorf("the generator should produce both valid and invalid inputs")
	}
}

// pathError is how a rejection starts: the path of the input it refuses, as a program writes it
// (never the SDK's decoding message, which names only the top-level input).
var pathError = regexp.MustCompile(`^(name|[a-z][a-zA-Z]*(\[\d+\]|\.[a-zA-Z0-9._-]+|\["[^"]*"\])*|values(\.[a-zA-Z0-9_-]+|\["[^"]*"\])+)( \([^)]*\))?( key)?: `)

// withinAWSLimits checks what AWS would refuse in a render: tags (the children's, and what a node
// class puts on its instances with Karpenter's own), and the physical names' lengths.
func withinAWSLimits(out *Rendered) string {
	nameLimits := map[string]int{"aws:iam/role:Role": 64, "aws:iam/policy:Policy": 128, "aws:sqs/queue:Queue": 80,
		"aws:cloudwatch/eventRule:EventRule": 64, "aws:iam/instanceProfile:InstanceProfile": 128}
	for _, r := range out.Resources {
		if name, ok := r.Inputs["name"].(string); ok && nameLimits[r.Type] > 0 && utf8.RuneCountInString(name) > nameLimits[r.Type] {
			return fmt.Sprintf("%s %s: name %q over %d characters", r.Type, r.Name, name, nameLimits[r.Type])
		}
		tags, limit := r.Inputs["tags"], catalog.MaxTagsPerResource
		if body, ok := r.Inputs["spec"].(map[string]any); ok && strings.Contains(r.Type, "NodeClass") || strings.Contains(r.Type, "AWSNodeTemplate") {
			tags, limit = body["tags"], spec.ClassTagLimit
		}
		m, _ := tags.(map[string]any)
		plain := map[string]string{}
		for k, v := range m {
			s, _ := v.(string)
			plain[k] = s
		}
		if errs := spec.CheckAWSTags(r.Name+".tags", plain, limit); len(errs) > 0 {
			return errs[0].Error()
		}
	}
	return ""
}

// Seeds past the default run found these (3050, 16791 of KARPENTER_GEN_CASES=30000): an
// amiFamily that is not a family was echoed raw by the kubelet and alias checks, breaking the
// one-problem-per-line message. Only amiFamily's own check names it now.
func TestABadAmiFamilyIsNamedOnce(t *testing.T) {
	msg := renderError(t, withDefaults(t, `{"version": "1.15.1", "nodeClasses": [{"name": "default", "amiFamily": "#!/bin/bash\necho hi",
		"amiAlias": "windows2022@latest", "kubelet": {"additionalSettings": {"containerLogMaxSize": "50Mi"}, "clusterDNS": ["10.0.0.1", "10.0.0.2"]}}]}`))
	for _, line := range strings.Split(msg, "\n") {
		if !pathError.MatchString(line) {
			t.Errorf("a line does not start with a path: %q (in %q)", line, msg)
		}
	}
	if !strings.Contains(msg, `nodeClasses[0].amiFamily: "#!/bin/bash\necho hi" is not one of`) {
		t.Errorf("amiFamily is not named: %s", msg)
	}
}
