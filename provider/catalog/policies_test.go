package catalog_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/internal/cfntemplate"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/rendertest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The expected documents below are the PolicyDocuments of the official Karpenter v1.14
// getting-started CloudFormation template (internal/cfntemplate), with its parameters
// substituted: ${AWS::Partition}=aws, ${AWS::Region}=us-west-2, ${AWS::AccountId}=123456789012,
// ${ClusterName}=demo, ${KarpenterNodeRole.Arn} and ${KarpenterInterruptionQueue.Arn} = the node
// role and queue ARNs the render reports in its outputs (read from the role and queue resources,
// not from the policy builder).
// The template writes some single actions as one-element lists and some as strings; IAM
// treats both the same, and so does the comparison.
const (
	tmplNodeRoleArn = "${NodeRoleArn}"
	tmplQueueArn    = "${QueueArn}"
)

// fillTemplate substitutes the template's resource references.
func fillTemplate(doc string, r *rendertest.Rendered) string {
	return strings.NewReplacer(
		tmplNodeRoleArn, r.Outputs["nodeRoleArn"].(string),
		tmplQueueArn, r.Outputs["interruptionQueueArn"].(string),
	).Replace(doc)
}

// v114Policies are the managed policies of the official v1.14 getting-started template
// (internal/cfntemplate: upstream's file, byte for byte), by the render's child names (the
// template's ManagedPolicyName is catalog.TemplatePolicyName of the child's key), evaluated for the
// renders' cluster; v114QueuePolicy is its KarpenterInterruptionQueuePolicy's document, plus the
// explicit Version the component adds (the template relies on the 2008 default).
var v114Policies, v114QueuePolicy = readV114Template()

func readV114Template() (map[string]string, string) {
	tmpl, err := cfntemplate.Parse(cfntemplate.GettingStartedV114, cfntemplate.Stack{
		Partition: "aws", Region: "us-west-2", AccountID: "123456789012", URLSuffix: "amazonaws.com",
		Parameters: map[string]string{"ClusterName": "demo"},
		// The queue policy names its queue by URL (!Ref), which no compared document holds.
		Attributes: map[string]string{"KarpenterNodeRole.Arn": tmplNodeRoleArn, "KarpenterInterruptionQueue.Arn": tmplQueueArn, "KarpenterInterruptionQueue": "${QueueUrl}"},
	})
	if err != nil {
		panic(err)
	}
	policies := map[string]string{}
	for _, id := range tmpl.OfType("AWS::IAM::ManagedPolicy") {
		props := tmpl.Resources[id].Properties
		key := ""
		for _, k := range catalog.ControllerPolicyKeys() {
			if catalog.TemplatePolicyName(k, "demo") == props["ManagedPolicyName"] {
				key = k
			}
		}
		if key == "" {
			panic(fmt.Sprintf("the template's %s (%v) is no controller policy of the catalog's layout", id, props["ManagedPolicyName"]))
		}
		policies["karpenter-controller-"+key] = props["PolicyDocument"].(string)
	}
	queue := tmpl.Resources["KarpenterInterruptionQueuePolicy"].Properties["PolicyDocument"].(map[string]any)
	queue["Version"] = "2012-10-17"
	b, err := json.Marshal(queue)
	if err != nil {
		panic(err)
	}
	return policies, string(b)
}

func TestControllerPoliciesMatchOfficialV114Template(t *testing.T) {
	assertTemplatePolicies(t, renderVersion(t, "1.14.1"), v114Policies)
}

// v115Policies are the v1.15 template's policies. The official cfn-v1.15 file could not be
// obtained; cfn-v1.15.reconstructed.yaml is cfn-v1.14 plus the one statement change the v1.15
// reference page (cloudformation.md, AllowScopedDeletion) documents: ec2:RebootInstances,
// between TerminateInstances and DeleteLaunchTemplate. That edit, applied to the v1.14
// template's document, is the expectation.
var v115Policies = func() map[string]string {
	out := maps.Clone(v114Policies)
	var doc map[string]any
	if err := json.Unmarshal([]byte(out["karpenter-controller-node-lifecycle"]), &doc); err != nil {
		panic(err)
	}
	edited := 0
	for _, st := range doc["Statement"].([]any) {
		st := st.(map[string]any)
		if st["Sid"] == "AllowScopedDeletion" && slices.Equal(st["Action"].([]any), []any{"ec2:TerminateInstances", "ec2:DeleteLaunchTemplate"}) {
			st["Action"] = []any{"ec2:TerminateInstances", "ec2:RebootInstances", "ec2:DeleteLaunchTemplate"}
			edited++
		}
	}
	if edited != 1 {
		panic("the v1.14 template's node lifecycle policy no longer has one AllowScopedDeletion of TerminateInstances and DeleteLaunchTemplate")
	}
	b, err := json.Marshal(doc)
	if err != nil {
		panic(err)
	}
	out["karpenter-controller-node-lifecycle"] = string(b)
	return out
}()

func TestControllerPoliciesMatchV115Template(t *testing.T) {
	for _, version := range []string{"1.15.0", "1.15.1"} {
		t.Run(version, func(t *testing.T) { assertTemplatePolicies(t, renderVersion(t, version), v115Policies) })
	}
	// The default is the newest verified release.
	assertTemplatePolicies(t, rendertest.Default(t), v115Policies)
}

// 1.14.2 and 1.14.3 changed nothing an installer sees: the same policies as 1.14.1.
func TestV114PatchReleasesKeepV114Policies(t *testing.T) {
	for _, version := range []string{"1.14.2", "1.14.3"} {
		t.Run(version, func(t *testing.T) { assertTemplatePolicies(t, renderVersion(t, version), v114Policies) })
	}
}

func assertTemplatePolicies(t *testing.T, r *rendertest.Rendered, want map[string]string) {
	t.Helper()
	policies := r.ByType("aws:iam/policy:Policy")
	require.Len(t, policies, len(want), "one managed policy per template policy")
	for _, p := range policies {
		doc, ok := want[p.Name]
		require.True(t, ok, "unexpected policy %s", p.Name)
		rendertest.AssertSamePolicy(t, fillTemplate(doc, r), p.Inputs["policy"].(string), p.Name)
		assert.LessOrEqual(t, len(p.Inputs["policy"].(string)), catalog.MaxManagedPolicyLength, p.Name)
	}
	rendertest.AssertSamePolicy(t, fillTemplate(v114QueuePolicy, r), r.Get("karpenter-interruption-policy").Inputs["policy"].(string), "queue policy")
}

func TestRolesTrustTheRightPrincipals(t *testing.T) {
	r := rendertest.Default(t)
	rendertest.AssertSamePolicy(t, `{
	  "Version": "2012-10-17",
	  "Statement": [{
	    "Effect": "Allow",
	    "Principal": {"Federated": "arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/EXAMPLE"},
	    "Action": "sts:AssumeRoleWithWebIdentity",
	    "Condition": {"StringEquals": {
	      "oidc.eks.us-west-2.amazonaws.com/id/EXAMPLE:aud": "sts.amazonaws.com",
	      "oidc.eks.us-west-2.amazonaws.com/id/EXAMPLE:sub": "system:serviceaccount:kube-system:karpenter"
	    }}
	  }]
	}`, r.Get("karpenter-controller").Inputs["assumeRolePolicy"].(string), "controller trust")

	// The template's KarpenterNodeRole trust: ec2.${AWS::URLSuffix}, sts:AssumeRole.
	rendertest.AssertSamePolicy(t, `{
	  "Version": "2012-10-17",
	  "Statement": [{"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": ["sts:AssumeRole"]}]
	}`, r.Get("karpenter-node").Inputs["assumeRolePolicy"].(string), "node trust")
}

func TestNodeRoleHasTheTemplatesManagedPolicies(t *testing.T) {
	r := rendertest.Default(t)
	var attached []string
	for _, a := range r.ByType("aws:iam/rolePolicyAttachment:RolePolicyAttachment") {
		if a.Inputs["role"] == r.Outputs["nodeRoleName"] {
			attached = append(attached, a.Inputs["policyArn"].(string))
		}
	}
	assert.ElementsMatch(t, []string{
		"arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy",
		"arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy",
		"arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryPullOnly",
		"arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore",
	}, attached)
}

func TestInterruptionRulesMatchTheTemplate(t *testing.T) {
	r := rendertest.Default(t)
	var patterns []string
	for _, rule := range r.ByType("aws:cloudwatch/eventRule:EventRule") {
		patterns = append(patterns, normalizeJSON(t, rule.Inputs["eventPattern"].(string)))
		target := r.Get(rule.Name + "-target")
		assert.Equal(t, "KarpenterInterruptionQueueTarget", target.Inputs["targetId"])
		assert.Equal(t, r.Outputs["interruptionQueueArn"], target.Inputs["arn"])
		assert.Equal(t, rule.Inputs["name"], target.Inputs["rule"])
	}
	want := []string{}
	for _, p := range []string{
		`{"source":["aws.health"],"detail-type":["AWS Health Event"]}`,
		`{"source":["aws.ec2"],"detail-type":["EC2 Spot Instance Interruption Warning"]}`,
		`{"source":["aws.ec2"],"detail-type":["EC2 Instance Rebalance Recommendation"]}`,
		`{"source":["aws.ec2"],"detail-type":["EC2 Instance State-change Notification"]}`,
		`{"source":["aws.ec2"],"detail-type":["EC2 Capacity Reservation Instance Interruption Warning"]}`,
	} {
		want = append(want, normalizeJSON(t, p))
	}
	assert.Equal(t, want, patterns)

	queue := r.Get("karpenter-interruption")
	assert.Equal(t, float64(300), queue.Inputs["messageRetentionSeconds"])
	assert.Equal(t, true, queue.Inputs["sqsManagedSseEnabled"])
	assert.LessOrEqual(t, len(queue.Inputs["name"].(string)), 80)
}

func normalizeJSON(t *testing.T, s string) string {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal([]byte(strings.TrimSpace(s)), &v))
	b, _ := json.Marshal(v)
	return string(b)
}
