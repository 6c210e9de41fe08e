package main

import (
	"fmt"
	"maps"
	"slices"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	pprovider "github.com/pulumi/pulumi/sdk/v3/go/pulumi/provider"
)

// Who may use the cluster, as pulumi-eks 4.3.0 grants it (nodejs/eks/cluster/authenticationMode.ts):
// roleMappings go into the aws-auth ConfigMap's mapRoles before the instance role
// (createAwsAuthData), each of accessEntries becomes an aws:eks/accessEntry:AccessEntry and each of
// its accessPolicies an aws:eks/accessPolicyAssociation:AccessPolicyAssociation
// (createAccessEntries), and validateAuthenticationMode refuses either in the mode that does not
// use it.

// parseAccess is validateAuthenticationMode's refusals (authenticationMode.ts:38-67, after the
// mode's own check) and the shape the stand-in needs of accessEntries, whose names it must know.
func parseAccess(in resource.PropertyMap, a *clusterArgs) error {
	if v := plainValue(in["roleMappings"]); !v.IsNull() && !v.IsComputed() {
		if !v.IsArray() {
			return fmt.Errorf("%s input \"roleMappings\" must be an array of eks:index:RoleMapping, got %v", clusterType, v)
		}
		// pulumi-eks checks a known array at once and an output once it resolves (validatedInput,
		// :74-95); an unknown one is checked at the update, when it is known.
		if len(v.ArrayValue()) != 0 && !a.supportsConfigMap() {
			return fmt.Errorf("The 'roleMappings' property does not support non-empty values when 'authenticationMode' is set to '%s'.", a.authenticationMode)
		}
	}
	raw := in["accessEntries"]
	if plainValue(raw).IsNull() {
		return nil
	}
	// pulumi-eks refuses any value here, even an empty or unknown one (`if (args[prop])`, :57).
	if !a.supportsAccessEntries() {
		mode := "not set"
		if a.authenticationMode != "" {
			mode = fmt.Sprintf("set to '%s'", a.authenticationMode)
		}
		return fmt.Errorf("The 'accessEntries' property is not supported when 'authenticationMode' is %s.", mode)
	}
	entries, ok := plainObject(raw)
	if !ok {
		return fmt.Errorf("%s input \"accessEntries\" must be a known map of eks:index:AccessEntry (it is plain in pulumi-eks's schema: "+
			"pulumi-eks names an access entry after each key), got %v", clusterType, raw)
	}
	a.accessEntries = map[string][]string{}
	for name, e := range entries {
		entry, ok := plainObject(e)
		if !ok {
			return fmt.Errorf("%s accessEntries[%q] must be an eks:index:AccessEntry object (pulumi-eks spreads it into the AccessEntry's args), got %v", clusterType, name, e)
		}
		// The @pulumi/aws 7.25.0 AccessEntry constructor's check (eks/accessEntry.js:80-82).
		if plainValue(entry["principalArn"]).IsNull() {
			return fmt.Errorf("%s accessEntries[%q]: Missing required property 'principalArn'", clusterType, name)
		}
		a.accessEntries[string(name)] = []string{}
		if plainValue(entry["accessPolicies"]).IsNull() {
			continue
		}
		policies, ok := plainObject(entry["accessPolicies"])
		if !ok {
			return fmt.Errorf("%s accessEntries[%q].accessPolicies must be a known map (it is plain in pulumi-eks's schema: "+
				"pulumi-eks names an association after each key), got %v", clusterType, name, entry["accessPolicies"])
		}
		for pname, p := range policies {
			assoc, ok := plainObject(p)
			if ok {
				_, ok = plainObject(assoc["accessScope"])
			}
			if !ok || plainValue(assoc["policyArn"]).IsNull() {
				return fmt.Errorf("%s accessEntries[%q].accessPolicies[%q]: the %s takes an eks:index:AccessPolicyAssociation as an object "+
					"with policyArn and an accessScope object (their fields may be outputs), got %v", clusterType, name, pname, standIn, p)
			}
			a.accessEntries[string(name)] = append(a.accessEntries[string(name)], string(pname))
		}
		slices.Sort(a.accessEntries[string(name)])
	}
	return nil
}

// plainObject is v's object when v is one, or a known output of one that carries no secret and
// no dependency (the Go SDK's CopyTo copies those as plain values).
func plainObject(v resource.PropertyValue) (resource.PropertyMap, bool) {
	for v.IsOutput() && v.OutputValue().Known && !v.OutputValue().Secret && len(v.OutputValue().Dependencies) == 0 {
		v = v.OutputValue().Element
	}
	if !v.IsObject() {
		return nil, false
	}
	return v.ObjectValue(), true
}

// mapRoles is createAwsAuthData's mapRoles (authenticationMode.ts:129-151): js-yaml's dump of
// [...roleMappings, ...instanceRoleMappings], once all of it is known (pulumi.all).
func mapRoles(roleMappings pulumi.Input, instanceRoleArn pulumi.StringOutput) pulumi.StringOutput {
	if roleMappings == nil {
		roleMappings = pulumi.Array{} // pulumi.output(roleMappings || [])
	}
	return pulumi.All(roleMappings, instanceRoleArn).ApplyT(func(v []any) (string, error) {
		return mapRolesYAML(v[0], v[1].(string))
	}).(pulumi.StringOutput)
}

// mapRolesYAML is the mapRoles document for the roleMappings' value (nil, or an array of objects)
// and the instance role (createInstanceRoleMapping, :221-227): each as {rolearn: roleArn,
// username, groups}, a field absent from the input absent from the document, as js-yaml leaves
// out undefined values.
func mapRolesYAML(roleMappings any, instanceRoleArn string) (string, error) {
	var list []any
	if roleMappings != nil {
		var ok bool
		if list, ok = roleMappings.([]any); !ok {
			return "", fmt.Errorf("%s roleMappings: want an array of eks:index:RoleMapping, got %T", clusterType, roleMappings)
		}
	}
	var docs [][]yamlField
	for i, m := range list {
		obj, ok := m.(map[string]any)
		if !ok {
			return "", fmt.Errorf("%s roleMappings[%d]: want an eks:index:RoleMapping object, got %T", clusterType, i, m)
		}
		var fields []yamlField
		for _, f := range [][2]string{{"rolearn", "roleArn"}, {"username", "username"}, {"groups", "groups"}} {
			if v, ok := obj[f[1]]; ok {
				fields = append(fields, yamlField{f[0], v})
			}
		}
		docs = append(docs, fields)
	}
	docs = append(docs, []yamlField{{"rolearn", instanceRoleArn}, {"username", "system:node:{{EC2PrivateDNSName}}"},
		{"groups", []any{"system:bootstrappers", "system:nodes"}}})
	out, err := dumpYAML(docs)
	if err != nil {
		return "", fmt.Errorf("%s roleMappings: %w", clusterType, err)
	}
	return out, nil
}

// The accessEntries input, copied by the Go SDK with each field's own output (value, secret,
// dependencies), as pulumi-eks's Node.js provider receives them.
type (
	accessEntryInput struct {
		PrincipalArn     pulumi.StringInput           `pulumi:"principalArn"`
		Type             pulumi.StringInput           `pulumi:"type"`
		KubernetesGroups pulumi.StringArrayInput      `pulumi:"kubernetesGroups"`
		Username         pulumi.StringInput           `pulumi:"username"`
		Tags             pulumi.StringMapInput        `pulumi:"tags"`
		AccessPolicies   map[string]accessPolicyInput `pulumi:"accessPolicies"`
	}
	accessPolicyInput struct {
		PolicyArn   pulumi.StringInput `pulumi:"policyArn"`
		AccessScope accessScopeInput   `pulumi:"accessScope"`
	}
	accessScopeInput struct {
		Type       pulumi.StringInput      `pulumi:"type"`
		Namespaces pulumi.StringArrayInput `pulumi:"namespaces"`
	}
)

// accessEntriesOf copies accessEntries out of the Construct inputs (parseAccess has checked that
// entries, access policies and scopes are objects, as CopyTo needs them).
func accessEntriesOf(inputs pprovider.ConstructInputs) (map[string]accessEntryInput, error) {
	var args struct {
		AccessEntries map[string]accessEntryInput `pulumi:"accessEntries"`
	}
	if err := inputs.CopyTo(&args); err != nil {
		return nil, err
	}
	return args.AccessEntries, nil
}

// withInputs is m with the inputs that are set: the Node.js SDK sends no undefined property.
func withInputs(m pulumi.Map, inputs map[string]pulumi.Input) pulumi.Map {
	for k, v := range inputs {
		if v != nil {
			m[k] = v
		}
	}
	return m
}

func (s accessScopeInput) input() pulumi.Map {
	return withInputs(pulumi.Map{}, map[string]pulumi.Input{"type": s.Type, "namespaces": s.Namespaces})
}

// input is the entry as pulumi-eks returns it in core.accessEntries (the object it was given).
func (e accessEntryInput) input() pulumi.Map {
	m := withInputs(pulumi.Map{}, map[string]pulumi.Input{"principalArn": e.PrincipalArn, "type": e.Type,
		"kubernetesGroups": e.KubernetesGroups, "username": e.Username, "tags": e.Tags})
	if e.AccessPolicies != nil {
		policies := pulumi.Map{}
		for k, p := range e.AccessPolicies {
			policies[k] = withInputs(pulumi.Map{"accessScope": p.AccessScope.input()}, map[string]pulumi.Input{"policyArn": p.PolicyArn})
		}
		m["accessPolicies"] = policies
	}
	return m
}

// accessEntries is createAccessEntries (authenticationMode.ts:178-215) with cluster.ts:1038-1055's
// options: each entry `${name}-${key}` under the component, after the cluster, then its access
// policies' associations `${name}-${key}-${association}` under it. The stand-in registers them in
// the order of their names (pulumi-eks in its object's key order).
func (b *builder) accessEntries(entries map[string]accessEntryInput, clusterName pulumi.StringOutput, eksCluster pulumi.Resource) error {
	for _, key := range slices.Sorted(maps.Keys(entries)) {
		e := entries[key]
		// {...accessEntry, clusterName, userName: accessEntry.username}: the @pulumi/aws 7.25.0
		// constructor takes only its declared inputs (eks/accessEntry.js:84-90), so neither
		// username nor accessPolicies is sent.
		entry := &custom{}
		props := withInputs(pulumi.Map{"clusterName": clusterName}, map[string]pulumi.Input{"principalArn": e.PrincipalArn,
			"type": e.Type, "kubernetesGroups": e.KubernetesGroups, "userName": e.Username, "tags": e.Tags})
		if err := b.aws("aws:eks/accessEntry:AccessEntry", b.name+"-"+key, props, entry, b.comp,
			pulumi.DependsOn([]pulumi.Resource{eksCluster})); err != nil {
			return err
		}
		for _, pname := range slices.Sorted(maps.Keys(e.AccessPolicies)) {
			p := e.AccessPolicies[pname]
			// pulumi.output(association): its fields are known together, with all its dependencies.
			assoc := withInputs(pulumi.Map{"accessScope": p.AccessScope.input()}, map[string]pulumi.Input{"policyArn": p.PolicyArn}).ToMapOutput()
			if err := b.aws("aws:eks/accessPolicyAssociation:AccessPolicyAssociation", b.name+"-"+key+"-"+pname, pulumi.Map{
				"accessScope":  assoc.MapIndex(pulumi.String("accessScope")),
				"principalArn": e.PrincipalArn,
				"policyArn":    assoc.MapIndex(pulumi.String("policyArn")),
				"clusterName":  clusterName,
			}, &custom{}, entry, pulumi.DependsOn([]pulumi.Resource{entry})); err != nil {
				return err
			}
		}
	}
	return nil
}
