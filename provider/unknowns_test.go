package provider_test

import (
	"fmt"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/argstest"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/rendertest"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/render"

	presource "github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/urn"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The README's main pattern is the cluster and the component in one program, where the cluster's
// outputs are unknown at the first preview. A class selecting subnets by the cluster's name, a
// label naming it, user data built from its endpoint: those values only pass through to the custom
// resources, so the preview takes them unknown and shows them unknown in the children.
func TestValuesThatPassThroughMayBeUnknownAtAPreview(t *testing.T) {
	cluster := urn.URN("urn:pulumi:stack::project::aws:eks/cluster:Cluster::demo")
	unknown := property.New(property.Computed).WithDependencies([]urn.URN{cluster})
	parsed, err := rendertest.ParseArgs([]byte(argstest.WithDefaults(t, `{"nodeClasses":[{"name":"custom","subnetSelectorTerms":[{"tags":{"karpenter.sh/discovery":"x"}}],
		"tags":{"cluster":"x"},"userData":"x"}],"nodePools":[{"name":"p","labels":{"cluster":"x"},"annotations":{"endpoint":"x"}}]}`)))
	require.NoError(t, err)
	set := func(m property.Map, path []any, v property.Value) property.Map {
		var segments []property.PathSegment
		for _, step := range path {
			switch s := step.(type) {
			case string:
				segments = append(segments, property.NewSegment(s))
			case int:
				segments = append(segments, property.NewSegment(s))
			}
		}
		out, err := property.PathFromSegments(segments...).Set(property.New(m), v)
		require.NoError(t, err)
		return out.AsMap()
	}
	in := parsed.Inputs
	in = set(in, []any{"clusterName"}, unknown)
	in = set(in, []any{"nodeClasses", 0, "subnetSelectorTerms", 0, "tags", "karpenter.sh/discovery"}, unknown)
	in = set(in, []any{"nodeClasses", 0, "tags", "cluster"}, unknown)
	in = set(in, []any{"nodeClasses", 0, "userData"}, unknown)
	in = set(in, []any{"nodePools", 0, "labels", "cluster"}, unknown)
	in = set(in, []any{"nodePools", 0, "annotations", "endpoint"}, unknown)
	parsed.Inputs, parsed.Preview = in, true

	h, err := rendertest.StartHost(t.Context(), &render.Mocks{}, parsed.Project, parsed.Stack)
	require.NoError(t, err)
	defer h.Close()
	_, registered, err := h.Construct(t.Context(), parsed)
	require.NoError(t, err, "the preview takes them")

	spec := func(name string) presource.PropertyMap {
		for _, reg := range registered {
			if reg.Name == name {
				return reg.Inputs["spec"].ObjectValue()
			}
		}
		t.Fatalf("%s not registered", name)
		return nil
	}
	// The engine sees each top-level field of a spec that holds an unknown as unknown (how the Go
	// SDK sends a plain map holding an output); the others keep their values.
	class := spec("karpenter-nodeclass-custom")
	for _, field := range []string{"subnetSelectorTerms", "tags", "userData"} {
		assert.True(t, class[presource.PropertyKey(field)].ContainsUnknowns(), field)
	}
	assert.Equal(t, "al2023@latest", class["amiSelectorTerms"].ArrayValue()[0].ObjectValue()["alias"].StringValue(), "what is known stays known")
	pool := spec("karpenter-nodepool-p")
	assert.True(t, pool["template"].ContainsUnknowns(), "the labels and annotations")
	require.True(t, pool["disruption"].IsObject())
	assert.False(t, pool["disruption"].ContainsUnknowns())
	for _, reg := range registered {
		assert.NotContains(t, fmt.Sprint(reg.Inputs.Mappable()), "unknown-", "no placeholder reaches a child")
	}
}

// Java and .NET build a map holding an output as one output: at a preview the whole map is
// unknown. A map whose values only pass through takes it; the field is unknown in the child.
func TestAWholeMapUnknownAtAPreview(t *testing.T) {
	cluster := urn.URN("urn:pulumi:stack::project::aws:eks/cluster:Cluster::demo")
	unknown := property.New(property.Computed).WithDependencies([]urn.URN{cluster})
	parsed, err := rendertest.ParseArgs([]byte(argstest.WithDefaults(t, `{"nodeClasses":[{"name":"custom","tags":{"x":"y"}}],"nodePools":[{"name":"p","annotations":{"x":"y"}}]}`)))
	require.NoError(t, err)
	pool := parsed.Inputs.Get("nodePools").AsArray().Get(0).AsMap().Set("annotations", unknown)
	class := parsed.Inputs.Get("nodeClasses").AsArray().Get(0).AsMap().Set("tags", unknown)
	parsed.Inputs = parsed.Inputs.Set("nodePools", property.New([]property.Value{property.New(pool)})).
		Set("nodeClasses", property.New([]property.Value{property.New(class)}))
	parsed.Preview = true
	h, err := rendertest.StartHost(t.Context(), &render.Mocks{}, parsed.Project, parsed.Stack)
	require.NoError(t, err)
	defer h.Close()
	_, registered, err := h.Construct(t.Context(), parsed)
	require.NoError(t, err)
	for _, reg := range registered {
		switch reg.Name {
		case "karpenter-nodeclass-custom":
			assert.True(t, reg.Inputs["spec"].ObjectValue()["tags"].ContainsUnknowns())
		case "karpenter-nodepool-p":
			assert.True(t, reg.Inputs["spec"].ObjectValue()["template"].ContainsUnknowns())
		}
		assert.NotContains(t, fmt.Sprint(reg.Inputs.Mappable()), "unknown-", "no placeholder reaches a child")
	}
}
