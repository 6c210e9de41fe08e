package lab

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"text/template"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/internal/repo"
)

// ProjectName is the project of the program (programs/program.yaml); stacks are named StackName.
const (
	ProjectName = "karpenter-e2e"
	StackName   = "dev"
)

// Program is the YAML program of the engine tests and `make demo` (tests/e2e/lab/programs/program.yaml,
// without its name and runtime, which NewProject writes) for a scenario.
func (w *World) Program(o ProgramOptions) (string, error) {
	return w.ProgramFile("program.yaml", o)
}

// ProgramOptions shape a program of tests/e2e/lab/programs (a text/template) around a scenario.
type ProgramOptions struct {
	// Inputs are extra component inputs (YAML, keys at the top level, e.g. "version: 1.8.6\n").
	Inputs string
	// Cluster are extra properties of the EKS cluster (YAML, e.g. "version: \"1.35\"\n").
	Cluster string
	// AuthenticationMode is the cluster's (default API_AND_CONFIG_MAP; CONFIG_MAP is EKS's own
	// default, which pulumi-eks leaves).
	AuthenticationMode string
	// NoDiscovery leaves the component's discovery input out: nothing tags the VPC for Karpenter.
	NoDiscovery bool
	// NoComponent leaves the component out: the cluster alone, to which a later update adds
	// Karpenter (a cluster that exists when the component first reads it).
	NoComponent bool
	// OIDCIssuer is the issuer the OIDC provider is made for (default: the cluster's own).
	OIDCIssuer string
	// KubernetesVersion is the cluster's (default: ClusterVersionFor the `version` in Inputs, so a
	// scenario installing an older Karpenter gets a cluster it supports).
	KubernetesVersion string
}

// ClusterVersionFor is the Kubernetes version of a cluster the Karpenter release supports: the
// world's (ClusterKubernetesVersion), or the newest before it the release supports (Karpenter's
// compatibility matrix, as the component's catalog has it).
func ClusterVersionFor(karpenter string) (string, error) {
	release, err := catalog.LookupRelease(karpenter, false)
	if err != nil {
		return "", err
	}
	var major, minor int
	fmt.Sscanf(ClusterKubernetesVersion, "%d.%d", &major, &minor)
	for ; minor > 0; minor-- {
		k := fmt.Sprintf("%d.%d", major, minor)
		if ok, _, known := release.SupportsKubernetes(k); ok && known {
			return k, nil
		}
	}
	return "", fmt.Errorf("no Kubernetes version up to %s supports Karpenter %s", ClusterKubernetesVersion, karpenter)
}

// VersionInput is the Karpenter `version` of a scenario's inputs ("" when they set none).
var VersionInput = regexp.MustCompile(`(?m)^version:\s*"?([0-9][^"\s]*)`)

// ProgramFile is Program for another program of tests/e2e/lab/programs (e.g. program-automode.yaml),
// a template over the same ProgramOptions and the world's VPC.
func (w *World) ProgramFile(name string, o ProgramOptions) (string, error) {
	tests, err := repo.TestsDir()
	if err != nil {
		return "", err
	}
	data, err := os.ReadFile(filepath.Join(tests, "e2e", "lab", "programs", name))
	if err != nil {
		return "", err
	}
	if o.AuthenticationMode == "" {
		o.AuthenticationMode = "API_AND_CONFIG_MAP"
	}
	if m := VersionInput.FindStringSubmatch(o.Inputs); m != nil && o.KubernetesVersion == "" {
		// A version the catalog does not know (a bad input a scenario tests) gets the default.
		o.KubernetesVersion, _ = ClusterVersionFor(m[1])
	}
	tmpl, err := template.New(name).Funcs(template.FuncMap{
		"indent": func(n int, s string) string { return indent(s, n) },
		"join":   func(items []string) string { return strings.Join(items, ", ") },
	}).Option("missingkey=error").Parse(string(data))
	if err != nil {
		return "", fmt.Errorf("programs/%s: %w", name, err)
	}
	var out strings.Builder
	if err := tmpl.Execute(&out, struct {
		ProgramOptions
		VPC *VPC
	}{o, w.VPC}); err != nil {
		return "", fmt.Errorf("programs/%s: %w", name, err)
	}
	return out.String(), nil
}

// WithChartRepository adds the world's chart repository (its private mirror of the Karpenter
// charts) to a self-managed install's extra inputs, unless they name a repository themselves.
func (w *World) WithChartRepository(extraInputs string) string {
	if regexp.MustCompile(`(?m)^chartRepository:`).MatchString(extraInputs) {
		return extraInputs
	}
	return "chartRepository: " + w.ChartRepository() + "\n" + extraInputs
}

// InputsYAML turns component inputs (a JSON or YAML document, e.g. a render args file) into the
// YAML lines Program takes. It leaves out what the program sets itself: clusterName and
// oidcProviderArn (wired from its own resources) and render's options name, project and stack
// (the program's component is "karpenter" in project ProjectName, stack StackName); ignored
// lists them.
func InputsYAML(doc []byte) (inputs string, ignored []string, err error) {
	var in map[string]any
	if err := yaml.Unmarshal(doc, &in); err != nil {
		return "", nil, err
	}
	for _, k := range []string{"clusterName", "oidcProviderArn", "name", "project", "stack"} {
		if _, ok := in[k]; ok {
			ignored = append(ignored, k)
			delete(in, k)
		}
	}
	if len(in) == 0 {
		return "", ignored, nil
	}
	out, err := yaml.Marshal(in)
	return string(out), ignored, err
}

// NewStack writes the program as project ProjectName and creates stack StackName; the program's
// region config defaults to Region.
func (w *World) NewStack(program string) error {
	if _, err := w.Engine.NewProject(ProjectName, program); err != nil {
		return err
	}
	if err := w.Engine.NewStack(StackName); err != nil {
		return err
	}
	return nil
}

// Op is one resource operation the engine asked a provider plugin for, read from the engine's
// gRPC log (PULUMI_DEBUG_GRPC): the same record for the aws stand-in and the real kubernetes
// provider. Start is when the engine sent the request, Time when the plugin answered.
type Op struct {
	Start, Time time.Time
	Plugin      string // aws | kubernetes
	Op          string // Create | Update | Delete
	Type, Name  string // the resource's type token and logical name (from its URN)
	Failed      bool   // the plugin answered with an error
}

func (o Op) String() string {
	return fmt.Sprintf("%s-%s %s %s %s %s", o.Start.Format("15:04:05.000000"), o.Time.Format("15:04:05.000000"), o.Plugin, o.Op, o.Type, o.Name)
}

// Ops are the Create, Update and Delete calls the engine made to resource plugins so far (not a
// preview's, which only ask what would be done), in the order they completed.
func (w *World) Ops() ([]Op, error) {
	calls, err := w.Engine.GRPCCalls()
	if err != nil {
		return nil, err
	}
	var ops []Op
	for _, c := range calls {
		name, ok := strings.CutPrefix(c.Method, "/pulumirpc.ResourceProvider/")
		if !ok || c.Progress != "response_completed" || (name != "Create" && name != "Update" && name != "Delete") {
			continue
		}
		var req struct {
			URN     string
			Preview bool // a preview's Create or Update: the plugin only says what it would do
		}
		if err := c.Decode(&req); err != nil {
			return nil, fmt.Errorf("%s request: %w", c.Method, err)
		}
		if req.Preview {
			continue
		}
		typ, lname := URNTypeName(req.URN)
		plugin, _, _ := strings.Cut(typ, ":")
		ops = append(ops, Op{Start: c.Timestamp.Add(-c.Duration), Time: c.Timestamp, Plugin: plugin, Op: name,
			Type: typ, Name: lname, Failed: len(c.Errors) > 0})
	}
	return ops, nil
}

// URNTypeName splits urn:pulumi:<stack>::<project>::<parent types$>type::name into the
// resource's own type and its name.
func URNTypeName(urn string) (typ, name string) {
	parts := strings.SplitN(urn, "::", 4)
	if len(parts) != 4 {
		return "", urn
	}
	typ = parts[2]
	if i := strings.LastIndex(typ, "$"); i >= 0 {
		typ = typ[i+1:]
	}
	return typ, parts[3]
}

// StateResource is one resource of the stack's state (`pulumi stack export`).
type StateResource struct {
	URN      string `json:"urn"`
	Type     string `json:"type"`
	Parent   string `json:"parent"`
	Provider string `json:"provider"`
	ID       string `json:"id"`
	// Dependencies are the URNs the resource depends on (dependsOn and its inputs' resources).
	Dependencies []string       `json:"dependencies"`
	Inputs       map[string]any `json:"inputs"`
	Outputs      map[string]any `json:"outputs"`
}

// Name is the resource's logical name (the URN's last element).
func (r StateResource) Name() string { return r.URN[strings.LastIndex(r.URN, "::")+2:] }

// StateResources are the stack's resources in state order (`pulumi stack export`).
func (w *World) StateResources() ([]StateResource, error) {
	stdout, stderr, err := w.Engine.Run("stack", "export")
	if err != nil {
		return nil, fmt.Errorf("%w\n%s", err, stderr)
	}
	var export struct {
		Deployment struct {
			Resources []StateResource `json:"resources"`
		} `json:"deployment"`
	}
	if err := json.Unmarshal([]byte(stdout), &export); err != nil {
		return nil, err
	}
	return export.Deployment.Resources, nil
}
