package children_test

import (
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/children"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/argstest"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/rendertest"

	"github.com/stretchr/testify/assert"
)

// An install's IAM roles and policies may have a path (terraform-aws-modules' `iam_role_path`,
// `node_iam_role_path`, `iam_policy_path`): their ARNs are not built from the name alone. The
// adoption reads them (getRole; getPolicy under path "/", then by name) and uses the ARN as read wherever an ARN
// names them — import ids, the controller's PassRole, the node access entry — while aws-auth's
// mapRoles takes the node role's ARN without its path, as EKS documents.
func TestAdoptionKeepsIAMPaths(t *testing.T) {
	paths := `{"iamPaths":{"KarpenterNodeRole-demo":"/karpenter/","KarpenterControllerNodeLifecyclePolicy-demo":"/karpenter/"}}`
	r := rendertest.Args(t, adoptWithCluster(t, paths))
	nodeRole := "arn:aws:iam::123456789012:role/karpenter/KarpenterNodeRole-demo"
	lifecycle := "arn:aws:iam::123456789012:policy/karpenter/KarpenterControllerNodeLifecyclePolicy-demo"
	assert.Equal(t, lifecycle, r.Get("karpenter-controller-node-lifecycle").ImportID)
	assert.Equal(t, "demo-karpenter/"+lifecycle, r.Get("karpenter-controller-node-lifecycle-attach").ImportID)
	assert.Equal(t, "arn:aws:iam::123456789012:policy/KarpenterControllerZonalShiftPolicy-demo", r.Get("karpenter-controller-zonal-shift").ImportID, "a policy without a path")
	assert.Equal(t, "KarpenterNodeRole-demo", r.Get("karpenter-node").ImportID, "a role is imported by its name")
	assert.Equal(t, "demo:"+nodeRole, r.Get("karpenter-node-access").ImportID)
	assert.Equal(t, nodeRole, r.Get("karpenter-node-access").String("principalArn"))
	assert.Contains(t, r.Get("karpenter-controller-iam-integration").String("policy"), `"Resource":"`+nodeRole+`"`, "PassRole names the role with its path")
	// A policy is read under path "/" first (one GetPolicy), by name only when it is not there
	// (pulumi-aws then lists every policy of the account).
	var byArn, byName []string
	for _, inv := range r.Invokes {
		if inv.Token == children.InvokePolicy {
			if a, ok := inv.Args["arn"].(string); ok {
				byArn = append(byArn, a)
			} else {
				byName = append(byName, inv.Args["name"].(string))
			}
		}
	}
	assert.Contains(t, byArn, "arn:aws:iam::123456789012:policy/KarpenterControllerNodeLifecyclePolicy-demo")
	assert.Contains(t, byArn, "arn:aws:iam::123456789012:policy/KarpenterControllerZonalShiftPolicy-demo")
	assert.Equal(t, []string{"KarpenterControllerNodeLifecyclePolicy-demo"}, byName, "only the policy under a path is looked up by name")

	r = rendertest.Args(t, argstest.Merge(t, adoptWithCluster(t, paths), `{"nodeAccess":"awsAuth"}`))
	mapRoles := r.Get("karpenter-aws-auth").String("data.mapRoles")
	assert.Contains(t, mapRoles, "rolearn: arn:aws:iam::123456789012:role/KarpenterNodeRole-demo\n")
	assert.NotContains(t, mapRoles, "role/karpenter/")
}
