package inputs

import (
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"

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
	a.Describe(&p.Effect, "`Allow` or `Deny`. "+Default(catalog.DefaultStatementEffect))
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
