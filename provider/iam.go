package provider

import (
	"fmt"
	"strings"

	"github.com/pulumi/pulumi-go-provider/infer"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// PolicyStatement is an extra IAM statement for the controller, in the shape of
// terraform's aws_iam_policy_document.
type PolicyStatement struct {
	Sid          *string                 `pulumi:"sid,optional"`
	Effect       *string                 `pulumi:"effect,optional"`
	Actions      []string                `pulumi:"actions,optional"`
	NotActions   []string                `pulumi:"notActions,optional"`
	Resources    pulumi.StringArrayInput `pulumi:"resources,optional"`
	NotResources pulumi.StringArrayInput `pulumi:"notResources,optional"`
	Conditions   []PolicyCondition       `pulumi:"conditions,optional"`
}

func (p *PolicyStatement) Annotate(a infer.Annotator) {
	a.Describe(&p, "An IAM policy statement.")
	a.Describe(&p.Sid, "Statement id (letters and digits).")
	a.Describe(&p.Effect, "`Allow` or `Deny`. Default: `Allow`.")
	a.SetDefault(&p.Effect, "Allow")
	a.Describe(&p.Actions, "Actions the statement covers, e.g. `ec2:DescribeVolumes`. One of `actions`/`notActions` is required.")
	a.Describe(&p.NotActions, "Actions the statement excludes.")
	a.Describe(&p.Resources, "Resource ARNs the statement covers. One of `resources`/`notResources` is required.")
	a.Describe(&p.NotResources, "Resource ARNs the statement excludes.")
	a.Describe(&p.Conditions, "Conditions, combined with AND.")
}

// PolicyCondition is one IAM condition: `test` applied to `variable` with `values`.
type PolicyCondition struct {
	Test     string   `pulumi:"test"`
	Variable string   `pulumi:"variable"`
	Values   []string `pulumi:"values"`
}

func (c *PolicyCondition) Annotate(a infer.Annotator) {
	a.Describe(&c, "An IAM condition.")

	a.Describe(&c.Test, "Condition operator, e.g. `StringEquals`, `ArnLike`, `Bool`.")
	a.Describe(&c.Variable, "Condition key, e.g. `aws:ResourceTag/team`.")
	a.Describe(&c.Values, "Values to compare with.")
}

// extraStatementsDocument builds the user's extra controller statements into one policy.
func extraStatementsDocument(stmts []PolicyStatement) pulumi.StringOutput {
	resolved := make([]any, 0, 2*len(stmts))
	for _, st := range stmts {
		resolved = append(resolved, stringArrayOrEmpty(st.Resources), stringArrayOrEmpty(st.NotResources))
	}
	return pulumi.All(resolved...).ApplyT(func(vals []any) string {
		doc := policyDocument{Version: "2012-10-17"}
		for i, st := range stmts {
			s := statement{
				Sid:         deref(st.Sid, ""),
				Effect:      deref(st.Effect, "Allow"),
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
				s.Condition[c.Test][c.Variable] = list(c.Values)
			}
			doc.Statement = append(doc.Statement, s)
		}
		return doc.json()
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
	if !b.plan.createControllerIAM {
		arn := b.args.ControllerRoleArn.ToStringPtrOutput().Elem()
		return controllerIAM{
			roleArn:    arn,
			roleName:   arn.ApplyT(nameFromArn).(pulumi.StringOutput),
			policyArns: pulumi.StringArray{}.ToStringArrayOutput(),
		}, nil
	}

	role, err := b.newChild(iamRole, controllerRoleSuffix, pulumi.Map{
		"name":             pulumi.String(b.physicalName(controllerRoleSuffix)),
		"description":      b.describe("controller role"),
		"assumeRolePolicy": b.controllerTrustPolicy(),
		"tags":             b.args.Tags,
	})
	if err != nil {
		return controllerIAM{}, err
	}
	out := controllerIAM{roleArn: role.Arn, roleName: role.Name, resources: []pulumi.Resource{role}}

	policies := b.controllerPolicyLayout(queueArn)
	documents := pulumi.All(b.args.ClusterName, node.passRoleArns).ApplyT(
		func(vals []any) (map[string]string, error) {
			scope := policyScope{awsScope: b.aws, Cluster: vals[0].(string), NodeRoleArns: vals[1].([]string), QueueArn: queueArn}
			statements := b.plan.release.policy(scope, b.plan.release)
			docs := map[string]string{}
			for _, p := range policies {
				doc := p.document(statements).json()
				if len(doc) > maxManagedPolicyLength {
					return nil, fmt.Errorf("clusterName: the controller policy %q would be %d characters, over IAM's %d-character limit; use a shorter cluster name",
						p.key, len(doc), maxManagedPolicyLength)
				}
				docs[p.key] = doc
			}
			return docs, nil
		}).(pulumi.StringMapOutput)

	var policyArns pulumi.StringArray
	for _, p := range policies {
		policy, err := b.newChild(iamPolicy, "-controller-"+p.key, pulumi.Map{
			"name":        pulumi.String(b.physicalName("-controller-" + p.key)),
			"description": b.describe("controller policy: " + p.description),
			"policy":      documents.MapIndex(pulumi.String(p.key)),
			"tags":        b.args.Tags,
		})
		if err != nil {
			return controllerIAM{}, err
		}
		if err := b.attach(&out, role, "-controller-"+p.key+"-attach", policy.Arn); err != nil {
			return controllerIAM{}, err
		}
		policyArns = append(policyArns, policy.Arn)
		out.resources = append(out.resources, policy)
	}

	if len(b.args.ControllerPolicyStatements) > 0 {
		policy, err := b.newChild(iamPolicy, "-controller-statements", pulumi.Map{
			"name":        pulumi.String(b.physicalName("-controller-statements")),
			"description": b.describe("controller policy: extra statements"),
			"policy":      extraStatementsDocument(b.args.ControllerPolicyStatements),
			"tags":        b.args.Tags,
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
	for _, key := range sortedKeys(b.args.ControllerPolicyArns) {
		if err := b.attach(&out, role, "-controller-attach-"+key, b.args.ControllerPolicyArns[key]); err != nil {
			return controllerIAM{}, err
		}
	}
	out.policyArns = policyArns.ToStringArrayOutput()
	return out, nil
}

func (b *builder) attach(out *controllerIAM, role *child, suffix string, policyArn pulumi.StringInput) error {
	att, err := b.newChild(iamRolePolicyAttach, suffix, pulumi.Map{"role": role.Name, "policyArn": policyArn})
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
func (b *builder) controllerPolicyLayout(queueArn string) []controllerPolicy {
	cluster, ok := knownInput(b.ctx.Context(), "clusterName")
	if !ok {
		cluster = strings.Repeat("c", 100)
	}
	nodeRole, ok := knownInput(b.ctx.Context(), "nodeRoleArn")
	if !ok {
		nodeRole = b.aws.roleArn(b.physicalName(nodeRoleSuffix))
	}
	return layoutControllerPolicies(b.plan.release, policyScope{awsScope: b.aws, Cluster: cluster, NodeRoleArns: []string{nodeRole}, QueueArn: queueArn})
}

// controllerTrustPolicy lets the controller's service account assume the role: through the
// cluster's OIDC provider (IRSA; both the audience and the subject are pinned — a trust on
// `sub` alone would accept tokens minted for other audiences), through EKS Pod Identity, or
// both while migrating.
func (b *builder) controllerTrustPolicy() pulumi.StringOutput {
	subject := fmt.Sprintf("system:serviceaccount:%s:%s", b.plan.namespace, b.plan.serviceAccount)
	oidc := pulumi.String("").ToStringOutput()
	if b.plan.trustIRSA {
		oidc = b.args.OidcProviderArn.ToStringPtrOutput().Elem()
	}
	return oidc.ApplyT(func(arn string) string {
		var statements []statement
		if b.plan.trustIRSA {
			issuer := oidcIssuer(arn)
			statements = append(statements, statement{
				Effect:    "Allow",
				Principal: map[string]string{"Federated": arn},
				Action:    list{"sts:AssumeRoleWithWebIdentity"},
				Condition: conditions{"StringEquals": {
					issuer + ":aud": "sts.amazonaws.com",
					issuer + ":sub": subject,
				}},
			})
		}
		if b.plan.podIdentity {
			statements = append(statements, statement{
				Effect:    "Allow",
				Principal: map[string]string{"Service": "pods.eks.amazonaws.com"},
				Action:    list{"sts:AssumeRole", "sts:TagSession"},
			})
		}
		return policyDocument{Version: "2012-10-17", Statement: statements}.json()
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
}

// nodePolicyAttachments are the node role's managed policies: the four AWS policies every EKS
// node needs (Auto Mode's two), then the user's additional ones in key order.
func (b *builder) nodePolicyAttachments() []policyAttachment {
	aws := func(suffix, name string) policyAttachment {
		return policyAttachment{suffix, pulumi.String(fmt.Sprintf("arn:%s:iam::aws:policy/%s", b.aws.Partition, name))}
	}
	attachments := []policyAttachment{
		aws("-node-worker", "AmazonEKSWorkerNodePolicy"),
		aws("-node-cni", "AmazonEKS_CNI_Policy"),
		aws("-node-ecr", ecrPolicy(b.plan.release)),
		aws("-node-ssm", "AmazonSSMManagedInstanceCore"),
	}
	if rules := b.plan.release.autoMode; rules != nil {
		// Auto Mode nodes need less: AWS manages pod networking, and SSM access is blocked.
		attachments = attachments[:0]
		for _, p := range rules.nodePolicies {
			attachments = append(attachments, aws(p.suffix, p.name))
		}
	}
	for _, key := range sortedKeys(b.args.NodeRoleAdditionalPolicyArns) {
		attachments = append(attachments, policyAttachment{"-node-extra-" + key, b.args.NodeRoleAdditionalPolicyArns[key]})
	}
	return attachments
}

// createNodeIAM creates the node role, its policies, instance profile and cluster access,
// or adopts nodeRoleArn.
func (b *builder) createNodeIAM() (nodeIAM, error) {
	if !b.plan.createNodeRole {
		arn := b.args.NodeRoleArn.ToStringPtrOutput().Elem()
		return nodeIAM{
			roleArn:             arn,
			roleName:            arn.ApplyT(nameFromArn).(pulumi.StringOutput),
			passRoleArns:        b.passRoleArns(arn),
			instanceProfileName: pulumi.String("").ToStringOutput(),
		}, nil
	}

	trust := policyDocument{Version: "2012-10-17", Statement: []statement{{
		Effect:    "Allow",
		Principal: map[string]string{"Service": "ec2." + b.aws.DNSSuffix},
		Action:    list{"sts:AssumeRole"},
	}}}.json()
	name := b.physicalName(nodeRoleSuffix)
	role, err := b.newChild(iamRole, nodeRoleSuffix, pulumi.Map{
		"name":             pulumi.String(name),
		"description":      b.describe("node role"),
		"assumeRolePolicy": pulumi.String(trust),
		"tags":             b.args.Tags,
	})
	if err != nil {
		return nodeIAM{}, err
	}
	out := nodeIAM{
		roleArn:  role.Arn,
		roleName: role.Name,
		// The ARN is known from the name, so the controller's PassRole statement does not
		// wait for the role to exist.
		passRoleArns:        b.passRoleArns(pulumi.String(b.aws.roleArn(name))),
		instanceProfileName: pulumi.String("").ToStringOutput(),
		resources:           []pulumi.Resource{role},
	}

	for _, a := range b.nodePolicyAttachments() {
		att, err := b.newChild(iamRolePolicyAttach, a.suffix, pulumi.Map{"role": role.Name, "policyArn": a.arn})
		if err != nil {
			return nodeIAM{}, err
		}
		out.resources = append(out.resources, att)
	}

	if b.plan.createInstanceProfile {
		profile, err := b.newChild(iamInstanceProfile, "-node-profile", pulumi.Map{
			"name": pulumi.String(b.physicalName("-node-profile")),
			"role": role.Name,
			"tags": b.args.Tags,
		})
		if err != nil {
			return nodeIAM{}, err
		}
		out.instanceProfileName = profile.Name
		out.resources = append(out.resources, profile)
	}

	return out, nil
}

// ecrPolicy is the AWS managed policy that lets nodes pull images: PullOnly (least privilege)
// from Karpenter 1.4, ReadOnly before, as each release's template has it.
func ecrPolicy(r release) string {
	if r.has(featurePullOnlyECR) {
		return "AmazonEC2ContainerRegistryPullOnly"
	}
	return "AmazonEC2ContainerRegistryReadOnly"
}

// nameFromArn is the last path segment of an IAM ARN: the role name of a role ARN.
func nameFromArn(arn string) string {
	return arn[strings.LastIndex(arn, "/")+1:]
}
