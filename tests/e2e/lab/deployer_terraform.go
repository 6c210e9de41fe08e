package lab

import (
	"fmt"
	"slices"
)

// terraformCalls are the AWS actions terraform-provider-aws (v5, which pulumi-aws 6.x embeds) calls
// for each operation of the resource types the component registers, read from the stored copies of
// its source (internal/service/<service>/<resource>.go; the functions named with each; v6, in 7.x,
// makes the same for what the component sets: its aws_iam_policy's delay_after_policy_creation_in_ms,
// which adds iam:SetDefaultPolicyVersion, the component leaves unset). aws_ec2_tag's v5 file is not
// in the stored copies: its row is read from an older copy of the same resource. Create and Update
// end with the resource's read, as terraform's do (but a pod identity association's create). Tags
// go in the create call, which IAM, SQS, EventBridge and EKS authorize as the service's tagging
// action as well; on update terraform's tagging interceptor calls the service's Untag and Tag
// actions. A read that does not return the tags lists them (SQS ListQueueTags, EventBridge
// ListTagsForResource).
//
// Conditional calls are modelled by the inputs: createIf by the inputs a create is given, update
// by the inputs an update changes ("*": any other input, where terraform sends them all in one
// call; an input not listed otherwise is an error: what terraform calls for it was not read).
// Calls that run only when the account holds something the component never makes (an inline role
// policy, a fifth policy version) are listed as terraform makes them anyway.
type terraformOps struct {
	source   string
	create   []string
	createIf map[string][]string
	read     []string
	// noReadAfterCreate: the create does not read the object back (a framework resource whose
	// create sets everything from its answer).
	noReadAfterCreate bool
	update            map[string][]string
	delete            []string
}

var terraformCalls = map[string]terraformOps{
	"aws:iam/role:Role": {
		source: "iam/role.go resourceRoleCreate/Read/Update, deleteRole",
		create: []string{"iam:CreateRole"},
		createIf: map[string][]string{"tags": {"iam:TagRole"}, "inlinePolicies": {"iam:PutRolePolicy"},
			"managedPolicyArns": {"iam:AttachRolePolicy"}},
		// readRoleInlinePolicies lists the inline policies (GetRolePolicy for each: the component
		// makes none); findRoleAttachedPolicies the attached ones.
		read: []string{"iam:GetRole", "iam:ListRolePolicies", "iam:ListAttachedRolePolicies"},
		update: map[string][]string{
			"assumeRolePolicy": {"iam:UpdateAssumeRolePolicy"},
			"description":      {"iam:UpdateRoleDescription"},
			"tags":             {"iam:TagRole", "iam:UntagRole"},
		},
		// deleteRoleInstanceProfiles always; the attached and inline policies are listed because
		// managed_policy_arns and inline_policy are computed from what the read found.
		delete: []string{"iam:ListInstanceProfilesForRole", "iam:ListAttachedRolePolicies", "iam:ListRolePolicies", "iam:DeleteRole"},
	},
	"aws:iam/policy:Policy": {
		source:   "iam/policy.go resourcePolicyCreate/Read/Update/Delete, policyPruneVersions",
		create:   []string{"iam:CreatePolicy"},
		createIf: map[string][]string{"tags": {"iam:TagPolicy"}},
		read:     []string{"iam:GetPolicy", "iam:GetPolicyVersion"},
		update: map[string][]string{
			// A new default version, after deleting the oldest when five exist.
			"policy": {"iam:ListPolicyVersions", "iam:DeletePolicyVersion", "iam:CreatePolicyVersion"},
			"tags":   {"iam:TagPolicy", "iam:UntagPolicy"},
		},
		delete: []string{"iam:ListPolicyVersions", "iam:DeletePolicyVersion", "iam:DeletePolicy"},
	},
	"aws:iam/rolePolicyAttachment:RolePolicyAttachment": {
		source: "iam/role_policy_attachment.go (every argument ForceNew: no update)",
		create: []string{"iam:AttachRolePolicy"},
		read:   []string{"iam:ListAttachedRolePolicies"},
		delete: []string{"iam:DetachRolePolicy"},
	},
	"aws:iam/instanceProfile:InstanceProfile": {
		source: "iam/instance_profile.go resourceInstanceProfileCreate/Read/Update/Delete",
		// CreateInstanceProfile, then GetInstanceProfile until it is found.
		create: []string{"iam:CreateInstanceProfile", "iam:GetInstanceProfile"},
		// AddRoleToInstanceProfile: "The caller of this operation must be granted the PassRole
		// permission on the IAM role" (IAM API reference).
		createIf: map[string][]string{"role": {"iam:AddRoleToInstanceProfile", "iam:PassRole"}, "tags": {"iam:TagInstanceProfile"}},
		// The read also reads the role inside (GetRole).
		read: []string{"iam:GetInstanceProfile", "iam:GetRole"},
		update: map[string][]string{
			"role": {"iam:RemoveRoleFromInstanceProfile", "iam:AddRoleToInstanceProfile", "iam:PassRole"},
			"tags": {"iam:TagInstanceProfile", "iam:UntagInstanceProfile"},
		},
		delete: []string{"iam:RemoveRoleFromInstanceProfile", "iam:DeleteInstanceProfile"},
	},
	"aws:iam/serviceLinkedRole:ServiceLinkedRole": {
		source:   "iam/service_linked_role.go (the component retains it on delete)",
		create:   []string{"iam:CreateServiceLinkedRole"},
		createIf: map[string][]string{"tags": {"iam:TagRole"}},
		read:     []string{"iam:GetRole"},
		update:   map[string][]string{"description": {"iam:UpdateRole"}, "tags": {"iam:TagRole", "iam:UntagRole"}},
		delete:   []string{"iam:DeleteServiceLinkedRole", "iam:GetServiceLinkedRoleDeletionStatus"},
	},
	"aws:sqs/queue:Queue": {
		source: "sqs/queue.go resourceQueueCreate/Read/Update/Delete, waitQueueAttributesPropagated, waitQueueDeleted",
		// CreateQueue, then GetQueueAttributes until the attributes are there.
		create:   []string{"sqs:CreateQueue", "sqs:GetQueueAttributes"},
		createIf: map[string][]string{"tags": {"sqs:TagQueue"}},
		read:     []string{"sqs:GetQueueAttributes", "sqs:ListQueueTags"},
		update: map[string][]string{
			// Every other argument is a queue attribute: SetQueueAttributes, then GetQueueAttributes
			// until it holds.
			"*":    {"sqs:SetQueueAttributes", "sqs:GetQueueAttributes"},
			"tags": {"sqs:TagQueue", "sqs:UntagQueue"},
		},
		delete: []string{"sqs:DeleteQueue", "sqs:GetQueueAttributes"},
	},
	"aws:sqs/queuePolicy:QueuePolicy": {
		source: "sqs/queue_policy.go, attribute_funcs.go queueAttributeHandler Upsert/Read/Delete",
		create: []string{"sqs:SetQueueAttributes", "sqs:GetQueueAttributes"},
		read:   []string{"sqs:GetQueueAttributes"},
		update: map[string][]string{"policy": {"sqs:SetQueueAttributes", "sqs:GetQueueAttributes"}},
		// SetQueueAttributes with an empty Policy, then GetQueueAttributes until it is gone.
		delete: []string{"sqs:SetQueueAttributes", "sqs:GetQueueAttributes"},
	},
	"aws:cloudwatch/eventRule:EventRule": {
		source: "events/rule.go resourceRuleCreate/Read/Update/Delete",
		// PutRule, then DescribeRule until it is found.
		create:   []string{"events:PutRule", "events:DescribeRule"},
		createIf: map[string][]string{"tags": {"events:TagResource"}},
		read:     []string{"events:DescribeRule", "events:ListTagsForResource"},
		update: map[string][]string{
			"*": {"events:PutRule"}, "tags": {"events:TagResource", "events:UntagResource"},
		},
		delete: []string{"events:DeleteRule"},
	},
	"aws:cloudwatch/eventTarget:EventTarget": {
		source: "events/target.go (no tags; a target with a role_arn passes it: the component's target is the queue, with none)",
		create: []string{"events:PutTargets"},
		read:   []string{"events:ListTargetsByRule"},
		update: map[string][]string{"*": {"events:PutTargets"}},
		delete: []string{"events:RemoveTargets"},
	},
	"aws:ec2/tag:Tag": {
		source: "ec2/tag.go resourceTagCreate/Read/Update/Delete",
		create: []string{"ec2:CreateTags"},
		read:   []string{"ec2:DescribeTags"},
		update: map[string][]string{"value": {"ec2:CreateTags"}},
		delete: []string{"ec2:DeleteTags"},
	},
	"aws:eks/accessEntry:AccessEntry": {
		source:   "eks/access_entry.go resourceAccessEntryCreate/Read/Update/Delete",
		create:   []string{"eks:CreateAccessEntry"},
		createIf: map[string][]string{"tags": {"eks:TagResource"}},
		read:     []string{"eks:DescribeAccessEntry"},
		update: map[string][]string{
			"kubernetesGroups": {"eks:UpdateAccessEntry"}, "userName": {"eks:UpdateAccessEntry"},
			"tags": {"eks:TagResource", "eks:UntagResource"},
		},
		delete: []string{"eks:DeleteAccessEntry"},
	},
	"aws:eks/accessPolicyAssociation:AccessPolicyAssociation": {
		source: "eks/access_policy_association.go (every argument ForceNew: no update)",
		create: []string{"eks:AssociateAccessPolicy"},
		read:   []string{"eks:ListAssociatedAccessPolicies"},
		delete: []string{"eks:DisassociateAccessPolicy"},
	},
	"aws:eks/addon:Addon": {
		source: "eks/addon.go resourceAddonCreate/Read/Update/Delete, waitAddonCreated/Updated/Deleted",
		// CreateAddon, then DescribeAddon until ACTIVE.
		create: []string{"eks:CreateAddon", "eks:DescribeAddon"},
		// A role given to the add-on is passed to EKS (CloudFormation's AWS::EKS::Addon handler
		// permissions list iam:PassRole).
		createIf: map[string][]string{"tags": {"eks:TagResource"}, "serviceAccountRoleArn": {"iam:PassRole"}},
		read:     []string{"eks:DescribeAddon"},
		update: map[string][]string{
			"addonVersion":             {"eks:UpdateAddon", "eks:DescribeUpdate"},
			"configurationValues":      {"eks:UpdateAddon", "eks:DescribeUpdate"},
			"resolveConflictsOnUpdate": {"eks:UpdateAddon", "eks:DescribeUpdate"},
			"tags":                     {"eks:TagResource", "eks:UntagResource"},
		},
		delete: []string{"eks:DeleteAddon", "eks:DescribeAddon"},
	},
	"aws:eks/podIdentityAssociation:PodIdentityAssociation": {
		source: "eks/pod_identity_association.go (a framework resource: its create reads nothing back)",
		// "The IAM principal that is creating the association must have iam:PassRole" (EKS user
		// guide, Pod Identity associations).
		create:            []string{"eks:CreatePodIdentityAssociation", "iam:PassRole"},
		createIf:          map[string][]string{"tags": {"eks:TagResource"}},
		noReadAfterCreate: true,
		read:              []string{"eks:DescribePodIdentityAssociation"},
		update: map[string][]string{
			"roleArn": {"eks:UpdatePodIdentityAssociation", "iam:PassRole"},
			"tags":    {"eks:TagResource", "eks:UntagResource"},
		},
		delete: []string{"eks:DeletePodIdentityAssociation"},
	},
}

// terraformDataSources are the actions of the read functions (data sources) the component calls,
// by the arguments given where those choose the calls.
var terraformDataSources = map[string]func(args []string) []string{
	// meta/partition_data_source.go, region_data_source.go: from the SDK's endpoint metadata.
	"aws:index/getPartition:getPartition": func([]string) []string { return nil },
	"aws:index/getRegion:getRegion":       func([]string) []string { return nil },
	// sts/caller_identity_data_source.go: GetCallerIdentity, which needs no permission ("No
	// permissions are required to perform this operation", STS API reference).
	"aws:index/getCallerIdentity:getCallerIdentity": func([]string) []string { return nil },
	"aws:eks/getAddon:getAddon":                     fixed("eks:DescribeAddon"),
	"aws:eks/getCluster:getCluster":                 fixed("eks:DescribeCluster"),
	"aws:eks/getAccessEntry:getAccessEntry":         fixed("eks:DescribeAccessEntry"),
	"aws:iam/getInstanceProfile:getInstanceProfile": fixed("iam:GetInstanceProfile"),
	"aws:iam/getRole:getRole":                       fixed("iam:GetRole"),
	"aws:ssm/getParameter:getParameter":             fixed("ssm:GetParameter"),
	"aws:ec2/getSubnets:getSubnets":                 fixed("ec2:DescribeSubnets"),
	"aws:ec2/getSubnet:getSubnet":                   fixed("ec2:DescribeSubnets"),
	"aws:ec2/getSecurityGroups:getSecurityGroups":   fixed("ec2:DescribeSecurityGroups"),
	// sqs/queue_data_source.go: the URL, the ARN, and the tags (its tagging interceptor).
	"aws:sqs/getQueue:getQueue": fixed("sqs:GetQueueUrl", "sqs:GetQueueAttributes", "sqs:ListQueueTags"),
	// iam/openid_connect_provider_data_source.go: by ARN one read; by URL the list first.
	"aws:iam/getOpenIdConnectProvider:getOpenIdConnectProvider": func(args []string) []string {
		if slices.Contains(args, "arn") {
			return []string{"iam:GetOpenIDConnectProvider"}
		}
		return []string{"iam:ListOpenIDConnectProviders", "iam:GetOpenIDConnectProvider"}
	},
	// iam/policy_data_source.go: by ARN GetPolicy; by name (or path prefix) ListPolicies first.
	"aws:iam/getPolicy:getPolicy": func(args []string) []string {
		if slices.Contains(args, "arn") {
			return []string{"iam:GetPolicy", "iam:GetPolicyVersion"}
		}
		return []string{"iam:ListPolicies", "iam:GetPolicy", "iam:GetPolicyVersion"}
	},
}

func fixed(actions ...string) func([]string) []string {
	return func([]string) []string { return actions }
}

// terraformActions are the actions of one operation; an error names what the tables do not know.
func terraformActions(o StandInOp) ([]string, error) {
	if o.Op == "Invoke" {
		fn, ok := terraformDataSources[o.Type]
		if !ok {
			return nil, fmt.Errorf("the function %s", o.Type)
		}
		return fn(o.Keys), nil
	}
	t, ok := terraformCalls[o.Type]
	if !ok {
		return nil, fmt.Errorf("the resource type %s", o.Type)
	}
	var out []string
	switch o.Op {
	case "Create":
		out = append(out, t.create...)
		for _, k := range o.Keys {
			out = append(out, t.createIf[k]...)
		}
		if !t.noReadAfterCreate {
			out = append(out, t.read...)
		}
	case "Read":
		out = t.read
	case "Update":
		for _, k := range o.Keys {
			actions, ok := t.update[k]
			if !ok {
				actions, ok = t.update["*"]
			}
			if !ok {
				return nil, fmt.Errorf("an update of %s changing %s", o.Type, k)
			}
			out = append(out, actions...)
		}
		out = append(out, t.read...)
	case "Delete":
		out = t.delete
	default:
		return nil, fmt.Errorf("the operation %s", o.Op)
	}
	return out, nil
}
