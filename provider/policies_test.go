package provider

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The expected documents below are the PolicyDocuments of the official Karpenter v1.14
// getting-started CloudFormation template (cfn-v1.14.yaml), transcribed by hand with its
// parameters substituted: ${AWS::Partition}=aws, ${AWS::Region}=us-west-2,
// ${AWS::AccountId}=123456789012, ${ClusterName}=demo, ${KarpenterNodeRole.Arn} and
// ${KarpenterInterruptionQueue.Arn} = the node role and queue ARNs the render reports in its
// outputs (read from the role and queue resources, not from the policy builder).
// The template writes some single actions as one-element lists and some as strings; IAM
// treats both the same, and so does the comparison.
const (
	tmplNodeRoleArn = "${NodeRoleArn}"
	tmplQueueArn    = "${QueueArn}"
)

// fillTemplate substitutes the template's resource references.
func fillTemplate(doc string, r *rendered) string {
	return strings.NewReplacer(
		tmplNodeRoleArn, r.Outputs["nodeRoleArn"].(string),
		tmplQueueArn, r.Outputs["interruptionQueueArn"].(string),
	).Replace(doc)
}

var v114Policies = map[string]string{
	"karpenter-controller-node-lifecycle": `{
  "Version": "2012-10-17",
  "Statement": [
    {
      "Sid": "AllowScopedEC2InstanceAccessActions",
      "Effect": "Allow",
      "Resource": [
        "arn:aws:ec2:us-west-2::image/*",
        "arn:aws:ec2:us-west-2::snapshot/*",
        "arn:aws:ec2:us-west-2:*:security-group/*",
        "arn:aws:ec2:us-west-2:*:subnet/*",
        "arn:aws:ec2:us-west-2:*:capacity-reservation/*",
        "arn:aws:ec2:us-west-2:*:placement-group/*"
      ],
      "Action": ["ec2:RunInstances", "ec2:CreateFleet"]
    },
    {
      "Sid": "AllowScopedEC2LaunchTemplateAccessActions",
      "Effect": "Allow",
      "Resource": "arn:aws:ec2:us-west-2:*:launch-template/*",
      "Action": ["ec2:RunInstances", "ec2:CreateFleet"],
      "Condition": {
        "StringEquals": {"aws:ResourceTag/kubernetes.io/cluster/demo": "owned"},
        "StringLike": {"aws:ResourceTag/karpenter.sh/nodepool": "*"}
      }
    },
    {
      "Sid": "AllowScopedEC2InstanceActionsWithTags",
      "Effect": "Allow",
      "Resource": [
        "arn:aws:ec2:us-west-2:*:fleet/*",
        "arn:aws:ec2:us-west-2:*:instance/*",
        "arn:aws:ec2:us-west-2:*:volume/*",
        "arn:aws:ec2:us-west-2:*:network-interface/*",
        "arn:aws:ec2:us-west-2:*:launch-template/*",
        "arn:aws:ec2:us-west-2:*:spot-instances-request/*"
      ],
      "Action": ["ec2:RunInstances", "ec2:CreateFleet", "ec2:CreateLaunchTemplate"],
      "Condition": {
        "StringEquals": {
          "aws:RequestTag/kubernetes.io/cluster/demo": "owned",
          "aws:RequestTag/eks:eks-cluster-name": "demo"
        },
        "StringLike": {"aws:RequestTag/karpenter.sh/nodepool": "*"}
      }
    },
    {
      "Sid": "AllowScopedResourceCreationTagging",
      "Effect": "Allow",
      "Resource": [
        "arn:aws:ec2:us-west-2:*:fleet/*",
        "arn:aws:ec2:us-west-2:*:instance/*",
        "arn:aws:ec2:us-west-2:*:volume/*",
        "arn:aws:ec2:us-west-2:*:network-interface/*",
        "arn:aws:ec2:us-west-2:*:launch-template/*",
        "arn:aws:ec2:us-west-2:*:spot-instances-request/*"
      ],
      "Action": "ec2:CreateTags",
      "Condition": {
        "StringEquals": {
          "aws:RequestTag/kubernetes.io/cluster/demo": "owned",
          "aws:RequestTag/eks:eks-cluster-name": "demo",
          "ec2:CreateAction": ["RunInstances", "CreateFleet", "CreateLaunchTemplate"]
        },
        "StringLike": {"aws:RequestTag/karpenter.sh/nodepool": "*"}
      }
    },
    {
      "Sid": "AllowScopedResourceTagging",
      "Effect": "Allow",
      "Resource": "arn:aws:ec2:us-west-2:*:instance/*",
      "Action": "ec2:CreateTags",
      "Condition": {
        "StringEquals": {"aws:ResourceTag/kubernetes.io/cluster/demo": "owned"},
        "StringLike": {"aws:ResourceTag/karpenter.sh/nodepool": "*"},
        "StringEqualsIfExists": {"aws:RequestTag/eks:eks-cluster-name": "demo"},
        "ForAllValues:StringEquals": {"aws:TagKeys": ["eks:eks-cluster-name", "karpenter.sh/nodeclaim", "Name"]}
      }
    },
    {
      "Sid": "AllowScopedDeletion",
      "Effect": "Allow",
      "Resource": [
        "arn:aws:ec2:us-west-2:*:instance/*",
        "arn:aws:ec2:us-west-2:*:launch-template/*"
      ],
      "Action": ["ec2:TerminateInstances", "ec2:DeleteLaunchTemplate"],
      "Condition": {
        "StringEquals": {"aws:ResourceTag/kubernetes.io/cluster/demo": "owned"},
        "StringLike": {"aws:ResourceTag/karpenter.sh/nodepool": "*"}
      }
    }
  ]
}`,
	"karpenter-controller-iam-integration": `{
  "Version": "2012-10-17",
  "Statement": [
    {
      "Sid": "AllowPassingInstanceRole",
      "Effect": "Allow",
      "Resource": "` + tmplNodeRoleArn + `",
      "Action": "iam:PassRole",
      "Condition": {"StringEquals": {"iam:PassedToService": ["ec2.amazonaws.com", "ec2.amazonaws.com.cn"]}}
    },
    {
      "Sid": "AllowScopedInstanceProfileCreationActions",
      "Effect": "Allow",
      "Resource": "arn:aws:iam::123456789012:instance-profile/*",
      "Action": ["iam:CreateInstanceProfile"],
      "Condition": {
        "StringEquals": {
          "aws:RequestTag/kubernetes.io/cluster/demo": "owned",
          "aws:RequestTag/eks:eks-cluster-name": "demo",
          "aws:RequestTag/topology.kubernetes.io/region": "us-west-2"
        },
        "StringLike": {"aws:RequestTag/karpenter.k8s.aws/ec2nodeclass": "*"}
      }
    },
    {
      "Sid": "AllowScopedInstanceProfileTagActions",
      "Effect": "Allow",
      "Resource": "arn:aws:iam::123456789012:instance-profile/*",
      "Action": ["iam:TagInstanceProfile"],
      "Condition": {
        "StringEquals": {
          "aws:ResourceTag/kubernetes.io/cluster/demo": "owned",
          "aws:ResourceTag/topology.kubernetes.io/region": "us-west-2",
          "aws:RequestTag/kubernetes.io/cluster/demo": "owned",
          "aws:RequestTag/eks:eks-cluster-name": "demo",
          "aws:RequestTag/topology.kubernetes.io/region": "us-west-2"
        },
        "StringLike": {
          "aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass": "*",
          "aws:RequestTag/karpenter.k8s.aws/ec2nodeclass": "*"
        }
      }
    },
    {
      "Sid": "AllowScopedInstanceProfileActions",
      "Effect": "Allow",
      "Resource": "arn:aws:iam::123456789012:instance-profile/*",
      "Action": ["iam:AddRoleToInstanceProfile", "iam:RemoveRoleFromInstanceProfile", "iam:DeleteInstanceProfile"],
      "Condition": {
        "StringEquals": {
          "aws:ResourceTag/kubernetes.io/cluster/demo": "owned",
          "aws:ResourceTag/topology.kubernetes.io/region": "us-west-2"
        },
        "StringLike": {"aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass": "*"}
      }
    }
  ]
}`,
	"karpenter-controller-eks-integration": `{
  "Version": "2012-10-17",
  "Statement": [
    {
      "Sid": "AllowAPIServerEndpointDiscovery",
      "Effect": "Allow",
      "Resource": "arn:aws:eks:us-west-2:123456789012:cluster/demo",
      "Action": "eks:DescribeCluster"
    }
  ]
}`,
	"karpenter-controller-interruption": `{
  "Version": "2012-10-17",
  "Statement": [
    {
      "Sid": "AllowInterruptionQueueActions",
      "Effect": "Allow",
      "Resource": "` + tmplQueueArn + `",
      "Action": ["sqs:DeleteMessage", "sqs:GetQueueUrl", "sqs:ReceiveMessage"]
    }
  ]
}`,
	"karpenter-controller-zonal-shift": `{
  "Version": "2012-10-17",
  "Statement": [
    {
      "Sid": "AllowZonalShiftStatusReadOnly",
      "Effect": "Allow",
      "Resource": "*",
      "Action": ["arc-zonal-shift:GetManagedResource"],
      "Condition": {
        "StringEquals": {"arc-zonal-shift:ResourceIdentifier": "arn:aws:eks:us-west-2:123456789012:cluster/demo"}
      }
    }
  ]
}`,
	"karpenter-controller-resource-discovery": `{
  "Version": "2012-10-17",
  "Statement": [
    {
      "Sid": "AllowRegionalReadActions",
      "Effect": "Allow",
      "Resource": "*",
      "Action": [
        "ec2:DescribeCapacityReservations",
        "ec2:DescribeImages",
        "ec2:DescribeInstances",
        "ec2:DescribeInstanceStatus",
        "ec2:DescribeInstanceTypeOfferings",
        "ec2:DescribeInstanceTypes",
        "ec2:DescribeLaunchTemplates",
        "ec2:DescribePlacementGroups",
        "ec2:DescribeSecurityGroups",
        "ec2:DescribeSpotPriceHistory",
        "ec2:DescribeSubnets"
      ],
      "Condition": {"StringEquals": {"aws:RequestedRegion": "us-west-2"}}
    },
    {
      "Sid": "AllowSSMReadActions",
      "Effect": "Allow",
      "Resource": "arn:aws:ssm:us-west-2::parameter/aws/service/*",
      "Action": "ssm:GetParameter"
    },
    {
      "Sid": "AllowPricingReadActions",
      "Effect": "Allow",
      "Resource": "*",
      "Action": "pricing:GetProducts"
    },
    {
      "Sid": "AllowUnscopedInstanceProfileListAction",
      "Effect": "Allow",
      "Resource": "*",
      "Action": "iam:ListInstanceProfiles"
    },
    {
      "Sid": "AllowInstanceProfileReadActions",
      "Effect": "Allow",
      "Resource": "arn:aws:iam::123456789012:instance-profile/*",
      "Action": "iam:GetInstanceProfile"
    }
  ]
}`,
}

// Expected from the template's KarpenterInterruptionQueuePolicy, plus the explicit Version
// the component adds (the template relies on the 2008 default).
const v114QueuePolicy = `{
  "Version": "2012-10-17",
  "Id": "EC2InterruptionPolicy",
  "Statement": [
    {
      "Effect": "Allow",
      "Principal": {"Service": ["events.amazonaws.com", "sqs.amazonaws.com"]},
      "Action": "sqs:SendMessage",
      "Resource": "` + tmplQueueArn + `"
    },
    {
      "Sid": "DenyHTTP",
      "Effect": "Deny",
      "Action": "sqs:*",
      "Resource": "` + tmplQueueArn + `",
      "Condition": {"Bool": {"aws:SecureTransport": "false"}},
      "Principal": "*"
    }
  ]
}`

func TestControllerPoliciesMatchOfficialV114Template(t *testing.T) {
	assertTemplatePolicies(t, renderVersion(t, "1.14.1"), v114Policies)
}

// v115Policies are the v1.15 template's policies. The official cfn-v1.15 file could not be
// obtained; cfn-v1.15.reconstructed.yaml is cfn-v1.14 plus the one statement change the v1.15
// reference page (cloudformation.md, AllowScopedDeletion) documents: ec2:RebootInstances,
// between TerminateInstances and DeleteLaunchTemplate. That edit, applied to the v1.14
// transcription, is the expectation.
var v115Policies = func() map[string]string {
	const v114Deletion = `"Action": ["ec2:TerminateInstances", "ec2:DeleteLaunchTemplate"]`
	const v115Deletion = `"Action": ["ec2:TerminateInstances", "ec2:RebootInstances", "ec2:DeleteLaunchTemplate"]`
	out := map[string]string{}
	for name, doc := range v114Policies {
		out[name] = doc
	}
	lifecycle := out["karpenter-controller-node-lifecycle"]
	if strings.Count(lifecycle, v114Deletion) != 1 {
		panic("the v1.14 node lifecycle expectation no longer has one AllowScopedDeletion action list")
	}
	out["karpenter-controller-node-lifecycle"] = strings.Replace(lifecycle, v114Deletion, v115Deletion, 1)
	return out
}()

func TestControllerPoliciesMatchV115Template(t *testing.T) {
	for _, version := range []string{"1.15.0", "1.15.1"} {
		t.Run(version, func(t *testing.T) { assertTemplatePolicies(t, renderVersion(t, version), v115Policies) })
	}
	// The default is the newest verified release.
	assertTemplatePolicies(t, renderDefault(t), v115Policies)
}

// 1.14.2 and 1.14.3 changed nothing an installer sees: the same policies as 1.14.1.
func TestV114PatchReleasesKeepV114Policies(t *testing.T) {
	for _, version := range []string{"1.14.2", "1.14.3"} {
		t.Run(version, func(t *testing.T) { assertTemplatePolicies(t, renderVersion(t, version), v114Policies) })
	}
}

func assertTemplatePolicies(t *testing.T, r *rendered, want map[string]string) {
	t.Helper()
	policies := r.byType("aws:iam/policy:Policy")
	require.Len(t, policies, len(want), "one managed policy per template policy")
	for _, p := range policies {
		doc, ok := want[p.Name]
		require.True(t, ok, "unexpected policy %s", p.Name)
		assertSamePolicy(t, fillTemplate(doc, r), p.Inputs["policy"].(string), p.Name)
		assert.LessOrEqual(t, len(p.Inputs["policy"].(string)), catalog.MaxManagedPolicyLength, p.Name)
	}
	assertSamePolicy(t, fillTemplate(v114QueuePolicy, r), r.get("karpenter-interruption-policy").Inputs["policy"].(string), "queue policy")
}

func TestRolesTrustTheRightPrincipals(t *testing.T) {
	r := renderDefault(t)
	assertSamePolicy(t, `{
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
	}`, r.get("karpenter-controller").Inputs["assumeRolePolicy"].(string), "controller trust")

	// The template's KarpenterNodeRole trust: ec2.${AWS::URLSuffix}, sts:AssumeRole.
	assertSamePolicy(t, `{
	  "Version": "2012-10-17",
	  "Statement": [{"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": ["sts:AssumeRole"]}]
	}`, r.get("karpenter-node").Inputs["assumeRolePolicy"].(string), "node trust")
}

func TestNodeRoleHasTheTemplatesManagedPolicies(t *testing.T) {
	r := renderDefault(t)
	var attached []string
	for _, a := range r.byType("aws:iam/rolePolicyAttachment:RolePolicyAttachment") {
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
	r := renderDefault(t)
	var patterns []string
	for _, rule := range r.byType("aws:cloudwatch/eventRule:EventRule") {
		patterns = append(patterns, normalizeJSON(t, rule.Inputs["eventPattern"].(string)))
		target := r.get(rule.Name + "-target")
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

	queue := r.get("karpenter-interruption")
	assert.Equal(t, float64(300), queue.Inputs["messageRetentionSeconds"])
	assert.Equal(t, true, queue.Inputs["sqsManagedSseEnabled"])
	assert.LessOrEqual(t, len(queue.Inputs["name"].(string)), 80)
}

// assertSamePolicy compares two IAM documents as IAM reads them: a one-element list and a
// string are the same, key order does not matter, statement order does.
func assertSamePolicy(t *testing.T, want, got, what string) {
	t.Helper()
	assert.Equal(t, canonicalPolicy(t, want), canonicalPolicy(t, got), what)
}

func canonicalPolicy(t *testing.T, doc string) string {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal([]byte(doc), &v), doc)
	b, err := json.MarshalIndent(collapseSingletons(v), "", " ")
	require.NoError(t, err)
	return string(b)
}

func collapseSingletons(v any) any {
	switch x := v.(type) {
	case []any:
		if len(x) == 1 {
			if s, ok := x[0].(string); ok {
				return s
			}
		}
		for i := range x {
			x[i] = collapseSingletons(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = collapseSingletons(x[k])
		}
	}
	return v
}

func normalizeJSON(t *testing.T, s string) string {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal([]byte(strings.TrimSpace(s)), &v))
	b, _ := json.Marshal(v)
	return string(b)
}
