package main

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	pprovider "github.com/pulumi/pulumi/sdk/v3/go/pulumi/provider"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/standin/componentprovider"
)

// plugin is the stand-in: it constructs awsx:ec2:Vpc (vpc_component.go), as one of releases
// (versions.go).
var plugin = &componentprovider.Plugin[vpcArgs]{
	Name: "awsx", Versions: versions, Use: useRelease, Type: vpcType, Schema: schemaJSON, Parse: parseArgs,
	Construct: func(ctx *pulumi.Context, name string, args vpcArgs, inputs pprovider.ConstructInputs, options pulumi.ResourceOption) (*pprovider.ConstructResult, error) {
		in, err := inputs.Map()
		if err != nil {
			return nil, err
		}
		return construct(ctx, name, args, in, options)
	},
}

// vpcType is the one resource the stand-in constructs.
const vpcType = "awsx:ec2:Vpc"

// The inputs the stand-in implements, as pulumi-awsx names them (sorted), and the fields of the
// types it implements (awsx:ec2:SubnetSpec, awsx:ec2:NatGatewayConfiguration).
var (
	implemented         = []string{"availabilityZoneNames", "cidrBlock", "natGateways", "numberOfAvailabilityZones", "subnetSpecs", "subnetStrategy", "tags"}
	implementedSpec     = []string{"cidrMask", "name", "tags", "type"}
	implementedNATInput = []string{"strategy"}
)

// The enums' values, as awsx's schema has them (awsx:ec2:SubnetType, awsx:ec2:NatGatewayStrategy).
// awsx compares both without case (vpc.ts: `spec.type.toLowerCase() === "public"`, the
// natGatewayStrategy switches on toLowerCase()).
var (
	subnetTypes   = []string{"Public", "Private", "Isolated", "Unused"}
	natStrategies = []string{"None", "Single", "OnePerAz"}
)

// specInput is one subnetSpecs entry, as awsx's validateAndNormalizeSubnetInputs leaves it for the
// "Legacy" allocator (its tags go to the resources as they are, outputs included: construct reads
// them from the inputs).
type specInput struct {
	typ      string // canonical: Public, Private, Isolated or Unused
	name     string // "" when unset (awsx: spec.name ?? spec.type.toLowerCase())
	cidrMask int    // 0 when unset
}

// vpcArgs are the inputs the construct decides by.
type vpcArgs struct {
	cidrBlock string   // the VPC's CIDR block (awsx's default 10.0.0.0/16 when unset)
	azNames   []string // availabilityZoneNames; nil when unset
	azCount   *int     // numberOfAvailabilityZones; nil when unset (awsx: the first 3)
	// specs are the subnetSpecs; nil when unset (awsx's default layout: a private and a public
	// subnet per zone).
	specs []specInput
	// natStrategy is natGateways.strategy as given ("OnePerAz", awsx's default, when unset);
	// nat is its lower case, which awsx decides by.
	natStrategy, nat string
	// subnetStrategyGiven: awsx warns that the default subnetStrategy will change when it is unset
	// and subnetSpecs are given.
	subnetStrategyGiven bool
}

func (a vpcArgs) String() string {
	var specs []string
	for _, s := range a.specs {
		d := s.typ
		if s.name != "" {
			d += " " + s.name
		}
		if s.cidrMask != 0 {
			d += fmt.Sprintf(" /%d", s.cidrMask)
		}
		specs = append(specs, d)
	}
	azs := "the region's first 3"
	switch {
	case a.azNames != nil:
		azs = strings.Join(a.azNames, ", ")
	case a.azCount != nil:
		azs = fmt.Sprintf("the region's first %d", *a.azCount)
	}
	layout := "awsx's default subnets"
	if a.specs != nil {
		layout = "subnetSpecs [" + strings.Join(specs, "; ") + "]"
	}
	return fmt.Sprintf("cidrBlock %s, zones %s, %s, NAT gateways %s", a.cidrBlock, azs, layout, a.natStrategy)
}

// parseArgs checks the Construct inputs: every input (and field of a subnet spec or of natGateways)
// the stand-in does not implement fails, named; the plain inputs (awsx's schema marks cidrBlock,
// availabilityZoneNames, numberOfAvailabilityZones, subnetSpecs, natGateways and subnetStrategy
// plain) must be known and of their types; awsx's own refusals are made in its words.
func parseArgs(in resource.PropertyMap) (vpcArgs, error) {
	a := vpcArgs{cidrBlock: defaultCIDRBlock, natStrategy: "OnePerAz", nat: "oneperaz"}
	if err := refuseUnimplemented(vpcType+" input", in, implemented); err != nil {
		return a, err
	}
	if v := plainValue(in["cidrBlock"]); !v.IsNull() {
		if !v.IsString() {
			return a, fmt.Errorf("%s input \"cidrBlock\" must be a known string (it is plain in awsx's schema), got %v", vpcType, v)
		}
		if _, err := parseAddress(v.StringValue()); err != nil {
			return a, fmt.Errorf("%s input \"cidrBlock\": %w", vpcType, err)
		}
		a.cidrBlock = v.StringValue()
	}
	if v := plainValue(in["availabilityZoneNames"]); !v.IsNull() {
		names, ok := stringList(v)
		if !ok {
			return a, fmt.Errorf("%s input \"availabilityZoneNames\" must be a known list of strings (it is plain in awsx's schema), got %v", vpcType, v)
		}
		a.azNames = names
	}
	if v := plainValue(in["numberOfAvailabilityZones"]); !v.IsNull() {
		if !v.IsNumber() || v.NumberValue() != float64(int(v.NumberValue())) {
			return a, fmt.Errorf("%s input \"numberOfAvailabilityZones\" must be a known integer (it is plain in awsx's schema), got %v", vpcType, v)
		}
		n := int(v.NumberValue())
		a.azCount = &n
	}
	// vpc.ts:124-128 (`args.availabilityZoneNames && args.numberOfAvailabilityZones`: both truthy).
	if len(a.azNames) > 0 && a.azCount != nil && *a.azCount != 0 {
		return a, fmt.Errorf("Only one of [availabilityZoneNames] and [numberOfAvailabilityZones] can be specified")
	}
	if v := plainValue(in["subnetStrategy"]); !v.IsNull() {
		if !v.IsString() || v.StringValue() != "Legacy" {
			return a, fmt.Errorf("%s input \"subnetStrategy\" %v not implemented by the %s: it implements awsx's default, \"Legacy\", only", vpcType, v.Mappable(), standIn)
		}
		a.subnetStrategyGiven = true
	}
	if v := plainValue(in["natGateways"]); !v.IsNull() {
		if !v.IsObject() {
			return a, fmt.Errorf("%s input \"natGateways\" must be a known awsx:ec2:NatGatewayConfiguration object (it is plain in awsx's schema), got %v", vpcType, v)
		}
		nat := v.ObjectValue()
		if err := refuseUnimplemented(vpcType+" input natGateways field", nat, implementedNATInput); err != nil {
			return a, err
		}
		s := plainValue(nat["strategy"])
		if !s.IsString() {
			return a, fmt.Errorf("%s input \"natGateways\": its \"strategy\" is required, a known string (awsx:ec2:NatGatewayStrategy), got %v", vpcType, s.Mappable())
		}
		a.natStrategy, a.nat = s.StringValue(), strings.ToLower(s.StringValue())
		if !slices.ContainsFunc(natStrategies, func(x string) bool { return strings.ToLower(x) == a.nat }) {
			// validateEips (vpc.ts: `default: throw new Error(...)`), which awsx runs first.
			return a, fmt.Errorf("Unknown NatGatewayStrategy '%s'", a.natStrategy)
		}
	}
	if v := plainValue(in["tags"]); !v.IsNull() && !v.IsComputed() && !v.IsObject() {
		return a, fmt.Errorf("%s input \"tags\" must be a map of strings, got %v", vpcType, v)
	}
	if v := plainValue(in["subnetSpecs"]); !v.IsNull() {
		specs, err := parseSpecs(v)
		if err != nil {
			return a, err
		}
		a.specs = specs
	}
	return a, nil
}

func parseSpecs(v resource.PropertyValue) ([]specInput, error) {
	if !v.IsArray() {
		return nil, fmt.Errorf("%s input \"subnetSpecs\" must be a known list of awsx:ec2:SubnetSpec (it is plain in awsx's schema), got %v", vpcType, v)
	}
	specs := []specInput{}
	for i, e := range v.ArrayValue() {
		e = plainValue(e)
		at := fmt.Sprintf("subnetSpecs[%d]", i)
		if !e.IsObject() {
			return nil, fmt.Errorf("%s input %s must be an awsx:ec2:SubnetSpec object, got %v", vpcType, at, e)
		}
		o := e.ObjectValue()
		if err := refuseUnimplemented(vpcType+" input "+at+" field", o, implementedSpec); err != nil {
			return nil, err
		}
		var s specInput
		t := plainValue(o["type"])
		if !t.IsString() {
			return nil, fmt.Errorf("%s input %s: its \"type\" is required, a known string (awsx:ec2:SubnetType), got %v", vpcType, at, t.Mappable())
		}
		i := slices.IndexFunc(subnetTypes, func(x string) bool { return strings.EqualFold(x, t.StringValue()) })
		if i < 0 {
			// awsx's legacy allocator would skip such a spec silently (it filters by type): refused.
			return nil, fmt.Errorf("%s input %s.type %q is not an awsx:ec2:SubnetType (%s)", vpcType, at, t.StringValue(), strings.Join(subnetTypes, ", "))
		}
		s.typ = subnetTypes[i]
		if n := plainValue(o["name"]); !n.IsNull() {
			if !n.IsString() {
				return nil, fmt.Errorf("%s input %s.name must be a known string (it is plain in awsx's schema), got %v", vpcType, at, n)
			}
			s.name = n.StringValue()
		}
		if m := plainValue(o["cidrMask"]); !m.IsNull() {
			if !m.IsNumber() || m.NumberValue() != float64(int(m.NumberValue())) || m.NumberValue() < 0 || m.NumberValue() > 32 {
				return nil, fmt.Errorf("%s input %s.cidrMask must be a known integer from 0 to 32, got %v", vpcType, at, m.Mappable())
			}
			s.cidrMask = int(m.NumberValue())
		}
		if tg := plainValue(o["tags"]); !tg.IsNull() && !tg.IsComputed() && !tg.IsObject() {
			return nil, fmt.Errorf("%s input %s.tags must be a map of strings, got %v", vpcType, at, tg)
		}
		specs = append(specs, s)
	}
	// validateAndNormalizeSubnetInputs (subnetDistributorNew.ts:340-366): at most one unnamed spec
	// per type, and unique names among the named ones of a type (not in 2.22.0: rel).
	if !rel.uniqueSpecNames {
		return specs, nil
	}
	var issues []string
	var order []string
	byType := map[string][]specInput{}
	for _, s := range specs {
		k := strings.ToLower(s.typ)
		if _, ok := byType[k]; !ok {
			order = append(order, k)
		}
		byType[k] = append(byType[k], s)
	}
	for _, k := range order {
		group := byType[k]
		if len(group) < 2 {
			continue
		}
		unnamed, names := 0, map[string]bool{}
		named := 0
		for _, s := range group {
			if s.name == "" {
				unnamed++
			} else {
				named++
				names[s.name] = true
			}
		}
		if unnamed > 1 || len(names) < named {
			issues = append(issues, fmt.Sprintf(`Multiple subnet specs of type "%s" require unique names. `, k)+
				`You can have at most one unnamed subnet per type. All other subnets of the same type must have unique "name" properties to avoid duplicate resource names.`)
		}
	}
	if len(issues) > 0 {
		return nil, fmt.Errorf("Invalid subnet specifications:\n - %s", strings.Join(issues, "\n - "))
	}
	return specs, nil
}

// refuseUnimplemented fails naming every non-null key of m not in known.
func refuseUnimplemented(what string, m resource.PropertyMap, known []string) error {
	var unsupported []string
	for k, v := range m {
		if !slices.Contains(known, string(k)) && !plainValue(v).IsNull() {
			unsupported = append(unsupported, fmt.Sprintf("%q", string(k)))
		}
	}
	if len(unsupported) == 0 {
		return nil
	}
	sort.Strings(unsupported)
	return fmt.Errorf("%s %s not implemented by the %s (it implements %s): the tests would not test what it does",
		what, strings.Join(unsupported, ", "), standIn, strings.Join(known, ", "))
}

func stringList(v resource.PropertyValue) ([]string, bool) {
	if !v.IsArray() {
		return nil, false
	}
	out := []string{}
	for _, e := range v.ArrayValue() {
		if e = plainValue(e); !e.IsString() {
			return nil, false
		}
		out = append(out, e.StringValue())
	}
	return out, true
}

var plainValue = componentprovider.PlainValue
