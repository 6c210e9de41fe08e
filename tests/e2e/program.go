package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
	var indented strings.Builder
	for _, line := range strings.Split(strings.TrimRight(extraInputs, "\n"), "\n") {
		if line != "" {
			indented.WriteString("      " + line + "\n")
		}
	}
	return strings.Replace(prog, inputsMarker+"\n", indented.String(), 1), nil
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

// Op is one line of the stand-ins' operation log ($STANDIN_LOG), written when an operation has
// completed: `<RFC3339Nano> <plugin> <op> <type> <urn-name> <id>`.
type Op struct {
	Time           time.Time
	Plugin         string // aws | kubernetes
	Op             string // Create | Update | Delete | Read | Invoke
	Type, Name, ID string
}

func (o Op) String() string {
	return fmt.Sprintf("%s %s %s %s %s", o.Time.Format("15:04:05.000000"), o.Plugin, o.Op, o.Type, o.Name)
}

// ReadOpLog reads the operation log (empty when no operation ran yet).
func (w *World) ReadOpLog() ([]Op, error) {
	f, err := os.Open(w.OpLog)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var ops []Op
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		f := strings.Fields(sc.Text())
		if len(f) != 6 {
			return nil, fmt.Errorf("%s:%d: want 6 fields, got %q", w.OpLog, n, sc.Text())
		}
		ts, err := time.Parse(time.RFC3339Nano, f[0])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", w.OpLog, n, err)
		}
		ops = append(ops, Op{Time: ts, Plugin: f[1], Op: f[2], Type: f[3], Name: f[4], ID: f[5]})
	}
	return ops, sc.Err()
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
