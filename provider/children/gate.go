package children

import (
	"errors"
	"maps"
	"slices"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputs"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/plan"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// validateInputs checks the Input-typed values once they resolve. Its result gates every
// child: when a value is invalid, no child registers.
func (b *builder) validateInputs() pulumi.ResourceArrayOutput {
	args := b.plan.Deferred
	if b.plan.Kind == plan.KindNodePool {
		return inputGate(nil, nil) // a pool has no Input-typed values
	}
	clusterName := inputs.InputCheck{Field: field.NewPath("clusterName"), Value: args.ClusterName.ToStringOutput().ToStringPtrOutput(), Check: inputs.CheckClusterName}
	if b.plan.Kind == plan.KindNodeClass {
		checks := append([]inputs.InputCheck{clusterName}, inputs.ClassInputChecks(b.plan.ClassPath(0), b.plan.Classes[0], b.plan.Release)...)
		return inputGate(stringChecks(checks), nil)
	}
	checks := []inputs.InputCheck{
		clusterName,
		{Field: field.NewPath("clusterEndpoint"), Value: args.ClusterEndpoint, Check: inputs.CheckEndpoint},
		{Field: field.NewPath("oidcProviderArn"), Value: args.OidcProviderArn, Check: inputs.CheckArn("oidc-provider/")},
		{Field: field.NewPath("controllerRoleArn"), Value: args.ControllerRoleArn, Check: inputs.CheckArn("role/")},
		{Field: field.NewPath("nodeRoleArn"), Value: args.NodeRoleArn, Check: inputs.CheckArn("role/")},
	}
	for _, key := range slices.Sorted(maps.Keys(args.ControllerPolicyArns)) {
		checks = append(checks, inputs.InputCheck{Field: field.NewPath("controllerPolicyArns", key), Value: args.ControllerPolicyArns[key].ToStringOutput().ToStringPtrOutput(), Check: inputs.CheckArn("policy/")})
	}
	for _, key := range slices.Sorted(maps.Keys(args.NodeRoleAdditionalPolicyArns)) {
		checks = append(checks, inputs.InputCheck{Field: field.NewPath("nodeRoleAdditionalPolicyArns", key), Value: args.NodeRoleAdditionalPolicyArns[key].ToStringOutput().ToStringPtrOutput(), Check: inputs.CheckArn("policy/")})
	}
	if d := args.Discovery; d != nil {
		for i, id := range d.SubnetIds {
			checks = append(checks, inputs.InputCheck{Field: field.NewPath("discovery", "subnetIds").Index(i), Value: id.ToStringOutput().ToStringPtrOutput(), Check: inputs.CheckID("subnet-")})
		}
		for i, id := range d.SecurityGroupIds {
			checks = append(checks, inputs.InputCheck{Field: field.NewPath("discovery", "securityGroupIds").Index(i), Value: id.ToStringOutput().ToStringPtrOutput(), Check: inputs.CheckID("sg-")})
		}
	}
	for i, c := range b.plan.Classes {
		checks = append(checks, inputs.ClassInputChecks(b.plan.ClassPath(i), c, b.plan.Release)...)
	}

	chartValues := pulumi.MapInput(pulumi.Map{})
	if args.Values != nil {
		chartValues = args.Values
	}
	tags := pulumi.StringMapInput(pulumi.StringMap{})
	if args.Tags != nil {
		tags = args.Tags
	}
	principalFields, principals := b.accessPrincipals()
	rel, owned := b.plan.Release, b.plan.OwnedChartValues()
	values := append(stringChecks(checks),
		valueCheck{chartValues.ToMapOutput(), func(v any) []error {
			return append(inputs.ValidateChartValues(v.(map[string]any), rel), inputs.CheckOwnedChartValues(v.(map[string]any), owned)...)
		}},
		valueCheck{tags.ToStringMapOutput(), func(v any) []error { return inputs.CheckComponentTags(v.(map[string]string), b.plan.Classes, rel) }},
		valueCheck{pulumi.All(principals...), func(v any) []error { return inputs.CheckDistinctPrincipals(principalFields, v.([]any)) }},
	)
	if b.awsAuth != nil {
		// Who owns aws-auth's mapRoles, read before any child.
		values = append(values, valueCheck{b.awsAuth.Metadata, func(v any) []error {
			return []error{b.plan.CheckAwsAuthManagers(awsAuthManagers(v.(map[string]any)))}
		}})
	}
	// With valid inputs, the cluster-side check that needs them.
	return inputGate(values, &valueCheck{args.ClusterName.ToStringOutput(), func(v any) []error {
		return []error{b.checkPodIdentityAgent(v.(string))}
	}})
}

// valueCheck checks an Input value once it resolves, reporting every problem.
type valueCheck struct {
	value pulumi.Output
	check func(resolved any) []error
}

// stringChecks are the inputs layer's checks of Input-typed strings as value checks (unset: nothing to check).
func stringChecks(checks []inputs.InputCheck) []valueCheck {
	var out []valueCheck
	for _, c := range checks {
		if c.Value == nil {
			continue
		}
		out = append(out, valueCheck{c.Value.ToStringPtrOutput(), func(v any) []error {
			if s := v.(*string); s != nil {
				return []error{c.Check(c.Field, *s)}
			}
			return nil
		}})
	}
	return out
}

// inputGate fails when a check reports a problem; with none, it runs then (may be nil). Its
// result gates every child of a component. Once every value is known, every problem is
// reported together; each check also runs on its own as soon as its value is known, so a
// preview reports a bad value it knows (tags, chart values) even while another is unknown (a
// cluster name from a resource not created yet).
func inputGate(checks []valueCheck, then *valueCheck) pulumi.ResourceArrayOutput {
	all := make([]any, 0, len(checks)+1)
	for _, c := range checks {
		all = append(all, c.value)
	}
	if then != nil {
		all = append(all, then.value)
	}
	combined := pulumi.All(all...).ApplyT(func(vals []any) ([]pulumi.Resource, error) {
		var errs []error
		for i, c := range checks {
			errs = append(errs, c.check(vals[i])...)
		}
		if err := errors.Join(errs...); err != nil || then == nil {
			return []pulumi.Resource{}, err
		}
		return []pulumi.Resource{}, errors.Join(then.check(vals[len(checks)])...)
	})
	// The combined check first: when it fails, its error (every problem) is the one reported.
	gates := []any{combined}
	for _, c := range checks {
		gates = append(gates, pulumi.All(c.value).ApplyT(func(vals []any) ([]pulumi.Resource, error) {
			return []pulumi.Resource{}, errors.Join(c.check(vals[0])...)
		}))
	}
	return pulumi.All(gates...).ApplyT(func([]any) []pulumi.Resource { return []pulumi.Resource{} }).(pulumi.ResourceArrayOutput)
}
