package provider_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/argstest"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/rendertest"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/render"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/render/format"

	presource "github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// A fleet of clusters in one stack means one plugin process serving many Constructs at once:
// the engine sends them concurrently. Every component must get exactly its own children and
// outputs — the ones it gets when constructed alone — and a bad input must fail only its own
// component, with its own message. `make test` also runs this test with the race detector.
func TestConcurrentConstructsAreIsolated(t *testing.T) {
	variants := concurrentVariants(t)
	const copies = 3 // each variant under several component and cluster names
	type job struct {
		args    render.Args
		want    *format.Rendered // constructed alone
		wantErr string           // its message alone, for a bad input
		got     presource.PropertyMap
		gotErr  error
	}
	var jobs []*job
	for i, v := range variants {
		for c := range copies {
			j := &job{args: variantArgs(t, v, fmt.Sprintf("c%02d-%d", i, c))}
			var err error
			if j.want, err = rendertest.Render(context.Background(), j.args); err != nil {
				j.wantErr = err.Error()
			}
			jobs = append(jobs, j)
		}
	}

	// One provider server — what one plugin process serves — constructs them all at once.
	host, err := rendertest.StartHost(context.Background(), &render.Mocks{}, "project", "stack")
	require.NoError(t, err)
	defer host.Close()
	start := make(chan struct{})
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			j.got, _, j.gotErr = host.Construct(context.Background(), j.args)
		}()
	}
	close(start)
	wg.Wait()

	byComponent := map[string][]format.Resource{}
	for _, reg := range host.Registrations() {
		if reg.Custom {
			owner := presource.URN(reg.Parent).Name()
			byComponent[owner] = append(byComponent[owner], reg.Resource())
		}
	}
	failed := 0
	for _, j := range jobs {
		name := j.args.Name
		if j.wantErr != "" {
			failed++
			require.Error(t, j.gotErr, "%s: failed alone (%s), succeeded among others", name, j.wantErr)
			require.Equal(t, j.wantErr, j.gotErr.Error(), "%s: another message among others", name)
			require.Empty(t, byComponent[name], "%s: a failed component registered children", name)
			continue
		}
		require.NoError(t, j.gotErr, "%s: constructed alone, failed among others", name)
		require.Equal(t, asJSON(t, j.want.Outputs), asJSON(t, render.PlainMap(presource.FromResourcePropertyMap(j.got))), "%s: outputs", name)
		require.Equal(t, byName(t, j.want.Resources), byName(t, byComponent[name]), "%s: children", name)
		delete(byComponent, name)
	}
	require.Empty(t, slices.Sorted(maps.Keys(byComponent)), "children registered under no construct's component")
	require.GreaterOrEqual(t, failed, 2*copies, "the bad inputs did fail")
	require.Greater(t, len(jobs)-failed, 10*copies)
}

// concurrentVariants are inputs that differ in everything that decides children: generations,
// Auto Mode, identities, pools and classes, the standalone resources, and bad inputs.
func concurrentVariants(t *testing.T) []string {
	file := func(name string) string {
		data, err := os.ReadFile("testdata/args/" + name)
		require.NoError(t, err)
		return string(data)
	}
	return []string{
		argstest.DefaultArgs,
		argstest.WithDefaults(t, `{"version":"1.8.6"}`),
		argstest.WithDefaults(t, `{"version":"1.0.8"}`),
		argstest.WithDefaults(t, `{"version":"0.36.2"}`),
		argstest.WithDefaults(t, `{"version":"0.31.0"}`),
		argstest.WithDefaults(t, `{"controllerIdentity":"both","tags":{"team":"platform"}}`),
		argstest.WithDefaults(t, `{"clusterAuthenticationMode":"CONFIG_MAP","interruptionHandling":false}`),
		argstest.WithDefaults(t, `{"installCrds":false,"namespace":"karpenter","createSpotServiceLinkedRole":true}`),
		poolsArgs(5),
		file("rich.yaml"),
		file("byo-roles.json"),
		file("automode.yaml"),
		file("nodepool-team-a.json"),
		file("nodeclass-team-a.json"),
		argstest.WithDefaults(t, `{"tags":{"aws:team":"platform"}}`),                    // refused: AWS's prefix
		argstest.WithDefaults(t, `{"nodePools":[{"name":"a","weight":"5"}],"tagz":{}}`), // refused: a type and a name
	}
}

// variantArgs is a variant's args under its own component name, and its own cluster name where
// it names one (so every AWS name and document differs between copies).
func variantArgs(t *testing.T, variant, name string) render.Args {
	var doc map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(variant), &doc))
	doc["name"] = name
	if _, ok := doc["clusterName"]; ok {
		doc["clusterName"] = "cluster-" + name
	}
	data, err := json.Marshal(doc)
	require.NoError(t, err)
	args, err := rendertest.ParseArgs(data)
	require.NoError(t, err)
	return args
}

// byName is children as JSON by name: the comparison shows which child differs.
func byName(t *testing.T, rs []format.Resource) map[string]string {
	out := map[string]string{}
	for _, r := range rs {
		require.NotContains(t, out, r.Name, "%s registered twice", r.Name)
		out[r.Name] = asJSON(t, r)
	}
	return out
}

func asJSON(t *testing.T, v any) string {
	data, err := json.Marshal(v)
	require.NoError(t, err)
	return string(data)
}
