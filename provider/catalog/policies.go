package catalog

import (
	"encoding/json"
	"fmt"
	"slices"
)

// EcrPolicy is the AWS managed policy that lets nodes pull images: PullOnly (least privilege)
// from Karpenter 1.4, ReadOnly before, as each release's template has it.
func EcrPolicy(r Release) string {
	if r.Has(FeaturePullOnlyECR) {
		return "AmazonEC2ContainerRegistryPullOnly"
	}
	return "AmazonEC2ContainerRegistryReadOnly"
}

// MaxManagedPolicyLength is IAM's limit on a managed policy document (non-whitespace characters).
const MaxManagedPolicyLength = 6144

// PolicyDocument is an IAM policy. Field order and sorted condition maps make the JSON
// deterministic, so a second `pulumi up` never shows a diff.
type PolicyDocument struct {
	Version   string      `json:"Version"`
	ID        string      `json:"Id,omitempty"`
	Statement []Statement `json:"Statement"`
}

type Statement struct {
	Sid         string                    `json:"Sid,omitempty"`
	Effect      string                    `json:"Effect"`
	Principal   any                       `json:"Principal,omitempty"`
	Action      List                      `json:"Action,omitempty"`
	NotAction   List                      `json:"NotAction,omitempty"`
	Resource    List                      `json:"Resource,omitempty"`
	NotResource List                      `json:"NotResource,omitempty"`
	Condition   map[string]map[string]any `json:"Condition,omitempty"`
}

// List is an IAM "string or list of strings": one element marshals as a plain string.
type List []string

func (l List) MarshalJSON() ([]byte, error) {
	if len(l) == 1 {
		return json.Marshal(l[0])
	}
	return json.Marshal([]string(l))
}

func (l *List) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*l = List{one}
		return nil
	}
	return json.Unmarshal(b, (*[]string)(l))
}

func (d PolicyDocument) Json() string {
	b, err := json.Marshal(d)
	if err != nil {
		panic(err) // only strings, lists and maps: cannot fail
	}
	return string(b)
}

func allow(sid string, resources, actions List, condition map[string]map[string]any) Statement {
	return Statement{Sid: sid, Effect: "Allow", Resource: resources, Action: actions, Condition: condition}
}

// AwsScope is where the component runs, from the aws getPartition/getRegion/getCallerIdentity
// invokes.
type AwsScope struct {
	Partition, DNSSuffix, Region, Account string
}

func (s AwsScope) RoleArn(name string) string {
	return fmt.Sprintf("arn:%s:iam::%s:role/%s", s.Partition, s.Account, name)
}

func (s AwsScope) QueueArn(name string) string {
	return fmt.Sprintf("arn:%s:sqs:%s:%s:%s", s.Partition, s.Region, s.Account, name)
}

func (s AwsScope) PolicyArn(name string) string {
	return fmt.Sprintf("arn:%s:iam::%s:policy/%s", s.Partition, s.Account, name)
}

// QueueURL is the URL SQS gives a queue (its id in pulumi-aws).
func (s AwsScope) QueueURL(name string) string {
	return fmt.Sprintf("https://sqs.%s.%s/%s/%s", s.Region, s.DNSSuffix, s.Account, name)
}

// PolicyScope adds what the controller policies name: the cluster, the roles the controller
// may pass to EC2, and the interruption queue (empty without interruption handling).
type PolicyScope struct {
	AwsScope
	Cluster      string
	NodeRoleArns []string
	QueueArn     string
}

func (s PolicyScope) ec2(resource string) string {
	return fmt.Sprintf("arn:%s:ec2:%s:*:%s", s.Partition, s.Region, resource)
}

func (s PolicyScope) ec2Public(resource string) string {
	return fmt.Sprintf("arn:%s:ec2:%s::%s", s.Partition, s.Region, resource)
}

func (s PolicyScope) clusterArn() string {
	return fmt.Sprintf("arn:%s:eks:%s:%s:cluster/%s", s.Partition, s.Region, s.Account, s.Cluster)
}

func (s PolicyScope) instanceProfiles() string {
	return fmt.Sprintf("arn:%s:iam::%s:instance-profile/*", s.Partition, s.Account)
}

func (s PolicyScope) clusterTag(prefix string) string {
	return fmt.Sprintf("aws:%s/kubernetes.io/cluster/%s", prefix, s.Cluster)
}

type Conditions = map[string]map[string]any

// PolicyFamily produces a generation's controller statements in its template's order.
type PolicyFamily func(s PolicyScope, r Release) []Statement

// policyGroups are the managed policies of the split layout, in the v1.14 template's order,
// and which statements (by Sid) each holds. Releases before the split use one policy, or this
// layout when one policy would exceed IAM's size limit.
var policyGroups = []struct {
	key, description string
	// templateName is the template's ManagedPolicyName, with %s for the cluster name.
	templateName string
	sids         []string
}{
	{"node-lifecycle", "launch, tag and terminate the cluster's nodes", "KarpenterControllerNodeLifecyclePolicy-%s", []string{
		"AllowScopedEC2InstanceAccessActions", "AllowScopedEC2InstanceActions", "AllowScopedEC2LaunchTemplateAccessActions",
		"AllowScopedEC2InstanceActionsWithTags", "AllowScopedResourceCreationTagging", "AllowScopedResourceTagging",
		"AllowMachineMigrationTagging", "AllowScopedDeletion"}},
	{"iam-integration", "pass the node role and manage the instance profiles of node classes", "KarpenterControllerIAMIntegrationPolicy-%s", []string{
		"AllowPassingInstanceRole", "AllowScopedInstanceProfileCreationActions", "AllowScopedInstanceProfileTagActions",
		"AllowScopedInstanceProfileActions"}},
	{"eks-integration", "discover the cluster endpoint", "KarpenterControllerEKSIntegrationPolicy-%s", []string{"AllowAPIServerEndpointDiscovery"}},
	{"interruption", "read the interruption queue", "KarpenterControllerInterruptionPolicy-%s", []string{"AllowInterruptionQueueActions"}},
	{"resource-discovery", "read EC2, SSM, pricing and instance profile information", "KarpenterControllerResourceDiscoveryPolicy-%s", []string{
		"AllowRegionalReadActions", "AllowSSMReadActions", "AllowPricingReadActions",
		"AllowUnscopedInstanceProfileListAction", "AllowInstanceProfileReadActions"}},
	{"zonal-shift", "read the cluster's zonal shift status", "KarpenterControllerZonalShiftPolicy-%s", []string{"AllowZonalShiftStatusReadOnly"}},
}

// singlePolicyKey names the one controller policy of releases before the split;
// singlePolicyTemplateName is its name in their templates (cfn-v0.31 to cfn-v1.8).
const (
	singlePolicyKey          = "policy"
	singlePolicyTemplateName = "KarpenterControllerPolicy-%s"
)

// ControllerPolicyKeys are the keys a controller policy can have, in layout order.
func ControllerPolicyKeys() []string {
	keys := []string{singlePolicyKey}
	for _, g := range policyGroups {
		keys = append(keys, g.key)
	}
	return keys
}

// TemplatePolicyName is the official template's name for the controller policy with this
// layout key, for a cluster ("" for a key no template has).
func TemplatePolicyName(key, cluster string) string {
	if key == singlePolicyKey {
		return fmt.Sprintf(singlePolicyTemplateName, cluster)
	}
	for _, g := range policyGroups {
		if g.key == key {
			return fmt.Sprintf(g.templateName, cluster)
		}
	}
	return ""
}

// ControllerPolicy is one managed policy the component creates for the controller.
type ControllerPolicy struct {
	Key, Description string
	sids             []string // the statements it holds
}

// LayoutControllerPolicies decides the controller's managed policies: one, as the release's
// template has it, unless the release splits them or one would not fit IAM's size limit.
func LayoutControllerPolicies(r Release, worstCase PolicyScope) []ControllerPolicy {
	statements := r.Policy(worstCase, r)
	var all []string
	for _, st := range statements {
		all = append(all, st.Sid)
	}
	if !r.Has(FeatureSplitPolicy) && len(PolicyDocument{Version: "2012-10-17", Statement: statements}.Json()) <= MaxManagedPolicyLength {
		return []ControllerPolicy{{singlePolicyKey, "launch and terminate nodes, read the interruption queue and discover resources", all}}
	}
	var out []ControllerPolicy
	for _, g := range policyGroups {
		var sids []string
		for _, sid := range all {
			for _, member := range g.sids {
				if sid == member {
					sids = append(sids, sid)
				}
			}
		}
		if len(sids) > 0 {
			out = append(out, ControllerPolicy{g.key, g.description, sids})
		}
	}
	return out
}

// Document holds the policy's share of the family's statements (rendered once for all the
// controller's policies), in family order.
func (p ControllerPolicy) Document(statements []Statement) PolicyDocument {
	doc := PolicyDocument{Version: "2012-10-17"}
	for _, st := range statements {
		if slices.Contains(p.sids, st.Sid) {
			doc.Statement = append(doc.Statement, st)
		}
	}
	return doc
}

// v1Policy is the controller policy of Karpenter v1 (cfn-v1.0, cfn-v1.8, cfn-v1.14), with
// each permission from the release that introduced it.
func v1Policy(s PolicyScope, r Release) []Statement {
	split := r.Has(FeatureSplitPolicy)
	launchable := List{s.ec2Public("image/*"), s.ec2Public("snapshot/*"), s.ec2("security-group/*"), s.ec2("subnet/*")}
	if r.Has(FeatureCapacityReservations) {
		launchable = append(launchable, s.ec2("capacity-reservation/*"))
	}
	if r.Has(FeaturePlacementGroups) {
		launchable = append(launchable, s.ec2("placement-group/*"))
	}
	created := List{s.ec2("fleet/*"), s.ec2("instance/*"), s.ec2("volume/*"), s.ec2("network-interface/*"),
		s.ec2("launch-template/*"), s.ec2("spot-instances-request/*")}
	createdWithTags := created
	if r.Has(FeatureCapacityReservations) && !split {
		// v1.3 - v1.8 also listed capacity reservations here; the split templates dropped it.
		createdWithTags = append(append(List{}, created...), s.ec2("capacity-reservation/*"))
	}
	ownedNodePool := Conditions{
		"StringEquals": {s.clusterTag("ResourceTag"): "owned"},
		"StringLike":   {"aws:ResourceTag/karpenter.sh/nodepool": "*"},
	}
	requestTags := map[string]any{s.clusterTag("RequestTag"): "owned", "aws:RequestTag/eks:eks-cluster-name": s.Cluster}
	nodeClassTag := func(tag string) string { return fmt.Sprintf("aws:%s/karpenter.k8s.aws/ec2nodeclass", tag) }

	describe := List{}
	if r.Has(FeatureCapacityReservations) {
		describe = append(describe, "ec2:DescribeCapacityReservations")
	}
	describe = append(describe, "ec2:DescribeImages", "ec2:DescribeInstances")
	if r.Has(FeatureInstanceStatus) {
		describe = append(describe, "ec2:DescribeInstanceStatus")
	}
	describe = append(describe, "ec2:DescribeInstanceTypeOfferings", "ec2:DescribeInstanceTypes", "ec2:DescribeLaunchTemplates")
	if r.Has(FeaturePlacementGroups) {
		describe = append(describe, "ec2:DescribePlacementGroups")
	}
	describe = append(describe, "ec2:DescribeSecurityGroups", "ec2:DescribeSpotPriceHistory", "ec2:DescribeSubnets")

	deletion := List{"ec2:TerminateInstances"}
	if r.Has(FeatureRebootInstances) {
		// 1.15 reboots a node in place when repair chooses to (awsFeatureGates.rebootForRepair);
		// the template grants it unconditionally (cfn-v1.15.reconstructed: cfn-v1.14 plus this
		// action, from the v1.15 reference page; the official v1.15 file was not available).
		deletion = append(deletion, "ec2:RebootInstances")
	}
	deletion = append(deletion, "ec2:DeleteLaunchTemplate")

	lifecycle := []Statement{
		allow("AllowScopedEC2InstanceAccessActions", launchable, List{"ec2:RunInstances", "ec2:CreateFleet"}, nil),
		allow("AllowScopedEC2LaunchTemplateAccessActions", List{s.ec2("launch-template/*")}, List{"ec2:RunInstances", "ec2:CreateFleet"}, ownedNodePool),
		allow("AllowScopedEC2InstanceActionsWithTags", createdWithTags, List{"ec2:RunInstances", "ec2:CreateFleet", "ec2:CreateLaunchTemplate"}, Conditions{
			"StringEquals": requestTags,
			"StringLike":   {"aws:RequestTag/karpenter.sh/nodepool": "*"},
		}),
		allow("AllowScopedResourceCreationTagging", created, List{"ec2:CreateTags"}, Conditions{
			"StringEquals": merge(requestTags, map[string]any{"ec2:CreateAction": []string{"RunInstances", "CreateFleet", "CreateLaunchTemplate"}}),
			"StringLike":   {"aws:RequestTag/karpenter.sh/nodepool": "*"},
		}),
		allow("AllowScopedResourceTagging", List{s.ec2("instance/*")}, List{"ec2:CreateTags"}, Conditions{
			"StringEquals":              {s.clusterTag("ResourceTag"): "owned"},
			"StringLike":                {"aws:ResourceTag/karpenter.sh/nodepool": "*"},
			"StringEqualsIfExists":      {"aws:RequestTag/eks:eks-cluster-name": s.Cluster},
			"ForAllValues:StringEquals": {"aws:TagKeys": []string{"eks:eks-cluster-name", "karpenter.sh/nodeclaim", "Name"}},
		}),
		allow("AllowScopedDeletion", List{s.ec2("instance/*"), s.ec2("launch-template/*")}, deletion, ownedNodePool),
	}
	discovery := []Statement{
		allow("AllowRegionalReadActions", List{"*"}, describe, Conditions{"StringEquals": {"aws:RequestedRegion": s.Region}}),
		ssmRead(s),
		allow("AllowPricingReadActions", List{"*"}, List{"pricing:GetProducts"}, nil),
	}
	passRole := allow("AllowPassingInstanceRole", List(s.NodeRoleArns), List{"iam:PassRole"}, Conditions{
		"StringEquals": {"iam:PassedToService": []string{"ec2.amazonaws.com", "ec2.amazonaws.com.cn"}},
	})
	profiles := []Statement{
		allow("AllowScopedInstanceProfileCreationActions", List{s.instanceProfiles()}, List{"iam:CreateInstanceProfile"}, Conditions{
			"StringEquals": merge(requestTags, map[string]any{"aws:RequestTag/topology.kubernetes.io/region": s.Region}),
			"StringLike":   {nodeClassTag("RequestTag"): "*"},
		}),
		allow("AllowScopedInstanceProfileTagActions", List{s.instanceProfiles()}, List{"iam:TagInstanceProfile"}, Conditions{
			"StringEquals": merge(requestTags, map[string]any{
				s.clusterTag("ResourceTag"):                     "owned",
				"aws:ResourceTag/topology.kubernetes.io/region": s.Region,
				"aws:RequestTag/topology.kubernetes.io/region":  s.Region,
			}),
			"StringLike": {nodeClassTag("ResourceTag"): "*", nodeClassTag("RequestTag"): "*"},
		}),
		allow("AllowScopedInstanceProfileActions", List{s.instanceProfiles()},
			List{"iam:AddRoleToInstanceProfile", "iam:RemoveRoleFromInstanceProfile", "iam:DeleteInstanceProfile"}, Conditions{
				"StringEquals": {s.clusterTag("ResourceTag"): "owned", "aws:ResourceTag/topology.kubernetes.io/region": s.Region},
				"StringLike":   {nodeClassTag("ResourceTag"): "*"},
			}),
	}
	readProfiles := allow("AllowInstanceProfileReadActions", List{s.instanceProfiles()}, List{"iam:GetInstanceProfile"}, nil)
	listProfiles := allow("AllowUnscopedInstanceProfileListAction", List{"*"}, List{"iam:ListInstanceProfiles"}, nil)
	endpoint := allow("AllowAPIServerEndpointDiscovery", List{s.clusterArn()}, List{"eks:DescribeCluster"}, nil)

	out := append([]Statement{}, lifecycle...)
	if split {
		// cfn-v1.14 order: lifecycle, IAM integration, EKS integration, interruption,
		// resource discovery (listing before reading profiles), zonal shift.
		out = append(out, passRole)
		out = append(out, profiles...)
		out = append(out, endpoint)
		out = append(out, interruptionStatements(s)...)
		out = append(out, discovery...)
		if r.Has(FeatureListInstanceProfiles) {
			out = append(out, listProfiles)
		}
		out = append(out, readProfiles)
		if r.Has(FeatureZonalShift) {
			out = append(out, allow("AllowZonalShiftStatusReadOnly", List{"*"}, List{"arc-zonal-shift:GetManagedResource"},
				Conditions{"StringEquals": {"arc-zonal-shift:ResourceIdentifier": s.clusterArn()}}))
		}
		return out
	}
	// cfn-v1.0 / cfn-v1.8 order.
	out = append(out, discovery...)
	out = append(out, interruptionStatements(s)...)
	out = append(out, passRole)
	out = append(out, profiles...)
	out = append(out, readProfiles)
	if r.Has(FeatureListInstanceProfiles) {
		out = append(out, listProfiles)
	}
	return append(out, endpoint)
}

// legacyRegionalRead is the read statement before v1, which still listed
// DescribeAvailabilityZones.
func legacyRegionalRead(s PolicyScope) Statement {
	return allow("AllowRegionalReadActions", List{"*"}, List{"ec2:DescribeAvailabilityZones", "ec2:DescribeImages", "ec2:DescribeInstances",
		"ec2:DescribeInstanceTypeOfferings", "ec2:DescribeInstanceTypes", "ec2:DescribeLaunchTemplates", "ec2:DescribeSecurityGroups",
		"ec2:DescribeSpotPriceHistory", "ec2:DescribeSubnets"}, Conditions{"StringEquals": {"aws:RequestedRegion": s.Region}})
}

func ssmRead(s PolicyScope) Statement {
	return allow("AllowSSMReadActions", List{fmt.Sprintf("arn:%s:ssm:%s::parameter/aws/service/*", s.Partition, s.Region)}, List{"ssm:GetParameter"}, nil)
}

func interruptionStatements(s PolicyScope) []Statement {
	if s.QueueArn == "" {
		return nil
	}
	return []Statement{allow("AllowInterruptionQueueActions", List{s.QueueArn}, List{"sqs:DeleteMessage", "sqs:GetQueueUrl", "sqs:ReceiveMessage"}, nil)}
}

// betaPolicy is the controller policy of the v1beta1 era (cfn-v0.37): no eks-cluster-name
// scoping, DescribeAvailabilityZones, PassRole to ec2.amazonaws.com only.
func betaPolicy(s PolicyScope, _ Release) []Statement {
	created := List{s.ec2("fleet/*"), s.ec2("instance/*"), s.ec2("volume/*"), s.ec2("network-interface/*"),
		s.ec2("launch-template/*"), s.ec2("spot-instances-request/*")}
	ownedNodePool := Conditions{
		"StringEquals": {s.clusterTag("ResourceTag"): "owned"},
		"StringLike":   {"aws:ResourceTag/karpenter.sh/nodepool": "*"},
	}
	owned := map[string]any{s.clusterTag("ResourceTag"): "owned", "aws:ResourceTag/topology.kubernetes.io/region": s.Region}
	requested := map[string]any{s.clusterTag("RequestTag"): "owned", "aws:RequestTag/topology.kubernetes.io/region": s.Region}
	nodeClassTag := func(tag string) string { return fmt.Sprintf("aws:%s/karpenter.k8s.aws/ec2nodeclass", tag) }
	out := []Statement{
		allow("AllowScopedEC2InstanceAccessActions", List{s.ec2Public("image/*"), s.ec2Public("snapshot/*"), s.ec2("security-group/*"), s.ec2("subnet/*")},
			List{"ec2:RunInstances", "ec2:CreateFleet"}, nil),
		allow("AllowScopedEC2LaunchTemplateAccessActions", List{s.ec2("launch-template/*")}, List{"ec2:RunInstances", "ec2:CreateFleet"}, ownedNodePool),
		allow("AllowScopedEC2InstanceActionsWithTags", created, List{"ec2:RunInstances", "ec2:CreateFleet", "ec2:CreateLaunchTemplate"}, Conditions{
			"StringEquals": {s.clusterTag("RequestTag"): "owned"},
			"StringLike":   {"aws:RequestTag/karpenter.sh/nodepool": "*"},
		}),
		allow("AllowScopedResourceCreationTagging", created, List{"ec2:CreateTags"}, Conditions{
			"StringEquals": {s.clusterTag("RequestTag"): "owned", "ec2:CreateAction": []string{"RunInstances", "CreateFleet", "CreateLaunchTemplate"}},
			"StringLike":   {"aws:RequestTag/karpenter.sh/nodepool": "*"},
		}),
		allow("AllowScopedResourceTagging", List{s.ec2("instance/*")}, List{"ec2:CreateTags"}, Conditions{
			"StringEquals":              {s.clusterTag("ResourceTag"): "owned"},
			"StringLike":                {"aws:ResourceTag/karpenter.sh/nodepool": "*"},
			"ForAllValues:StringEquals": {"aws:TagKeys": []string{"karpenter.sh/nodeclaim", "Name"}},
		}),
		allow("AllowScopedDeletion", List{s.ec2("instance/*"), s.ec2("launch-template/*")}, List{"ec2:TerminateInstances", "ec2:DeleteLaunchTemplate"}, ownedNodePool),
		legacyRegionalRead(s),
		ssmRead(s),
		allow("AllowPricingReadActions", List{"*"}, List{"pricing:GetProducts"}, nil),
	}
	out = append(out, interruptionStatements(s)...)
	return append(out,
		allow("AllowPassingInstanceRole", List(s.NodeRoleArns), List{"iam:PassRole"}, Conditions{"StringEquals": {"iam:PassedToService": "ec2.amazonaws.com"}}),
		allow("AllowScopedInstanceProfileCreationActions", List{s.instanceProfiles()}, List{"iam:CreateInstanceProfile"}, Conditions{
			"StringEquals": requested,
			"StringLike":   {nodeClassTag("RequestTag"): "*"},
		}),
		allow("AllowScopedInstanceProfileTagActions", List{s.instanceProfiles()}, List{"iam:TagInstanceProfile"}, Conditions{
			"StringEquals": merge(owned, requested),
			"StringLike":   {nodeClassTag("ResourceTag"): "*", nodeClassTag("RequestTag"): "*"},
		}),
		allow("AllowScopedInstanceProfileActions", List{s.instanceProfiles()},
			List{"iam:AddRoleToInstanceProfile", "iam:RemoveRoleFromInstanceProfile", "iam:DeleteInstanceProfile"}, Conditions{
				"StringEquals": owned,
				"StringLike":   {nodeClassTag("ResourceTag"): "*"},
			}),
		allow("AllowInstanceProfileReadActions", List{s.instanceProfiles()}, List{"iam:GetInstanceProfile"}, nil),
		allow("AllowAPIServerEndpointDiscovery", List{s.clusterArn()}, List{"eks:DescribeCluster"}, nil),
	)
}

// alphaPolicy is the controller policy of the Provisioner era (cfn-v0.31): scoped by the
// karpenter.sh/provisioner-name tag; no instance profile management (the component creates
// the one instance profile the nodes use).
func alphaPolicy(s PolicyScope, _ Release) []Statement {
	created := List{s.ec2("fleet/*"), s.ec2("instance/*"), s.ec2("volume/*"), s.ec2("network-interface/*"), s.ec2("launch-template/*")}
	out := []Statement{
		allow("AllowScopedEC2InstanceActions", List{s.ec2Public("image/*"), s.ec2Public("snapshot/*"), s.ec2("spot-instances-request/*"),
			s.ec2("security-group/*"), s.ec2("subnet/*"), s.ec2("launch-template/*")}, List{"ec2:RunInstances", "ec2:CreateFleet"}, nil),
		allow("AllowScopedEC2InstanceActionsWithTags", created, List{"ec2:RunInstances", "ec2:CreateFleet", "ec2:CreateLaunchTemplate"}, Conditions{
			"StringEquals": {s.clusterTag("RequestTag"): "owned"},
			"StringLike":   {"aws:RequestTag/karpenter.sh/provisioner-name": "*"},
		}),
		allow("AllowScopedResourceCreationTagging", created, List{"ec2:CreateTags"}, Conditions{
			"StringEquals": {s.clusterTag("RequestTag"): "owned", "ec2:CreateAction": []string{"RunInstances", "CreateFleet", "CreateLaunchTemplate"}},
			"StringLike":   {"aws:RequestTag/karpenter.sh/provisioner-name": "*"},
		}),
		allow("AllowMachineMigrationTagging", List{s.ec2("instance/*")}, List{"ec2:CreateTags"}, Conditions{
			"StringEquals":              {s.clusterTag("ResourceTag"): "owned", "aws:RequestTag/karpenter.sh/managed-by": s.Cluster},
			"StringLike":                {"aws:RequestTag/karpenter.sh/provisioner-name": "*"},
			"ForAllValues:StringEquals": {"aws:TagKeys": []string{"karpenter.sh/provisioner-name", "karpenter.sh/managed-by"}},
		}),
		allow("AllowScopedDeletion", List{s.ec2("instance/*"), s.ec2("launch-template/*")}, List{"ec2:TerminateInstances", "ec2:DeleteLaunchTemplate"}, Conditions{
			"StringEquals": {s.clusterTag("ResourceTag"): "owned"},
			"StringLike":   {"aws:ResourceTag/karpenter.sh/provisioner-name": "*"},
		}),
		legacyRegionalRead(s),
		ssmRead(s),
		allow("AllowPricingReadActions", List{"*"}, List{"pricing:GetProducts"}, nil),
	}
	if s.QueueArn != "" {
		// The Provisioner-era controller also reads the queue's attributes.
		out = append(out, allow("AllowInterruptionQueueActions", List{s.QueueArn},
			List{"sqs:DeleteMessage", "sqs:GetQueueAttributes", "sqs:GetQueueUrl", "sqs:ReceiveMessage"}, nil))
	}
	return append(out,
		allow("AllowPassingInstanceRole", List(s.NodeRoleArns), List{"iam:PassRole"}, Conditions{"StringEquals": {"iam:PassedToService": "ec2.amazonaws.com"}}),
		allow("AllowAPIServerEndpointDiscovery", List{s.clusterArn()}, List{"eks:DescribeCluster"}, nil),
	)
}

// QueuePolicy lets EventBridge (and SQS itself) deliver to the queue and refuses plain HTTP.
func QueuePolicy(queueArn string) string {
	return PolicyDocument{Version: "2012-10-17", ID: "EC2InterruptionPolicy", Statement: []Statement{
		{
			Effect:    "Allow",
			Principal: map[string][]string{"Service": {"events.amazonaws.com", "sqs.amazonaws.com"}},
			Action:    List{"sqs:SendMessage"},
			Resource:  List{queueArn},
		},
		{
			Sid:       "DenyHTTP",
			Effect:    "Deny",
			Principal: "*",
			Action:    List{"sqs:*"},
			Resource:  List{queueArn},
			Condition: Conditions{"Bool": {"aws:SecureTransport": "false"}},
		},
	}}.Json()
}

// merge returns the union of two condition maps (b wins).
func merge(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}
