//go:build e2e

package main

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// TestVPCNetwork: what pulumi-awsx's Vpc registers for the documentation's programs (awsx/ec2/vpc.ts:
// a VPC, its internet gateway, per zone a public and a private subnet with a route table, its
// association and a route, one elastic IP and NAT gateway in the first public subnet), created in
// moto's EC2 with the inputs awsx gives them, updated, refreshed and deleted in the engine's order
// (children before their parents, dependents before what they depend on).
func TestVPCNetwork(t *testing.T) {
	p := newPlugin(t, testSettings(t))
	ctx := context.Background()
	const (
		vpcT, subnetT, igwT = "aws:ec2/vpc:Vpc", "aws:ec2/subnet:Subnet", "aws:ec2/internetGateway:InternetGateway"
		eipT, natT          = "aws:ec2/eip:Eip", "aws:ec2/natGateway:NatGateway"
		rtT, rtaT, routeT   = "aws:ec2/routeTable:RouteTable", "aws:ec2/routeTableAssociation:RouteTableAssociation", "aws:ec2/route:Route"
	)
	tags := func(kv ...string) resource.PropertyValue {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return mapValue(m)
	}

	// The zones awsx picks: the region's, sorted by name (moto's us-west-2 has four).
	zones, err := p.invoke(t, "aws:index/getAvailabilityZones:getAvailabilityZones", pmap{})
	if err != nil {
		t.Fatal(err)
	}
	if got := stringList(zones, "names"); !slices.Equal(got, []string{"us-west-2a", "us-west-2b", "us-west-2c", "us-west-2d"}) ||
		str(zones, "id") != testRegion || !slices.Equal(stringList(zones, "groupNames"), []string{testRegion}) || len(stringList(zones, "zoneIds")) != 4 {
		t.Errorf("getAvailabilityZones = %v", zones)
	}
	if z, err := p.invoke(t, "aws:index/getAvailabilityZones:getAvailabilityZones", pmap{"excludeNames": listValue([]string{"us-west-2b"}),
		"filters": listOf(pmap{"name": sv("zone-name"), "values": listValue([]string{"us-west-2a", "us-west-2b"})})}); err != nil ||
		!slices.Equal(stringList(z, "names"), []string{"us-west-2a"}) {
		t.Errorf("getAvailabilityZones with a filter and an exclusion = %v, %v", z, err)
	}
	if _, err := p.invoke(t, "aws:index/getAvailabilityZones:getAvailabilityZones", pmap{"filters": listOf(pmap{"name": sv("opt-in-status"),
		"values": listValue([]string{"opted-in"})})}); err == nil || !strings.Contains(err.Error(), `filter "opt-in-status": moto 5.2.5 does not implement it`) {
		t.Errorf("a filter moto lacks: %v", err)
	}

	// A preview: the defaults known, what EC2 computes unknown (awsx's subnets read the VPC's
	// ipv6CidrBlock, unknown until the VPC exists).
	vpcIn := pmap{"cidrBlock": sv("10.0.0.0/16"), "tags": tags("Name", "vpc")}
	pre := p.previewCreate(t, vpcT, "vpc", p.check(t, vpcT, "vpc", vpcIn, nil))
	if !isUnknown(pre["id"]) || !isUnknown(pre["ipv6CidrBlock"]) || !isUnknown(pre["defaultRouteTableId"]) || pre["enableDnsSupport"] != bv(true) ||
		str(pre, "instanceTenancy") != "default" {
		t.Errorf("VPC preview: %v", pre)
	}

	vpc := p.create(t, vpcT, "vpc", vpcIn)
	if !strings.HasPrefix(vpc.id, "vpc-") || str(vpc.outputs, "cidrBlock") != "10.0.0.0/16" || str(vpc.outputs, "ipv6CidrBlock") != "" ||
		!strings.HasPrefix(str(vpc.outputs, "mainRouteTableId"), "rtb-") || !strings.HasPrefix(str(vpc.outputs, "defaultSecurityGroupId"), "sg-") ||
		!strings.HasPrefix(str(vpc.outputs, "defaultNetworkAclId"), "acl-") || str(vpc.outputs, "arn") != "arn:aws:ec2:us-west-2:"+testAccount+":vpc/"+vpc.id ||
		vpc.outputs["enableDnsSupport"] != bv(true) || vpc.outputs["enableDnsHostnames"] != bv(false) || stringMap(vpc.outputs, "tags")["Name"] != "vpc" {
		t.Errorf("created VPC: %s %v", vpc.id, vpc.outputs)
	}
	igw := p.create(t, igwT, "vpc", pmap{"vpcId": sv(vpc.id), "tags": tags("Name", "vpc")})
	if !strings.HasPrefix(igw.id, "igw-") || str(igw.outputs, "vpcId") != vpc.id || !strings.HasSuffix(str(igw.outputs, "arn"), ":internet-gateway/"+igw.id) {
		t.Errorf("created internet gateway: %s %v", igw.id, igw.outputs)
	}

	// The first zone's public then private subnet, as awsx gives them (Legacy allocation).
	subnetIn := func(name, typ, cidr string, public bool, extra ...string) pmap {
		return pmap{"vpcId": sv(vpc.id), "availabilityZone": sv("us-west-2a"), "mapPublicIpOnLaunch": bv(public), "cidrBlock": sv(cidr),
			"assignIpv6AddressOnCreation": bv(false), "tags": tags(append([]string{"Name", name, "SubnetType", typ}, extra...)...)}
	}
	// In a preview the subnet's ipv6CidrBlock is unknown: Check takes it.
	preIn := subnetIn("vpc-public-1", "Public", "10.0.32.0/20", true)
	preIn["ipv6CidrBlock"] = resource.MakeComputed(resource.NewStringProperty(""))
	p.check(t, subnetT, "vpc-public-1", preIn, nil)
	public := p.create(t, subnetT, "vpc-public-1", subnetIn("vpc-public-1", "Public", "10.0.32.0/20", true))
	private := p.create(t, subnetT, "vpc-private-1", subnetIn("vpc-private-1", "Private", "10.0.0.0/19", false, "karpenter.sh/discovery", "demo"))
	if !strings.HasPrefix(public.id, "subnet-") || public.outputs["mapPublicIpOnLaunch"] != bv(true) || private.outputs["mapPublicIpOnLaunch"] != bv(false) ||
		str(private.outputs, "availabilityZone") != "us-west-2a" || str(private.outputs, "cidrBlock") != "10.0.0.0/19" ||
		stringMap(private.outputs, "tags")["karpenter.sh/discovery"] != "demo" || str(private.outputs, "vpcId") != vpc.id {
		t.Errorf("created subnets: %v\n%v", public.outputs, private.outputs)
	}
	// Karpenter's discovery finds the private subnet by its tag (what the component checks).
	if got, err := p.invoke(t, "aws:ec2/getSubnets:getSubnets", pmap{"tags": tags("karpenter.sh/discovery", "demo")}); err != nil ||
		!slices.Equal(stringList(got, "ids"), []string{private.id}) {
		t.Errorf("getSubnets by the discovery tag = %v, %v", got, err)
	}

	var tables, assocs []*res
	for _, s := range []*res{public, private} {
		name := s.name
		typ := "Public"
		if s == private {
			typ = "Private"
		}
		rt := p.create(t, rtT, name, pmap{"vpcId": sv(vpc.id), "tags": tags("Name", name, "SubnetType", typ)})
		a := p.create(t, rtaT, name, pmap{"routeTableId": sv(rt.id), "subnetId": sv(s.id)})
		if !strings.HasPrefix(rt.id, "rtb-") || !strings.HasPrefix(a.id, "rtbassoc-") || str(a.outputs, "subnetId") != s.id || str(a.outputs, "routeTableId") != rt.id {
			t.Errorf("route table %s %v, association %s %v", rt.id, rt.outputs, a.id, a.outputs)
		}
		tables, assocs = append(tables, rt), append(assocs, a)
	}

	// The NAT gateway and its elastic IP, in the public subnet.
	eip := p.create(t, eipT, "vpc-1", pmap{"tags": tags("Name", "vpc-1")})
	if !strings.HasPrefix(eip.id, "eipalloc-") || str(eip.outputs, "allocationId") != eip.id || str(eip.outputs, "domain") != "vpc" ||
		str(eip.outputs, "publicIp") == "" || !strings.HasPrefix(str(eip.outputs, "publicDns"), "ec2-") || !strings.HasSuffix(str(eip.outputs, "arn"), ":elastic-ip/"+eip.id) {
		t.Errorf("created elastic IP: %s %v", eip.id, eip.outputs)
	}
	nat := p.create(t, natT, "vpc-1", pmap{"subnetId": sv(public.id), "allocationId": sv(eip.id), "tags": tags("Name", "vpc-1")})
	if !strings.HasPrefix(nat.id, "nat-") || str(nat.outputs, "allocationId") != eip.id || str(nat.outputs, "publicIp") != str(eip.outputs, "publicIp") ||
		!strings.HasPrefix(str(nat.outputs, "networkInterfaceId"), "eni-") || str(nat.outputs, "connectivityType") != "public" || str(nat.outputs, "subnetId") != public.id {
		t.Errorf("created NAT gateway: %s %v", nat.id, nat.outputs)
	}

	// The routes: public to the internet gateway, private to the NAT gateway.
	publicRoute := p.create(t, routeT, "vpc-public-1", pmap{"routeTableId": sv(tables[0].id), "gatewayId": sv(igw.id), "destinationCidrBlock": sv("0.0.0.0/0")})
	privateRoute := p.create(t, routeT, "vpc-private-1", pmap{"routeTableId": sv(tables[1].id), "natGatewayId": sv(nat.id), "destinationCidrBlock": sv("0.0.0.0/0")})
	if publicRoute.id != routeID(tables[0].id, "0.0.0.0/0") || !strings.HasPrefix(publicRoute.id, "r-"+tables[0].id) ||
		str(publicRoute.outputs, "gatewayId") != igw.id || str(privateRoute.outputs, "natGatewayId") != nat.id || str(privateRoute.outputs, "state") != "active" {
		t.Errorf("routes: %s %v\n%s %v", publicRoute.id, publicRoute.outputs, privateRoute.id, privateRoute.outputs)
	}
	// The route table reads its routes (not the local one), as terraform's flattenRoutes.
	_, rtOut, _ := p.read(t, tables[1])
	if routes := objectList(rtOut, "routes"); len(routes) != 1 || str(routes[0], "natGatewayId") != nat.id || str(routes[0], "cidrBlock") != "0.0.0.0/0" {
		t.Errorf("route table routes: %v", rtOut["routes"])
	}
	// A route table with an inline route (examples/java's): created with it (CreateRoute), read
	// back with it; a change of its inline routes is refused, naming the stand-in.
	inline := p.create(t, rtT, "inline", pmap{"vpcId": sv(vpc.id), "routes": listOf(pmap{"cidrBlock": sv("0.0.0.0/0"), "gatewayId": sv(igw.id)})})
	if routes := objectList(inline.outputs, "routes"); len(routes) != 1 || str(routes[0], "gatewayId") != igw.id || str(routes[0], "cidrBlock") != "0.0.0.0/0" {
		t.Errorf("inline routes: %v", inline.outputs["routes"])
	}
	changed := inline.inputs.Copy()
	changed["routes"] = listOf(pmap{"cidrBlock": sv("0.0.0.0/0"), "natGatewayId": sv(nat.id)})
	_, err = p.Update(context.Background(), &pulumirpc.UpdateRequest{Id: inline.id, Urn: inline.urn, Name: inline.name, Type: inline.typ,
		Olds: mustMarshal(t, inline.outputs), OldInputs: mustMarshal(t, inline.inputs), News: mustMarshal(t, p.check(t, rtT, "inline", changed, inline.inputs))})
	if !strings.Contains(errText(err), "changing inline routes is not implemented by the stand-in") {
		t.Errorf("a change of the inline routes: %v", err)
	}
	if err := p.tryDelete(inline); err != nil {
		t.Fatal(err)
	}
	// A second pass has nothing to do: every read matches the inputs.
	for _, r := range []*res{vpc, igw, public, private, tables[0], assocs[0], eip, nat, publicRoute, privateRoute} {
		_, outs, refreshed := p.read(t, r)
		program := r.inputs.Copy()
		delete(program, defaultsKey)
		after := &res{typ: r.typ, name: r.name, urn: r.urn, id: r.id, inputs: refreshed, outputs: outs}
		if d := p.diff(t, after, p.check(t, r.typ, r.name, program, refreshed)); len(d.GetDiffs()) > 0 {
			t.Errorf("%s %s: a refresh then the same inputs diff %v", r.typ, r.name, d.GetDiffs())
		}
	}

	// Updates: tags (every type), the subnet's public IPs, the route's target, the VPC's DNS.
	vpc = p.update(t, vpc, withKey(vpc.inputs, "enableDnsHostnames", bv(true)))
	if vpc.outputs["enableDnsHostnames"] != bv(true) {
		t.Errorf("enableDnsHostnames after update: %v", vpc.outputs["enableDnsHostnames"])
	}
	for _, r := range []*res{vpc, igw, private, tables[1], eip, nat} {
		updated := p.update(t, r, withKey(r.inputs, "tags", tags("Name", r.name, "team", "a")))
		if stringMap(updated.outputs, "tags")["team"] != "a" || len(stringMap(updated.outputs, "tags")) != 2 {
			t.Errorf("%s %s tags after update: %v", r.typ, r.name, updated.outputs["tags"])
		}
	}
	public = p.update(t, public, withKey(public.inputs, "mapPublicIpOnLaunch", bv(false)))
	if public.outputs["mapPublicIpOnLaunch"] != bv(false) {
		t.Errorf("mapPublicIpOnLaunch after update: %v", public.outputs["mapPublicIpOnLaunch"])
	}
	// What replaces: the subnet's CIDR block and zone, the route's destination, the NAT gateway's
	// allocation; the route's target and the association's table update in place.
	if d := p.diff(t, private, p.check(t, subnetT, private.name, withKey(private.inputs, "cidrBlock", sv("10.0.64.0/19")), private.inputs)); !slices.Equal(d.GetReplaces(), []string{"cidrBlock"}) {
		t.Errorf("subnet cidrBlock change replaces %v", d.GetReplaces())
	}
	if d := p.diff(t, privateRoute, p.check(t, routeT, privateRoute.name, withKey(privateRoute.inputs, "destinationCidrBlock", sv("0.0.0.0/1")), privateRoute.inputs)); !slices.Equal(d.GetReplaces(), []string{"destinationCidrBlock"}) {
		t.Errorf("route destination change replaces %v", d.GetReplaces())
	}
	if d := p.diff(t, nat, p.check(t, natT, nat.name, withKey(nat.inputs, "allocationId", sv("eipalloc-other")), nat.inputs)); !slices.Equal(d.GetReplaces(), []string{"allocationId"}) {
		t.Errorf("NAT gateway allocationId change replaces %v", d.GetReplaces())
	}
	privateRoute = p.update(t, privateRoute, withKey(withKey(privateRoute.inputs, "natGatewayId", resource.NewNullProperty()), "gatewayId", sv(igw.id)))
	if str(privateRoute.outputs, "gatewayId") != igw.id || str(privateRoute.outputs, "natGatewayId") != "" {
		t.Errorf("route after a target update: %v", privateRoute.outputs)
	}
	// The association moves to the public table (ReplaceRouteTableAssociation gives it a new ID,
	// which the read follows by its subnet) and back.
	assocs[1] = p.update(t, assocs[1], withKey(assocs[1].inputs, "routeTableId", sv(tables[0].id)))
	if str(assocs[1].outputs, "routeTableId") != tables[0].id || str(assocs[1].outputs, "subnetId") != private.id {
		t.Errorf("association after update: %v", assocs[1].outputs)
	}
	assocs[1] = p.update(t, assocs[1], withKey(assocs[1].inputs, "routeTableId", sv(tables[1].id)))

	// Check refuses what terraform's schema refuses, and what the stand-in does not implement.
	for _, tc := range []struct {
		typ  string
		in   pmap
		want string
	}{
		{routeT, pmap{"routeTableId": sv("rtb-1"), "destinationCidrBlock": sv("0.0.0.0/0")}, "one of `carrierGatewayId,coreNetworkArn"},
		{routeT, pmap{"routeTableId": sv("rtb-1"), "destinationCidrBlock": sv("0.0.0.0/0"), "gatewayId": sv("igw-1"), "natGatewayId": sv("nat-1")},
			"only one of `carrierGatewayId"},
		{routeT, pmap{"routeTableId": sv("rtb-1"), "gatewayId": sv("igw-1")}, "one of `destinationCidrBlock,destinationIpv6CidrBlock,destinationPrefixListId` must be specified"},
		{routeT, pmap{"routeTableId": sv("rtb-1"), "destinationCidrBlock": sv("0.0.0.0/0"), "transitGatewayId": sv("tgw-1")}, `input "transitGatewayId" is not supported by the stand-in`},
		{rtaT, pmap{"routeTableId": sv("rtb-1")}, "one of `subnetId,gatewayId` must be specified"},
		{vpcT, pmap{"cidrBlock": sv("10.0.0.0/8")}, "between 16 and 28 significant bits"},
		{vpcT, pmap{"cidrBlock": sv("10.0.0.0/16"), "assignGeneratedIpv6CidrBlock": bv(true)}, `input "assignGeneratedIpv6CidrBlock" is not supported by the stand-in`},
		{subnetT, pmap{"vpcId": sv("vpc-1"), "cidrBlock": sv("10.0.0.1/24")}, "not a valid IPv4 CIDR network address"},
		{natT, pmap{"subnetId": sv("subnet-1"), "secondaryAllocationIds": listValue([]string{"eipalloc-1"})}, `input "secondaryAllocationIds" is not supported by the stand-in`},
		{rtT, pmap{"vpcId": sv("vpc-1"), "routes": listOf(pmap{"cidrBlock": sv("0.0.0.0/0")})}, "routes[0] needs a cidrBlock and one of gatewayId, natGatewayId"},
		{rtT, pmap{"vpcId": sv("vpc-1"), "routes": listOf(pmap{"cidrBlock": sv("0.0.0.0/0"), "transitGatewayId": sv("tgw-1")})}, "routes[0].transitGatewayId is not implemented"},
	} {
		_, failures := p.checkFailures(t, tc.typ, "bad", tc.in, nil)
		if !strings.Contains(strings.Join(failures, "\n"), tc.want) {
			t.Errorf("Check %s %v: failures %q, want %q", tc.typ, tc.in, failures, tc.want)
		}
	}

	// The VPC cannot go while its subnets are there (moto, as EC2), however long the stand-in
	// retries (as terraform does).
	dependencyRetry = 2 * time.Second
	t.Cleanup(func() { dependencyRetry = 30 * time.Second })
	if err := p.tryDelete(vpc); err == nil || !strings.Contains(err.Error(), "DependencyViolation") {
		t.Errorf("deleting the VPC first: %v", err)
	}

	// Destroy in the engine's order: each resource's dependents and children before it.
	for _, r := range []*res{privateRoute, publicRoute, assocs[1], assocs[0], tables[1], tables[0], nat, eip, private, public, igw, vpc} {
		p.delete(t, r)
		if resp, _, _ := p.read(t, r); resp.GetId() != "" {
			t.Errorf("%s %s still reads after delete: %v", r.typ, r.name, resp)
		}
	}
	// Nothing of the network is left in moto: the NAT gateway's interface and the address went
	// with it, as in AWS.
	var enis struct {
		IDs []string `xml:"networkInterfaceSet>item>networkInterfaceId"`
	}
	params := url.Values{}
	filterParams(params, []ec2Filter{{Name: "vpc-id", Values: []string{vpc.id}}})
	if err := moto().ec2.call(ctx, "DescribeNetworkInterfaces", params, &enis); err != nil || len(enis.IDs) != 0 {
		t.Errorf("network interfaces left in the VPC: %v %v", enis.IDs, err)
	}
	if vpcs, err := moto().ec2.describeVpcs(ctx, []string{vpc.id}, nil); err == nil || len(vpcs) != 0 {
		t.Errorf("VPC %s still in moto: %v %v", vpc.id, vpcs, err)
	}
	// Deleting what is gone succeeds (a destroy after a partial one).
	for _, r := range []*res{privateRoute, assocs[0], tables[0], nat, eip, public, igw, vpc} {
		if err := p.tryDelete(r); err != nil {
			t.Errorf("deleting %s %s again: %v", r.typ, r.name, err)
		}
	}
}
