package lab

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	ebtypes "github.com/aws/aws-sdk-go-v2/service/eventbridge/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/zclconf/go-cty/cty"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/tests/harness"
)

// terraformKarpenterModule is terraform-aws-modules/terraform-aws-eks's modules/karpenter at
// v21.19.0 (commit bef29c4d9523523e57fe898643fde2895106b339): its main.tf, policy.tf and
// variables.tf byte for byte, with the repository's LICENSE (Apache-2.0).
//
//go:embed terraform-aws-modules-karpenter/*.tf
var terraformKarpenterModule embed.FS

// TerraformKarpenter is a Karpenter install made the way terraform-aws-modules' karpenter module
// (v21.19.0) and its examples/karpenter make it, outside any Pulumi stack: what a user who adopts
// it from Terraform has running.
//
//   - The module's AWS resources, read from its own files (terraform.go evaluates them: names from
//     name_prefix as Terraform makes them, descriptions, paths, tags, the policy documents of its
//     aws_iam_policy_document data sources, the rules' event patterns), each made with the call
//     terraform-provider-aws makes: the controller role KarpenterController-<26> trusting Pod
//     Identity, its one controller policy KarpenterController-<26>, the Pod Identity association
//     of kube-system/karpenter, the queue Karpenter-<cluster> with its policy, five rules
//     Karpenter<Event>-<26> with their targets, the node role Karpenter-<cluster>-<26> with
//     AmazonEKSWorkerNodePolicy, AmazonEC2ContainerRegistryPullOnly and AmazonEKS_CNI_Policy, and
//     the node role's EC2_LINUX access entry. The caller's arguments are the module README's:
//     cluster_name and tags (Environment, Terraform); without its optional
//     node_iam_role_additional_policies, so the node role lacks AmazonSSMManagedInstanceCore.
//   - What the example's EKS module adds: the eks-pod-identity-agent add-on (EKS's API for it,
//     the association and the access entry is the aws stand-in's record: moto lacks it), the
//     discovery tag on the subnets and the node security group, and the label
//     karpenter.sh/controller: "true" on its managed node group's nodes (the world's system
//     nodes), which the release's nodeSelector asks for.
//   - The example's helm_release "karpenter" (kube-system, its values but enableZonalShift: the
//     controller then asks ARC Zonal Shift at start, which moto does not serve), at the world's
//     chart version instead of its 1.6.0.
//   - The example's karpenter.yaml: the EC2NodeClass and NodePool `default`, the class's role the
//     module's node role (the module's output node_iam_role_name), applied with kubectl.
type TerraformKarpenter struct {
	Cluster, Version string
	// The module's outputs an adopting program names (docs/migrating.md).
	ControllerRoleName, ControllerPolicyName, NodeRoleName, QueueName string
	// RuleNames are the rules' names by the component's key (adopt.interruptionRuleNames).
	RuleNames                map[string]string
	PodIdentityAssociationID string
	// NodeRolePolicies are the AWS managed policies the module attached to the node role.
	NodeRolePolicies []string
	// ControllerPolicy is the module's controller policy document.
	ControllerPolicy string
	// Values are the values the example set on the release that the component does not set
	// itself: what an adopting program must carry.
	Values map[string]any
}

// TerraformPolicyPath is the path the world's module puts its controller policy under.
const TerraformPolicyPath = "/karpenter/"

// InstallTerraformKarpenter installs Karpenter version on cluster as TerraformKarpenter says.
func (w *World) InstallTerraformKarpenter(ctx context.Context, cluster, version string) (*TerraformKarpenter, error) {
	release, err := catalog.LookupRelease(version, false)
	if err != nil {
		return nil, err
	}
	t := &TerraformKarpenter{Cluster: cluster, Version: version, RuleNames: map[string]string{}}
	// The example's arguments (cluster_name, tags), and the controller policy under a path of its
	// own (iam_policy_path, which the example leaves "/"), as a user may put it: an adoption finds
	// it by name only.
	m, err := loadTerraformModule(terraformKarpenterModule, "terraform-aws-modules-karpenter", map[string]cty.Value{
		"cluster_name":    cty.StringVal(cluster),
		"tags":            cty.MapVal(map[string]cty.Value{"Environment": cty.StringVal("dev"), "Terraform": cty.StringVal("true")}),
		"iam_policy_path": cty.StringVal(TerraformPolicyPath),
	}, map[string]map[string]map[string]cty.Value{
		"aws_region":            {"current": {"region": cty.StringVal(Region)}},
		"aws_partition":         {"current": {"partition": cty.StringVal("aws")}},
		"aws_caller_identity":   {"current": {"account_id": cty.StringVal(MotoAccount)}},
		"aws_service_principal": {"ec2": {"name": cty.StringVal("ec2.amazonaws.com")}},
	})
	if err != nil {
		return nil, fmt.Errorf("terraform-aws-modules karpenter v21.19.0: %w", err)
	}
	for _, step := range []func() error{
		func() error { return w.terraformApply(ctx, t, m, release) },
		func() error { return w.tagForDiscovery(ctx, cluster) },
		w.labelControllerNodes,
		func() error { return w.helmInstallTerraformExample(ctx, t) },
		func() error { return w.applyTerraformExamplePool(ctx, t) },
	} {
		if err := step(); err != nil {
			return nil, fmt.Errorf("terraform-aws-modules install of Karpenter %s on %s: %w", version, cluster, err)
		}
	}
	return t, nil
}

// terraformApply makes the module's resources in dependency order, each with terraform-provider-aws's
// call, recording the attributes the module's later expressions read.
func (w *World) terraformApply(ctx context.Context, t *TerraformKarpenter, m *terraformModule, release catalog.Release) error {
	cl, queues, events := iam.NewFromConfig(w.AWS), sqs.NewFromConfig(w.AWS), eventbridge.NewFromConfig(w.AWS)
	scope := catalog.AwsScope{Partition: "aws", DNSSuffix: "amazonaws.com", Region: Region, Account: MotoAccount}
	str := func(args map[string]cty.Value, k string) *string {
		if v := ctyString(args[k]); v != "" {
			return aws.String(v)
		}
		return nil
	}
	// name is what an argument name or name_prefix makes: Terraform's PrefixedUniqueId adds a
	// timestamp to 4 fractional digits of a second and an 8-digit hex counter (26 characters).
	counter := 0
	name := func(args map[string]cty.Value) string {
		if n := ctyString(args["name"]); n != "" {
			return n
		}
		counter++
		return ctyString(args["name_prefix"]) + strings.Replace(time.Now().UTC().Format("20060102150405.0000"), ".", "", 1) + fmt.Sprintf("%08x", counter)
	}
	iamTags := func(args map[string]cty.Value) []iamtypes.Tag {
		var tags []iamtypes.Tag
		for k, v := range ctyStrings(args["tags"]) {
			tags = append(tags, iamtypes.Tag{Key: aws.String(k), Value: aws.String(v)})
		}
		return tags
	}
	one := func(typ, res string) (map[string]cty.Value, error) {
		in, err := m.instances(typ, res)
		if err != nil {
			return nil, err
		}
		if len(in) != 1 {
			return nil, fmt.Errorf("%s.%s: %d instances with the README's arguments, want one", typ, res, len(in))
		}
		return in[0].Args, nil
	}
	attach := func(res, role string) error {
		in, err := m.instances("aws_iam_role_policy_attachment", res)
		if err != nil {
			return err
		}
		for _, a := range in {
			arn := ctyString(a.Args["policy_arn"])
			if _, err := cl.AttachRolePolicy(ctx, &iam.AttachRolePolicyInput{RoleName: aws.String(role), PolicyArn: aws.String(arn)}); err != nil {
				return fmt.Errorf("aws_iam_role_policy_attachment.%s %s: %w", res, arn, err)
			}
			if res == "node" {
				t.NodeRolePolicies = append(t.NodeRolePolicies, arn[strings.LastIndex(arn, "/")+1:])
			}
		}
		return nil
	}
	role := func(res, docName string) (string, error) {
		if _, err := m.policyDocument(docName); err != nil {
			return "", err
		}
		args, err := one("aws_iam_role", res)
		if err != nil {
			return "", err
		}
		n := name(args)
		out, err := cl.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String(n), Path: str(args, "path"), Description: str(args, "description"),
			AssumeRolePolicyDocument: str(args, "assume_role_policy"), Tags: iamTags(args)})
		if err != nil {
			return "", fmt.Errorf("aws_iam_role.%s: %w", res, err)
		}
		m.made("aws_iam_role", res, "", map[string]cty.Value{"name": cty.StringVal(n), "arn": cty.StringVal(aws.ToString(out.Role.Arn))})
		return n, nil
	}

	// The queue, its policy, the rules and their targets.
	args, err := one("aws_sqs_queue", "this")
	if err != nil {
		return err
	}
	t.QueueName = name(args)
	attrs := map[string]string{"MessageRetentionPeriod": args["message_retention_seconds"].AsBigFloat().String()}
	if v := args["sqs_managed_sse_enabled"]; !v.IsNull() {
		attrs["SqsManagedSseEnabled"] = fmt.Sprint(v.True())
	}
	q, err := queues.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(t.QueueName), Attributes: attrs, Tags: ctyStrings(args["tags"])})
	if err != nil {
		return fmt.Errorf("aws_sqs_queue.this: %w", err)
	}
	queueArn := scope.QueueArn(t.QueueName)
	m.made("aws_sqs_queue", "this", "", map[string]cty.Value{"name": cty.StringVal(t.QueueName), "arn": cty.StringVal(queueArn), "url": cty.StringVal(aws.ToString(q.QueueUrl))})
	if _, err := m.policyDocument("queue"); err != nil {
		return err
	}
	if args, err = one("aws_sqs_queue_policy", "this"); err != nil {
		return err
	}
	if _, err := queues.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: q.QueueUrl, Attributes: map[string]string{"Policy": ctyString(args["policy"])}}); err != nil {
		return fmt.Errorf("aws_sqs_queue_policy.this: %w", err)
	}
	keys := map[string]string{} // detail-type -> the component's key
	for _, r := range catalog.RulesOf(release) {
		keys[r.DetailType] = r.Key
	}
	rules, err := m.instances("aws_cloudwatch_event_rule", "this")
	if err != nil {
		return err
	}
	for _, r := range rules {
		n := name(r.Args)
		var tags []ebtypes.Tag
		for k, v := range ctyStrings(r.Args["tags"]) {
			tags = append(tags, ebtypes.Tag{Key: aws.String(k), Value: aws.String(v)})
		}
		pattern := ctyString(r.Args["event_pattern"])
		if _, err := events.PutRule(ctx, &eventbridge.PutRuleInput{Name: aws.String(n), Description: str(r.Args, "description"),
			EventPattern: aws.String(pattern), State: ebtypes.RuleStateEnabled, Tags: tags}); err != nil {
			return fmt.Errorf("aws_cloudwatch_event_rule.this[%q]: %w", r.Key, err)
		}
		m.made("aws_cloudwatch_event_rule", "this", r.Key, map[string]cty.Value{"name": cty.StringVal(n)})
		var p struct {
			DetailType []string `json:"detail-type"`
		}
		if err := json.Unmarshal([]byte(pattern), &p); err != nil || len(p.DetailType) != 1 || keys[p.DetailType[0]] == "" {
			return fmt.Errorf("aws_cloudwatch_event_rule.this[%q]: pattern %s is no interruption rule of Karpenter %s (%v)", r.Key, pattern, release.Version, err)
		}
		t.RuleNames[keys[p.DetailType[0]]] = n
	}
	targets, err := m.instances("aws_cloudwatch_event_target", "this")
	if err != nil {
		return err
	}
	for _, tg := range targets {
		if _, err := events.PutTargets(ctx, &eventbridge.PutTargetsInput{Rule: str(tg.Args, "rule"),
			Targets: []ebtypes.Target{{Id: str(tg.Args, "target_id"), Arn: str(tg.Args, "arn")}}}); err != nil {
			return fmt.Errorf("aws_cloudwatch_event_target.this[%q]: %w", tg.Key, err)
		}
	}

	// The node role, its policies and access entry.
	if t.NodeRoleName, err = role("node", "node_assume_role"); err != nil {
		return err
	}
	if err := attach("node", t.NodeRoleName); err != nil {
		return err
	}
	if err := attach("node_additional", t.NodeRoleName); err != nil {
		return err
	}
	if args, err = one("aws_eks_access_entry", "node"); err != nil {
		return err
	}
	entry := map[string]any{
		"clusterName": t.Cluster, "principalArn": ctyString(args["principal_arn"]), "type": ctyString(args["type"]),
		"userName": "system:node:{{EC2PrivateDNSName}}", "kubernetesGroups": []any{},
		"accessEntryArn": fmt.Sprintf("arn:aws:eks:%s:%s:access-entry/%s/role/%s/%s/%s", Region, MotoAccount, t.Cluster, MotoAccount, t.NodeRoleName, randomHex(8)),
		"createdAt":      "2026-11-01T00:00:00Z", "modifiedAt": "2026-11-01T00:00:00Z",
		"tags": ctyStringsAny(args["tags"]), "tagsAll": ctyStringsAny(args["tags"]),
	}

	// The controller role, its policy, and its Pod Identity association.
	if t.ControllerRoleName, err = role("controller", "controller_assume_role"); err != nil {
		return err
	}
	if t.ControllerPolicy, err = m.policyDocument("controller"); err != nil {
		return err
	}
	if args, err = one("aws_iam_policy", "controller"); err != nil {
		return err
	}
	t.ControllerPolicyName = name(args)
	policy, err := cl.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String(t.ControllerPolicyName), Path: str(args, "path"),
		Description: str(args, "description"), PolicyDocument: str(args, "policy"), Tags: iamTags(args)})
	if err != nil {
		return fmt.Errorf("aws_iam_policy.controller: %w", err)
	}
	m.made("aws_iam_policy", "controller", "", map[string]cty.Value{"arn": cty.StringVal(aws.ToString(policy.Policy.Arn))})
	if err := attach("controller", t.ControllerRoleName); err != nil {
		return err
	}
	if err := attach("controller_additional", t.ControllerRoleName); err != nil {
		return err
	}
	if args, err = one("aws_eks_pod_identity_association", "karpenter"); err != nil {
		return err
	}
	t.PodIdentityAssociationID = "a-" + strings.ToLower(randomHex(17)) // EKS: a- and 17 lower-case letters and digits
	association := map[string]any{
		"associationArn": fmt.Sprintf("arn:aws:eks:%s:%s:podidentityassociation/%s/%s", Region, MotoAccount, t.Cluster, t.PodIdentityAssociationID),
		"associationId":  t.PodIdentityAssociationID, "clusterName": ctyString(args["cluster_name"]), "namespace": ctyString(args["namespace"]),
		"roleArn": ctyString(args["role_arn"]), "serviceAccount": ctyString(args["service_account"]),
		"tags": ctyStringsAny(args["tags"]), "tagsAll": ctyStringsAny(args["tags"]),
	}
	// What the module would make besides with other arguments: none of it with the README's.
	for _, res := range [][2]string{{"aws_iam_role_policy", "controller"}, {"aws_iam_instance_profile", "this"}} {
		if in, err := m.instances(res[0], res[1]); err != nil || len(in) > 0 {
			return fmt.Errorf("%s.%s: %d instances (%v), want none with the README's arguments", res[0], res[1], len(in), err)
		}
	}
	err = w.withStandInEKS(func(tables map[string]map[string]map[string]any) {
		tables["accessEntries"][t.Cluster+":"+entry["principalArn"].(string)] = entry
		tables["podIdentityAssociations"][t.PodIdentityAssociationID] = association
		// The example's EKS module installs the agent add-on (addons.eks-pod-identity-agent).
		tables["addons"][t.Cluster+":"+podIdentityAddon] = podIdentityAgentRecord(t.Cluster)
	})
	if err != nil {
		return fmt.Errorf("the access entry, the association and the add-on (the aws stand-in's EKS record): %w", err)
	}
	return nil
}

// labelControllerNodes labels the world's system nodes as the example's managed node group
// labels its own (labels: karpenter.sh/controller = "true"), so that Karpenter runs on nodes it
// does not manage.
func (w *World) labelControllerNodes() error {
	cs, err := kubernetes.NewForConfig(w.ControlPlane.Config)
	if err != nil {
		return err
	}
	ctx := context.Background()
	patch := []byte(`{"metadata":{"labels":{"karpenter.sh/controller":"true"}}}`)
	for _, n := range systemNodes() {
		if _, err := cs.CoreV1().Nodes().Patch(ctx, n.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			return fmt.Errorf("label node %s: %w", n.Name, err)
		}
	}
	return nil
}

// ctyStringsAny is a map of strings (tags) as the stand-in's EKS record holds them.
func ctyStringsAny(v cty.Value) map[string]any {
	out := map[string]any{}
	for k, s := range ctyStrings(v) {
		out[k] = s
	}
	return out
}

// helmInstallTerraformExample is examples/karpenter/main.tf's helm_release "karpenter": namespace
// kube-system, its values with the cluster's endpoint (module.eks.cluster_endpoint, read from
// EKS) and the module's queue, but settings.enableZonalShift (see TerraformKarpenter), at the
// world's chart version. The values the component does not set itself are t.Values.
func (w *World) helmInstallTerraformExample(ctx context.Context, t *TerraformKarpenter) error {
	out, err := eks.NewFromConfig(w.AWS).DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String(t.Cluster)})
	if err != nil {
		return fmt.Errorf("the cluster's endpoint: %w", err)
	}
	t.Values = map[string]any{"nodeSelector": map[string]any{"karpenter.sh/controller": "true"}, "dnsPolicy": "Default"}
	_, err = w.Cluster.InstallRelease(ctx, harness.Resource{Type: harness.ReleaseType, Name: "karpenter", Inputs: map[string]any{
		"name": "karpenter", "namespace": "kube-system",
		"chart": w.ChartRepository() + "/karpenter", "version": t.Version,
		"values": map[string]any{
			"nodeSelector": map[string]any{"karpenter.sh/controller": "true"},
			"dnsPolicy":    "Default",
			"settings": map[string]any{"clusterName": t.Cluster, "clusterEndpoint": aws.ToString(out.Cluster.Endpoint),
				"interruptionQueue": t.QueueName},
			"webhook": map[string]any{"enabled": false},
		},
	}})
	return err
}

// terraformExamplePool is examples/karpenter/karpenter.yaml, its names the module's (%[1]s the
// cluster, %[2]s the node role).
const terraformExamplePool = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  amiSelectorTerms:
    - alias: bottlerocket@latest
  role: %[2]s
  subnetSelectorTerms:
    - tags:
        karpenter.sh/discovery: %[1]s
  securityGroupSelectorTerms:
    - tags:
        karpenter.sh/discovery: %[1]s
  tags:
    karpenter.sh/discovery: %[1]s
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
      requirements:
        - key: "karpenter.k8s.aws/instance-category"
          operator: In
          values: ["c", "m", "r"]
        - key: "karpenter.k8s.aws/instance-cpu"
          operator: In
          values: ["4", "8", "16", "32"]
        - key: "karpenter.k8s.aws/instance-hypervisor"
          operator: In
          values: ["nitro"]
        - key: "karpenter.k8s.aws/instance-generation"
          operator: Gt
          values: ["2"]
  limits:
    cpu: 1000
  disruption:
    consolidationPolicy: WhenEmpty
    consolidateAfter: 30s
`

// applyTerraformExamplePool is the example's `kubectl apply -f karpenter.yaml`.
func (w *World) applyTerraformExamplePool(ctx context.Context, t *TerraformKarpenter) error {
	return w.kubectlApply(ctx, fmt.Sprintf(terraformExamplePool, t.Cluster, t.NodeRoleName))
}
