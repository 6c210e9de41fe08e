package children

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputs"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// extraStatementsDocument builds the user's extra controller statements into one policy.
func extraStatementsDocument(stmts []inputs.PolicyStatement) pulumi.StringOutput {
	resolved := make([]any, 0, 2*len(stmts))
	for _, st := range stmts {
		resolved = append(resolved, stringArrayOrEmpty(st.Resources), stringArrayOrEmpty(st.NotResources))
	}
	return pulumi.All(resolved...).ApplyT(func(vals []any) string {
		doc := catalog.PolicyDocument{Version: "2012-10-17"}
		for i, st := range stmts {
			s := catalog.Statement{
				Sid:         inputs.Deref(st.Sid, ""),
				Effect:      inputs.Deref(st.Effect, catalog.DefaultStatementEffect),
				Action:      st.Actions,
				NotAction:   st.NotActions,
				Resource:    vals[2*i].([]string),
				NotResource: vals[2*i+1].([]string),
			}
			for _, c := range st.Conditions {
				if s.Condition == nil {
					s.Condition = map[string]map[string]any{}
				}
				if s.Condition[c.Test] == nil {
					s.Condition[c.Test] = map[string]any{}
				}
				s.Condition[c.Test][c.Variable] = catalog.List(c.Values)
			}
			doc.Statement = append(doc.Statement, s)
		}
		return doc.Json()
	}).(pulumi.StringOutput)
}

func stringArrayOrEmpty(in pulumi.StringArrayInput) pulumi.StringArrayOutput {
	if in == nil {
		return pulumi.StringArray{}.ToStringArrayOutput()
	}
	return in.ToStringArrayOutput()
}

// controllerIAM is what the component knows about the controller's identity.
type controllerIAM struct {
	roleArn, roleName pulumi.StringOutput
	policyArns        pulumi.StringArrayOutput
	resources         []pulumi.Resource // everything the controller release must wait for
}

// createControllerIAM creates the controller's managed policies and the IRSA role that
// holds them, or adopts controllerRoleArn.
func (b *builder) createControllerIAM(node nodeIAM, queueArn string) (controllerIAM, error) {
	if !b.plan.CreateControllerIAM {
		arn := b.plan.Deferred.ControllerRoleArn.ToStringPtrOutput().Elem()
		return controllerIAM{
			roleArn:    arn,
			roleName:   arn.ApplyT(inputs.NameFromArn).(pulumi.StringOutput),
			policyArns: pulumi.StringArray{}.ToStringArrayOutput(),
		}, nil
	}

	roleName, adopted := b.adoptedName(func() string { return b.plan.Adopt.ControllerRole }, catalog.ControllerRoleSuffix)
	role, err := b.newChild(iamRole, catalog.ControllerRoleSuffix, pulumi.Map{
		"name":             pulumi.String(roleName),
		"description":      b.describe("controller role"),
		"assumeRolePolicy": b.controllerTrustPolicy(),
		"tags":             b.plan.Deferred.Tags,
	}, b.adoptingIf(adopted, roleName, "path")...)
	if err != nil {
		return controllerIAM{}, err
	}
	out := controllerIAM{roleArn: role.Arn, roleName: role.Name, resources: []pulumi.Resource{role}}

	policies := b.controllerPolicyLayout(queueArn)
	documents := pulumi.All(b.plan.Deferred.ClusterName, node.passRoleArns).ApplyT(
		func(vals []any) (map[string]string, error) {
			scope := catalog.PolicyScope{AwsScope: b.aws, Cluster: vals[0].(string), NodeRoleArns: vals[1].([]string), QueueArn: queueArn}
			statements := b.plan.Release.Policy(scope, b.plan.Release)
			docs := map[string]string{}
			for _, p := range policies {
				doc := p.Document(statements).Json()
				if len(doc) > catalog.MaxManagedPolicyLength {
					return nil, field.Invalidf(field.NewPath("clusterName"), "the controller policy %q would be %d characters, over IAM's %d-character limit; use a shorter cluster name",
						p.Key, len(doc), catalog.MaxManagedPolicyLength)
				}
				docs[p.Key] = doc
			}
			return docs, nil
		}).(pulumi.StringMapOutput)

	// An adopted policy may hold more than its share: terraform-aws-modules' one controller
	// policy, adopted under node-lifecycle, is narrowed to that share by its update. IAM applies
	// both at once, so the policies the install lacks are created and attached first and the
	// adopted ones wait for them: the controller never runs with less than it needs. (Where all
	// are adopted, or none, the order is the layout's.)
	type controllerPolicy struct {
		catalog.ControllerPolicy
		name    string
		adopted bool
	}
	var created, adoptedPolicies []controllerPolicy
	for _, p := range policies {
		name, adoptedPolicy := b.adoptedName(func() string { return b.plan.Adopt.ControllerPolicies[p.Key] }, "-controller-"+p.Key)
		if adoptedPolicy {
			adoptedPolicies = append(adoptedPolicies, controllerPolicy{p, name, true})
		} else {
			created = append(created, controllerPolicy{p, name, false})
		}
	}
	var policyArns pulumi.StringArray
	var attachedFirst []pulumi.Resource
	for _, p := range append(created, adoptedPolicies...) {
		arn := b.iamArn(p.name, p.adopted, b.aws.PolicyArn)
		opts := b.adoptingIf(p.adopted, arn, "description", "path") // IAM cannot change a policy's description or path: the install's are kept.
		if p.adopted && len(attachedFirst) > 0 {
			opts = append(opts, pulumi.DependsOn(attachedFirst))
		}
		policy, err := b.newChild(iamPolicy, "-controller-"+p.Key, pulumi.Map{
			"name":        pulumi.String(p.name),
			"description": b.describe("controller policy: " + p.Description),
			"policy":      documents.MapIndex(pulumi.String(p.Key)),
			"tags":        b.plan.Deferred.Tags,
		}, opts...)
		if err != nil {
			return controllerIAM{}, err
		}
		attachment := b.adoptingIf(adopted && p.adopted, attachmentID(roleName, arn))
		if err := b.attach(&out, role, "-controller-"+p.Key+"-attach", policy.Arn, attachment...); err != nil {
			return controllerIAM{}, err
		}
		if !p.adopted {
			attachedFirst = append(attachedFirst, out.resources[len(out.resources)-1])
		}
		policyArns = append(policyArns, policy.Arn)
		out.resources = append(out.resources, policy)
	}

	if len(b.plan.ControllerPolicyStatements) > 0 {
		policy, err := b.newChild(iamPolicy, "-controller-statements", pulumi.Map{
			"name":        pulumi.String(b.physicalName("-controller-statements")),
			"description": b.describe("controller policy: extra statements"),
			"policy":      extraStatementsDocument(b.plan.ControllerPolicyStatements),
			"tags":        b.plan.Deferred.Tags,
		})
		if err != nil {
			return controllerIAM{}, err
		}
		if err := b.attach(&out, role, "-controller-statements-attach", policy.Arn); err != nil {
			return controllerIAM{}, err
		}
		policyArns = append(policyArns, policy.Arn)
		out.resources = append(out.resources, policy)
	}
	for _, key := range slices.Sorted(maps.Keys(b.plan.Deferred.ControllerPolicyArns)) {
		if err := b.attach(&out, role, "-controller-attach-"+key, b.plan.Deferred.ControllerPolicyArns[key]); err != nil {
			return controllerIAM{}, err
		}
	}
	out.policyArns = policyArns.ToStringArrayOutput()
	return out, nil
}

func (b *builder) attach(out *controllerIAM, role *Child, suffix string, policyArn pulumi.StringInput, opts ...pulumi.ResourceOption) error {
	att, err := b.newChild(iamRolePolicyAttach, suffix, pulumi.Map{"role": role.Name, "policyArn": policyArn}, opts...)
	if err != nil {
		return err
	}
	out.resources = append(out.resources, att)
	return nil
}

// controllerPolicyLayout decides the controller's managed policies before any value
// resolves: it sizes the documents with the cluster name when it is already known, and with
// the longest possible one otherwise, so the set of policies never depends on a value that
// arrives later.
func (b *builder) controllerPolicyLayout(queueArn string) []catalog.ControllerPolicy {
	cluster, ok := b.plan.KnownInput(field.NewPath("clusterName"))
	if !ok {
		cluster = strings.Repeat("c", 100)
	}
	nodeRole, ok := b.knownNodeRoleArn()
	if !ok {
		nodeRole = b.aws.RoleArn(b.physicalName(catalog.NodeRoleSuffix))
	}
	return catalog.LayoutControllerPolicies(b.plan.Release, catalog.PolicyScope{AwsScope: b.aws, Cluster: cluster, NodeRoleArns: []string{nodeRole}, QueueArn: queueArn})
}

// controllerTrustPolicy lets the controller's service account assume the role: through the
// cluster's OIDC provider (IRSA; both the audience and the subject are pinned — a trust on
// `sub` alone would accept tokens minted for other audiences), through EKS Pod Identity, or
// both while migrating.
func (b *builder) controllerTrustPolicy() pulumi.StringOutput {
	subject := fmt.Sprintf("system:serviceaccount:%s:%s", b.plan.Namespace, b.plan.ServiceAccount)
	oidc := pulumi.String("").ToStringOutput()
	if b.plan.TrustIRSA {
		oidc = b.plan.Deferred.OidcProviderArn.ToStringPtrOutput().Elem()
	}
	return oidc.ApplyT(func(arn string) string {
		var statements []catalog.Statement
		if b.plan.TrustIRSA {
			issuer := oidcIssuer(arn)
			statements = append(statements, catalog.Statement{
				Effect:    "Allow",
				Principal: map[string]string{"Federated": arn},
				Action:    catalog.List{"sts:AssumeRoleWithWebIdentity"},
				Condition: catalog.Conditions{"StringEquals": {
					issuer + ":aud": "sts.amazonaws.com",
					issuer + ":sub": subject,
				}},
			})
		}
		if b.plan.PodIdentity {
			statements = append(statements, catalog.Statement{
				Effect:    "Allow",
				Principal: map[string]string{"Service": "pods.eks.amazonaws.com"},
				Action:    catalog.List{"sts:AssumeRole", "sts:TagSession"},
			})
		}
		return catalog.PolicyDocument{Version: "2012-10-17", Statement: statements}.Json()
	}).(pulumi.StringOutput)
}

// oidcIssuer is the issuer host/path of an IAM OIDC provider ARN, the prefix of its condition keys.
func oidcIssuer(arn string) string {
	_, issuer, _ := strings.Cut(arn, ":oidc-provider/")
	return issuer
}

// nodeIAM is what the component knows about the nodes' identity.
type nodeIAM struct {
	roleArn, roleName   pulumi.StringOutput
	passRoleArns        pulumi.StringArrayOutput // roles the controller may pass to EC2
	instanceProfileName pulumi.StringOutput
	resources           []pulumi.Resource // everything nodes need before Karpenter launches one
}

// policyAttachment is a managed policy attached to a role, named by its child-name suffix.
type policyAttachment struct {
	suffix string
	arn    pulumi.StringInput
	// extra: the user's (nodeRoleAdditionalPolicyArns), which a running install may not have.
	extra bool
}

// nodePolicyAttachments are the node role's managed policies: the four AWS policies every EKS
// node needs (Auto Mode's two), then the user's additional ones in key order.
func (b *builder) nodePolicyAttachments() []policyAttachment {
	aws := func(suffix, name string) policyAttachment {
		return policyAttachment{suffix, pulumi.String(fmt.Sprintf("arn:%s:iam::aws:policy/%s", b.aws.Partition, name)), false}
	}
	attachments := []policyAttachment{
		aws("-node-worker", "AmazonEKSWorkerNodePolicy"),
		aws("-node-cni", "AmazonEKS_CNI_Policy"),
		aws("-node-ecr", catalog.EcrPolicy(b.plan.Release)),
		aws("-node-ssm", "AmazonSSMManagedInstanceCore"),
	}
	if rules := b.plan.Release.AutoMode; rules != nil {
		// Auto Mode nodes need less: AWS manages pod networking, and SSM access is blocked.
		attachments = attachments[:0]
		for _, p := range rules.NodePolicies {
			attachments = append(attachments, aws(p.Suffix, p.Name))
		}
	}
	for _, key := range slices.Sorted(maps.Keys(b.plan.Deferred.NodeRoleAdditionalPolicyArns)) {
		attachments = append(attachments, policyAttachment{"-node-extra-" + key, b.plan.Deferred.NodeRoleAdditionalPolicyArns[key], true})
	}
	return attachments
}

// createNodeIAM creates the node role, its policies, instance profile and cluster access,
// or adopts nodeRoleArn.
func (b *builder) createNodeIAM() (nodeIAM, error) {
	if !b.plan.CreateNodeRole {
		arn := b.plan.Deferred.NodeRoleArn.ToStringPtrOutput().Elem()
		return nodeIAM{
			roleArn:             arn,
			roleName:            arn.ApplyT(inputs.NameFromArn).(pulumi.StringOutput),
			passRoleArns:        b.passRoleArns(arn),
			instanceProfileName: pulumi.String("").ToStringOutput(),
		}, nil
	}

	trust := catalog.PolicyDocument{Version: "2012-10-17", Statement: []catalog.Statement{{
		Effect:    "Allow",
		Principal: map[string]string{"Service": "ec2." + b.aws.DNSSuffix},
		Action:    catalog.List{"sts:AssumeRole"},
	}}}.Json()
	name, adopted := b.nodeRoleName()
	role, err := b.newChild(iamRole, catalog.NodeRoleSuffix, pulumi.Map{
		"name":             pulumi.String(name),
		"description":      b.describe("node role"),
		"assumeRolePolicy": pulumi.String(trust),
		"tags":             b.plan.Deferred.Tags,
	}, b.adoptingIf(adopted, name, "path")...)
	if err != nil {
		return nodeIAM{}, err
	}
	out := nodeIAM{
		roleArn:  role.Arn,
		roleName: role.Name,
		// The ARN is known from the name, so the controller's PassRole statement does not
		// wait for the role to exist.
		passRoleArns:        b.passRoleArns(pulumi.String(b.iamArn(name, adopted, b.aws.RoleArn))),
		instanceProfileName: pulumi.String("").ToStringOutput(),
		resources:           []pulumi.Resource{role},
	}

	for _, a := range b.nodePolicyAttachments() {
		// The install has the AWS policies adopt names (by default all of the component's), not
		// the extra ones the inputs add.
		arn, known := a.arn.(pulumi.String)
		attached := adopted && known && !a.extra && b.plan.Adopt.HasNodeRolePolicy(inputs.NameFromArn(string(arn)))
		adopt := b.adoptingIf(attached, attachmentID(name, string(arn)))
		att, err := b.newChild(iamRolePolicyAttach, a.suffix, pulumi.Map{"role": role.Name, "policyArn": a.arn}, adopt...)
		if err != nil {
			return nodeIAM{}, err
		}
		out.resources = append(out.resources, att)
	}

	if b.plan.CreateInstanceProfile {
		profileName, adoptedProfile := b.adoptedName(func() string { return b.plan.Adopt.InstanceProfile }, "-node-profile")
		profile, err := b.newChild(iamInstanceProfile, "-node-profile", pulumi.Map{
			"name": pulumi.String(profileName),
			"role": role.Name,
			"tags": b.plan.Deferred.Tags,
		}, b.adoptingIf(adoptedProfile, profileName, "path")...)
		if err != nil {
			return nodeIAM{}, err
		}
		out.instanceProfileName = profile.Name
		out.resources = append(out.resources, profile)
	}

	return out, nil
}

// knownNodeRoleArn is the node role's ARN when it is known at construct: the role the component
// creates (named from the start), or a nodeRoleArn the engine sent known.
func (b *builder) knownNodeRoleArn() (string, bool) {
	if b.plan.CreateNodeRole {
		name, adopted := b.nodeRoleName()
		return b.iamArn(name, adopted, b.aws.RoleArn), true
	}
	return b.plan.KnownInput(field.NewPath("nodeRoleArn"))
}

// nodeRoleName is the node role's name: the running install's when adopting, else the
// component's own. adopted says which.
func (b *builder) nodeRoleName() (name string, adopted bool) {
	return b.adoptedName(func() string { return b.plan.Adopt.NodeRole }, catalog.NodeRoleSuffix)
}

// iamArn is the ARN of the IAM role or policy name: an adopted one's as read, with the path it
// was created under (PassRole, access entries and import ids name it whole); else built from the
// name, the component creating its own under the path "/".
func (b *builder) iamArn(name string, adopted bool, pathless func(string) string) string {
	if adopted {
		return b.plan.Adopt.Arn(name, pathless)
	}
	return pathless(name)
}
