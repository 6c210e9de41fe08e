package inputs

import (
	"reflect"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/urn"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEditDistance(t *testing.T) {
	assert.Equal(t, 0, editDistance("maxPods", "maxPods"))
	assert.Equal(t, 1, editDistance("maxPod", "maxPods"))
	assert.Equal(t, 2, editDistance("volumSize", "volumeSise"))
	assert.Equal(t, 3, editDistance("", "abc"))
}

// Output values inside the plain parts of the inputs (what every SDK sends for a pool annotation
// or a class tag wired from another resource) reach the component as their values when they are
// known; an unknown one in a field that only passes through (an annotation) stands as a
// placeholder during a preview; any other unknown, or a secret, fails naming its path.
func TestResolvePlainOutputs(t *testing.T) {
	dep := urn.URN("urn:pulumi:dev::p::aws:iam/role:Role::cluster")
	known := property.New("e2e-cluster-1").WithDependencies([]urn.URN{dep})
	unknown := property.New(property.Computed).WithDependencies([]urn.URN{dep})
	inputs := func(annotation, weight, userData property.Value) property.Map {
		return property.NewMap(map[string]property.Value{
			"clusterName": unknown, // an Input: passed on as it is
			"nodePools": property.New([]property.Value{property.New(map[string]property.Value{
				"name":        property.New("general"),
				"annotations": property.New(map[string]property.Value{"example.com/cluster": annotation}),
				"weight":      weight,
			})}),
			"nodeClasses": property.New([]property.Value{property.New(map[string]property.Value{
				"name":     property.New("general"),
				"userData": userData,
				"role":     unknown, // an Input
			})}),
		})
	}
	args := reflect.TypeFor[KarpenterArgs]()
	pool := func(m property.Map) property.Map { return m.Get("nodePools").AsArray().Get(0).AsMap() }

	t.Run("known values with dependencies become plain values", func(t *testing.T) {
		for _, preview := range []bool{true, false} {
			got, _, err := ResolvePlainOutputs(inputs(known, property.New(5.0).WithDependencies([]urn.URN{dep}), known), args, preview)
			require.NoError(t, err)
			assert.Equal(t, property.New("e2e-cluster-1"), pool(got).Get("annotations").AsMap().Get("example.com/cluster"))
			assert.Equal(t, property.New(5.0), pool(got).Get("weight"))
			assert.Equal(t, unknown, got.Get("clusterName"), "Inputs keep their output values")
			assert.Equal(t, unknown, got.Get("nodeClasses").AsArray().Get(0).AsMap().Get("role"))
		}
	})
	t.Run("an unknown or a secret fails naming its path", func(t *testing.T) {
		_, _, err := ResolvePlainOutputs(inputs(unknown, unknown, property.New("#!/bin/sh").WithSecret(true)), args, true)
		require.Error(t, err)
		for _, want := range []string{
			"nodePools[0].weight: the value is an output of a resource that is not known during preview, and the component plans its children from this field",
			"nodeClasses[0].userData: a secret cannot be given here",
		} {
			assert.Contains(t, err.Error(), want)
		}
		assert.NotContains(t, err.Error(), "annotations", "an annotation only passes through: it may be unknown at a preview")
		assert.NotContains(t, err.Error(), "role", "an Input may be unknown")
		assert.NotContains(t, err.Error(), "clusterName", "an Input may be unknown")
	})
	t.Run("an unknown value that only passes through stands as a placeholder at a preview", func(t *testing.T) {
		got, _, err := ResolvePlainOutputs(inputs(unknown, property.New(5.0), unknown), args, true)
		require.NoError(t, err)
		annotation := pool(got).Get("annotations").AsMap().Get("example.com/cluster")
		assert.True(t, annotation.IsString() && IsUnknown(annotation.AsString()), "a placeholder: %v", annotation)
		userData := got.Get("nodeClasses").AsArray().Get(0).AsMap().Get("userData")
		assert.True(t, IsUnknown(userData.AsString()))
		assert.False(t, IsUnknown("unknown-0"), "a value a user writes is never one")

		_, _, err = ResolvePlainOutputs(inputs(unknown, property.New(5.0), unknown), args, false)
		require.ErrorContains(t, err, `nodePools[0].annotations["example.com/cluster"]: the value is an output of a resource that is not known at `+"`pulumi up`",
			"at up every value is known: one that is not fails")

		whole := inputs(known, property.New(5.0), known)
		whole = whole.Set("nodePools", property.New([]property.Value{property.New(map[string]property.Value{
			"name": property.New("general"), "labels": unknown})}))
		got, _, err = ResolvePlainOutputs(whole, args, true)
		require.NoError(t, err, "a whole map unknown (Java's and .NET's maps built in an apply)")
		labels := pool(got).Get("labels").AsMap()
		for k, v := range labels.All {
			assert.True(t, IsUnknown(k) && IsUnknown(v.AsString()), "one placeholder entry stands for the map")
		}
	})
	t.Run("a discovery list a preview cannot know stands empty and waits for up", func(t *testing.T) {
		in := inputs(known, property.New(5.0), known).Set("discovery", property.New(map[string]property.Value{
			"subnetIds": unknown, "securityGroupIds": property.New([]property.Value{unknown})}))
		got, later, err := ResolvePlainOutputs(in, args, true)
		require.NoError(t, err)
		assert.Equal(t, []*field.Path{field.NewPath("discovery", "subnetIds")}, later)
		assert.Equal(t, 0, got.Get("discovery").AsMap().Get("subnetIds").AsArray().Len())
		assert.Equal(t, unknown, got.Get("discovery").AsMap().Get("securityGroupIds").AsArray().Get(0), "a known list of unknown ids is as it was")
		_, _, err = ResolvePlainOutputs(in, args, false)
		require.ErrorContains(t, err, "discovery.subnetIds: the value is an output of a resource that is not known at `pulumi up`")
	})
}
