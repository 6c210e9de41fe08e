package main

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"net"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// A VPC's network, against moto's EC2: aws:ec2/vpc:Vpc, aws:ec2/subnet:Subnet,
// aws:ec2/internetGateway:InternetGateway, aws:ec2/eip:Eip, aws:ec2/natGateway:NatGateway,
// aws:ec2/routeTable:RouteTable, aws:ec2/route:Route, aws:ec2/routeTableAssociation:RouteTableAssociation,
// and the function aws:index/getAvailabilityZones:getAvailabilityZones. Not used by the component:
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
				"routes":          {kind: kObjectList, computed: true, unsupported: true},
				"tags":            tagsProp,
				"vpcId":           {kind: kString, required: true, forceNew: true},
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

// tagSpecification adds a TagSpecification of the tags for a resource type (EC2 refuses one
// without tags).
func tagSpecification(params url.Values, resourceType string, tags map[string]string) {
	if len(tags) == 0 {
		return
	}
	params.Set("TagSpecification.1.ResourceType", resourceType)
	for i, k := range sortedKeys(tags) {
		params.Set(fmt.Sprintf("TagSpecification.1.Tag.%d.Key", i+1), k)
		params.Set(fmt.Sprintf("TagSpecification.1.Tag.%d.Value", i+1), tags[k])
	}
}

// updateTags is terraform's updateTags for EC2: delete the keys no longer there, (re)create the
// changed ones.
func updateTags(ctx context.Context, q *ec2Query, what, id string, olds, news map[string]string) error {
	remove, set := tagDiff(olds, news)
	for _, k := range remove {
		if err := q.deleteTags(ctx, id, k, olds[k]); err != nil {
			return fmt.Errorf("updating %s (%s) tags: %w", what, id, err)
		}
	}
	for _, k := range sortedKeys(set) {
		if err := q.createTags(ctx, id, k, set[k]); err != nil {
			return fmt.Errorf("updating %s (%s) tags: %w", what, id, err)
		}
	}
	return nil
}

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

// ---- aws:ec2/internetGateway:InternetGateway --------------------------------------------------

type ec2InternetGateway struct {
	ID          string `xml:"internetGatewayId"`
	OwnerID     string `xml:"ownerId"`
	Attachments []struct {
		VpcID string `xml:"vpcId"`
		State string `xml:"state"`
	} `xml:"attachmentSet>item"`
	Tags []ec2Tag `xml:"tagSet>item"`
}

func (q *ec2Query) internetGateway(ctx context.Context, id string) (*ec2InternetGateway, error) {
	var out struct {
		Gateways []ec2InternetGateway `xml:"internetGatewaySet>item"`
	}
	err := q.call(ctx, "DescribeInternetGateways", url.Values{"InternetGatewayId.1": {id}}, &out)
	if errorCode(err) == "InvalidInternetGatewayID.NotFound" || (err == nil && len(out.Gateways) == 0) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &out.Gateways[0], nil
}

func detachInternetGateway(ctx context.Context, q *ec2Query, id, vpcID string) error {
	err := retryOn(ctx, "DependencyViolation", dependencyRetry, func() error {
		return q.call(ctx, "DetachInternetGateway", url.Values{"InternetGatewayId": {id}, "VpcId": {vpcID}}, nil)
	})
	if err != nil && errorCode(err) != "Gateway.NotAttached" {
		return fmt.Errorf("detaching EC2 Internet Gateway (%s) from VPC (%s): %w", id, vpcID, err)
	}
	return nil
}

func attachInternetGateway(ctx context.Context, q *ec2Query, id, vpcID string) error {
	if err := q.call(ctx, "AttachInternetGateway", url.Values{"InternetGatewayId": {id}, "VpcId": {vpcID}}, nil); err != nil {
		return fmt.Errorf("attaching EC2 Internet Gateway (%s) to VPC (%s): %w", id, vpcID, err)
	}
	return nil
}

var internetGatewayOps = ops{
	create: func(ctx context.Context, c *call, in pmap) (string, error) {
		q := c.aws().ec2
		params := url.Values{}
		tagSpecification(params, "internet-gateway", stringMap(in, "tags"))
		var out struct {
			ID string `xml:"internetGateway>internetGatewayId"`
		}
		if err := q.call(ctx, "CreateInternetGateway", params, &out); err != nil {
			return "", fmt.Errorf("creating EC2 Internet Gateway: %w", err)
		}
		if v := str(in, "vpcId"); v != "" {
			if err := attachInternetGateway(ctx, q, out.ID, v); err != nil {
				return out.ID, fmt.Errorf("creating EC2 Internet Gateway: %w", err)
			}
		}
		return out.ID, nil
	},
	read: func(ctx context.Context, c *call, id string, _ pmap) (pmap, error) {
		g, err := c.aws().ec2.internetGateway(ctx, id)
		if g == nil || err != nil {
			return nil, err
		}
		vpcID := ""
		if len(g.Attachments) > 0 {
			vpcID = g.Attachments[0].VpcID
		}
		return pmap{"arn": sv(ec2ARN(c, g.OwnerID, "internet-gateway/"+id)), "ownerId": sv(g.OwnerID), "vpcId": sv(vpcID),
			"tags": mapValue(tagMap(g.Tags)), "tagsAll": mapValue(tagMap(g.Tags))}, nil
	},
	update: func(ctx context.Context, c *call, id string, state, oldIn, newIn pmap) error {
		q := c.aws().ec2
		if o, n := str(state, "vpcId"), str(newIn, "vpcId"); has(newIn, "vpcId") && o != n {
			if o != "" {
				if err := detachInternetGateway(ctx, q, id, o); err != nil {
					return fmt.Errorf("updating EC2 Internet Gateway (%s): %w", id, err)
				}
			}
			if err := attachInternetGateway(ctx, q, id, n); err != nil {
				return fmt.Errorf("updating EC2 Internet Gateway (%s): %w", id, err)
			}
		}
		return updateTags(ctx, q, "EC2 Internet Gateway", id, stringMap(oldIn, "tags"), stringMap(newIn, "tags"))
	},
	delete: func(ctx context.Context, c *call, id string, state pmap) error {
		q := c.aws().ec2
		if v := str(state, "vpcId"); v != "" {
			// (terraform would fail detaching a gateway deleted outside it; the stand-in deletes
			// what is gone without an error, as for the other types)
			if g, err := q.internetGateway(ctx, id); err == nil && g == nil {
				return nil
			}
			if err := detachInternetGateway(ctx, q, id, v); err != nil {
				return fmt.Errorf("deleting EC2 Internet Gateway (%s): %w", id, err)
			}
		}
		err := retryOn(ctx, "DependencyViolation", dependencyRetry, func() error {
			return q.call(ctx, "DeleteInternetGateway", url.Values{"InternetGatewayId": {id}}, nil)
		})
		if err != nil && errorCode(err) != "InvalidInternetGatewayID.NotFound" {
			return fmt.Errorf("deleting EC2 Internet Gateway (%s): %w", id, err)
		}
		return nil
	},
}

// ---- aws:ec2/eip:Eip --------------------------------------------------------------------------

type ec2Address struct {
	AllocationID          string   `xml:"allocationId"`
	AssociationID         string   `xml:"associationId"`
	CarrierIP             string   `xml:"carrierIp"`
	CustomerOwnedIP       string   `xml:"customerOwnedIp"`
	CustomerOwnedIpv4Pool string   `xml:"customerOwnedIpv4Pool"`
	Domain                string   `xml:"domain"`
	InstanceID            string   `xml:"instanceId"`
	NetworkBorderGroup    string   `xml:"networkBorderGroup"`
	NetworkInterfaceID    string   `xml:"networkInterfaceId"`
	PrivateIPAddress      string   `xml:"privateIpAddress"`
	PublicIP              string   `xml:"publicIp"`
	PublicIpv4Pool        string   `xml:"publicIpv4Pool"`
	Tags                  []ec2Tag `xml:"tagSet>item"`
}

func (q *ec2Query) address(ctx context.Context, allocationID string) (*ec2Address, error) {
	var out struct {
		Addresses []ec2Address `xml:"addressesSet>item"`
	}
	err := q.call(ctx, "DescribeAddresses", url.Values{"AllocationId.1": {allocationID}}, &out)
	if errorCode(err) == "InvalidAllocationID.NotFound" || (err == nil && len(out.Addresses) == 0) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &out.Addresses[0], nil
}

// dnsNames are terraform's EC2PrivateDNSNameForIP and EC2PublicDNSNameForIP.
func privateDNSName(region, ip string) string {
	domain := region + ".compute.internal"
	if region == "us-east-1" {
		domain = "ec2.internal"
	}
	return "ip-" + strings.ReplaceAll(ip, ".", "-") + "." + domain
}

func publicDNSName(region, ip string) string {
	_, dns, _ := partitionOf(region)
	if region == "us-east-1" {
		return "ec2-" + strings.ReplaceAll(ip, ".", "-") + ".compute-1." + dns
	}
	return "ec2-" + strings.ReplaceAll(ip, ".", "-") + "." + region + ".compute." + dns
}

var eipOps = ops{
	check: func(in pmap) []*pulumirpc.CheckFailure {
		if v := str(in, "domain"); v != "" && v != "vpc" && v != "standard" {
			return []*pulumirpc.CheckFailure{enumFailure("domain", v, []string{"vpc", "standard"})}
		}
		return nil
	},
	create: func(ctx context.Context, c *call, in pmap) (string, error) {
		params := url.Values{}
		if v := str(in, "domain"); v != "" {
			params.Set("Domain", v)
		}
		tagSpecification(params, "elastic-ip", stringMap(in, "tags"))
		var out struct {
			ID string `xml:"allocationId"`
		}
		if err := c.aws().ec2.call(ctx, "AllocateAddress", params, &out); err != nil {
			return "", fmt.Errorf("creating EC2 EIP: %w", err)
		}
		return out.ID, nil
	},
	read: func(ctx context.Context, c *call, id string, _ pmap) (pmap, error) {
		if !strings.HasPrefix(id, "eipalloc-") {
			return nil, fmt.Errorf(`with the retirement of EC2-Classic standard domain EC2 EIPs are no longer supported`)
		}
		a, err := c.aws().ec2.address(ctx, id)
		if a == nil || err != nil {
			if err != nil {
				err = fmt.Errorf("reading EC2 EIP (%s): %w", id, err)
			}
			return nil, err
		}
		outs := pmap{
			"allocationId": sv(a.AllocationID), "arn": sv(fmt.Sprintf("arn:%s:ec2:%s:%s:elastic-ip/%s", c.partition(), c.region(), c.account(ctx), id)),
			"associationId": sv(a.AssociationID), "carrierIp": sv(a.CarrierIP), "customerOwnedIp": sv(a.CustomerOwnedIP),
			"customerOwnedIpv4Pool": sv(a.CustomerOwnedIpv4Pool), "domain": sv(a.Domain), "instance": sv(a.InstanceID),
			"networkBorderGroup": sv(a.NetworkBorderGroup), "networkInterface": sv(a.NetworkInterfaceID), "privateIp": sv(a.PrivateIPAddress),
			"privateDns": sv(""), "publicIp": sv(a.PublicIP), "publicDns": sv(""), "publicIpv4Pool": sv(a.PublicIpv4Pool),
			// terraform reads it with DescribeAddressesAttribute (domain-name), which moto has no
			// record for: none, as terraform sets when the attribute is not found.
			"ptrRecord": sv(""),
			"tags":      mapValue(tagMap(a.Tags)), "tagsAll": mapValue(tagMap(a.Tags)),
		}
		if a.PrivateIPAddress != "" {
			outs["privateDns"] = sv(privateDNSName(c.region(), a.PrivateIPAddress))
		}
		if a.PublicIP != "" {
			outs["publicDns"] = sv(publicDNSName(c.region(), a.PublicIP))
		}
		return outs, nil
	},
	update: func(ctx context.Context, c *call, id string, _, oldIn, newIn pmap) error {
		return updateTags(ctx, c.aws().ec2, "EC2 EIP", id, stringMap(oldIn, "tags"), stringMap(newIn, "tags"))
	},
	delete: func(ctx context.Context, c *call, id string, state pmap) error {
		q := c.aws().ec2
		if v := str(state, "associationId"); v != "" {
			if err := q.call(ctx, "DisassociateAddress", url.Values{"AssociationId": {v}}, nil); err != nil && errorCode(err) != "InvalidAssociationID.NotFound" {
				return fmt.Errorf("disassociating EC2 EIP (%s): %w", id, err)
			}
		}
		err := q.call(ctx, "ReleaseAddress", url.Values{"AllocationId": {id}}, nil)
		if err != nil && errorCode(err) != "InvalidAllocationID.NotFound" {
			return fmt.Errorf("deleting EC2 EIP (%s): %w", id, err)
		}
		return nil
	},
}

// ---- aws:ec2/natGateway:NatGateway ------------------------------------------------------------

type ec2NatGateway struct {
	ID               string `xml:"natGatewayId"`
	State            string `xml:"state"`
	SubnetID         string `xml:"subnetId"`
	VpcID            string `xml:"vpcId"`
	ConnectivityType string `xml:"connectivityType"`
	Addresses        []struct {
		AllocationID       string `xml:"allocationId"`
		AssociationID      string `xml:"associationId"`
		NetworkInterfaceID string `xml:"networkInterfaceId"`
		PrivateIP          string `xml:"privateIp"`
		PublicIP           string `xml:"publicIp"`
		IsPrimary          *bool  `xml:"isPrimary"`
	} `xml:"natGatewayAddressSet>item"`
	Tags []ec2Tag `xml:"tagSet>item"`
}

// natGateway reads a NAT gateway; nil when EC2 has none of that ID, or it is deleted (terraform's
// findNATGatewayByID treats "deleted" as not found).
func (q *ec2Query) natGateway(ctx context.Context, id string) (*ec2NatGateway, error) {
	var out struct {
		Gateways []ec2NatGateway `xml:"natGatewaySet>item"`
	}
	err := q.call(ctx, "DescribeNatGateways", url.Values{"NatGatewayId.1": {id}}, &out)
	if errorCode(err) == "NatGatewayNotFound" {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	for _, g := range out.Gateways {
		if g.ID == id && g.State != "deleted" {
			return &g, nil
		}
	}
	return nil, nil
}

var natGatewayOps = ops{
	check: func(in pmap) []*pulumirpc.CheckFailure {
		switch v := str(in, "connectivityType"); {
		case v != "" && v != "public" && v != "private":
			return []*pulumirpc.CheckFailure{enumFailure("connectivityType", v, []string{"private", "public"})}
		case v == "private" && has(in, "allocationId"):
			return []*pulumirpc.CheckFailure{failure("allocationId", `allocation_id is not supported with connectivity_type = "private"`)}
		}
		return nil
	},
	create: func(ctx context.Context, c *call, in pmap) (string, error) {
		params := url.Values{"ClientToken": {prefixedUniqueID("terraform-")}, "SubnetId": {str(in, "subnetId")},
			"ConnectivityType": {strOr(in, "connectivityType", "public")}}
		if v := str(in, "allocationId"); v != "" {
			params.Set("AllocationId", v)
		}
		if v := str(in, "privateIp"); v != "" {
			params.Set("PrivateIpAddress", v)
		}
		tagSpecification(params, "natgateway", stringMap(in, "tags"))
		var out struct {
			ID string `xml:"natGateway>natGatewayId"`
		}
		if err := c.aws().ec2.call(ctx, "CreateNatGateway", params, &out); err != nil {
			return "", fmt.Errorf("creating EC2 NAT Gateway: %w", err)
		}
		return out.ID, nil
	},
	read: func(ctx context.Context, c *call, id string, _ pmap) (pmap, error) {
		g, err := c.aws().ec2.natGateway(ctx, id)
		if g == nil || err != nil {
			if err != nil {
				err = fmt.Errorf("reading EC2 NAT Gateway (%s): %w", id, err)
			}
			return nil, err
		}
		outs := pmap{
			"allocationId": sv(""), "associationId": sv(""), "connectivityType": sv(g.ConnectivityType),
			"networkInterfaceId": sv(""), "privateIp": sv(""), "publicIp": sv(""), "subnetId": sv(g.SubnetID),
			"secondaryAllocationIds": listValue(nil), "secondaryPrivateIpAddressCount": nv(0), "secondaryPrivateIpAddresses": listValue(nil),
			"tags": mapValue(tagMap(g.Tags)), "tagsAll": mapValue(tagMap(g.Tags)),
		}
		if g.ConnectivityType == "" {
			outs["connectivityType"] = sv("public")
		}
		var secondaryAllocations, secondaryIPs []string
		for _, a := range g.Addresses {
			if (a.IsPrimary != nil && *a.IsPrimary) || len(g.Addresses) == 1 {
				outs["allocationId"], outs["associationId"], outs["networkInterfaceId"] = sv(a.AllocationID), sv(a.AssociationID), sv(a.NetworkInterfaceID)
				outs["privateIp"], outs["publicIp"] = sv(a.PrivateIP), sv(a.PublicIP)
				continue
			}
			if a.AllocationID != "" {
				secondaryAllocations = append(secondaryAllocations, a.AllocationID)
			}
			if a.PrivateIP != "" {
				secondaryIPs = append(secondaryIPs, a.PrivateIP)
			}
		}
		outs["secondaryAllocationIds"], outs["secondaryPrivateIpAddresses"] = listValue(secondaryAllocations), listValue(secondaryIPs)
		outs["secondaryPrivateIpAddressCount"] = nv(len(secondaryIPs))
		return outs, nil
	},
	update: func(ctx context.Context, c *call, id string, _, oldIn, newIn pmap) error {
		return updateTags(ctx, c.aws().ec2, "EC2 NAT Gateway", id, stringMap(oldIn, "tags"), stringMap(newIn, "tags"))
	},
	delete: func(ctx context.Context, c *call, id string, _ pmap) error {
		q := c.aws().ec2
		g, err := q.natGateway(ctx, id) // moto answers HTTP 500 for a DeleteNatGateway of an ID it does not know
		if err != nil || g == nil {
			return err
		}
		if err := q.call(ctx, "DeleteNatGateway", url.Values{"NatGatewayId": {id}}, nil); err != nil {
			if errorCode(err) == "NatGatewayNotFound" {
				return nil
			}
			return fmt.Errorf("deleting EC2 NAT Gateway (%s): %w", id, err)
		}
		// What AWS does as the gateway is deleted, and moto 5.2.5 does not: the elastic IP is
		// disassociated and the gateway's network interface deleted.
		var errs []error
		for _, a := range g.Addresses {
			if a.AssociationID != "" {
				errs = append(errs, ignoreCode(q.call(ctx, "DisassociateAddress", url.Values{"AssociationId": {a.AssociationID}}, nil), "InvalidAssociationID.NotFound"))
			}
			if a.NetworkInterfaceID != "" {
				errs = append(errs, ignoreCode(q.call(ctx, "DeleteNetworkInterface", url.Values{"NetworkInterfaceId": {a.NetworkInterfaceID}}, nil),
					"InvalidNetworkInterfaceID.NotFound"))
			}
		}
		if err := errors.Join(errs...); err != nil {
			return fmt.Errorf("deleting EC2 NAT Gateway (%s): releasing its address and network interface as AWS does (%s): %w", id, standIn, err)
		}
		return nil
	},
}

// ---- aws:ec2/routeTable:RouteTable ------------------------------------------------------------

type ec2Route struct {
	DestinationCidrBlock        string `xml:"destinationCidrBlock"`
	DestinationIpv6CidrBlock    string `xml:"destinationIpv6CidrBlock"`
	DestinationPrefixListID     string `xml:"destinationPrefixListId"`
	CarrierGatewayID            string `xml:"carrierGatewayId"`
	CoreNetworkArn              string `xml:"coreNetworkArn"`
	EgressOnlyInternetGatewayID string `xml:"egressOnlyInternetGatewayId"`
	GatewayID                   string `xml:"gatewayId"`
	InstanceID                  string `xml:"instanceId"`
	InstanceOwnerID             string `xml:"instanceOwnerId"`
	LocalGatewayID              string `xml:"localGatewayId"`
	NatGatewayID                string `xml:"natGatewayId"`
	NetworkInterfaceID          string `xml:"networkInterfaceId"`
	TransitGatewayID            string `xml:"transitGatewayId"`
	VpcPeeringConnectionID      string `xml:"vpcPeeringConnectionId"`
	Origin                      string `xml:"origin"`
	State                       string `xml:"state"`
}

type ec2RouteTable struct {
	ID           string     `xml:"routeTableId"`
	VpcID        string     `xml:"vpcId"`
	OwnerID      string     `xml:"ownerId"`
	Routes       []ec2Route `xml:"routeSet>item"`
	Associations []struct {
		ID           string `xml:"routeTableAssociationId"`
		RouteTableID string `xml:"routeTableId"`
		SubnetID     string `xml:"subnetId"`
		GatewayID    string `xml:"gatewayId"`
		Main         bool   `xml:"main"`
	} `xml:"associationSet>item"`
	PropagatingVgws []struct {
		GatewayID string `xml:"gatewayId"`
	} `xml:"propagatingVgwSet>item"`
	Tags []ec2Tag `xml:"tagSet>item"`
}

func (q *ec2Query) routeTables(ctx context.Context, ids []string, filters []ec2Filter) ([]ec2RouteTable, error) {
	params := url.Values{}
	idParams(params, "RouteTableId", ids)
	filterParams(params, filters)
	var out struct {
		Tables []ec2RouteTable `xml:"routeTableSet>item"`
	}
	err := q.call(ctx, "DescribeRouteTables", params, &out)
	return out.Tables, err
}

// routeTable reads one route table; nil when EC2 has none of that ID.
func (q *ec2Query) routeTable(ctx context.Context, id string) (*ec2RouteTable, error) {
	tables, err := q.routeTables(ctx, []string{id}, nil)
	if errorCode(err) == "InvalidRouteTableID.NotFound" || (err == nil && len(tables) == 0) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &tables[0], nil
}

// routesValue is terraform's flattenRoutes: the table's routes but the local one and propagated
// ones, as pulumi-aws's RouteTableRoute objects.
func routesValue(routes []ec2Route) resource.PropertyValue {
	var out []pmap
	for _, r := range routes {
		if r.GatewayID == "local" || r.Origin == "EnableVgwRoutePropagation" {
			continue
		}
		gateway, endpoint := r.GatewayID, ""
		if strings.HasPrefix(gateway, "vpce-") {
			gateway, endpoint = "", r.GatewayID
		}
		out = append(out, pmap{
			"cidrBlock": sv(r.DestinationCidrBlock), "ipv6CidrBlock": sv(r.DestinationIpv6CidrBlock), "destinationPrefixListId": sv(r.DestinationPrefixListID),
			"carrierGatewayId": sv(r.CarrierGatewayID), "coreNetworkArn": sv(r.CoreNetworkArn), "egressOnlyGatewayId": sv(r.EgressOnlyInternetGatewayID),
			"gatewayId": sv(gateway), "localGatewayId": sv(r.LocalGatewayID), "natGatewayId": sv(r.NatGatewayID),
			"networkInterfaceId": sv(r.NetworkInterfaceID), "transitGatewayId": sv(r.TransitGatewayID), "vpcEndpointId": sv(endpoint),
			"vpcPeeringConnectionId": sv(r.VpcPeeringConnectionID),
		})
	}
	return listOf(out...)
}

var routeTableOps = ops{
	create: func(ctx context.Context, c *call, in pmap) (string, error) {
		params := url.Values{"VpcId": {str(in, "vpcId")}}
		tagSpecification(params, "route-table", stringMap(in, "tags"))
		var out struct {
			ID string `xml:"routeTable>routeTableId"`
		}
		if err := c.aws().ec2.call(ctx, "CreateRouteTable", params, &out); err != nil {
			return "", fmt.Errorf("creating Route Table: %w", err)
		}
		return out.ID, nil
	},
	read: func(ctx context.Context, c *call, id string, _ pmap) (pmap, error) {
		t, err := c.aws().ec2.routeTable(ctx, id)
		if t == nil || err != nil {
			if err != nil {
				err = fmt.Errorf("reading Route Table (%s): %w", id, err)
			}
			return nil, err
		}
		vgws := []string{}
		for _, v := range t.PropagatingVgws {
			vgws = append(vgws, v.GatewayID)
		}
		return pmap{"arn": sv(ec2ARN(c, t.OwnerID, "route-table/"+id)), "ownerId": sv(t.OwnerID), "propagatingVgws": listValue(vgws),
			"routes": routesValue(t.Routes), "vpcId": sv(t.VpcID), "tags": mapValue(tagMap(t.Tags)), "tagsAll": mapValue(tagMap(t.Tags))}, nil
	},
	update: func(ctx context.Context, c *call, id string, _, oldIn, newIn pmap) error {
		return updateTags(ctx, c.aws().ec2, "Route Table", id, stringMap(oldIn, "tags"), stringMap(newIn, "tags"))
	},
	delete: func(ctx context.Context, c *call, id string, _ pmap) error {
		q := c.aws().ec2
		t, err := q.routeTable(ctx, id)
		if t == nil || err != nil {
			return err
		}
		// "Do all the disassociations".
		for _, a := range t.Associations {
			if a.Main {
				continue
			}
			if err := ignoreCode(q.call(ctx, "DisassociateRouteTable", url.Values{"AssociationId": {a.ID}}, nil), "InvalidAssociationID.NotFound"); err != nil {
				return fmt.Errorf("deleting Route Table (%s): %w", id, err)
			}
		}
		err = q.call(ctx, "DeleteRouteTable", url.Values{"RouteTableId": {id}}, nil)
		if err != nil && errorCode(err) != "InvalidRouteTableID.NotFound" {
			return fmt.Errorf("deleting Route Table (%s): %w", id, err)
		}
		return nil
	},
}

// ---- aws:ec2/route:Route ----------------------------------------------------------------------

var (
	routeDestinations = []string{"destinationCidrBlock", "destinationIpv6CidrBlock", "destinationPrefixListId"}
	routeTargets      = []string{"carrierGatewayId", "coreNetworkArn", "egressOnlyGatewayId", "gatewayId", "localGatewayId", "natGatewayId",
		"networkInterfaceId", "transitGatewayId", "vpcEndpointId", "vpcPeeringConnectionId"}
)

// exactlyOneOf is terraform's ExactlyOneOf check (unknown values count as set).
func exactlyOneOf(in pmap, keys []string) []*pulumirpc.CheckFailure {
	var set []string
	for _, k := range keys {
		if has(in, k) {
			set = append(set, k)
		}
	}
	switch len(set) {
	case 1:
		return nil
	case 0:
		return []*pulumirpc.CheckFailure{failure(keys[0], "%q: one of `%s` must be specified", keys[0], strings.Join(keys, ","))}
	}
	return []*pulumirpc.CheckFailure{failure(set[1], "%q: only one of `%s` can be specified, but `%s` were specified", set[1],
		strings.Join(keys, ","), strings.Join(set, ","))}
}

// routeID is terraform's RouteCreateID: "r-" + route table + create.StringHashcode(destination)
// (crc32, non-negative).
func routeID(routeTableID, destination string) string {
	return fmt.Sprintf("r-%s%d", routeTableID, crc32.ChecksumIEEE([]byte(destination)))
}

// routeTarget is the route's target parameter and value (gatewayId or natGatewayId, the ones the
// stand-in implements).
func routeTarget(in pmap) (string, string) {
	if v := str(in, "natGatewayId"); v != "" {
		return "NatGatewayId", v
	}
	return "GatewayId", str(in, "gatewayId")
}

var routeOps = ops{
	check: func(in pmap) []*pulumirpc.CheckFailure {
		out := exactlyOneOf(in, routeDestinations)
		out = append(out, exactlyOneOf(in, routeTargets)...)
		if v := str(in, "destinationCidrBlock"); v != "" {
			if _, n, err := net.ParseCIDR(v); err != nil || n.String() != v || n.IP.To4() == nil {
				out = append(out, failure("destinationCidrBlock", "%q is not a valid IPv4 CIDR network address", v))
			}
		}
		return out
	},
	create: func(ctx context.Context, c *call, in pmap) (string, error) {
		rt, dest := str(in, "routeTableId"), str(in, "destinationCidrBlock")
		param, target := routeTarget(in)
		err := c.aws().ec2.call(ctx, "CreateRoute", url.Values{"RouteTableId": {rt}, "DestinationCidrBlock": {dest}, param: {target}}, nil)
		if err != nil {
			return "", fmt.Errorf("creating Route in Route Table (%s) with destination (%s): %w", rt, dest, err)
		}
		return routeID(rt, dest), nil
	},
	read: func(ctx context.Context, c *call, id string, in pmap) (pmap, error) {
		rt, dest := str(in, "routeTableId"), str(in, "destinationCidrBlock")
		t, err := c.aws().ec2.routeTable(ctx, rt)
		if t == nil || err != nil {
			if err != nil {
				err = fmt.Errorf("reading Route in Route Table (%s) with destination (%s): %w", rt, dest, err)
			}
			return nil, err
		}
		i := slices.IndexFunc(t.Routes, func(r ec2Route) bool { return r.DestinationCidrBlock == dest })
		if i < 0 {
			return nil, nil
		}
		r := t.Routes[i]
		gateway, endpoint := r.GatewayID, ""
		if strings.HasPrefix(gateway, "vpce-") {
			gateway, endpoint = "", r.GatewayID
		}
		return pmap{
			"routeTableId": sv(rt), "destinationCidrBlock": sv(r.DestinationCidrBlock), "destinationIpv6CidrBlock": sv(r.DestinationIpv6CidrBlock),
			"destinationPrefixListId": sv(r.DestinationPrefixListID), "carrierGatewayId": sv(r.CarrierGatewayID), "coreNetworkArn": sv(r.CoreNetworkArn),
			"egressOnlyGatewayId": sv(r.EgressOnlyInternetGatewayID), "gatewayId": sv(gateway), "instanceId": sv(r.InstanceID),
			"instanceOwnerId": sv(r.InstanceOwnerID), "localGatewayId": sv(r.LocalGatewayID), "natGatewayId": sv(r.NatGatewayID),
			"networkInterfaceId": sv(r.NetworkInterfaceID), "origin": sv(r.Origin), "state": sv(r.State), "transitGatewayId": sv(r.TransitGatewayID),
			"vpcEndpointId": sv(endpoint), "vpcPeeringConnectionId": sv(r.VpcPeeringConnectionID),
		}, nil
	},
	update: func(ctx context.Context, c *call, _ string, _, _, newIn pmap) error {
		rt, dest := str(newIn, "routeTableId"), str(newIn, "destinationCidrBlock")
		param, target := routeTarget(newIn)
		if err := c.aws().ec2.call(ctx, "ReplaceRoute", url.Values{"RouteTableId": {rt}, "DestinationCidrBlock": {dest}, param: {target}}, nil); err != nil {
			return fmt.Errorf("updating Route in Route Table (%s) with destination (%s): %w", rt, dest, err)
		}
		return nil
	},
	delete: func(ctx context.Context, c *call, _ string, state pmap) error {
		rt, dest := str(state, "routeTableId"), str(state, "destinationCidrBlock")
		err := c.aws().ec2.call(ctx, "DeleteRoute", url.Values{"RouteTableId": {rt}, "DestinationCidrBlock": {dest}}, nil)
		if err != nil && errorCode(err) != "InvalidRoute.NotFound" && errorCode(err) != "InvalidRouteTableID.NotFound" {
			return fmt.Errorf("deleting Route in Route Table (%s) with destination (%s): %w", rt, dest, err)
		}
		return nil
	},
}

// ---- aws:ec2/routeTableAssociation:RouteTableAssociation --------------------------------------

var routeTableAssociationOps = ops{
	check: func(in pmap) []*pulumirpc.CheckFailure {
		return exactlyOneOf(in, []string{"subnetId", "gatewayId"})
	},
	create: func(ctx context.Context, c *call, in pmap) (string, error) {
		rt := str(in, "routeTableId")
		var out struct {
			ID string `xml:"associationId"`
		}
		err := retryOn(ctx, "InvalidRouteTableID.NotFound", 30*time.Second, func() error {
			return c.aws().ec2.call(ctx, "AssociateRouteTable", url.Values{"RouteTableId": {rt}, "SubnetId": {str(in, "subnetId")}}, &out)
		})
		if err != nil {
			return "", fmt.Errorf("creating Route Table (%s) Association: %w", rt, err)
		}
		return out.ID, nil
	},
	read: func(ctx context.Context, c *call, id string, in pmap) (pmap, error) {
		q := c.aws().ec2
		find := func(filter, value string) (pmap, error) {
			tables, err := q.routeTables(ctx, nil, []ec2Filter{{Name: filter, Values: []string{value}}})
			if err != nil {
				return nil, fmt.Errorf("reading Route Table Association (%s): %w", id, err)
			}
			for _, t := range tables {
				for _, a := range t.Associations {
					if (filter == "association.route-table-association-id" && a.ID == id) ||
						(filter == "association.subnet-id" && a.SubnetID == value && t.ID == str(in, "routeTableId")) {
						return pmap{"gatewayId": sv(a.GatewayID), "routeTableId": sv(t.ID), "subnetId": sv(a.SubnetID)}, nil
					}
				}
			}
			return nil, nil
		}
		outs, err := find("association.route-table-association-id", id)
		if outs == nil && err == nil && str(in, "subnetId") != "" {
			// An update replaced the association (ReplaceRouteTableAssociation gives it a new ID,
			// which terraform makes the resource's id and the protocol's Update cannot): the
			// subnet's association with the table is this resource.
			outs, err = find("association.subnet-id", str(in, "subnetId"))
		}
		return outs, err
	},
	update: func(ctx context.Context, c *call, id string, _, _, newIn pmap) error {
		q := c.aws().ec2
		id = currentAssociation(ctx, q, id, str(newIn, "subnetId"))
		err := q.call(ctx, "ReplaceRouteTableAssociation", url.Values{"AssociationId": {id}, "RouteTableId": {str(newIn, "routeTableId")}}, nil)
		if errorCode(err) == "InvalidAssociationID.NotFound" {
			// "Not found, so just create a new one".
			return q.call(ctx, "AssociateRouteTable", url.Values{"RouteTableId": {str(newIn, "routeTableId")}, "SubnetId": {str(newIn, "subnetId")}}, nil)
		}
		if err != nil {
			return fmt.Errorf("updating Route Table Association (%s): %w", id, err)
		}
		return nil
	},
	delete: func(ctx context.Context, c *call, id string, state pmap) error {
		q := c.aws().ec2
		err := q.call(ctx, "DisassociateRouteTable", url.Values{"AssociationId": {currentAssociation(ctx, q, id, str(state, "subnetId"))}}, nil)
		if err != nil && errorCode(err) != "InvalidAssociationID.NotFound" {
			return fmt.Errorf("deleting Route Table Association (%s): %w", id, err)
		}
		return nil
	},
}

// currentAssociation is a route table association's current ID: id, or, when EC2 has no such
// association, the one an earlier update gave it (ReplaceRouteTableAssociation: its subnet's
// association now).
func currentAssociation(ctx context.Context, q *ec2Query, id, subnet string) string {
	tables, err := q.routeTables(ctx, nil, []ec2Filter{{Name: "association.route-table-association-id", Values: []string{id}}})
	if err != nil || len(tables) > 0 || subnet == "" {
		return id
	}
	tables, _ = q.routeTables(ctx, nil, []ec2Filter{{Name: "association.subnet-id", Values: []string{subnet}}})
	for _, t := range tables {
		for _, a := range t.Associations {
			if a.SubnetID == subnet {
				return a.ID
			}
		}
	}
	return id
}

// ---- aws:index/getAvailabilityZones:getAvailabilityZones --------------------------------------

// getAvailabilityZones answers as terraform's aws_availability_zones data source: DescribeAvailabilityZones
// with the state and filters as filters, the zones sorted by name, excludeNames and excludeZoneIds
// left out; groupNames a sorted set; the id is the region.
func getAvailabilityZones(ctx context.Context, p *provider, args pmap) (pmap, error) {
	c, err := p.clients()
	if err != nil {
		return nil, err
	}
	var filters []ec2Filter
	if v := str(args, "state"); v != "" {
		if !contains([]string{"available", "information", "impaired", "unavailable"}, v) {
			return nil, fmt.Errorf("expected state to be one of [available information impaired unavailable], got %s", v)
		}
		filters = append(filters, ec2Filter{Name: "state", Values: []string{v}})
	}
	more, err := argFilters("aws:index/getAvailabilityZones:getAvailabilityZones", args)
	if err != nil {
		return nil, err
	}
	moto, _, err := splitFilters("DescribeAvailabilityZones", append(filters, more...), nil)
	if err != nil {
		return nil, fmt.Errorf("reading EC2 Availability Zones: %w", err)
	}
	params := url.Values{}
	if b, _ := boolean(args, "allAvailabilityZones"); b {
		params.Set("AllAvailabilityZones", "true")
	}
	filterParams(params, moto)
	var out struct {
		Zones []struct {
			Name      string `xml:"zoneName"`
			ID        string `xml:"zoneId"`
			GroupName string `xml:"groupName"`
		} `xml:"availabilityZoneInfo>item"`
	}
	if err := c.ec2.call(ctx, "DescribeAvailabilityZones", params, &out); err != nil {
		return nil, fmt.Errorf("reading EC2 Availability Zones: %w", err)
	}
	sort.Slice(out.Zones, func(i, j int) bool { return out.Zones[i].Name < out.Zones[j].Name })
	excludeNames, excludeIDs := stringList(args, "excludeNames"), stringList(args, "excludeZoneIds")
	names, ids, groups := []string{}, []string{}, map[string]bool{}
	for _, z := range out.Zones {
		if contains(excludeNames, z.Name) || contains(excludeIDs, z.ID) {
			continue
		}
		group := z.GroupName
		if group == "" {
			group = c.region // AWS's group of an availability zone (moto's zones have none)
		}
		groups[group] = true
		names, ids = append(names, z.Name), append(ids, z.ID)
	}
	res := pmap{"groupNames": listValue(sortedKeys(groups)), "id": sv(c.region), "names": listValue(names), "zoneIds": listValue(ids)}
	for _, k := range []string{"allAvailabilityZones", "excludeNames", "excludeZoneIds", "filters", "state"} {
		if has(args, k) {
			res[resource.PropertyKey(k)] = args[resource.PropertyKey(k)]
		}
	}
	return res, nil
}
