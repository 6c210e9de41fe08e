package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

// ProjectName is the project of the program (testdata/program.yaml); stacks are named StackName.
const (
	ProjectName = "karpenter-e2e"
	StackName   = "dev"
)

// inputsMarker is the line of testdata/program.yaml that Program replaces with extra component
// inputs.
const inputsMarker = "      # @inputs"

// Program is the YAML program of the engine tests and `make demo` (tests/e2e/testdata/program.yaml,
// without its name and runtime, which NewProject writes), with extra inputs (YAML, keys at the
// top level, e.g. "version: 1.8.6\n") added to the karpenter resource's properties.
func Program(extraInputs string) (string, error) {
	return ProgramFile("program.yaml", extraInputs)
}

// ProgramFile is Program for another program of tests/e2e/testdata (e.g. program-automode.yaml),
// which has the same `# @inputs` line in its karpenter resource's properties.
func ProgramFile(name, extraInputs string) (string, error) {
	tests, err := testsDir()
	if err != nil {
		return "", err
	}
	data, err := os.ReadFile(filepath.Join(tests, "e2e", "testdata", name))
	if err != nil {
		return "", err
	}
	prog := string(data)
	if strings.Count(prog, inputsMarker+"\n") != 1 {
		return "", fmt.Errorf("testdata/%s: want exactly one line %q", name, inputsMarker)
	}
	indented := ""
	if strings.TrimSpace(extraInputs) != "" {
		indented = indent(extraInputs, 6)
	}
	return strings.Replace(prog, inputsMarker+"\n", indented, 1), nil
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
		typ, lname := urnTypeName(req.URN)
		plugin, _, _ := strings.Cut(typ, ":")
		ops = append(ops, Op{Start: c.Timestamp.Add(-c.Duration), Time: c.Timestamp, Plugin: plugin, Op: name,
			Type: typ, Name: lname, Failed: len(c.Errors) > 0})
	}
	return ops, nil
}

// urnTypeName splits urn:pulumi:<stack>::<project>::<parent types$>type::name into the
// resource's own type and its name.
func urnTypeName(urn string) (typ, name string) {
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
