package provider

import (
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/plan"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/urn"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	"github.com/stretchr/testify/assert"
)

// Where an input's value comes from, as the engine sent its dependencies: on the value itself, or
// on a list or map that holds it (a list given as one output; a top-level input's dependencies),
// known or not.
func TestInputsTellWhereTheyComeFrom(t *testing.T) {
	const (
		eks     = urn.URN("urn:pulumi:dev::p::eks:index:Cluster::demo")
		control = urn.URN("urn:pulumi:dev::p::eks:index:Cluster$aws:eks/cluster:Cluster::demo-eksCluster")
		vpc     = urn.URN("urn:pulumi:dev::p::awsx:ec2:Vpc::vpc")
	)
	inputs := property.NewMap(map[string]property.Value{
		"clusterName": property.New("demo-eksCluster-1234567").WithDependencies([]urn.URN{eks, control}),
		"discovery": property.New(map[string]property.Value{
			"subnetIds": property.New([]property.Value{property.New("subnet-1")}).WithDependencies([]urn.URN{vpc}),
			"securityGroupIds": property.New([]property.Value{
				property.New(property.Computed).WithDependencies([]urn.URN{eks}),
				property.New("sg-literal"),
			}),
		}),
	})
	resourcesAt := func(path *field.Path) []plan.Resource { return resourcesOf(dependenciesAt(inputs, path)) }
	clusterName, subnets, groups := field.NewPath("clusterName"), field.NewPath("discovery", "subnetIds"), field.NewPath("discovery", "securityGroupIds")

	assert.ElementsMatch(t, []plan.Resource{{Type: "eks:index:Cluster", Name: "demo"}, {Type: "aws:eks/cluster:Cluster", Name: "demo-eksCluster"}}, resourcesAt(clusterName))
	assert.Equal(t, []plan.Resource{{Type: "awsx:ec2:Vpc", Name: "vpc"}}, resourcesAt(subnets.Index(0)), "the list's dependencies are its elements'")
	assert.Equal(t, []plan.Resource{{Type: "eks:index:Cluster", Name: "demo"}}, resourcesAt(groups.Index(0)), "unknown, with its dependencies")
	assert.Empty(t, resourcesAt(groups.Index(1)), "a literal id comes from nowhere")
	assert.Empty(t, resourcesAt(groups.Index(2)), "past the end")

	v, ok := inputAt(inputs, clusterName)
	assert.True(t, ok)
	assert.Equal(t, "demo-eksCluster-1234567", v.AsString())
	_, ok = inputAt(inputs, groups.Index(0))
	assert.False(t, ok, "an unknown value is not known")
}
