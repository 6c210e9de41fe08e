package plan

import (
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputs"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// program is what the engine sent of a program's inputs: values known at Construct, and the
// resources each path's value is an output of.
type program struct {
	values map[string]string
	from   map[string][]Resource
}

func (pr program) known() Known {
	return Known{
		Value: func(path *field.Path) (string, bool) { v, ok := pr.values[path.String()]; return v, ok },
		From:  func(path *field.Path) []Resource { return pr.from[path.String()] },
	}
}

var (
	eksCluster = Resource{Type: "eks:index:Cluster", Name: "demo"}
	awsxVpc    = Resource{Type: "awsx:ec2:Vpc", Name: "vpc"}
	eksControl = Resource{Type: "aws:eks/cluster:Cluster", Name: "demo-eksCluster"}
)

func withDiscovery(subnets, groups int) inputs.KarpenterArgs {
	a := args()
	a.Discovery = &inputs.Discovery{}
	for range subnets {
		a.Discovery.SubnetIds = append(a.Discovery.SubnetIds, pulumi.String("subnet-0123"))
	}
	for range groups {
		a.Discovery.SecurityGroupIds = append(a.Discovery.SecurityGroupIds, pulumi.String("sg-0123"))
	}
	return a
}

// pulumi-eks makes security groups with tags of their own, and no subnets (core.subnetIds are the
// VPC's): the README's discovery input, as it was, is refused for its security group only, with
// pulumi-eks's input to use instead.
func TestDiscoveryIdsOfAnOwnerAreRefused(t *testing.T) {
	pr := program{
		values: map[string]string{"discovery.securityGroupIds[0]": "sg-node"},
		from: map[string][]Resource{
			"discovery.subnetIds[0]":        {eksCluster},
			"discovery.securityGroupIds[0]": {eksCluster},
		},
	}
	read := &Cluster{Name: "demo", AuthenticationMode: inputs.AuthenticationModeApi, SecurityGroupID: "sg-cluster"}
	_, err := New("karpenter", withDiscovery(1, 1), pr.known(), read)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `discovery.securityGroupIds[0]: this security group comes from eks:index:Cluster "demo", which manages its tags`)
	assert.Contains(t, err.Error(), `tag it through its owner instead — set demo's nodeSecurityGroupTags`)
	assert.NotContains(t, err.Error(), "discovery.subnetIds[0]", "pulumi-eks makes no subnets")

	// pulumi-eks's outputs may also carry the group EKS made for the cluster, told apart by its id:
	// until the id and the cluster are known (a cluster this update creates), the check waits for
	// `up`, before any child; a component that never reads the cluster decides by the dependencies.
	p, err := New("karpenter", withDiscovery(1, 1), program{from: pr.from}.known(), nil)
	require.NoError(t, err)
	assert.Contains(t, p.ClusterChecks(), `that discovery.securityGroupIds[0], from eks:index:Cluster "demo", is not a security group whose tags demo manages`)
	noRead := withDiscovery(1, 1)
	noRead.ReadCluster = new(false)
	_, err = New("karpenter", noRead, program{from: pr.from}.known(), nil)
	assert.ErrorContains(t, err, `discovery.securityGroupIds[0]: this security group comes from eks:index:Cluster "demo"`)

	// awsx makes its subnets with subnetSpecs' tags.
	pr = program{from: map[string][]Resource{"discovery.subnetIds[1]": {awsxVpc}}}
	_, err = New("karpenter", withDiscovery(2, 0), pr.known(), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `discovery.subnetIds[1]: this subnet comes from awsx:ec2:Vpc "vpc"`)
	assert.Contains(t, err.Error(), "set vpc's subnetSpecs[].tags to include")

	// An aws.ec2.SecurityGroup of the program, among other dependencies.
	pr = program{from: map[string][]Resource{"discovery.securityGroupIds[0]": {{Type: "random:index/randomId:RandomId", Name: "x"}, {Type: "aws:ec2/securityGroup:SecurityGroup", Name: "nodes"}}}}
	_, err = New("karpenter", withDiscovery(0, 1), pr.known(), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `set nodes's tags to include {"karpenter.sh/discovery": "<cluster name>"}`)
}

// Ids no resource of the program tags: none from the program, the default VPC's subnets through
// pulumi-eks, and the security group EKS made for the cluster (through the EKS cluster resource,
// or the very id the cluster reports).
func TestDiscoveryIdsWithoutAnOwnerAreTagged(t *testing.T) {
	for name, pr := range map[string]program{
		"literal ids":                   {},
		"pulumi-eks's subnets":          {from: map[string][]Resource{"discovery.subnetIds[0]": {eksCluster}}},
		"through the EKS cluster":       {from: map[string][]Resource{"discovery.securityGroupIds[0]": {eksCluster, eksControl}}},
		"not known yet":                 {from: map[string][]Resource{"discovery.securityGroupIds[0]": {eksCluster}}},
		"the cluster's security group":  {values: map[string]string{"discovery.securityGroupIds[0]": "sg-cluster"}, from: map[string][]Resource{"discovery.securityGroupIds[0]": {eksCluster}}},
		"an owner of no security group": {from: map[string][]Resource{"discovery.securityGroupIds[0]": {awsxVpc}}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := New("karpenter", withDiscovery(1, 1), pr.known(), &Cluster{Name: "demo", AuthenticationMode: inputs.AuthenticationModeApi, SecurityGroupID: "sg-cluster"})
			assert.NoError(t, err)
		})
	}
}

// On a CONFIG_MAP cluster made by pulumi-eks, whose aws-auth ConfigMap pulumi-eks writes whole,
// the component's mapping would not survive pulumi-eks's next update: refused, with the ways
// out. On an API_AND_CONFIG_MAP cluster node access is an access entry and aws-auth is not touched.
func TestAwsAuthOfPulumiEksIsNotShared(t *testing.T) {
	pr := program{values: map[string]string{"clusterName": "demo-eksCluster-1234567"}, from: map[string][]Resource{"clusterName": {eksCluster, eksControl}}}
	configMap := &Cluster{Name: "demo-eksCluster-1234567", AuthenticationMode: inputs.AuthenticationModeConfigMap}
	_, err := New("karpenter", args(), pr.known(), configMap)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `nodeAccess: awsAuth (the component follows the cluster's CONFIG_MAP mode), but kube-system/aws-auth belongs to eks:index:Cluster "demo"`)
	assert.Contains(t, err.Error(), `authenticationMode: "API" or "API_AND_CONFIG_MAP" on demo`)
	assert.Contains(t, err.Error(), "add it to demo's roleMappings or instanceRoles and pass it as nodeRoleArn")

	a := args()
	a.NodeAccess = new(inputs.NodeAccessAwsAuth)
	_, err = New("karpenter", a, pr.known(), nil) // the cluster not read yet: the input says it
	require.ErrorContains(t, err, `nodeAccess: awsAuth, but kube-system/aws-auth belongs to eks:index:Cluster "demo"`)

	p, err := New("karpenter", args(), pr.known(), &Cluster{Name: "demo-eksCluster-1234567", AuthenticationMode: inputs.AuthenticationModeApiAndConfigMap})
	require.NoError(t, err)
	assert.Equal(t, inputs.NodeAccessEntry, p.NodeAccess)

	// A cluster of another maker (or none known) keeps its aws-auth mapping.
	p, err = New("karpenter", args(), program{}.known(), configMap)
	require.NoError(t, err)
	assert.Equal(t, inputs.NodeAccessAwsAuth, p.NodeAccess)

	// While the cluster's mode is not known, the preview says what `up` will check.
	p, err = New("karpenter", args(), pr.known(), nil)
	require.NoError(t, err)
	assert.Contains(t, p.ClusterChecks(), `that node access needs no aws-auth mapping, since eks:index:Cluster "demo" writes kube-system/aws-auth whole (a CONFIG_MAP cluster is refused)`)
}

// aws-auth's field managers: a manager that applies its own mapRoles (server-side apply, or
// kubectl's client-side apply) owns it; one that updates it in place (eksctl, EKS), the
// component's own patch and an owner of other keys do not.
func TestAwsAuthManagers(t *testing.T) {
	p, err := New("karpenter", args(), program{}.known(), &Cluster{Name: "demo", AuthenticationMode: inputs.AuthenticationModeConfigMap})
	require.NoError(t, err)
	mapRoles := map[string]any{"f:data": map[string]any{"f:mapRoles": map[string]any{}}}
	mapUsers := map[string]any{"f:data": map[string]any{"f:mapUsers": map[string]any{}}}

	err = p.CheckAwsAuthManagers([]FieldManager{
		{Manager: "eks", Operation: "Update", Fields: mapRoles},
		{Manager: "pulumi-karpenter", Operation: "Apply", Fields: mapRoles},
		{Manager: "pulumi-kubernetes-1a2b3c4d", Operation: "Apply", Fields: mapUsers},
		{Manager: "eksctl", Operation: "Update", Fields: mapRoles},
	})
	assert.NoError(t, err)

	err = p.CheckAwsAuthManagers([]FieldManager{{Manager: "pulumi-kubernetes-1a2b3c4d", Operation: "Apply", Fields: mapRoles}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "nodeAccess: awsAuth (the component follows the cluster's CONFIG_MAP mode), but kube-system/aws-auth's mapRoles belongs to field manager pulumi-kubernetes-1a2b3c4d, which applies its own mapRoles")
	assert.Contains(t, err.Error(), "add the node role to pulumi-kubernetes-1a2b3c4d's mapping yourself (the component's nodeRoleMapping output is the entry) and set nodeAccess: none")

	err = p.CheckAwsAuthManagers([]FieldManager{{Manager: "kubectl-client-side-apply", Operation: "Update", Fields: mapRoles}})
	assert.ErrorContains(t, err, "field manager kubectl-client-side-apply, which writes its own mapRoles over the live one (`kubectl apply`)")
}
