package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// A VPC's network, against moto's EC2: aws:ec2/vpc:Vpc, aws:ec2/subnet:Subnet,
// aws:ec2/internetGateway:InternetGateway, aws:ec2/eip:Eip, aws:ec2/natGateway:NatGateway,
// aws:ec2/routeTable:RouteTable, aws:ec2/route:Route, aws:ec2/routeTableAssociation:RouteTableAssociation,
// and the function aws:index/getAvailabilityZones:getAvailabilityZones (the types registered here,
// with the VPC's and subnets' operations; the gateways' in ec2_gateways.go, the routing's in
// ec2_routes.go, the function in invokes_ec2.go). Not used by the component:
// the documentation's programs create them through pulumi-awsx's Vpc, which
// tests/e2e/standin/awsx-component-provider registers as awsx does. Every input awsx sends is
// implemented (its subnets' ipv6CidrBlock, unknown in a preview and unset once the VPC's
// ipv6CidrBlock is known, included); the others are marked unsupported (Check fails naming them).
//
// Inputs as pulumi-aws names them; schema, ForceNew flags and defaults from terraform-provider-aws
// (stored copies in the search tool's code corpus, hashicorp/terraform-provider-aws at the commits
// named):
//   - internal/service/ec2/vpc_.go (commit 00081ce4): cidr_block (Optional+Computed), ipv4_ipam_pool_id
//     and ipv4_netmask_length are ForceNew; enable_dns_support (Default true), enable_dns_hostnames
//     and enable_network_address_usage_metrics (Optional+Computed: ModifyVpcAttribute),
//     instance_tenancy (Default "default": ModifyVpcTenancy), the IPv6 attributes and tags update in
//     place. Create sets the DNS attributes that differ from a new VPC's (hostnames false, support
//     true); read adds the default network ACL, main route table and default security group.
//     Delete retries on DependencyViolation.
//   - internal/service/ec2/vpc_subnet.go (commit 00cda125, a v6 copy): vpc_id (Required),
//     availability_zone, availability_zone_id, cidr_block (Optional+Computed), ipv6_native (Default
//     false), outpost_arn and the IPAM attributes are ForceNew; map_public_ip_on_launch,
//     assign_ipv6_address_on_creation, enable_dns64, the resource-name DNS attributes (Default
//     false) and tags update in place (ModifySubnetAttribute, one attribute a call); ipv6_cidr_block
//     is Optional+Computed.
//   - internal/service/ec2/vpc_internet_gateway.go (commit 08923b68): vpc_id is Optional+Computed and
//     updates in place (detach from the old VPC, attach to the new); delete detaches first.
//   - internal/service/ec2/ec2_eip.go (commit 01606926, a v6 release): address, domain
//     (Optional+Computed), ipam_pool_id, network_border_group and public_ipv4_pool are ForceNew;
//     instance, network_interface and associate_with_private_ip update in place (associations);
//     delete disassociates, then releases. (pulumi-aws 6.83.2 also has the deprecated `vpc`.)
//   - internal/service/ec2/vpc_nat_gateway.go (commit 04088eaa, v5; a v6 copy adds regional NAT
//     gateways: availability_mode, availability_zone_address, vpc_id): allocation_id,
//     connectivity_type (Default "public"), private_ip (Optional+Computed), subnet_id and
//     secondary_private_ip_address_count are ForceNew; tags update in place; delete waits until
//     the gateway is "deleted", which reads as gone.
//   - internal/service/ec2/vpc_route_table.go (commit 02209241): vpc_id is Required+ForceNew; route
//     and propagating_vgws are Optional+Computed (in-line routes, not implemented here: awsx
//     creates aws:ec2/route:Route resources); delete disassociates every association first.
//   - internal/service/ec2/vpc_route.go (commit 0128541e): route_table_id and the destinations are
//     ForceNew (exactly one destination, exactly one target); the targets update in place
//     (ReplaceRoute); the id is "r-" + route table + hashcode(destination) (RouteCreateID).
//   - internal/service/ec2/vpc_route_table_association.go (commit 0be71beb): subnet_id and
//     gateway_id are ForceNew (exactly one); route_table_id updates in place
//     (ReplaceRouteTableAssociation, whose new association ID terraform sets as the resource's id:
//     the protocol's Update cannot change an id, so the stand-in's read finds a replaced
//     association by its subnet).
//   - internal/service/ec2/availability_zones_data_source.go (commit 51f0f87f): DescribeAvailabilityZones
//     (state as a filter, filters, all_availability_zones), sorted by name, exclude_names and
//     exclude_zone_ids dropped; the id is the region.
//
// moto 5.2.5 (moto/ec2/models/nat_gateways.py) leaves a deleted NAT gateway's network interface and
// elastic IP association in place, which AWS removes: the stand-in removes them after
// DeleteNatGateway, as AWS would. moto's zones have no group name; AWS's is the region's, which the
// stand-in reports.

// programInvokes are the functions served for the programs' stand-ins (never invoked by the
// component): pulumi-awsx's Vpc picks its zones with getAvailabilityZones.
var programInvokes = []string{"aws:index/getAvailabilityZones:getAvailabilityZones"}

func init() {
	invokes["aws:index/getAvailabilityZones:getAvailabilityZones"] = getAvailabilityZones
	// moto/ec2/models/availability_zones_and_regions.py, describe_availability_zones.
	motoFilters["DescribeAvailabilityZones"] = []string{"region-name", "state", "zone-id", "zone-name", "zone-type"}

	for _, t := range []*rtype{
		{
			token: "aws:ec2/vpc:Vpc",
			inputs: map[string]prop{
				"assignGeneratedIpv6CidrBlock":     {kind: kBool, unsupported: true},
				"cidrBlock":                        {kind: kString, forceNew: true, computed: true},
				"enableDnsHostnames":               {kind: kBool, computed: true},
				"enableDnsSupport":                 {kind: kBool, def: bv(true)},
				"enableNetworkAddressUsageMetrics": {kind: kBool, computed: true},
				"instanceTenancy":                  {kind: kString, def: sv("default")},
				"ipv4IpamPoolId":                   {kind: kString, forceNew: true, unsupported: true},
				"ipv4NetmaskLength":                {kind: kInt, forceNew: true, unsupported: true},
				// ipv6CidrBlock is Optional+Computed: an output here (awsx's subnets read it), an
				// input the stand-in does not implement.
				"ipv6CidrBlock":                   {kind: kString, computed: true, unsupported: true},
				"ipv6CidrBlockNetworkBorderGroup": {kind: kString, computed: true, unsupported: true},
				"ipv6IpamPoolId":                  {kind: kString, unsupported: true},
				"ipv6NetmaskLength":               {kind: kInt, unsupported: true},
				"tags":                            tagsProp,
			},
			outputs: []string{"arn", "defaultNetworkAclId", "defaultRouteTableId", "defaultSecurityGroupId", "dhcpOptionsId",
				"ipv6AssociationId", "ipv6CidrBlock", "mainRouteTableId", "ownerId"},
			tags:        true,
			forPrograms: true,
			ops:         vpcOps,
		},
		{
			token: "aws:ec2/subnet:Subnet",
			inputs: map[string]prop{
				"assignIpv6AddressOnCreation":             {kind: kBool, def: bv(false)},
				"availabilityZone":                        {kind: kString, forceNew: true, computed: true},
				"availabilityZoneId":                      {kind: kString, forceNew: true, computed: true},
				"cidrBlock":                               {kind: kString, forceNew: true, computed: true},
				"customerOwnedIpv4Pool":                   {kind: kString, unsupported: true},
				"enableDns64":                             {kind: kBool, unsupported: true}, // Default false; moto cannot modify it
				"enableLniAtDeviceIndex":                  {kind: kInt, unsupported: true},
				"enableResourceNameDnsAaaaRecordOnLaunch": {kind: kBool, unsupported: true}, // Default false
				"enableResourceNameDnsARecordOnLaunch":    {kind: kBool, unsupported: true}, // Default false
				"ipv4IpamPoolId":                          {kind: kString, forceNew: true, unsupported: true},
				"ipv4NetmaskLength":                       {kind: kInt, forceNew: true, unsupported: true},
				"ipv6CidrBlock":                           {kind: kString, computed: true},
				"ipv6IpamPoolId":                          {kind: kString, forceNew: true, unsupported: true},
				"ipv6Native":                              {kind: kBool, forceNew: true, unsupported: true}, // Default false
				"ipv6NetmaskLength":                       {kind: kInt, forceNew: true, unsupported: true},
				"mapCustomerOwnedIpOnLaunch":              {kind: kBool, unsupported: true},
				"mapPublicIpOnLaunch":                     {kind: kBool, def: bv(false)},
				"outpostArn":                              {kind: kString, forceNew: true, unsupported: true},
				"privateDnsHostnameTypeOnLaunch":          {kind: kString, computed: true, unsupported: true},
				"tags":                                    tagsProp,
				"vpcId":                                   {kind: kString, required: true, forceNew: true},
			},
			outputs:     []string{"arn", "ipv6CidrBlockAssociationId", "ownerId"},
			tags:        true,
			forPrograms: true,
			ops:         subnetOps,
		},
		{
			token: "aws:ec2/internetGateway:InternetGateway",
			inputs: map[string]prop{
				"tags":  tagsProp,
				"vpcId": {kind: kString, computed: true},
			},
			outputs:     []string{"arn", "ownerId"},
			tags:        true,
			forPrograms: true,
			ops:         internetGatewayOps,
		},
		{
			token: "aws:ec2/eip:Eip",
			inputs: map[string]prop{
				"address":                {kind: kString, forceNew: true, unsupported: true},
				"associateWithPrivateIp": {kind: kString, unsupported: true},
				"customerOwnedIpv4Pool":  {kind: kString, unsupported: true},
				"domain":                 {kind: kString, forceNew: true, computed: true},
				"instance":               {kind: kString, computed: true, unsupported: true},
				"ipamPoolId":             {kind: kString, forceNew: true, computed: true, unsupported: true},
				"networkBorderGroup":     {kind: kString, forceNew: true, computed: true, unsupported: true},
				"networkInterface":       {kind: kString, computed: true, unsupported: true},
				"publicIpv4Pool":         {kind: kString, forceNew: true, computed: true, unsupported: true},
				"tags":                   tagsProp,
				"vpc":                    {kind: kBool, forceNew: true, computed: true, unsupported: true}, // pulumi-aws 6 only (deprecated)
			},
			outputs: []string{"allocationId", "arn", "associationId", "carrierIp", "customerOwnedIp", "privateDns", "privateIp",
				"ptrRecord", "publicDns", "publicIp"},
			tags:        true,
			forPrograms: true,
			ops:         eipOps,
		},
		{
			token: "aws:ec2/natGateway:NatGateway",
			inputs: map[string]prop{
				"allocationId":                   {kind: kString, forceNew: true},
				"availabilityMode":               {kind: kString, forceNew: true, computed: true, unsupported: true}, // pulumi-aws 7 (regional NAT)
				"availabilityZoneAddresses":      {kind: kObjectList, unsupported: true},                             // pulumi-aws 7
				"connectivityType":               {kind: kString, forceNew: true, def: sv("public")},
				"privateIp":                      {kind: kString, forceNew: true, computed: true},
				"secondaryAllocationIds":         {kind: kStringList, unsupported: true},
				"secondaryPrivateIpAddressCount": {kind: kInt, forceNew: true, computed: true, unsupported: true},
				"secondaryPrivateIpAddresses":    {kind: kStringList, computed: true, unsupported: true},
				"subnetId":                       {kind: kString, required: true, forceNew: true},
				"tags":                           tagsProp,
				"vpcId":                          {kind: kString, forceNew: true, computed: true, unsupported: true}, // pulumi-aws 7
			},
			outputs:     []string{"associationId", "networkInterfaceId", "publicIp"},
			tags:        true,
			forPrograms: true,
			ops:         natGatewayOps,
		},
		{
			token: "aws:ec2/routeTable:RouteTable",
			inputs: map[string]prop{
				"propagatingVgws": {kind: kStringList, computed: true, unsupported: true},
				// Inline routes: an IPv4 cidrBlock to a gatewayId or natGatewayId (ec2_routes.go).
				"routes": {kind: kObjectList, computed: true},
				"tags":   tagsProp,
				"vpcId":  {kind: kString, required: true, forceNew: true},
			},
			outputs:     []string{"arn", "ownerId"},
			tags:        true,
			forPrograms: true,
			ops:         routeTableOps,
		},
		{
			token: "aws:ec2/route:Route",
			inputs: map[string]prop{
				"carrierGatewayId":         {kind: kString, unsupported: true},
				"coreNetworkArn":           {kind: kString, unsupported: true},
				"destinationCidrBlock":     {kind: kString, forceNew: true},
				"destinationIpv6CidrBlock": {kind: kString, forceNew: true, unsupported: true},
				"destinationPrefixListId":  {kind: kString, forceNew: true, unsupported: true},
				"egressOnlyGatewayId":      {kind: kString, unsupported: true},
				"gatewayId":                {kind: kString},
				"localGatewayId":           {kind: kString, unsupported: true},
				"natGatewayId":             {kind: kString},
				"networkInterfaceId":       {kind: kString, computed: true, unsupported: true},
				"routeTableId":             {kind: kString, required: true, forceNew: true},
				"transitGatewayId":         {kind: kString, unsupported: true},
				"vpcEndpointId":            {kind: kString, unsupported: true},
				"vpcPeeringConnectionId":   {kind: kString, unsupported: true},
			},
			outputs:     []string{"instanceId", "instanceOwnerId", "origin", "state"},
			forPrograms: true,
			ops:         routeOps,
		},
		{
			token: "aws:ec2/routeTableAssociation:RouteTableAssociation",
			inputs: map[string]prop{
				"gatewayId":    {kind: kString, forceNew: true, unsupported: true},
				"routeTableId": {kind: kString, required: true},
				"subnetId":     {kind: kString, forceNew: true},
			},
			forPrograms: true,
			ops:         routeTableAssociationOps,
		},
	} {
		types[t.token] = t
	}
}

// ---- EC2 calls ------------------------------------------------------------------------------

// retryOn retries f while EC2 answers code (terraform's RetryWhenAWSErrCodeEquals), for at most
// timeout.
func retryOn(ctx context.Context, code string, timeout time.Duration, f func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		err := f()
		if errorCode(err) != code || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(time.Second):
		}
	}
}

// dependencyRetry is how long a delete retries while EC2 answers DependencyViolation (terraform
// retries for minutes: vpcDeletedTimeout, the resources' delete timeouts; a dependent the engine
// deletes first is gone at once in moto).
var dependencyRetry = 30 * time.Second

// boolParam is an EC2 Query boolean.
func boolParam(b bool) string { return fmt.Sprint(b) }

func ec2ARN(c *call, owner, resource string) string {
	return fmt.Sprintf("arn:%s:ec2:%s:%s:%s", c.partition(), c.region(), owner, resource)
}

// ---- aws:ec2/vpc:Vpc --------------------------------------------------------------------------

var vpcOps = ops{
	check: func(in pmap) []*pulumirpc.CheckFailure {
		var out []*pulumirpc.CheckFailure
		if v := str(in, "cidrBlock"); v != "" {
			// validation.IsCIDRNetwork(16, 28).
			if _, n, err := net.ParseCIDR(v); err != nil || n.String() != v || n.IP.To4() == nil {
				out = append(out, failure("cidrBlock", "%q is not a valid CIDR network address", v))
			} else if ones, _ := n.Mask.Size(); ones < 16 || ones > 28 {
				out = append(out, failure("cidrBlock", "expected %q to contain a network Value with between 16 and 28 significant bits, got: %d", v, ones))
			}
		}
		if v := str(in, "instanceTenancy"); v != "" && v != "default" && v != "dedicated" {
			out = append(out, enumFailure("instanceTenancy", v, []string{"default", "dedicated"}))
		}
		return out
	},
	create: func(ctx context.Context, c *call, in pmap) (string, error) {
		q := c.aws().ec2
		params := url.Values{"InstanceTenancy": {strOr(in, "instanceTenancy", "default")}}
		if v := str(in, "cidrBlock"); v != "" {
			params.Set("CidrBlock", v)
		}
		tagSpecification(params, "vpc", stringMap(in, "tags"))
		var out struct {
			ID string `xml:"vpc>vpcId"`
		}
		if err := q.call(ctx, "CreateVpc", params, &out); err != nil {
			return "", fmt.Errorf("creating EC2 VPC: %w", err)
		}
		// modifyVPCAttributesOnCreate: what differs from a new VPC's (hostnames false, support
		// true, usage metrics false).
		for _, a := range []struct {
			key string
			new bool
		}{{"enableDnsHostnames", false}, {"enableDnsSupport", true}, {"enableNetworkAddressUsageMetrics", false}} {
			if v, ok := boolean(in, a.key); ok && v != a.new {
				if err := modifyVPCAttribute(ctx, q, out.ID, a.key, v); err != nil {
					return out.ID, fmt.Errorf("creating EC2 VPC: %w", err)
				}
			}
		}
		return out.ID, nil
	},
	read: func(ctx context.Context, c *call, id string, in pmap) (pmap, error) {
		q := c.aws().ec2
		vpcs, err := q.describeVpcs(ctx, []string{id}, nil)
		if errorCode(err) == "InvalidVpcID.NotFound" || (err == nil && len(vpcs) == 0) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading EC2 VPC (%s): %w", id, err)
		}
		v := vpcs[0]
		outs := pmap{
			"arn": sv(ec2ARN(c, v.OwnerID, "vpc/"+id)), "cidrBlock": sv(v.CidrBlock), "dhcpOptionsId": sv(v.DhcpOptionsID),
			"instanceTenancy": sv(v.InstanceTenancy), "ownerId": sv(v.OwnerID), "tags": mapValue(tagMap(v.Tags)), "tagsAll": mapValue(tagMap(v.Tags)),
			"assignGeneratedIpv6CidrBlock": bv(false), "ipv6AssociationId": sv(""), "ipv6CidrBlock": sv(""),
		}
		if len(v.Ipv6Associations) > 0 {
			outs["assignGeneratedIpv6CidrBlock"] = bv(true)
			outs["ipv6AssociationId"], outs["ipv6CidrBlock"] = sv(v.Ipv6Associations[0].AssociationID), sv(v.Ipv6Associations[0].Ipv6CidrBlock)
		}
		for _, a := range []string{"enableDnsHostnames", "enableDnsSupport", "enableNetworkAddressUsageMetrics"} {
			b, err := q.vpcAttribute(ctx, id, a)
			if err != nil {
				return nil, fmt.Errorf("reading EC2 VPC (%s) Attribute (%s): %w", id, a, err)
			}
			outs[resource.PropertyKey(a)] = bv(b)
		}
		// terraform only logs a failure to read these three.
		mainRT, _ := q.mainRouteTable(ctx, id)
		outs["mainRouteTableId"], outs["defaultRouteTableId"] = sv(mainRT), sv(mainRT)
		outs["defaultNetworkAclId"] = sv(q.defaultNetworkACL(ctx, id))
		groups, _ := q.describeSecurityGroups(ctx, nil, []ec2Filter{{Name: "vpc-id", Values: []string{id}}, {Name: "group-name", Values: []string{"default"}}})
		outs["defaultSecurityGroupId"] = sv("")
		if len(groups) > 0 {
			outs["defaultSecurityGroupId"] = sv(groups[0].GroupID)
		}
		return outs, nil
	},
	update: func(ctx context.Context, c *call, id string, _, oldIn, newIn pmap) error {
		q := c.aws().ec2
		for _, a := range []struct {
			key string
			def bool
		}{{"enableDnsHostnames", false}, {"enableDnsSupport", true}, {"enableNetworkAddressUsageMetrics", false}} {
			o, n := boolOr(oldIn, a.key, a.def), boolOr(newIn, a.key, a.def)
			if _, set := boolean(newIn, a.key); set && o != n {
				if err := modifyVPCAttribute(ctx, q, id, a.key, n); err != nil {
					return fmt.Errorf("updating EC2 VPC (%s): %w", id, err)
				}
			}
		}
		if o, n := strOr(oldIn, "instanceTenancy", "default"), strOr(newIn, "instanceTenancy", "default"); o != n {
			if err := q.call(ctx, "ModifyVpcTenancy", url.Values{"VpcId": {id}, "InstanceTenancy": {n}}, nil); err != nil {
				return fmt.Errorf("updating EC2 VPC (%s): %w", id, err)
			}
		}
		return updateTags(ctx, q, "EC2 VPC", id, stringMap(oldIn, "tags"), stringMap(newIn, "tags"))
	},
	delete: func(ctx context.Context, c *call, id string, _ pmap) error {
		err := retryOn(ctx, "DependencyViolation", dependencyRetry, func() error {
			return c.aws().ec2.call(ctx, "DeleteVpc", url.Values{"VpcId": {id}}, nil)
		})
		if err != nil && errorCode(err) != "InvalidVpcID.NotFound" {
			return fmt.Errorf("deleting EC2 VPC (%s): %w", id, err)
		}
		return nil
	},
}

func modifyVPCAttribute(ctx context.Context, q *ec2Query, id, attribute string, v bool) error {
	name := strings.ToUpper(attribute[:1]) + attribute[1:]
	if err := q.call(ctx, "ModifyVpcAttribute", url.Values{"VpcId": {id}, name + ".Value": {boolParam(v)}}, nil); err != nil {
		return fmt.Errorf("modifying EC2 VPC (%s) %s: %w", id, name, err)
	}
	return nil
}

// defaultNetworkACL is the ID of a VPC's default network ACL ("" when EC2 answers none).
func (q *ec2Query) defaultNetworkACL(ctx context.Context, vpcID string) string {
	params := url.Values{}
	filterParams(params, []ec2Filter{{Name: "vpc-id", Values: []string{vpcID}}, {Name: "default", Values: []string{"true"}}})
	var out struct {
		IDs []string `xml:"networkAclSet>item>networkAclId"`
	}
	if q.call(ctx, "DescribeNetworkAcls", params, &out) != nil || len(out.IDs) == 0 {
		return ""
	}
	return out.IDs[0]
}

// ---- aws:ec2/subnet:Subnet --------------------------------------------------------------------

var subnetOps = ops{
	check: func(in pmap) []*pulumirpc.CheckFailure {
		var out []*pulumirpc.CheckFailure
		if v := str(in, "cidrBlock"); v != "" {
			if _, n, err := net.ParseCIDR(v); err != nil || n.String() != v || n.IP.To4() == nil {
				out = append(out, failure("cidrBlock", "%q is not a valid IPv4 CIDR network address", v))
			}
		}
		if has(in, "availabilityZone") && has(in, "availabilityZoneId") {
			out = append(out, failure("availabilityZoneId", `"availabilityZoneId": conflicts with availabilityZone`))
		}
		return out
	},
	create: func(ctx context.Context, c *call, in pmap) (string, error) {
		q := c.aws().ec2
		params := url.Values{"VpcId": {str(in, "vpcId")}}
		for _, p := range []struct{ key, param string }{{"availabilityZone", "AvailabilityZone"}, {"availabilityZoneId", "AvailabilityZoneId"},
			{"cidrBlock", "CidrBlock"}, {"ipv6CidrBlock", "Ipv6CidrBlock"}} {
			if v := str(in, p.key); v != "" {
				params.Set(p.param, v)
			}
		}
		tagSpecification(params, "subnet", stringMap(in, "tags"))
		var out struct {
			ID string `xml:"subnet>subnetId"`
		}
		if err := q.call(ctx, "CreateSubnet", params, &out); err != nil {
			return "", fmt.Errorf("creating EC2 Subnet: %w", err)
		}
		// modifySubnetAttributesOnCreate: what differs from a new subnet's (both false).
		for _, a := range []string{"mapPublicIpOnLaunch", "assignIpv6AddressOnCreation"} {
			if v, _ := boolean(in, a); v {
				if err := modifySubnetAttribute(ctx, q, out.ID, a, true); err != nil {
					return out.ID, err
				}
			}
		}
		return out.ID, nil
	},
	read: func(ctx context.Context, c *call, id string, _ pmap) (pmap, error) {
		q := c.aws().ec2
		subnets, err := q.describeSubnets(ctx, []string{id}, nil)
		if errorCode(err) == "InvalidSubnetID.NotFound" || (err == nil && len(subnets) == 0) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading EC2 Subnet (%s): %w", id, err)
		}
		s := subnets[0]
		arn := s.SubnetArn
		if arn == "" {
			arn = ec2ARN(c, s.OwnerID, "subnet/"+id)
		}
		ipv6, ipv6Assoc := "", ""
		for _, a := range s.Ipv6 {
			if a.State == "associated" || a.State == "associating" {
				ipv6, ipv6Assoc = a.Ipv6CidrBlock, a.AssociationID
			}
		}
		outs := pmap{
			"arn": sv(arn), "assignIpv6AddressOnCreation": bv(s.AssignIpv6AddressOnCreation), "availabilityZone": sv(s.AvailabilityZone),
			"availabilityZoneId": sv(s.AvailabilityZoneID), "cidrBlock": sv(s.CidrBlock), "customerOwnedIpv4Pool": sv(s.CustomerOwnedIpv4Pool),
			"enableDns64": bv(s.EnableDns64), "enableResourceNameDnsARecordOnLaunch": bv(false), "enableResourceNameDnsAaaaRecordOnLaunch": bv(false),
			"ipv6CidrBlock": sv(ipv6), "ipv6CidrBlockAssociationId": sv(ipv6Assoc), "ipv6Native": bv(s.Ipv6Native),
			"mapCustomerOwnedIpOnLaunch": bv(s.MapCustomerOwnedIPOnLaunch), "mapPublicIpOnLaunch": bv(s.MapPublicIPOnLaunch),
			"outpostArn": sv(s.OutpostArn), "ownerId": sv(s.OwnerID), "privateDnsHostnameTypeOnLaunch": sv(""),
			"tags": mapValue(tagMap(s.Tags)), "tagsAll": mapValue(tagMap(s.Tags)), "vpcId": sv(s.VpcID),
		}
		if d := s.PrivateDNS; d != nil {
			outs["enableResourceNameDnsARecordOnLaunch"], outs["enableResourceNameDnsAaaaRecordOnLaunch"] = bv(d.A), bv(d.AAAA)
			outs["privateDnsHostnameTypeOnLaunch"] = sv(d.HostnameType)
		}
		return outs, nil
	},
	update: func(ctx context.Context, c *call, id string, _, oldIn, newIn pmap) error {
		q := c.aws().ec2
		if str(oldIn, "ipv6CidrBlock") != str(newIn, "ipv6CidrBlock") {
			return fmt.Errorf("updating EC2 Subnet (%s) ipv6CidrBlock is not implemented by the %s", id, standIn)
		}
		for _, a := range []string{"mapPublicIpOnLaunch", "assignIpv6AddressOnCreation"} {
			if o, n := boolOr(oldIn, a, false), boolOr(newIn, a, false); o != n {
				if err := modifySubnetAttribute(ctx, q, id, a, n); err != nil {
					return err
				}
			}
		}
		return updateTags(ctx, q, "EC2 Subnet", id, stringMap(oldIn, "tags"), stringMap(newIn, "tags"))
	},
	delete: func(ctx context.Context, c *call, id string, _ pmap) error {
		err := retryOn(ctx, "DependencyViolation", dependencyRetry, func() error {
			return c.aws().ec2.call(ctx, "DeleteSubnet", url.Values{"SubnetId": {id}}, nil)
		})
		if err != nil && errorCode(err) != "InvalidSubnetID.NotFound" {
			return fmt.Errorf("deleting EC2 Subnet (%s): %w", id, err)
		}
		return nil
	},
}

func modifySubnetAttribute(ctx context.Context, q *ec2Query, id, attribute string, v bool) error {
	name := strings.ToUpper(attribute[:1]) + attribute[1:]
	if err := q.call(ctx, "ModifySubnetAttribute", url.Values{"SubnetId": {id}, name + ".Value": {boolParam(v)}}, nil); err != nil {
		return fmt.Errorf("setting EC2 Subnet (%s) %s: %w", id, name, err)
	}
	return nil
}
