package build

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/spec"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// validateInputs checks the Input-typed values once they resolve. Its result gates every
// child: when a value is invalid, no child registers.
func (b *builder) validateInputs() pulumi.ResourceArrayOutput {
	args := b.args
	checks := []spec.InputCheck{
		{Field: "clusterName", Value: args.ClusterName.ToStringOutput().ToStringPtrOutput(), Check: spec.CheckClusterName},
		{Field: "clusterEndpoint", Value: args.ClusterEndpoint, Check: spec.CheckEndpoint},
		{Field: "oidcProviderArn", Value: args.OidcProviderArn, Check: spec.CheckArn("oidc-provider/")},
		{Field: "controllerRoleArn", Value: args.ControllerRoleArn, Check: spec.CheckArn("role/")},
		{Field: "nodeRoleArn", Value: args.NodeRoleArn, Check: spec.CheckArn("role/")},
	}
	for _, key := range slices.Sorted(maps.Keys(args.ControllerPolicyArns)) {
		checks = append(checks, spec.InputCheck{Field: "controllerPolicyArns." + key, Value: args.ControllerPolicyArns[key].ToStringOutput().ToStringPtrOutput(), Check: spec.CheckArn("policy/")})
	}
	for _, key := range slices.Sorted(maps.Keys(args.NodeRoleAdditionalPolicyArns)) {
		checks = append(checks, spec.InputCheck{Field: "nodeRoleAdditionalPolicyArns." + key, Value: args.NodeRoleAdditionalPolicyArns[key].ToStringOutput().ToStringPtrOutput(), Check: spec.CheckArn("policy/")})
	}
	if d := args.Discovery; d != nil {
		for i, id := range d.SubnetIds {
			checks = append(checks, spec.InputCheck{Field: fmt.Sprintf("discovery.subnetIds[%d]", i), Value: id.ToStringOutput().ToStringPtrOutput(), Check: spec.CheckID("subnet-")})
		}
		for i, id := range d.SecurityGroupIds {
			checks = append(checks, spec.InputCheck{Field: fmt.Sprintf("discovery.securityGroupIds[%d]", i), Value: id.ToStringOutput().ToStringPtrOutput(), Check: spec.CheckID("sg-")})
		}
	}
	for i, c := range b.plan.Classes {
		checks = append(checks, spec.ClassInputChecks(fmt.Sprintf("nodeClasses[%d]", i), c, b.plan.Release)...)
	}

	chartValues := pulumi.MapInput(pulumi.Map{})
	if args.Values != nil {
		chartValues = args.Values
	}
	tags := pulumi.StringMapInput(pulumi.StringMap{})
	if args.Tags != nil {
		tags = args.Tags
	}
	principalFields, principals := b.autoModeAccessPrincipals()
	return inputGate(checks, []any{args.ClusterName.ToStringOutput(), chartValues.ToMapOutput(), pulumi.All(principals...), tags.ToStringMapOutput()},
		func(extra []any) []error {
			errs := spec.ValidateChartValues(extra[1].(map[string]any), b.plan.Release)
			errs = append(errs, spec.CheckOwnedChartValues(extra[1].(map[string]any), b.plan.OwnedChartValues())...)
			errs = append(errs, spec.CheckComponentTags(extra[3].(map[string]string), b.plan.Classes, b.plan.Release)...)
			return append(errs, spec.CheckDistinctPrincipals(principalFields, extra[2].([]any))...)
		},
		// With valid inputs, the cluster-side check that needs them.
		func(extra []any) error { return b.checkPodIdentityAgent(extra[0].(string)) })
}

// inputGate resolves the checked values and extra values, and fails when a check or
// validate (given the resolved extra values) reports a problem; with none, then runs (may be
// nil). The result gates every child of a component.
func inputGate(checks []spec.InputCheck, extra []any, validate func(extra []any) []error, then func(extra []any) error) pulumi.ResourceArrayOutput {
	var values []any
	var active []spec.InputCheck
	for _, c := range checks {
		if c.Value != nil {
			values = append(values, c.Value.ToStringPtrOutput())
			active = append(active, c)
		}
	}
	values = append(values, extra...)
	return pulumi.All(values...).ApplyT(func(vals []any) ([]pulumi.Resource, error) {
		var errs []error
		for i, c := range active {
			if v := vals[i].(*string); v != nil {
				errs = append(errs, c.Check(c.Field, *v))
			}
		}
		if validate != nil {
			errs = append(errs, validate(vals[len(active):])...)
		}
		if err := errors.Join(errs...); err != nil || then == nil {
			return []pulumi.Resource{}, err
		}
		return []pulumi.Resource{}, then(vals[len(active):])
	}).(pulumi.ResourceArrayOutput)
}
