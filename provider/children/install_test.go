package children_test

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/argstest"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/rendertest"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/render"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

func TestPodIdentity(t *testing.T) {
	r := rendertest.Args(t, `{"clusterName":"demo","controllerIdentity":"podIdentity"}`)
	rendertest.AssertSamePolicy(t, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"pods.eks.amazonaws.com"},"Action":["sts:AssumeRole","sts:TagSession"]}]}`,
		r.Get("karpenter-controller").Inputs["assumeRolePolicy"].(string), "pod identity trust")
	association := r.Get("karpenter-pod-identity").Inputs
	assert.Equal(t, "demo", association["clusterName"])
	assert.Equal(t, "kube-system", association["namespace"])
	assert.Equal(t, "karpenter", association["serviceAccount"])
	assert.Equal(t, r.Outputs["controllerRoleArn"], association["roleArn"])
	values := r.Get("karpenter-release").Inputs["values"].(map[string]any)
	assert.Nil(t, rendertest.Dig(values, "serviceAccount", "annotations"), "no IRSA annotation: it would win over Pod Identity")
	assert.Contains(t, r.Get("karpenter-release").DependsOn, "karpenter-pod-identity", "the controller starts with its credentials")
	assert.False(t, r.Has("karpenter-pod-identity-agent"), "the agent is checked, not installed, unless asked")
}

func TestPodIdentityNeedsTheAgent(t *testing.T) {
	args, err := rendertest.ParseArgs([]byte(`{"clusterName":"demo","controllerIdentity":"podIdentity"}`))
	require.NoError(t, err)
	_, err = rendertest.RenderWith(context.Background(), args, &render.Mocks{MissingAddons: map[string]bool{"eks-pod-identity-agent": true}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "controllerIdentity: podIdentity needs the eks-pod-identity-agent add-on on cluster demo")

	r := rendertest.Args(t, `{"clusterName":"demo","controllerIdentity":"podIdentity","createPodIdentityAgent":true}`)
	assert.Equal(t, "eks-pod-identity-agent", r.Get("karpenter-pod-identity-agent").Inputs["addonName"])
	assert.Contains(t, r.Get("karpenter-release").DependsOn, "karpenter-pod-identity-agent")
}

// During a migration the role trusts both and keeps the IRSA annotation, so running pods keep
// working; switching to podIdentity then drops the annotation.
func TestMigratingFromIRSAToPodIdentity(t *testing.T) {
	r := rendertest.Args(t, argstest.WithDefaults(t, `{"controllerIdentity":"both"}`))
	var doc catalog.PolicyDocument
	require.NoError(t, json.Unmarshal([]byte(r.Get("karpenter-controller").Inputs["assumeRolePolicy"].(string)), &doc))
	require.Len(t, doc.Statement, 2)
	assert.Equal(t, catalog.List{"sts:AssumeRoleWithWebIdentity"}, doc.Statement[0].Action)
	assert.Equal(t, catalog.List{"sts:AssumeRole", "sts:TagSession"}, doc.Statement[1].Action)
	assert.True(t, r.Has("karpenter-pod-identity"))
	values := r.Get("karpenter-release").Inputs["values"].(map[string]any)
	assert.NotNil(t, rendertest.Dig(values, "serviceAccount", "annotations", "eks.amazonaws.com/role-arn"))
	irsa := rendertest.Default(t)
	assert.Equal(t, irsa.Outputs["controllerRoleName"], r.Outputs["controllerRoleName"], "the same role, not a new one")
}

func TestNodeAccessModes(t *testing.T) {
	for _, tc := range []struct {
		args       string
		entry      string
		awsAuth    bool
		nameAbsent string
	}{
		{`{}`, "EC2_LINUX", false, ""},
		{`{"clusterAuthenticationMode":"API"}`, "EC2_LINUX", false, ""},
		{`{"nodeClasses":[{"name":"win","amiAlias":"windows2022@latest"}]}`, "EC2_WINDOWS", false, ""},
		{`{"clusterAuthenticationMode":"CONFIG_MAP"}`, "", true, ""},
		{`{"nodeAccess":"awsAuth"}`, "", true, ""},
		{`{"nodeAccess":"none"}`, "", false, ""},
	} {
		r := rendertest.Args(t, argstest.WithDefaults(t, tc.args))
		if tc.entry != "" {
			assert.Equal(t, tc.entry, r.Get("karpenter-node-access").Inputs["type"], tc.args)
		} else {
			assert.False(t, r.Has("karpenter-node-access"), tc.args)
		}
		assert.Equal(t, tc.awsAuth, r.Has("karpenter-aws-auth"), tc.args)
	}
	byo := rendertest.Args(t, argstest.WithDefaults(t, `{"nodeRoleArn":"arn:aws:iam::123456789012:role/nodes","nodeAccess":"accessEntry"}`))
	assert.Equal(t, "arn:aws:iam::123456789012:role/nodes", byo.Get("karpenter-node-access").Inputs["principalArn"], "explicit access for a role the component does not own")
}

func TestAwsAuthKeepsOtherMappings(t *testing.T) {
	r := rendertest.Args(t, argstest.WithDefaults(t, `{"clusterAuthenticationMode":"CONFIG_MAP"}`))
	read := r.Get("karpenter-aws-auth-current")
	assert.Equal(t, "kube-system/aws-auth", read.ReadID, "the live aws-auth is read, not created")
	patch := r.Get("karpenter-aws-auth").Inputs
	assert.Equal(t, "aws-auth", rendertest.Dig(patch, "metadata", "name"))
	assert.Equal(t, "kube-system", rendertest.Dig(patch, "metadata", "namespace"))
	var roles []map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(rendertest.Dig(patch, "data", "mapRoles").(string)), &roles))
	require.Len(t, roles, 2)
	assert.Equal(t, "arn:aws:iam::123456789012:role/managed-node-group", roles[0]["rolearn"], "the existing entry is kept as it was")
	assert.Equal(t, r.Outputs["nodeRoleArn"], roles[1]["rolearn"])
	assert.Equal(t, "system:node:{{EC2PrivateDNSName}}", roles[1]["username"])
	assert.Equal(t, []any{"system:bootstrappers", "system:nodes"}, roles[1]["groups"])
	assert.Contains(t, r.Get("karpenter-nodepool-default").DependsOn, "karpenter-aws-auth", "nodes launch only once they can join")
	assert.True(t, r.Get("karpenter-aws-auth").RetainOnDelete, "destroy must not remove the mapRoles field it took over")
}

func TestDiscoveryTagsAndSpotRole(t *testing.T) {
	r := rendertest.Args(t, argstest.WithDefaults(t, `{"discovery":{"subnetIds":["subnet-0a","subnet-0b"],"securityGroupIds":["sg-0c"]},"createSpotServiceLinkedRole":true}`))
	for name, id := range map[string]string{"karpenter-discovery-subnet-0": "subnet-0a", "karpenter-discovery-subnet-1": "subnet-0b", "karpenter-discovery-security-group-0": "sg-0c"} {
		tag := r.Get(name).Inputs
		assert.Equal(t, map[string]any{"resourceId": id, "key": "karpenter.sh/discovery", "value": "demo"}, tag)
		assert.Contains(t, r.Get("karpenter-nodeclass-default").DependsOn, name, "tags outlive the nodes that need them")
	}
	assert.Equal(t, "spot.amazonaws.com", r.Get("karpenter-spot-service-linked-role").Inputs["awsServiceName"])
	assert.True(t, r.Get("karpenter-spot-service-linked-role").RetainOnDelete, "the account-wide role is kept on destroy")
	assert.Contains(t, r.Get("karpenter-release").DependsOn, "karpenter-spot-service-linked-role")

	// The account has one such role: where it exists the component imports it (creating it
	// would fail at `up`: "has been taken in this account"), where not it creates it.
	spot := `{"createSpotServiceLinkedRole":true}`
	arn := "arn:aws:iam::123456789012:role/aws-service-role/spot.amazonaws.com/AWSServiceRoleForEC2Spot"
	assert.Equal(t, arn, rendertest.Args(t, rendertest.WithCluster(t, `{}`, spot)).Get("karpenter-spot-service-linked-role").ImportID)
	assert.Empty(t, rendertest.Args(t, rendertest.WithCluster(t, `{"noSpotServiceLinkedRole":true}`, spot)).Get("karpenter-spot-service-linked-role").ImportID)
	assert.Contains(t, rendertest.Error(t, argstest.WithDefaults(t, `{"discovery":{"subnetIds":["sg-0a"]}}`)), `discovery.subnetIds[0]: "sg-0a" is not an id of the form subnet-<hex>`)
}

func TestNodeClassRolesCanBePassed(t *testing.T) {
	r := rendertest.Args(t, argstest.WithDefaults(t, `{"nodeClasses":[{"name":"a","role":"team-a-nodes"},{"name":"b","instanceProfile":"legacy-profile"},{"name":"c"}],"defaultNodePool":false}`))
	var doc catalog.PolicyDocument
	require.NoError(t, json.Unmarshal([]byte(r.Get("karpenter-controller-iam-integration").Inputs["policy"].(string)), &doc))
	assert.Equal(t, catalog.List{r.Outputs["nodeRoleArn"].(string), "arn:aws:iam::123456789012:role/team-a-nodes", "arn:aws:iam::123456789012:role/legacy-profile"},
		doc.Statement[0].Resource, "the node role, a class's role, and the role inside a class's instance profile")
}

func TestPrivateMirror(t *testing.T) {
	r := rendertest.Args(t, argstest.WithDefaults(t, `{"chartRepository":"https://artifactory.example.com/artifactory/api/helm/karpenter","repositoryUsername":"robot","repositoryPassword":"token-value",
		"controllerImageRepository":"123456789012.dkr.ecr.us-west-2.amazonaws.com/karpenter/controller"}`))
	for _, name := range []string{"karpenter-release", "karpenter-crd-release"} {
		rel := r.Get(name).Inputs
		assert.Equal(t, "https://artifactory.example.com/artifactory/api/helm/karpenter", rendertest.Dig(rel, "repositoryOpts", "repo"), name)
		assert.Equal(t, "robot", rendertest.Dig(rel, "repositoryOpts", "username"), name)
		assert.Equal(t, "[secret]", rendertest.Dig(rel, "repositoryOpts", "password"), "%s: the token is a secret", name)
	}
	values := r.Get("karpenter-release").Inputs["values"].(map[string]any)
	assert.Equal(t, "123456789012.dkr.ecr.us-west-2.amazonaws.com/karpenter/controller", rendertest.Dig(values, "controller", "image", "repository"))
	out, err := rendertest.JSON(context.Background(), []byte(argstest.WithDefaults(t, `{"chartRepository":"https://charts.example.com","repositoryPassword":"token-value"}`)))
	require.NoError(t, err)
	assert.NotContains(t, string(out), "token-value", "no secret in plain output")

	public := rendertest.Default(t)
	assert.Nil(t, public.Get("karpenter-release").Inputs["repositoryOpts"], "public ECR needs no credentials")

	// An OCI mirror takes no credentials: the login does it (the engine test proves the provider
	// drops them).
	oci := rendertest.Args(t, argstest.WithDefaults(t, `{"chartRepository":"oci://123456789012.dkr.ecr.us-west-2.amazonaws.com/mirror"}`))
	assert.Equal(t, "oci://123456789012.dkr.ecr.us-west-2.amazonaws.com/mirror/karpenter", oci.Get("karpenter-release").Inputs["chart"])
	assert.Nil(t, oci.Get("karpenter-release").Inputs["repositoryOpts"])
	msg := rendertest.Error(t, argstest.WithDefaults(t, `{"chartRepository":"oci://123456789012.dkr.ecr.us-west-2.amazonaws.com/mirror","repositoryUsername":"AWS","repositoryPassword":"token-value"}`))
	for _, field := range []string{"repositoryUsername", "repositoryPassword"} {
		assert.Contains(t, msg, field+": the kubernetes provider does not send credentials to an OCI registry")
	}
	assert.Contains(t, msg, "helm registry login 123456789012.dkr.ecr.us-west-2.amazonaws.com")
	assert.Contains(t, rendertest.Error(t, argstest.WithDefaults(t, `{"repositoryUsername":"AWS"}`)), "repositoryUsername: the kubernetes provider does not send credentials to an OCI registry",
		"the default public ECR registry is OCI too")
}

// Destroy runs in the reverse of a topological order of the graph. Custom resources go first
// (Karpenter still runs with its permissions and drains its nodes), then the controller, then
// its IAM, credentials and queue; node IAM, access, and discovery tags outlive the nodes.
func TestDestroyOrder(t *testing.T) {
	r := rendertest.Args(t, argstest.WithDefaults(t, `{"controllerIdentity":"both","discovery":{"subnetIds":["subnet-0a"]},"createSpotServiceLinkedRole":true}`))
	position := destroyOrder(t, r)
	before := func(first, then string) {
		t.Helper()
		assert.Less(t, position[first], position[then], "%s is destroyed before %s", first, then)
	}
	for _, cr := range []string{"karpenter-nodepool-default", "karpenter-nodeclass-default"} {
		before(cr, "karpenter-release")
		before(cr, "karpenter-crd-release")
		for _, kept := range []string{"karpenter-node", "karpenter-node-worker", "karpenter-node-access", "karpenter-node-profile", "karpenter-discovery-subnet-0"} {
			before(cr, kept)
		}
	}
	for _, dep := range []string{"karpenter-controller", "karpenter-controller-node-lifecycle-attach", "karpenter-controller-node-lifecycle",
		"karpenter-interruption", "karpenter-pod-identity", "karpenter-crd-release", "karpenter-spot-interruption-target"} {
		before("karpenter-release", dep)
	}
}

// destroyOrder orders the rendered resources as a destroy does: a resource goes only after
// everything that depends on it. Ties break by name, so the order is deterministic.
func destroyOrder(t *testing.T, r *rendertest.Rendered) map[string]int {
	dependents := map[string][]string{}
	remaining := map[string]int{}
	for _, res := range r.Resources {
		remaining[res.Name] += 0
		for _, dep := range res.DependsOn {
			dependents[dep] = append(dependents[dep], res.Name)
			remaining[dep]++
		}
	}
	position := map[string]int{}
	for len(position) < len(remaining) {
		var ready []string
		for name, n := range remaining {
			if _, done := position[name]; !done && n == 0 {
				ready = append(ready, name)
			}
		}
		require.NotEmpty(t, ready, "the dependency graph has a cycle")
		sort.Strings(ready)
		for _, name := range ready {
			position[name] = len(position)
			for _, res := range r.Resources {
				if res.Name == name {
					for _, dep := range res.DependsOn {
						remaining[dep]--
					}
				}
			}
		}
	}
	return position
}

// The same inputs in another order (object keys, tag maps) render byte-identical output, so a
// second `pulumi up` shows no diff.
func TestNoPerpetualDiffs(t *testing.T) {
	a := `{"clusterName":"demo","oidcProviderArn":"arn:aws:iam::123456789012:oidc-provider/x/id/E","tags":{"a":"1","b":"2","c":"3"},
		"nodePools":[{"name":"p","labels":{"x":"1","y":"2"},"limits":{"cpu":"10","memory":"10Gi"}}],
		"nodeRoleAdditionalPolicyArns":{"one":"arn:aws:iam::aws:policy/One","two":"arn:aws:iam::aws:policy/Two"},
		"values":{"replicas":1,"settings":{"isolatedVPC":true,"batchMaxDuration":"10s"}}}`
	b := `{"values":{"settings":{"batchMaxDuration":"10s","isolatedVPC":true},"replicas":1},
		"nodeRoleAdditionalPolicyArns":{"two":"arn:aws:iam::aws:policy/Two","one":"arn:aws:iam::aws:policy/One"},
		"nodePools":[{"limits":{"memory":"10Gi","cpu":"10"},"labels":{"y":"2","x":"1"},"name":"p"}],
		"tags":{"c":"3","b":"2","a":"1"},"oidcProviderArn":"arn:aws:iam::123456789012:oidc-provider/x/id/E","clusterName":"demo"}`
	first, err := rendertest.JSON(context.Background(), []byte(a))
	require.NoError(t, err)
	second, err := rendertest.JSON(context.Background(), []byte(b))
	require.NoError(t, err)
	assert.Equal(t, string(first), string(second))
	assert.True(t, strings.Contains(string(first), "karpenter-node-extra-one"))
}

// A self-managed node class with a role of its own launches nodes of that role (Karpenter makes
// its instance profile): they get node access like the node role's, or they never join.
func TestAClassWithItsOwnRoleGetsNodeAccess(t *testing.T) {
	classes := `"nodeClasses":[{"name":"general"},{"name":"gpu","role":"gpu-nodes"},{"name":"legacy","instanceProfile":"legacy-profile"}],"nodePools":[{"name":"gpu","nodeClassRef":"gpu"}]`
	r := rendertest.Args(t, argstest.WithDefaults(t, `{"nodeAccess":"accessEntry",`+classes+`}`))
	assert.Equal(t, "arn:aws:iam::123456789012:role/gpu-nodes", r.Get("karpenter-nodeclass-gpu-access").Inputs["principalArn"])
	assert.Equal(t, "EC2_LINUX", r.Get("karpenter-nodeclass-gpu-access").Inputs["type"])
	assert.Contains(t, r.Get("karpenter-nodepool-gpu").DependsOn, "karpenter-nodeclass-gpu-access", "its nodes launch once they can join")
	assert.False(t, r.Has("karpenter-nodeclass-legacy-access"), "a pre-made instance profile is the user's (it usually holds the node role)")
	assert.False(t, r.Has("karpenter-nodeclass-general-access"), "a class on the node role")

	r = rendertest.Args(t, argstest.WithDefaults(t, `{"clusterAuthenticationMode":"CONFIG_MAP",`+classes+`}`))
	var roles []map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(rendertest.Dig(r.Get("karpenter-aws-auth").Inputs, "data", "mapRoles").(string)), &roles))
	var arns []any
	for _, role := range roles {
		arns = append(arns, role["rolearn"])
	}
	assert.Equal(t, []any{"arn:aws:iam::123456789012:role/managed-node-group", r.Outputs["nodeRoleArn"], "arn:aws:iam::123456789012:role/gpu-nodes"}, arns)

	assert.Contains(t, rendertest.Error(t, argstest.WithDefaults(t, `{"nodeAccess":"accessEntry","nodeRoleArn":"arn:aws:iam::123456789012:role/nodes","nodeClasses":[{"name":"a","role":"nodes"}]}`)),
		"nodeClasses[0].role")
}
