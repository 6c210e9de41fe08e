package main

import (
	"encoding/json"
	"fmt"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	pprovider "github.com/pulumi/pulumi/sdk/v3/go/pulumi/provider"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/standin/componentprovider"
)

// What pulumi-awsx's Vpc registers (awsx/ec2/vpc.ts at e60adf3c, Vpc.initialize; at v2.22.0 the
// same but for what versions.go says, rel), for the inputs the stand-in implements, in its order
// and with its names (so the URNs are awsx's), each parented and depending as there. With the
// documentation's programs (name "vpc", subnetSpecs [Public, Private], natGateways Single) that is 3
// zones x 2 subnets:
//
//	aws getAvailabilityZones (parent: the component; the first 3 names, or numberOfAvailabilityZones;
//	    none with availabilityZoneNames)
//	aws:ec2/vpc:Vpc ${name} (parent: the component; cidrBlock, tags {Name: name, ...tags}; no
//	    enableDnsHostnames or enableDnsSupport: awsx 3.x passes the user's through, defaulting them to
//	    true only for vpcEndpointStrategy "Auto" interface endpoints (vpc.ts:709-741,
//	    getVpcEndpointDnsDefaults), so the VPC has EC2's defaults, DNS support on and hostnames off;
//	    the true defaults are awsx-classic's, awsx-classic/ec2/vpc.ts:118)
//	aws:ec2/internetGateway:InternetGateway ${name} (parent and dependsOn: the Vpc; vpcId, the
//	    Vpc's tags)
//	per zone i (1-based), per subnet of the zone (public, then private, then isolated), named
//	${name}-${spec.name ?? type lower case}-${i}:
//	    aws:ec2/subnet:Subnet (parent and dependsOn: the Vpc; vpcId, availabilityZone, cidrBlock,
//	        mapPublicIpOnLaunch (public), 3.x only: assignIpv6AddressOnCreation false, ipv6CidrBlock
//	        (unknown while the Vpc's ipv6CidrBlock is, then unset); tags {Name: name, ...tags,
//	        ...spec.tags, Name: the subnet's name, SubnetType: its type})
//	    aws:ec2/routeTable:RouteTable (parent and dependsOn: the subnet; vpcId, tags {Name: name,
//	        ...tags, Name: the subnet's name, SubnetType})
//	    aws:ec2/routeTableAssociation:RouteTableAssociation (parent and dependsOn: the route table;
//	        routeTableId, subnetId)
//	    public, when the strategy wants a NAT gateway there (Single: the first public subnet;
//	    OnePerAz: the first of each zone): aws:ec2/eip:Eip ${name}-${i} and
//	        aws:ec2/natGateway:NatGateway ${name}-${i} (parent and dependsOn: the subnet; tags
//	        {...tags, Name: ${name}-${i}}; the NAT gateway's subnetId and the Eip's allocationId)
//	    aws:ec2/route:Route (parent and dependsOn: the route table; destinationCidrBlock 0.0.0.0/0,
//	        routeTableId; public: gatewayId the internet gateway; private, unless the strategy is
//	        None: natGatewayId, the first NAT gateway (Single) or the zone's (OnePerAz); isolated:
//	        no route)

// Resource states: the outputs the construct reads.
type (
	vpcResource struct {
		pulumi.CustomResourceState
		Ipv6CidrBlock pulumi.StringOutput `pulumi:"ipv6CidrBlock"`
	}
	eipResource struct {
		pulumi.CustomResourceState
		AllocationID pulumi.StringOutput `pulumi:"allocationId"`
	}
	custom struct {
		pulumi.CustomResourceState
	}
	component struct {
		pulumi.ResourceState
	}
)

type builder struct {
	ctx  *pulumi.Context
	comp *component
}

// aws registers an aws resource under parent, depending on it as awsx's children do (the program's
// aws provider comes with the parent).
func (b *builder) aws(typ, name string, props pulumi.Map, res pulumi.CustomResource, parent pulumi.Resource) error {
	opts := []pulumi.ResourceOption{pulumi.Parent(parent), pulumi.Version(rel.awsChildVersion)}
	if parent != pulumi.Resource(b.comp) {
		opts = append(opts, pulumi.DependsOn([]pulumi.Resource{parent}))
	}
	if err := b.ctx.RegisterResource(typ, name, props, res, opts...); err != nil {
		return fmt.Errorf("registering %s %s: %w", typ, name, err)
	}
	return nil
}

// construct registers the Vpc component and what awsx registers under it, and returns its outputs
// with awsx's names.
// in are the Construct's inputs (ConstructInputs.Map: each an output with its dependencies).
func construct(ctx *pulumi.Context, name string, args vpcArgs, in pulumi.Map, options pulumi.ResourceOption,
) (*pprovider.ConstructResult, error) {
	b := &builder{ctx: ctx, comp: &component{}}
	if err := ctx.RegisterComponentResource(vpcType, name, b.comp, options); err != nil {
		return nil, err
	}

	// The zones: availabilityZoneNames, else the region's first numberOfAvailabilityZones (3)
	// (vpc.ts, getDefaultAzs).
	azNames := args.azNames
	if azNames == nil {
		want := defaultAZCount
		if args.azCount != nil {
			want = *args.azCount
		}
		var zones struct {
			Names []string `pulumi:"names"`
		}
		if err := ctx.Invoke("aws:index/getAvailabilityZones:getAvailabilityZones", struct{}{}, &zones,
			pulumi.Parent(b.comp), pulumi.Version(rel.awsChildVersion)); err != nil {
			return nil, fmt.Errorf("aws:index/getAvailabilityZones:getAvailabilityZones: %w", err)
		}
		if len(zones.Names) < want {
			return nil, fmt.Errorf("The configured region for this provider does not have at least %d Availability Zones. "+
				"Either specify an explicit list of zones in availabilityZoneNames or choose a region with at least %d AZs.", want, want)
		}
		azNames = zones.Names[:want]
	}

	// The subnets (decideAndValidateSubnetSpecs: the legacy allocator, then validateSubnets and
	// validateNatGatewayStrategy), before the Vpc is registered.
	specs, err := legacySubnets(name, args.cidrBlock, azNames, args.specs)
	if err != nil {
		return nil, err
	}
	if err := validateSubnets(specs); err != nil {
		return nil, err
	}
	if err := validateNatGatewayStrategy(args.nat, specs); err != nil {
		return nil, err
	}
	layout := subnetLayout(specs, len(azNames))
	if args.specs != nil && !args.subnetStrategyGiven {
		// decideSubnetSpecs: "Only warn if they're using a custom, non-explicit layout and haven't
		// specified a strategy", with the layout as pulumi.jsonStringify writes it.
		_ = ctx.Log.Warn(`The default subnetStrategy will change from "Legacy" to "Auto" in the next major version. `+
			`Please specify the subnetStrategy explicitly. The current subnet layout can be specified via "Auto" as:`+"\n\n"+layoutJSON(layout),
			&pulumi.LogArgs{Resource: b.comp})
	}

	// sharedTags = { Name: name, ...args.tags }.
	userTags := inputOr(in, "tags")
	sharedTags := mergedTags(map[string]string{"Name": name}, userTags)

	vpc := &vpcResource{}
	if err := b.aws("aws:ec2/vpc:Vpc", name, pulumi.Map{
		"cidrBlock": pulumi.String(args.cidrBlock),
		"tags":      sharedTags,
	}, vpc, b.comp); err != nil {
		return nil, err
	}
	vpcID := vpc.ID().ToStringOutput()
	// awsx creates the internet gateway unconditionally ("AWS does not charge for it").
	igw := &custom{}
	if err := b.aws("aws:ec2/internetGateway:InternetGateway", name, pulumi.Map{"vpcId": vpcID, "tags": sharedTags}, igw, vpc); err != nil {
		return nil, err
	}

	var (
		subnets, publicSubnets, privateSubnets, isolatedSubnets []pulumi.ResourceOutput
		routeTables, associations, routes, natGateways, eips    []pulumi.ResourceOutput
		publicIDs, privateIDs, isolatedIDs                      = pulumi.StringArray{}, pulumi.StringArray{}, pulumi.StringArray{}
		natIDs                                                  []pulumi.StringOutput
	)
	for i, zone := range zoneOrder(azNames, specs) {
		for _, spec := range zone {
			var specTags pulumi.Input = pulumi.StringMap{}
			if spec.spec >= 0 {
				specTags = specInputTags(in["subnetSpecs"], spec.spec)
			}
			subnet := &custom{}
			if err := b.aws("aws:ec2/subnet:Subnet", spec.resourceName, subnetProps(vpc, spec, sharedTags, specTags), subnet, vpc); err != nil {
				return nil, err
			}
			subnetID := subnet.ID().ToStringOutput()
			subnets = append(subnets, pulumi.NewResourceOutput(subnet))
			switch spec.typ {
			case "Public":
				publicSubnets, publicIDs = append(publicSubnets, pulumi.NewResourceOutput(subnet)), append(publicIDs, subnetID)
			case "Private":
				privateSubnets, privateIDs = append(privateSubnets, pulumi.NewResourceOutput(subnet)), append(privateIDs, subnetID)
			default:
				isolatedSubnets, isolatedIDs = append(isolatedSubnets, pulumi.NewResourceOutput(subnet)), append(isolatedIDs, subnetID)
			}

			routeTable := &custom{}
			if err := b.aws("aws:ec2/routeTable:RouteTable", spec.resourceName, pulumi.Map{
				"vpcId": vpcID,
				"tags": sharedTags.ApplyT(func(t map[string]string) map[string]string {
					return mergeTags(t, map[string]string{"Name": spec.nameTag, "SubnetType": spec.typ})
				}).(pulumi.StringMapOutput),
			}, routeTable, subnet); err != nil {
				return nil, err
			}
			routeTables = append(routeTables, pulumi.NewResourceOutput(routeTable))
			routeTableID := routeTable.ID().ToStringOutput()
			association := &custom{}
			if err := b.aws("aws:ec2/routeTableAssociation:RouteTableAssociation", spec.resourceName, pulumi.Map{
				"routeTableId": routeTableID, "subnetId": subnetID,
			}, association, routeTable); err != nil {
				return nil, err
			}
			associations = append(associations, pulumi.NewResourceOutput(association))

			if spec.typ == "Public" && shouldCreateNatGateway(args.nat, len(natIDs), i) {
				natName := fmt.Sprintf("%s-%d", name, i+1)
				natTags := mergedTags(nil, userTags).ApplyT(func(t map[string]string) map[string]string {
					return mergeTags(t, map[string]string{"Name": natName})
				}).(pulumi.StringMapOutput)
				eip := &eipResource{}
				if err := b.aws("aws:ec2/eip:Eip", natName, pulumi.Map{"tags": natTags}, eip, subnet); err != nil {
					return nil, err
				}
				eips = append(eips, pulumi.NewResourceOutput(eip))
				nat := &custom{}
				if err := b.aws("aws:ec2/natGateway:NatGateway", natName, pulumi.Map{
					"subnetId": subnetID, "allocationId": eip.AllocationID, "tags": natTags,
				}, nat, subnet); err != nil {
					return nil, err
				}
				natGateways = append(natGateways, pulumi.NewResourceOutput(nat))
				natIDs = append(natIDs, nat.ID().ToStringOutput())
			}

			routeProps := pulumi.Map{"routeTableId": routeTableID, "destinationCidrBlock": pulumi.String("0.0.0.0/0")}
			switch {
			case spec.typ == "Public":
				routeProps["gatewayId"] = igw.ID().ToStringOutput()
			case spec.typ == "Private" && args.nat != "none":
				// natGateways[0] (Single) or natGateways[i] (OnePerAz): the public subnets come
				// first in a zone, so the NAT gateway exists (vpc.ts).
				k := 0
				if args.nat != "single" {
					k = i
				}
				if k >= len(natIDs) {
					return nil, fmt.Errorf("%s %s: zone %s has private subnets but no NAT gateway (it has no public subnet)", vpcType, name, spec.azName)
				}
				routeProps["natGatewayId"] = natIDs[k]
			default:
				continue // isolated subnets (and private ones without NAT gateways) have no route
			}
			route := &custom{}
			if err := b.aws("aws:ec2/route:Route", spec.resourceName, routeProps, route, routeTable); err != nil {
				return nil, err
			}
			routes = append(routes, pulumi.NewResourceOutput(route))
		}
	}

	layoutOut := pulumi.Array{}
	for _, l := range layout {
		layoutOut = append(layoutOut, pulumi.Map{"cidrMask": pulumi.Int(l.cidrMask), "type": pulumi.String(l.typ)})
	}
	// The outputs, with awsx's names (vpc.ts's constructor, from initialize's VpcData).
	state := pulumi.Map{
		"vpc":                    pulumi.NewResourceOutput(vpc),
		"subnets":                pulumi.NewResourceArrayOutput(subnets...),
		"routeTables":            pulumi.NewResourceArrayOutput(routeTables...),
		"routes":                 pulumi.NewResourceArrayOutput(routes...),
		"routeTableAssociations": pulumi.NewResourceArrayOutput(associations...),
		"internetGateway":        pulumi.NewResourceOutput(igw),
		"natGateways":            pulumi.NewResourceArrayOutput(natGateways...),
		"eips":                   pulumi.NewResourceArrayOutput(eips...),
		"subnetLayout":           layoutOut,
		"publicSubnetIds":        publicIDs,
		"privateSubnetIds":       privateIDs,
		"isolatedSubnetIds":      isolatedIDs,
		"vpcEndpoints":           pulumi.Array{},
		"vpcId":                  vpcID,
	}
	if rel.subnetsByType {
		state["publicSubnets"] = pulumi.NewResourceArrayOutput(publicSubnets...)
		state["privateSubnets"] = pulumi.NewResourceArrayOutput(privateSubnets...)
		state["isolatedSubnets"] = pulumi.NewResourceArrayOutput(isolatedSubnets...)
	}
	if err := ctx.RegisterResourceOutputs(b.comp, state); err != nil {
		return nil, err
	}
	return &pprovider.ConstructResult{URN: b.comp.URN(), State: state}, nil
}

// subnetProps are a subnet's inputs (vpc.ts: `new aws.ec2.Subnet(...)`, v2.22.0:167-181,
// e60adf3c:212-231): its tags {...sharedTags, ...spec.tags, Name, SubnetType}, and in 3.x
// (rel.subnetIPv6) its IPv6 inputs.
func subnetProps(vpc *vpcResource, spec subnetSpec, sharedTags pulumi.StringMapOutput, specTags pulumi.Input) pulumi.Map {
	props := pulumi.Map{
		"vpcId":               vpc.ID().ToStringOutput(),
		"availabilityZone":    pulumi.String(spec.azName),
		"mapPublicIpOnLaunch": pulumi.Bool(spec.typ == "Public"),
		"cidrBlock":           pulumi.String(spec.cidrBlock),
		"tags": pulumi.All(sharedTags, specTags).ApplyT(func(v []any) (map[string]string, error) {
			t, err := stringMapOf("subnetSpecs tags", v[1])
			return mergeTags(v[0].(map[string]string), t, map[string]string{"Name": spec.nameTag, "SubnetType": spec.typ}), err
		}).(pulumi.StringMapOutput),
	}
	if rel.subnetIPv6 {
		props["assignIpv6AddressOnCreation"] = pulumi.Bool(false) // resolveAssignIpv6AddressOnCreation: spec ?? vpc ?? false
		// handleIpv6Cidr: undefined unless IPv6 is assigned, computed from the Vpc's ipv6CidrBlock,
		// so unknown while that is.
		props["ipv6CidrBlock"] = vpc.Ipv6CidrBlock.ApplyT(func(string) *string { return nil }).(pulumi.StringPtrOutput)
	}
	return props
}

// layoutJSON is pulumi.jsonStringify of the layout (JSON.stringify: no spaces, undefined fields
// left out, toResolvedSubnetSpecOutputs' key order name, cidrBlocks, cidrMask, size, type).
func layoutJSON(layout []layoutEntry) string {
	type entry struct {
		CidrMask int    `json:"cidrMask,omitempty"`
		Type     string `json:"type"`
	}
	out := []entry{}
	for _, l := range layout {
		out = append(out, entry{l.cidrMask, l.typ})
	}
	data, _ := json.Marshal(out)
	return string(data)
}

// mergeTags is JavaScript's object spread, by which awsx writes its tags: a later layer's key wins.
var mergeTags = componentprovider.MergeTags

// mergedTags is {...base, ...tags} once tags (an input, maybe an output) is known.
func mergedTags(base map[string]string, tags pulumi.Input) pulumi.StringMapOutput {
	return pulumi.All(tags).ApplyT(func(v []any) (map[string]string, error) {
		t, err := stringMapOf("tags", v[0])
		return mergeTags(base, t), err
	}).(pulumi.StringMapOutput)
}

// specInputTags is subnetSpecs[i].tags from the subnetSpecs input (an output of the whole list:
// its dependencies and secrecy come with it).
func specInputTags(specs pulumi.Input, i int) pulumi.Input {
	return pulumi.All(specs).ApplyT(func(v []any) (any, error) {
		list, ok := v[0].([]any)
		if !ok || i >= len(list) {
			return nil, fmt.Errorf("%s input subnetSpecs is a %T, not a list of awsx:ec2:SubnetSpec", vpcType, v[0])
		}
		spec, _ := list[i].(map[string]any)
		return spec["tags"], nil
	})
}

// inputOr and stringMapOf read inputs as awsx's JavaScript does (componentprovider).
var inputOr = componentprovider.InputOr

func stringMapOf(input string, v any) (map[string]string, error) {
	return componentprovider.StringMapOf(vpcType, input, v)
}
