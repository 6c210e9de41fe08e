//go:build e2e

package main

// The stand-in's own checks, without an engine (the lab's worlds run its Construct through the real
// engine):
//
//	cd tests && GOWORK=off go test -tags e2e ./e2e/standin/awsx-component-provider/
//
// The expected CIDR blocks and names are awsx's, read from its code and tests at e60adf3c
// (awsx/ec2/subnetDistributorLegacy.test.ts, knownWorkingSubnets.ts, vpc.test.ts), not computed by
// this package.

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/protobuf/types/known/emptypb"
)

// docsInputs are the documentation's Vpc inputs (docs/_index.md, examples/*): subnetSpecs
// [{type: Public}, {type: Private, tags: {"karpenter.sh/discovery": clusterName}}], natGateways
// {strategy: Single}.
func docsInputs() resource.PropertyMap {
	return resource.NewPropertyMapFromMap(map[string]any{
		"subnetSpecs": []any{
			map[string]any{"type": "Public"},
			map[string]any{"type": "Private", "tags": map[string]any{"karpenter.sh/discovery": "karpenter-dev"}},
		},
		"natGateways": map[string]any{"strategy": "Single"},
	})
}

func TestParseArgs(t *testing.T) {
	obj := func(m map[string]any) resource.PropertyMap { return resource.NewPropertyMapFromMap(m) }
	three, zero := 3, 0
	for _, tc := range []struct {
		name string
		in   resource.PropertyMap
		want vpcArgs
		err  string
	}{
		{"the documentation's inputs", docsInputs(), vpcArgs{cidrBlock: "10.0.0.0/16", natStrategy: "Single", nat: "single",
			specs: []specInput{{typ: "Public"}, {typ: "Private"}}}, ""},
		{"no inputs: awsx's defaults (10.0.0.0/16, OnePerAz, the default layout)", obj(nil),
			vpcArgs{cidrBlock: "10.0.0.0/16", natStrategy: "OnePerAz", nat: "oneperaz"}, ""},
		{"the plain inputs it implements", obj(map[string]any{"cidrBlock": "10.1.0.0/16", "numberOfAvailabilityZones": 3.0,
			"subnetStrategy": "Legacy", "tags": map[string]any{"team": "a"}, "natGateways": map[string]any{"strategy": "none"},
			"subnetSpecs": []any{map[string]any{"type": "private", "name": "app", "cidrMask": 20.0}, map[string]any{"type": "Isolated"}}}),
			vpcArgs{cidrBlock: "10.1.0.0/16", azCount: &three, natStrategy: "none", nat: "none", subnetStrategyGiven: true,
				specs: []specInput{{typ: "Private", name: "app", cidrMask: 20}, {typ: "Isolated"}}}, ""},
		{"zone names, and a zero count (awsx tests both for truthiness)", obj(map[string]any{"availabilityZoneNames": []any{"us-west-2a"},
			"numberOfAvailabilityZones": 0.0}), vpcArgs{cidrBlock: "10.0.0.0/16", azNames: []string{"us-west-2a"}, azCount: &zero,
			natStrategy: "OnePerAz", nat: "oneperaz"}, ""},
		{"tags unknown, nulls unset", resource.PropertyMap{"tags": resource.MakeComputed(resource.NewStringProperty("")),
			"vpcEndpointSpecs": resource.NewNullProperty()}, vpcArgs{cidrBlock: "10.0.0.0/16", natStrategy: "OnePerAz", nat: "oneperaz"}, ""},

		{"what it does not implement is named, never ignored", obj(map[string]any{"enableDnsHostnames": true, "vpcEndpointSpecs": []any{},
			"subnetSpecs": []any{map[string]any{"type": "Public"}}}), vpcArgs{},
			`awsx:ec2:Vpc input "enableDnsHostnames", "vpcEndpointSpecs" not implemented by the stand-in for pulumi-awsx 3.9.0 (test only) ` +
				`(it implements availabilityZoneNames, cidrBlock, natGateways, numberOfAvailabilityZones, subnetSpecs, subnetStrategy, tags)`},
		{"a subnet spec's fields too", obj(map[string]any{"subnetSpecs": []any{map[string]any{"type": "Public", "cidrBlocks": []any{"10.0.0.0/24"}, "size": 256.0}}}),
			vpcArgs{}, `awsx:ec2:Vpc input subnetSpecs[0] field "cidrBlocks", "size" not implemented`},
		{"and natGateways'", obj(map[string]any{"natGateways": map[string]any{"strategy": "Single", "elasticIpAllocationIds": []any{"eipalloc-1"}}}),
			vpcArgs{}, `awsx:ec2:Vpc input natGateways field "elasticIpAllocationIds" not implemented`},
		{"another subnet strategy", obj(map[string]any{"subnetStrategy": "Auto"}), vpcArgs{},
			`awsx:ec2:Vpc input "subnetStrategy" Auto not implemented by the stand-in for pulumi-awsx 3.9.0 (test only): it implements awsx's default, "Legacy", only`},
		{"awsx's refusal of both zone inputs", obj(map[string]any{"availabilityZoneNames": []any{"us-west-2a"}, "numberOfAvailabilityZones": 1.0}),
			vpcArgs{}, "Only one of [availabilityZoneNames] and [numberOfAvailabilityZones] can be specified"},
		{"awsx's refusal of a NAT strategy", obj(map[string]any{"natGateways": map[string]any{"strategy": "Double"}}), vpcArgs{},
			"Unknown NatGatewayStrategy 'Double'"},
		{"awsx's refusal of unnamed specs of one type", obj(map[string]any{"subnetSpecs": []any{map[string]any{"type": "Private"}, map[string]any{"type": "private"}}}),
			vpcArgs{}, "Invalid subnet specifications:\n - Multiple subnet specs of type \"private\" require unique names."},
		{"a type awsx's legacy allocator would skip silently", obj(map[string]any{"subnetSpecs": []any{map[string]any{"type": "Protected"}}}),
			vpcArgs{}, `subnetSpecs[0].type "Protected" is not an awsx:ec2:SubnetType (Public, Private, Isolated, Unused)`},
		{"a spec without its type", obj(map[string]any{"subnetSpecs": []any{map[string]any{"name": "a"}}}), vpcArgs{},
			`subnetSpecs[0]: its "type" is required`},
		{"a plain input unknown", resource.PropertyMap{"cidrBlock": resource.MakeComputed(resource.NewStringProperty(""))}, vpcArgs{},
			`"cidrBlock" must be a known string (it is plain in awsx's schema)`},
		{"a CIDR block that is not one", obj(map[string]any{"cidrBlock": "10.0.0.0/33"}), vpcArgs{}, `"10.0.0.0/33" is not an IPv4 CIDR block`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseArgs(tc.in)
			switch {
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("error %v, want %q", err, tc.err)
			case tc.err == "" && err != nil:
				t.Errorf("error %v", err)
			case tc.err == "" && fmt.Sprintf("%+v %v", got, deref(got.azCount)) != fmt.Sprintf("%+v %v", tc.want, deref(tc.want.azCount)):
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestDocsPlan: the documentation's VPC (name "vpc", subnetSpecs [Public, Private], 10.0.0.0/16,
// three zones) in awsx's "Legacy" allocation. The CIDR blocks are subnetDistributorLegacy.test.ts's
// "with 2 types of subnets" (Private /19 then Public /20 over us-east-1a-c: 10.0.0.0/19,
// 10.0.32.0/20, 10.0.64.0/19, 10.0.96.0/20, 10.0.128.0/19, 10.0.160.0/20; the unset masks default to
// max(/18 + 1, 19) and max(/18 + 1, 20), its "gives /19, /20 and /24 for /18 AZ"); the names are
// `${vpc}-${type}-${zone number}` (subnetNaming.ts, and the same test's expected names); the order is
// vpc.ts's, zone by zone, public first (compareSubnetSpecs).
func TestDocsPlan(t *testing.T) {
	azs := []string{"us-west-2a", "us-west-2b", "us-west-2c"}
	args, err := parseArgs(docsInputs())
	if err != nil {
		t.Fatal(err)
	}
	specs, err := legacySubnets("vpc", args.cidrBlock, azs, args.specs)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i, zone := range zoneOrder(azs, specs) {
		for _, s := range zone {
			got = append(got, fmt.Sprintf("%d %s %s %s %s spec%d", i+1, s.resourceName, s.nameTag, s.typ, s.cidrBlock, s.spec))
		}
	}
	want := []string{
		"1 vpc-public-1 vpc-public-1 Public 10.0.32.0/20 spec0", "1 vpc-private-1 vpc-private-1 Private 10.0.0.0/19 spec1",
		"2 vpc-public-2 vpc-public-2 Public 10.0.96.0/20 spec0", "2 vpc-private-2 vpc-private-2 Private 10.0.64.0/19 spec1",
		"3 vpc-public-3 vpc-public-3 Public 10.0.160.0/20 spec0", "3 vpc-private-3 vpc-private-3 Private 10.0.128.0/19 spec1",
	}
	if !slices.Equal(got, want) {
		t.Errorf("plan:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if err := validateSubnets(specs); err != nil {
		t.Error(err)
	}
	if err := validateNatGatewayStrategy("single", specs); err != nil {
		t.Error(err)
	}
	// The layout awsx reports (and prints in its subnetStrategy warning): the first zone's subnets
	// as extracted from the legacy layout, private first, no gap between 10.0.0.0/19 and 10.0.32.0/20.
	if got := layoutJSON(subnetLayout(specs, len(azs))); got != `[{"cidrMask":19,"type":"Private"},{"cidrMask":20,"type":"Public"}]` {
		t.Errorf("layout %s", got)
	}
}

// TestLegacySubnets: awsx's own expectations of getSubnetSpecsLegacy.
func TestLegacySubnets(t *testing.T) {
	spec := func(typ string, mask int) specInput { return specInput{typ: typ, cidrMask: mask} }
	for _, tc := range []struct {
		source  string
		vpcCIDR string
		azs     []string
		specs   []specInput
		want    []string // "<resourceName> <cidrBlock>"
	}{
		{"subnetDistributorLegacy.test.ts, \"should return the default subnets with no parameters and 3 AZs\"", "10.0.0.0/16",
			[]string{"us-east-1a", "us-east-1b", "us-east-1c"}, nil, []string{
				"vpcname-private-1 10.0.0.0/19", "vpcname-private-2 10.0.64.0/19", "vpcname-private-3 10.0.128.0/19",
				"vpcname-public-1 10.0.32.0/20", "vpcname-public-2 10.0.96.0/20", "vpcname-public-3 10.0.160.0/20"}},
		{"subnetDistributorLegacy.test.ts, \"with 1 type of subnet\" (name foo, /19)", "10.0.0.0/16",
			[]string{"us-east-1a", "us-east-1b", "us-east-1c"}, []specInput{{typ: "Isolated", name: "foo", cidrMask: 19}}, []string{
				"vpcname-foo-1 10.0.0.0/19", "vpcname-foo-2 10.0.64.0/19", "vpcname-foo-3 10.0.128.0/19"}},
		{"subnetDistributorLegacy.test.ts, \"should use default values if VPC is large\" (a /16)", "10.0.0.0/16", []string{"us-east-1a"},
			[]specInput{{typ: "Public"}, {typ: "Private"}, {typ: "Isolated"}}, []string{
				"vpcname-private-1 10.0.0.0/19", "vpcname-public-1 10.0.32.0/20", "vpcname-isolated-1 10.0.48.0/24"}},
		{"knownWorkingSubnets.ts, 10.0.0.0/16 Isolated:27, Public:27, Isolated:17 (an address as written, not masked)", "10.0.0.0/16",
			[]string{"us-east-1a"}, []specInput{spec("Isolated", 27), {typ: "Public", cidrMask: 27}, {typ: "Isolated", name: "b", cidrMask: 17}}, []string{
				"vpcname-public-1 10.0.0.0/27", "vpcname-isolated-1 10.0.0.32/27", "vpcname-b-1 10.0.128.32/17"}},
		{"knownWorkingSubnets.ts, 10.0.0.0/16 Isolated:22, Private:21, Private:18", "10.0.0.0/16", []string{"us-east-1a"},
			[]specInput{spec("Isolated", 22), spec("Private", 21), {typ: "Private", name: "b", cidrMask: 18}}, []string{
				"vpcname-private-1 10.0.0.0/21", "vpcname-b-1 10.0.64.0/18", "vpcname-isolated-1 10.0.128.0/22"}},
		{"knownWorkingSubnets.ts, 10.0.0.0/19 Private:25, Private:21, Isolated:25, Public:24, Public:21", "10.0.0.0/19", []string{"us-east-1a"},
			[]specInput{spec("Private", 25), {typ: "Private", name: "b", cidrMask: 21}, spec("Isolated", 25), spec("Public", 24), {typ: "Public", name: "c", cidrMask: 21}},
			[]string{"vpcname-private-1 10.0.0.0/25", "vpcname-b-1 10.0.8.0/21", "vpcname-public-1 10.0.16.0/24", "vpcname-c-1 10.0.24.0/21",
				"vpcname-isolated-1 10.0.32.0/25"}},
		{"knownWorkingSubnets.ts, 10.0.0.0/17 Private:24, Isolated:27, Public:26, Private:23 (nextBlock after an overlap)", "10.0.0.0/17",
			[]string{"us-east-1a"}, []specInput{spec("Private", 24), spec("Isolated", 27), spec("Public", 26), {typ: "Private", name: "b", cidrMask: 23}},
			[]string{"vpcname-private-1 10.0.0.0/24", "vpcname-b-1 10.0.2.0/23", "vpcname-public-1 10.0.4.0/26", "vpcname-isolated-1 10.0.4.64/27"}},
		{"knownWorkingSubnets.ts, 10.0.0.0/16 Private:20, Isolated:26, Private:17 (past the VPC's range)", "10.0.0.0/16", []string{"us-east-1a"},
			[]specInput{spec("Private", 20), spec("Isolated", 26), {typ: "Private", name: "b", cidrMask: 17}},
			[]string{"vpcname-private-1 10.0.0.0/20", "vpcname-b-1 10.0.128.0/17", "vpcname-isolated-1 10.1.0.0/26"}},
		{"knownWorkingSubnets.ts, 10.0.0.0/16 Public:27, Public:25, Private:25, Private:24", "10.0.0.0/16", []string{"us-east-1a"},
			[]specInput{spec("Public", 27), {typ: "Public", name: "b", cidrMask: 25}, spec("Private", 25), {typ: "Private", name: "c", cidrMask: 24}},
			[]string{"vpcname-private-1 10.0.0.0/25", "vpcname-c-1 10.0.1.0/24", "vpcname-public-1 10.0.2.0/27", "vpcname-b-1 10.0.2.128/25"}},
		{"knownWorkingSubnets.ts, 10.0.0.0/17 Private:25, Public:27, Public:24", "10.0.0.0/17", []string{"us-east-1a"},
			[]specInput{spec("Private", 25), spec("Public", 27), {typ: "Public", name: "b", cidrMask: 24}},
			[]string{"vpcname-private-1 10.0.0.0/25", "vpcname-public-1 10.0.0.128/27", "vpcname-b-1 10.0.1.128/24"}},
	} {
		got, err := legacySubnets("vpcname", tc.vpcCIDR, tc.azs, tc.specs)
		if err != nil {
			t.Errorf("%s: %v", tc.source, err)
			continue
		}
		var lines []string
		for _, s := range got {
			lines = append(lines, s.resourceName+" "+s.cidrBlock)
		}
		if !slices.Equal(lines, tc.want) {
			t.Errorf("%s:\n%s\nwant\n%s", tc.source, strings.Join(lines, "\n"), strings.Join(tc.want, "\n"))
		}
	}
	if _, err := legacySubnets("v", "10.0.0.0/30", []string{"a", "b", "c"}, []specInput{{typ: "Public"}, {typ: "Private"}}); err == nil ||
		!strings.Contains(err.Error(), "Requested") {
		t.Errorf("a VPC too small: %v", err)
	}
}

// TestLayoutGaps: extractSubnetSpecInputFromLegacyLayout fills the space between two subnets with
// "Unused" blocks, the widest that fit (findSubnetGap; vpc.test.ts's "finding subnet gaps" checks
// only their properties, so the blocks here are worked out from the code): after 10.0.0.0/21, before
// 10.0.64.0/18, they are 10.0.8.0/21, 10.0.16.0/20 and 10.0.32.0/19.
func TestLayoutGaps(t *testing.T) {
	specs := []subnetSpec{
		{azName: "a", cidrBlock: "10.0.0.0/21", typ: "Private"}, {azName: "a", cidrBlock: "10.0.64.0/18", typ: "Private"},
		{azName: "a", cidrBlock: "10.0.128.0/22", typ: "Isolated"},
	}
	got := layoutJSON(subnetLayout(specs, 1))
	want := `[{"cidrMask":21,"type":"Private"},{"cidrMask":21,"type":"Unused"},{"cidrMask":20,"type":"Unused"},{"cidrMask":19,"type":"Unused"},` +
		`{"cidrMask":18,"type":"Private"},{"cidrMask":22,"type":"Isolated"}]`
	if got != want {
		t.Errorf("layout %s\nwant   %s", got, want)
	}
}

// TestValidations: awsx's refusals once the subnets are known (vpc.test.ts's validateSubnets and
// validateNatGatewayStrategy cases), and shouldCreateNatGateway's table (vpc.test.ts).
func TestValidations(t *testing.T) {
	overlapping := []subnetSpec{{resourceName: "a", cidrBlock: "10.0.0.0/16"}, {resourceName: "b", cidrBlock: "10.0.1.0/24"}, {resourceName: "c", cidrBlock: "10.1.0.0/24"}}
	if err := validateSubnets(overlapping); err == nil || err.Error() != "The following subnets overlap with at least one other subnet. Make the CIDR for the VPC larger, "+
		"reduce the size of the subnets per AZ, or use less Availability Zones:\n\n1. a: 10.0.0.0/16\n2. b: 10.0.1.0/24\n" {
		t.Errorf("overlap: %v", err)
	}
	only := func(types ...string) []subnetSpec {
		var out []subnetSpec
		for _, t := range types {
			out = append(out, subnetSpec{typ: t})
		}
		return out
	}
	for _, tc := range []struct {
		nat   string
		specs []subnetSpec
		ok    bool
	}{
		{"oneperaz", only("Public", "Private"), true}, {"single", only("Public", "Isolated"), true},
		{"single", only("Public"), false}, {"oneperaz", only("Isolated"), false}, {"single", only("Private"), false},
		{"none", only("Private"), true}, {"none", only("Public", "Isolated"), true},
	} {
		err := validateNatGatewayStrategy(tc.nat, tc.specs)
		if (err == nil) != tc.ok || (err != nil && !strings.HasPrefix(err.Error(), "If NAT Gateway strategy is 'OnePerAz' or 'Single', public subnets must be declared")) {
			t.Errorf("%s %v: %v", tc.nat, tc.specs, err)
		}
	}
	for _, tc := range []struct {
		nat    string
		gw, az int
		want   bool
	}{
		{"oneperaz", 0, 0, true}, {"oneperaz", 1, 0, false}, {"oneperaz", 1, 1, true}, {"oneperaz", 2, 1, false},
		{"single", 0, 0, true}, {"single", 1, 0, false}, {"single", 1, 1, false}, {"none", 0, 0, false},
	} {
		if got := shouldCreateNatGateway(tc.nat, tc.gw, tc.az); got != tc.want {
			t.Errorf("shouldCreateNatGateway(%s, %d, %d) = %v", tc.nat, tc.gw, tc.az, got)
		}
	}
}

// registered is one resource the construct registered, as the engine would see it.
type registered struct {
	typ, name, parent string
	version           string // the package version it is registered at
	deps              []string
	inputs            resource.PropertyMap
}

type mocks struct {
	mu    sync.Mutex
	regs  []registered
	calls []string
}

func (m *mocks) NewResource(args pulumi.MockResourceArgs) (string, resource.PropertyMap, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := registered{typ: args.TypeToken, name: args.Name, inputs: args.Inputs}
	if rpc := args.RegisterRPC; rpc != nil {
		r.parent, r.version = rpc.GetParent(), rpc.GetVersion()
		r.deps = rpc.GetDependencies()
	}
	m.regs = append(m.regs, r)
	state := args.Inputs.Copy()
	switch args.TypeToken {
	case "aws:ec2/vpc:Vpc":
		state["ipv6CidrBlock"] = resource.NewStringProperty("")
	case "aws:ec2/eip:Eip":
		state["allocationId"] = resource.NewStringProperty("eipalloc-" + args.Name)
	}
	return args.Name + "-id", state, nil
}

func (m *mocks) Call(args pulumi.MockCallArgs) (resource.PropertyMap, error) {
	m.mu.Lock()
	m.calls = append(m.calls, args.Token)
	m.mu.Unlock()
	if args.Token != "aws:index/getAvailabilityZones:getAvailabilityZones" {
		return nil, fmt.Errorf("unexpected call %s", args.Token)
	}
	// moto's us-west-2 (and AWS's): four zones, sorted by name (terraform sorts them).
	return resource.NewPropertyMapFromMap(map[string]any{"names": []any{"us-west-2a", "us-west-2b", "us-west-2c", "us-west-2d"},
		"zoneIds": []any{"usw2-az1", "usw2-az2", "usw2-az3", "usw2-az4"}, "id": "us-west-2"}), nil
}

// constructDocsVpc registers the documentation's Vpc against the Go SDK's mocks: what the engine
// would get (the mocks), some outputs' values and the outputs.
func constructDocsVpc(t *testing.T) (m *mocks, outputs map[string]any, state pulumi.Map) {
	t.Helper()
	m = &mocks{}
	args, err := parseArgs(docsInputs())
	if err != nil {
		t.Fatal(err)
	}
	err = pulumi.RunErr(func(ctx *pulumi.Context) error {
		in := pulumi.Map{
			"subnetSpecs": pulumi.ToArray([]any{map[string]any{"type": "Public"},
				map[string]any{"type": "Private", "tags": map[string]any{"karpenter.sh/discovery": "karpenter-dev"}}}),
			"natGateways": pulumi.ToMap(map[string]any{"strategy": "Single"}),
		}
		res, err := construct(ctx, "vpc", args, in, pulumi.Protect(false))
		if err != nil {
			return err
		}
		state = res.State.(pulumi.Map)
		pulumi.All(state["vpcId"], state["publicSubnetIds"], state["privateSubnetIds"], state["isolatedSubnetIds"],
			state["subnetLayout"], state["subnets"], state["natGateways"], state["eips"], state["routes"],
		).ApplyT(func(v []any) error {
			outputs = map[string]any{"vpcId": v[0], "publicSubnetIds": v[1], "privateSubnetIds": v[2], "isolatedSubnetIds": v[3],
				"subnetLayout": v[4], "subnets": len(v[5].([]pulumi.Resource)), "natGateways": len(v[6].([]pulumi.Resource)),
				"eips": len(v[7].([]pulumi.Resource)), "routes": len(v[8].([]pulumi.Resource))}
			return nil
		})
		return nil
	}, pulumi.WithMocks("proj", "dev", m))
	if err != nil {
		t.Fatal(err)
	}
	return m, outputs, state
}

// TestConstruct registers the documentation's Vpc against the Go SDK's mocks and checks what the
// engine would get: awsx's types, names and parents (so the URNs), dependencies, tags and inputs
// (vpc.ts), and the outputs.
func TestConstruct(t *testing.T) {
	m, outputs, _ := constructDocsVpc(t)
	if !slices.Equal(m.calls, []string{"aws:index/getAvailabilityZones:getAvailabilityZones"}) {
		t.Errorf("calls %v", m.calls)
	}

	byKey := map[string]registered{}
	var got []string
	for _, r := range m.regs {
		byKey[r.typ+"::"+r.name] = r
		parent := "-"
		if r.parent != "" {
			parent = resource.URN(r.parent).QualifiedType().String() + "::" + resource.URN(r.parent).Name()
		}
		got = append(got, fmt.Sprintf("%s %s <- %s", r.typ, r.name, parent))
	}
	sort.Strings(got)
	const (
		vpcT, subnetT, rtT, rtaT = "aws:ec2/vpc:Vpc", "aws:ec2/subnet:Subnet", "aws:ec2/routeTable:RouteTable", "aws:ec2/routeTableAssociation:RouteTableAssociation"
		routeT, igwT, eipT, natT = "aws:ec2/route:Route", "aws:ec2/internetGateway:InternetGateway", "aws:ec2/eip:Eip", "aws:ec2/natGateway:NatGateway"
	)
	want := []string{
		"awsx:ec2:Vpc vpc <- pulumi:pulumi:Stack::proj-dev",
		vpcT + " vpc <- awsx:ec2:Vpc::vpc",
		igwT + " vpc <- awsx:ec2:Vpc$" + vpcT + "::vpc",
		// The NAT gateway and its elastic IP: in the first public subnet (Single), named vpc-1.
		eipT + " vpc-1 <- awsx:ec2:Vpc$" + vpcT + "$" + subnetT + "::vpc-public-1",
		natT + " vpc-1 <- awsx:ec2:Vpc$" + vpcT + "$" + subnetT + "::vpc-public-1",
	}
	for _, s := range []string{"public-1", "private-1", "public-2", "private-2", "public-3", "private-3"} {
		n := "vpc-" + s
		want = append(want,
			subnetT+" "+n+" <- awsx:ec2:Vpc$"+vpcT+"::vpc",
			rtT+" "+n+" <- awsx:ec2:Vpc$"+vpcT+"$"+subnetT+"::"+n,
			rtaT+" "+n+" <- awsx:ec2:Vpc$"+vpcT+"$"+subnetT+"$"+rtT+"::"+n,
			routeT+" "+n+" <- awsx:ec2:Vpc$"+vpcT+"$"+subnetT+"$"+rtT+"::"+n,
		)
	}
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("registered (type name <- parent):\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// Inputs and tags (vpc.ts: sharedTags {Name: name}, subnets {...sharedTags, ...spec.tags, Name,
	// SubnetType}, route tables {...sharedTags, Name, SubnetType}, Eip and NatGateway {Name:
	// `${name}-1`}).
	check := func(key string, want map[string]any) {
		t.Helper()
		r, ok := byKey[key]
		if !ok {
			t.Errorf("%s not registered", key)
			return
		}
		if got := r.inputs.Mappable(); !mapsEqualJSON(got, want) {
			t.Errorf("%s inputs %s\nwant %s", key, jsonOf(got), jsonOf(want))
		}
	}
	check(vpcT+"::vpc", map[string]any{"cidrBlock": "10.0.0.0/16", "tags": map[string]any{"Name": "vpc"}})
	check(igwT+"::vpc", map[string]any{"vpcId": "vpc-id", "tags": map[string]any{"Name": "vpc"}})
	check(subnetT+"::vpc-public-2", map[string]any{"vpcId": "vpc-id", "availabilityZone": "us-west-2b", "cidrBlock": "10.0.96.0/20",
		"mapPublicIpOnLaunch": true, "assignIpv6AddressOnCreation": false, "ipv6CidrBlock": nil,
		"tags": map[string]any{"Name": "vpc-public-2", "SubnetType": "Public"}})
	check(subnetT+"::vpc-private-3", map[string]any{"vpcId": "vpc-id", "availabilityZone": "us-west-2c", "cidrBlock": "10.0.128.0/19",
		"mapPublicIpOnLaunch": false, "assignIpv6AddressOnCreation": false, "ipv6CidrBlock": nil,
		"tags": map[string]any{"Name": "vpc-private-3", "SubnetType": "Private", "karpenter.sh/discovery": "karpenter-dev"}})
	check(rtT+"::vpc-private-3", map[string]any{"vpcId": "vpc-id", "tags": map[string]any{"Name": "vpc-private-3", "SubnetType": "Private"}})
	check(rtaT+"::vpc-private-3", map[string]any{"routeTableId": "vpc-private-3-id", "subnetId": "vpc-private-3-id"})
	check(eipT+"::vpc-1", map[string]any{"tags": map[string]any{"Name": "vpc-1"}})
	check(natT+"::vpc-1", map[string]any{"subnetId": "vpc-public-1-id", "allocationId": "eipalloc-vpc-1", "tags": map[string]any{"Name": "vpc-1"}})
	check(routeT+"::vpc-public-3", map[string]any{"routeTableId": "vpc-public-3-id", "gatewayId": "vpc-id", "destinationCidrBlock": "0.0.0.0/0"})
	// Every private subnet routes to the one NAT gateway.
	check(routeT+"::vpc-private-2", map[string]any{"routeTableId": "vpc-private-2-id", "natGatewayId": "vpc-1-id", "destinationCidrBlock": "0.0.0.0/0"})
	// Each child depends on its parent (vpc.ts: `{ parent: x, dependsOn: [x] }`), besides what its
	// inputs refer to.
	for key, parentType := range map[string]string{rtaT + "::vpc-public-1": rtT, routeT + "::vpc-private-1": rtT, natT + "::vpc-1": subnetT,
		eipT + "::vpc-1": subnetT, subnetT + "::vpc-private-1": vpcT, igwT + "::vpc": vpcT} {
		r := byKey[key]
		if !slices.ContainsFunc(r.deps, func(u string) bool { return resource.URN(u).Type().String() == parentType && u == r.parent }) {
			t.Errorf("%s: dependencies %v lack its parent %s", key, r.deps, r.parent)
		}
	}

	wantOut := map[string]any{
		"vpcId": "vpc-id", "publicSubnetIds": []any{"vpc-public-1-id", "vpc-public-2-id", "vpc-public-3-id"},
		"privateSubnetIds": []any{"vpc-private-1-id", "vpc-private-2-id", "vpc-private-3-id"}, "isolatedSubnetIds": []any{},
		"subnetLayout": []any{map[string]any{"cidrMask": 19, "type": "Private"}, map[string]any{"cidrMask": 20, "type": "Public"}},
		"subnets":      6, "natGateways": 1, "eips": 1, "routes": 6,
	}
	if jsonOf(outputs) != jsonOf(wantOut) {
		t.Errorf("outputs %s\nwant    %s", jsonOf(outputs), jsonOf(wantOut))
	}
}

func jsonOf(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}

func mapsEqualJSON(a, b map[string]any) bool {
	return jsonOf(a) == jsonOf(b) && slices.Equal(slices.Sorted(maps.Keys(a)), slices.Sorted(maps.Keys(b)))
}

// TestSchema: the schema (and plugin info) of each version it answers as (versions.go): 2.22.0's
// Vpc has no publicSubnets, privateSubnets and isolatedSubnets, nor its SubnetAllocationStrategy
// AutoMerge.
func TestSchema(t *testing.T) {
	for _, tc := range []struct {
		version, awsRef string
		outputs         []string // awsx's outputs (schema.json's required list)
		strategies      []string
	}{
		{"3.9.0", "/aws/v7.48.0", []string{"vpc", "subnets", "publicSubnets", "privateSubnets", "isolatedSubnets", "routeTables", "routeTableAssociations",
			"routes", "internetGateway", "natGateways", "eips", "subnetLayout", "publicSubnetIds", "privateSubnetIds", "isolatedSubnetIds", "vpcId", "vpcEndpoints"},
			[]string{"Legacy", "Auto", "AutoMerge", "Exact"}},
		{"2.22.0", "/aws/v6.83.2", []string{"vpc", "subnets", "routeTables", "routeTableAssociations", "routes", "internetGateway", "natGateways", "eips",
			"subnetLayout", "publicSubnetIds", "privateSubnetIds", "isolatedSubnetIds", "vpcId", "vpcEndpoints"},
			[]string{"Legacy", "Auto", "Exact"}},
	} {
		t.Run(tc.version, func(t *testing.T) {
			answerAs(t, tc.version)
			checkSchema(t, tc.version, tc.awsRef, tc.outputs, tc.strategies)
		})
	}
}

func checkSchema(t *testing.T, version, awsRef string, outputs, strategies []string) {
	p := plugin.Server(nil)
	info, err := p.GetPluginInfo(context.Background(), &emptypb.Empty{})
	if err != nil || info.GetVersion() != version+"+standin" {
		t.Errorf("GetPluginInfo = %v, %v", info, err)
	}
	resp, err := p.GetSchema(context.Background(), &pulumirpc.GetSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Name, Version, Description string
		Resources                  map[string]struct {
			IsComponent     bool
			InputProperties map[string]map[string]any
			Properties      map[string]map[string]any
			Required        []string
		}
		Types map[string]struct {
			Properties map[string]map[string]any
			Enum       []struct{ Value string }
		}
	}
	if err := json.Unmarshal([]byte(resp.GetSchema()), &s); err != nil {
		t.Fatal(err)
	}
	v := s.Resources["awsx:ec2:Vpc"]
	if s.Name != "awsx" || s.Version != version || !strings.Contains(s.Description, "stand-in for pulumi-awsx "+version+" (test only)") || !v.IsComponent || len(s.Resources) != 1 {
		t.Errorf("schema %s %s %q, %d resources, Vpc component %v", s.Name, s.Version, s.Description, len(s.Resources), v.IsComponent)
	}
	if got := slices.Sorted(maps.Keys(v.InputProperties)); !slices.Equal(got, implemented) {
		t.Errorf("inputs %v, want exactly what the stand-in implements, %v", got, implemented)
	}
	if got := slices.Sorted(maps.Keys(s.Types["awsx:ec2:SubnetSpec"].Properties)); !slices.Equal(got, implementedSpec) {
		t.Errorf("SubnetSpec fields %v, want %v", got, implementedSpec)
	}
	// awsx's outputs, exactly (schema.json's required list), typed as there.
	if !slices.Equal(v.Required, outputs) || !slices.Equal(slices.Sorted(maps.Keys(v.Properties)), slices.Sorted(slices.Values(outputs))) {
		t.Errorf("outputs %v, required %v; want %v", slices.Sorted(maps.Keys(v.Properties)), v.Required, outputs)
	}
	var got []string
	for _, e := range s.Types["awsx:ec2:SubnetAllocationStrategy"].Enum {
		got = append(got, e.Value)
	}
	if !slices.Equal(got, strategies) {
		t.Errorf("SubnetAllocationStrategy %v, want %v", got, strategies)
	}
	if got := v.Properties["vpc"]["$ref"]; got != awsRef+"/schema.json#/resources/aws:ec2%2Fvpc:Vpc" {
		t.Errorf("vpc $ref %v", got)
	}
	if got := v.Properties["natGateways"]["items"].(map[string]any)["$ref"]; got != awsRef+"/schema.json#/resources/aws:ec2%2FnatGateway:NatGateway" {
		t.Errorf("natGateways items %v", got)
	}
	for _, prop := range []string{"publicSubnetIds", "privateSubnetIds", "isolatedSubnetIds"} {
		if v.Properties[prop]["type"] != "array" || v.Properties[prop]["items"].(map[string]any)["type"] != "string" {
			t.Errorf("output %s: %v, want a list of strings", prop, v.Properties[prop])
		}
	}
	if v.InputProperties["subnetSpecs"]["plain"] != true || v.InputProperties["natGateways"]["plain"] != true {
		t.Errorf("subnetSpecs and natGateways are plain in awsx's schema")
	}
}

func TestConstructOnlyTheVpc(t *testing.T) {
	p := plugin.Server(nil)
	_, err := p.Construct(context.Background(), &pulumirpc.ConstructRequest{Type: "awsx:lb:ApplicationLoadBalancer", Name: "lb"})
	if err == nil || !strings.Contains(err.Error(), "the stand-in for pulumi-awsx 3.9.0 (test only) constructs only awsx:ec2:Vpc") {
		t.Errorf("Construct of another type: %v", err)
	}
}
