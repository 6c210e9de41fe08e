// Package rendertest renders the provider's components for the tests of every layer: the whole
// provider (provider.Renderer) under render's in-process engine with mocks, as `render` and a
// `pulumi preview` see it. A layer's external tests (package catalog_test, plan_test,
// children_test) assert through it what that layer decides — a version's policies, a cluster
// check's finding, a child's inputs — where a user sees it. Only external tests can import it (it
// imports the provider, which imports every layer), and provider/layers_test.go refuses an
// external test that imports the provider other than through it.
package rendertest

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/argstest"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/render"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/render/format"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ParseArgs, Render, JSON, RenderWith and StartHost are provider.Renderer's ParseArgs, Render,
// JSON, RenderWith and Start.

func ParseArgs(data []byte) (render.Args, error) { return provider.Renderer().ParseArgs(data) }

func Render(ctx context.Context, args render.Args) (*format.Rendered, error) {
	return provider.Renderer().Render(ctx, args)
}

func JSON(ctx context.Context, data []byte) ([]byte, error) {
	return provider.Renderer().JSON(ctx, data)
}

func RenderWith(ctx context.Context, args render.Args, mocks *render.Mocks) (*format.Rendered, error) {
	return provider.Renderer().RenderWith(ctx, args, mocks)
}

func StartHost(ctx context.Context, mocks *render.Mocks, project, stack string) (*render.Host, error) {
	return provider.Renderer().Start(ctx, mocks, project, stack)
}

// Providers a test passes to the component, so that it warns about no default provider.
const (
	AWSProvider        = "urn:pulumi:stack::project::pulumi:providers:aws::aws::11111111-1111-1111-1111-111111111111"
	KubernetesProvider = "urn:pulumi:stack::project::pulumi:providers:kubernetes::k8s::22222222-2222-2222-2222-222222222222"
)

// Rendered is a render, with lookups that fail the test that asked.
type Rendered struct {
	*format.Rendered
	t *testing.T
}

// Of is a render made earlier, its lookups failing t.
func Of(t *testing.T, r *format.Rendered) *Rendered { return &Rendered{r, t} }

// Args renders args (JSON or YAML, as `render --args` reads them); a failure fails the test.
func Args(t *testing.T, args string) *Rendered {
	t.Helper()
	parsed, err := ParseArgs([]byte(args))
	require.NoError(t, err)
	out, err := Render(context.Background(), parsed)
	require.NoError(t, err)
	return &Rendered{out, t}
}

// Default renders argstest.DefaultArgs.
func Default(t *testing.T) *Rendered { return Args(t, argstest.DefaultArgs) }

// Warnings are the warnings a render of args says on the component (the args' cluster
// answering the reads).
func Warnings(t *testing.T, args string) []string {
	t.Helper()
	parsed, err := ParseArgs([]byte(args))
	require.NoError(t, err)
	parsed.Providers = map[string]string{"aws": AWSProvider, "kubernetes": KubernetesProvider}
	h, err := StartHost(t.Context(), &render.Mocks{Cluster: parsed.Cluster}, parsed.Project, parsed.Stack)
	require.NoError(t, err)
	defer h.Close()
	_, _, err = h.Construct(t.Context(), parsed)
	require.NoError(t, err)
	var out []string
	for _, l := range h.Warnings() {
		assert.Contains(t, l.GetUrn(), "::karpenter", "the warning is on the component")
		out = append(out, l.GetMessage())
	}
	return out
}

// Error renders args that must be rejected and returns the message.
func Error(t *testing.T, args string) string {
	t.Helper()
	parsed, err := ParseArgs([]byte(args))
	if err != nil {
		return err.Error()
	}
	_, err = Render(context.Background(), parsed)
	require.Error(t, err, "expected %s to be rejected", args)
	return err.Error()
}

// Get is the child named name; none fails the test.
func (r *Rendered) Get(name string) format.Resource {
	r.t.Helper()
	for _, res := range r.Resources {
		if res.Name == name {
			return res
		}
	}
	r.t.Fatalf("no resource named %s; have %v", name, r.Names())
	return format.Resource{}
}

// Has says whether a child is named name.
func (r *Rendered) Has(name string) bool {
	for _, res := range r.Resources {
		if res.Name == name {
			return true
		}
	}
	return false
}

// ByType are the children of type typ, in registration order.
func (r *Rendered) ByType(typ string) []format.Resource {
	var out []format.Resource
	for _, res := range r.Resources {
		if res.Type == typ {
			out = append(out, res)
		}
	}
	return out
}

// Names are the children's names, in registration order.
func (r *Rendered) Names() []string {
	var out []string
	for _, res := range r.Resources {
		out = append(out, res.Name)
	}
	return out
}

// Dig is the value at keys in nested maps (nil when a step is missing).
func Dig(m map[string]any, keys ...string) any {
	var v any = m
	for _, k := range keys {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[k]
	}
	return v
}

// WithCluster is argstest.WithDefaults(extra) answered by the cluster (render's `cluster`
// mock, as JSON).
func WithCluster(t *testing.T, cluster, extra string) string {
	t.Helper()
	return argstest.Merge(t, argstest.WithDefaults(t, extra), `{"cluster":`+cluster+`}`)
}

// PathError is how a rejection starts: the path of the input it refuses, as a program writes it
// (never the SDK's decoding message, which names only the top-level input).
var PathError = regexp.MustCompile(`^(name|[a-z][a-zA-Z]*(\[\d+\]|\.[a-zA-Z0-9._-]+|\["[^"]*"\])*|values(\.[a-zA-Z0-9_-]+|\["[^"]*"\])+)( \([^)]*\))?( key)?: `)

// Testdata is the path of elem under provider/testdata, from the tests of any package of the
// module (a test runs in its package's directory; the module's root holds go.mod).
func Testdata(elem ...string) string {
	dir, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(append([]string{dir, "provider", "testdata"}, elem...)...)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			panic("rendertest: no go.mod above the test's directory")
		}
		dir = parent
	}
}

// RichArgs are testdata/args/rich.yaml: nearly every input set.
func RichArgs(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(Testdata("args", "rich.yaml"))
	require.NoError(t, err)
	return string(b)
}
