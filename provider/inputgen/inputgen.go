// Package inputgen draws inputs of the Karpenter component from its schema (schema.json): right
// by type, often wrong by meaning — versions, AMI aliases, label keys, tags, user data, chart
// values, near misses and limits. Tests use it to require that every input either fails naming
// a path or renders children the real targets accept (provider/generate_test.go in-process,
// tests/generated_test.go against the real API server's CRDs), and scripts/render-compare.sh
// renders what it draws before and after a change (scripts/generated-args writes the args).
// Seeded: a seed replays a case.
package inputgen

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
)

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

// Schema is the package schema as the generator reads it: the types and the component's inputs.
type Schema struct {
	types  map[string]schemaType
	inputs map[string]schemaProperty
}

// Generator draws component inputs from a seed.
type Generator struct {
	*Schema
	rng *rand.Rand
}

// Load reads the package schema (schema.json), once for any number of seeds.
func Load(schemaJSON []byte) (*Schema, error) {
	var schema struct {
		Types     map[string]schemaType `json:"types"`
		Resources map[string]struct {
			InputProperties map[string]schemaProperty `json:"inputProperties"`
		} `json:"resources"`
	}
	if err := json.Unmarshal(schemaJSON, &schema); err != nil {
		return nil, fmt.Errorf("reading the schema: %w", err)
	}
	component, ok := schema.Resources[componentToken]
	if !ok {
		return nil, fmt.Errorf("the schema has no %s", componentToken)
	}
	return &Schema{types: schema.Types, inputs: component.InputProperties}, nil
}

// LoadFile reads the package schema from a file (the repository's schema.json).
func LoadFile(path string) (*Schema, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Load(data)
}

// Seed is a generator for one seed: the same seed draws the same inputs.
func (s *Schema) Seed(seed uint64) *Generator {
	return &Generator{Schema: s, rng: rand.New(rand.NewPCG(seed, 0x6b61727065))}
}

const componentToken = "karpenter:index:Karpenter"

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

func (g *Generator) pick(options []string) string { return options[g.rng.IntN(len(options))] }

func (g *Generator) value(name string, p schemaProperty, depth int) any {
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

func (g *Generator) typed(token string, depth int) any {
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
	for _, name := range slices.Sorted(maps.Keys(t.Properties)) {
		required := slices.Contains(t.Required, name)
		if (required && g.rng.IntN(20) > 0) || (depth < 4 && g.rng.IntN(4) == 0) {
			out[name] = g.value(name, t.Properties[name], depth+1)
		}
	}
	return out
}

// RenderArgs are the args of a render of the component inputs seed draws (Component): when they
// read the cluster (readCluster), with the cluster the render's reads answer, drawn from the seed.
func (s *Schema) RenderArgs(seed uint64) map[string]any {
	inputs := s.Seed(seed).Component(nil)
	if inputs["readCluster"] == true {
		inputs["cluster"] = drawCluster(seed)
	}
	return inputs
}

// drawCluster is a cluster for inputs that read one (readCluster), drawn from the seed: any
// authentication mode, a Kubernetes version inside, at the edge of or past the compatibility
// matrix, with or without Auto Mode, the Spot service-linked role, discovery-tagged subnets (in
// one zone or three), or the cluster at all.
func drawCluster(seed uint64) map[string]any {
	r := rand.New(rand.NewPCG(seed, 0x636c7573746572))
	pick := func(options ...any) any { return options[r.IntN(len(options))] }
	c := map[string]any{
		"authenticationMode":      pick("API", "API_AND_CONFIG_MAP", "CONFIG_MAP"),
		"version":                 pick("1.28", "1.31", "1.32", "1.33", "1.35", "1.37", "1.38"),
		"autoMode":                r.IntN(2) == 0,
		"noSpotServiceLinkedRole": r.IntN(2) == 0,
		"missing":                 r.IntN(10) == 0,
	}
	switch r.IntN(3) {
	case 0:
		c["subnets"] = []any{}
	case 1:
		c["subnets"] = []any{map[string]any{"id": "subnet-0one", "zone": "us-west-2a"}}
	}
	return c
}

// Component draws the inputs of one Karpenter component: the cluster and its OIDC provider
// valid (so the rest of the inputs get checked), about one input in six drawn, then fixed set
// over them (e.g. a version).
// notDrawn are inputs the component draws are never given: adopt imports what a cluster runs,
// which a render has none of, and a drawn one is refused (its rule names are required) before
// anything renders; its refusals and imports are tested in provider/plan and provider.
var notDrawn = map[string]bool{"adopt": true}

func (g *Generator) Component(fixed map[string]any) map[string]any {
	out := map[string]any{"clusterName": "demo", "oidcProviderArn": "arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/EXAMPLE"}
	for _, name := range slices.Sorted(maps.Keys(g.inputs)) {
		if notDrawn[name] {
			continue
		}
		if g.rng.IntN(6) == 0 {
			out[name] = g.value(name, g.inputs[name], 0)
		}
	}
	if g.rng.IntN(2) == 0 {
		// Half the draws carry a pool and a class that start valid and take a few drawn fields,
		// so the rendered custom resources vary in every field and still often render.
		class := g.mutate("karpenter:index:NodeClassSpec", baseClasses[g.rng.IntN(len(baseClasses))])
		pool := g.mutate("karpenter:index:NodePoolSpec", basePools[g.rng.IntN(len(basePools))])
		if name, ok := class["name"].(string); ok && g.rng.IntN(5) > 0 {
			pool["nodeClassRef"] = name
		}
		out["nodeClasses"], out["nodePools"] = []any{class}, []any{pool}
	}
	maps.Copy(out, fixed)
	return out
}

// mutate copies a valid object of a schema type and draws 0-2 of its fields anew.
func (g *Generator) mutate(token string, base map[string]any) map[string]any {
	var out map[string]any
	b, _ := json.Marshal(base)
	_ = json.Unmarshal(b, &out)
	props := g.types[token].Properties
	names := slices.Sorted(maps.Keys(props))
	for range g.rng.IntN(3) {
		name := names[g.rng.IntN(len(names))]
		out[name] = g.value(name, props[name], 1)
	}
	return out
}

// Valid pools and classes (for every release the harness installs, 0.36 to 1.15) the mutations
// start from.
var (
	basePools = []map[string]any{
		{"name": "general", "expireAfter": "720h", "weight": 10, "labels": map[string]any{"team": "a"},
			"requirements": []any{map[string]any{"key": "karpenter.sh/capacity-type", "operator": "In", "values": []any{"spot", "on-demand"}},
				map[string]any{"key": "karpenter.k8s.aws/instance-generation", "operator": "Gt", "values": []any{"4"}}},
			"limits":     map[string]any{"cpu": "1000", "memory": "1000Gi"},
			"disruption": map[string]any{"consolidationPolicy": "WhenEmpty", "consolidateAfter": "30s", "budgets": []any{map[string]any{"nodes": "10%"}}}},
		{"name": "gpu", "taints": []any{map[string]any{"key": "nvidia.com/gpu", "effect": "NoSchedule"}},
			"startupTaints": []any{map[string]any{"key": "example.com/init", "value": "true", "effect": "NoExecute"}},
			"requirements":  []any{map[string]any{"key": "kubernetes.io/arch", "operator": "In", "values": []any{"amd64"}}},
			"disruption":    map[string]any{"consolidationPolicy": "WhenEmptyOrUnderutilized"}},
	}
	baseClasses = []map[string]any{
		{"name": "default", "amiAlias": "al2023@latest", "tags": map[string]any{"team": "a"},
			"blockDeviceMappings": []any{map[string]any{"deviceName": "/dev/xvda", "ebs": map[string]any{"volumeSize": "100Gi", "volumeType": "gp3", "encrypted": true}}},
			"metadataOptions":     map[string]any{"httpTokens": "required", "httpPutResponseHopLimit": 2},
			"kubelet":             map[string]any{"maxPods": 110, "systemReserved": map[string]any{"cpu": "100m"}}},
		{"name": "bottlerocket", "amiAlias": "bottlerocket@latest", "userData": "[settings.kubernetes]\nmax-pods = 110\n",
			"subnetSelectorTerms":        []any{map[string]any{"tags": map[string]any{"karpenter.sh/discovery": "demo"}}},
			"securityGroupSelectorTerms": []any{map[string]any{"id": "sg-0abc123"}}, "detailedMonitoring": true},
	}
)
