package main

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
)

// The EC2 read functions, against moto's EC2 (see invokes_reads.go for the sources' conventions).
// Filters are EC2's: terraform passes a `filters` block as DescribeSubnets/-SecurityGroups/-Vpcs
// filters (newCustomFilterList) and `tags` as one tag:<key> filter per tag. moto 5.2.5 answers a
// filter it does not implement with HTTP 500, so the stand-in refuses those itself, naming them;
// availability-zone-id (and getSubnet's availabilityZoneId and ipv6CidrBlock), which moto's
// subnets lack, are applied to moto's answer by the stand-in.

// motoFilters are the filter names moto 5.2.5 implements for each call (besides tag:<key>,
// tag-key and tag-value): moto/ec2/models/subnets.py, security_groups.py and vpcs.py
// (get_filter_value and the security group filter table).
var motoFilters = map[string][]string{
	"DescribeSubnets": {"availability-zone", "availabilityZone", "cidr", "cidr-block", "cidrBlock", "default-for-az",
		"defaultForAz", "state", "subnet-id", "vpc-id", "vpcId"},
	"DescribeSecurityGroups": {"description", "group-id", "group-name", "owner-id", "vpc-id",
		"ip-permission.cidr", "ip-permission.from-port", "ip-permission.group-id", "ip-permission.group-name",
		"ip-permission.protocol", "ip-permission.to-port", "egress.ip-permission.cidr", "egress.ip-permission.protocol"},
	"DescribeVpcs": {"cidr", "cidr-block", "cidrBlock", "cidr-block-association.cidr-block", "dhcp-options-id",
		"is-default", "isDefault", "state", "vpc-id", "vpcId", "owner-id"},
}

// clientSideSubnetFilters are applied by the stand-in to moto's answer.
var clientSideSubnetFilters = map[string]func(s ec2Subnet) []string{
	"availability-zone-id":                        func(s ec2Subnet) []string { return []string{s.AvailabilityZoneID} },
	"availabilityZoneId":                          func(s ec2Subnet) []string { return []string{s.AvailabilityZoneID} },
	"ipv6-cidr-block-association.ipv6-cidr-block": func(s ec2Subnet) []string { return subnetIPv6(s) },
}

func subnetIPv6(s ec2Subnet) []string {
	var out []string
	for _, a := range s.Ipv6 {
		out = append(out, a.Ipv6CidrBlock)
	}
	return out
}

// argFilters reads a function's `filters` ([{name, values}]) and `tags` arguments.
func argFilters(fn string, args pmap) ([]ec2Filter, error) {
	var out []ec2Filter
	for i, f := range objectList(args, "filters") {
		if str(f, "name") == "" {
			return nil, fmt.Errorf("%s: filters[%d]: Missing required argument: \"name\" is required", fn, i)
		}
		out = append(out, ec2Filter{Name: str(f, "name"), Values: stringList(f, "values")})
	}
	return append(tagFilters(stringMap(args, "tags")), out...), nil
}

// splitFilters separates what moto can apply from what the stand-in applies, and refuses the rest.
func splitFilters(op string, filters []ec2Filter, clientSide map[string]func(ec2Subnet) []string) (moto, local []ec2Filter, err error) {
	for _, f := range filters {
		switch {
		case clientSide[f.Name] != nil:
			local = append(local, f)
		case strings.HasPrefix(f.Name, "tag:") || f.Name == "tag-key" || f.Name == "tag-value" || contains(motoFilters[op], f.Name):
			moto = append(moto, f)
		default:
			return nil, nil, fmt.Errorf("EC2 %s filter %q: moto 5.2.5 does not implement it (it answers HTTP 500), so the %s cannot pass it on; it takes %s, tag:<key>, tag-key, tag-value",
				op, f.Name, standIn, strings.Join(motoFilters[op], ", "))
		}
	}
	return moto, local, nil
}

// filtersValue echoes the `filters` argument, as terraform keeps it in the result.
func filtersValue(args pmap) (resource.PropertyValue, bool) {
	v, ok := args["filters"]
	return v, ok && !plain(v).IsNull()
}

func subnetsMatching(ctx context.Context, p *provider, fn string, ids []string, filters []ec2Filter) ([]ec2Subnet, error) {
	c, err := p.clients()
	if err != nil {
		return nil, err
	}
	moto, local, err := splitFilters("DescribeSubnets", filters, clientSideSubnetFilters)
	if err != nil {
		return nil, err
	}
	subnets, err := c.ec2.describeSubnets(ctx, ids, moto)
	if err != nil {
		return nil, err
	}
	var out []ec2Subnet
next:
	for _, s := range subnets {
		for _, f := range local {
			if !overlaps(clientSideSubnetFilters[f.Name](s), f.Values) {
				continue next
			}
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].SubnetID < out[j].SubnetID })
	return out, nil
}

func overlaps(a, b []string) bool {
	for _, x := range a {
		if contains(b, x) {
			return true
		}
	}
	return false
}

// getSubnets is aws:ec2/getSubnets:getSubnets (internal/service/ec2/vpc_subnets_data_source.go:
// "reading EC2 Subnets: %s"; no match is an empty ids, not an error; the id is the region).
func getSubnets(ctx context.Context, p *provider, args pmap) (pmap, error) {
	filters, err := argFilters("aws:ec2/getSubnets:getSubnets", args)
	if err != nil {
		return nil, err
	}
	subnets, err := subnetsMatching(ctx, p, "getSubnets", nil, filters)
	if err != nil {
		return nil, fmt.Errorf("reading EC2 Subnets: %w", err)
	}
	ids := []string{}
	for _, s := range subnets {
		ids = append(ids, s.SubnetID)
	}
	c, _ := p.clients()
	out := pmap{"id": sv(c.region), "ids": listValue(ids), "tags": mapValue(stringMap(args, "tags"))}
	if v, ok := filtersValue(args); ok {
		out["filters"] = v
	}
	return out, nil
}

// getSubnet is aws:ec2/getSubnet:getSubnet (internal/service/ec2/vpc_subnet_data_source.go): its
// attributes become EC2 filters (newAttributeFilterList), and exactly one subnet must match
// (tfresource.SingularDataSourceFindError: "no matching EC2 Subnet found", "multiple EC2 Subnets
// matched; use additional constraints to reduce matches to a single EC2 Subnet"; an unknown id is
// InvalidSubnetID.NotFound, which terraform's finder turns into no match).
func getSubnet(ctx context.Context, p *provider, args pmap) (pmap, error) {
	var filters []ec2Filter
	for _, a := range []struct{ arg, filter string }{
		{"availabilityZone", "availabilityZone"}, {"availabilityZoneId", "availabilityZoneId"}, {"state", "state"},
		{"vpcId", "vpc-id"}, {"cidrBlock", "cidrBlock"}, {"ipv6CidrBlock", "ipv6-cidr-block-association.ipv6-cidr-block"},
	} {
		if v := str(args, a.arg); v != "" {
			filters = append(filters, ec2Filter{Name: a.filter, Values: []string{v}})
		}
	}
	if b, _ := boolean(args, "defaultForAz"); b {
		filters = append(filters, ec2Filter{Name: "defaultForAz", Values: []string{"true"}})
	}
	more, err := argFilters("aws:ec2/getSubnet:getSubnet", args)
	if err != nil {
		return nil, err
	}
	var ids []string
	if id := str(args, "id"); id != "" {
		ids = []string{id}
	}
	subnets, err := subnetsMatching(ctx, p, "getSubnet", ids, append(filters, more...))
	if errorCode(err) == "InvalidSubnetID.NotFound" {
		subnets, err = nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading EC2 Subnet: %w", err)
	}
	switch len(subnets) {
	case 0:
		return nil, fmt.Errorf("no matching EC2 Subnet found")
	case 1:
	default:
		return nil, fmt.Errorf("multiple EC2 Subnets matched; use additional constraints to reduce matches to a single EC2 Subnet")
	}
	s := subnets[0]
	ipv6, ipv6Assoc := "", ""
	for _, a := range s.Ipv6 {
		if a.State == "associated" {
			ipv6, ipv6Assoc = a.Ipv6CidrBlock, a.AssociationID
		}
	}
	out := pmap{
		"arn": sv(s.SubnetArn), "assignIpv6AddressOnCreation": bv(s.AssignIpv6AddressOnCreation),
		"availabilityZone": sv(s.AvailabilityZone), "availabilityZoneId": sv(s.AvailabilityZoneID),
		"availableIpAddressCount": nv(s.AvailableIPAddressCount), "cidrBlock": sv(s.CidrBlock),
		"customerOwnedIpv4Pool": sv(s.CustomerOwnedIpv4Pool), "defaultForAz": bv(s.DefaultForAz),
		"enableDns64": bv(s.EnableDns64), "enableLniAtDeviceIndex": nv(s.EnableLniAtDeviceIndex),
		"enableResourceNameDnsARecordOnLaunch": bv(false), "enableResourceNameDnsAaaaRecordOnLaunch": bv(false),
		"id": sv(s.SubnetID), "ipv6CidrBlock": sv(ipv6), "ipv6CidrBlockAssociationId": sv(ipv6Assoc),
		"ipv6Native": bv(s.Ipv6Native), "mapCustomerOwnedIpOnLaunch": bv(s.MapCustomerOwnedIPOnLaunch),
		"mapPublicIpOnLaunch": bv(s.MapPublicIPOnLaunch), "outpostArn": sv(s.OutpostArn), "ownerId": sv(s.OwnerID),
		"privateDnsHostnameTypeOnLaunch": sv(""), "state": sv(s.State), "tags": mapValue(tagMap(s.Tags)), "vpcId": sv(s.VpcID),
	}
	if d := s.PrivateDNS; d != nil {
		out["enableResourceNameDnsARecordOnLaunch"], out["enableResourceNameDnsAaaaRecordOnLaunch"] = bv(d.A), bv(d.AAAA)
		out["privateDnsHostnameTypeOnLaunch"] = sv(d.HostnameType)
	}
	if v, ok := filtersValue(args); ok {
		out["filters"] = v
	}
	return out, nil
}

// getSecurityGroups is aws:ec2/getSecurityGroups:getSecurityGroups
// (internal/service/ec2/vpc_security_groups_data_source.go: "reading EC2 Security Groups: %s";
// the ARNs are built from the partition, region, owner and group ID; the id is the region).
func getSecurityGroups(ctx context.Context, p *provider, args pmap) (pmap, error) {
	c, err := p.clients()
	if err != nil {
		return nil, err
	}
	filters, err := argFilters("aws:ec2/getSecurityGroups:getSecurityGroups", args)
	if err != nil {
		return nil, err
	}
	moto, _, err := splitFilters("DescribeSecurityGroups", filters, nil)
	if err != nil {
		return nil, fmt.Errorf("reading EC2 Security Groups: %w", err)
	}
	groups, err := c.ec2.describeSecurityGroups(ctx, nil, moto)
	if err != nil {
		return nil, fmt.Errorf("reading EC2 Security Groups: %w", err)
	}
	sort.Slice(groups, func(i, j int) bool { return groups[i].GroupID < groups[j].GroupID })
	partition, _, _ := partitionOf(c.region)
	arns, ids, vpcs := []string{}, []string{}, []string{}
	for _, g := range groups {
		arns = append(arns, fmt.Sprintf("arn:%s:ec2:%s:%s:security-group/%s", partition, c.region, g.OwnerID, g.GroupID))
		ids, vpcs = append(ids, g.GroupID), append(vpcs, g.VpcID)
	}
	out := pmap{"arns": listValue(arns), "id": sv(c.region), "ids": listValue(ids), "tags": mapValue(stringMap(args, "tags")), "vpcIds": listValue(vpcs)}
	if v, ok := filtersValue(args); ok {
		out["filters"] = v
	}
	return out, nil
}

// getVpc is aws:ec2/getVpc:getVpc (internal/service/ec2/vpc_data_source.go): cidrBlock,
// dhcpOptionsId, default and state become the filters cidr, dhcp-options-id, isDefault and state;
// exactly one VPC must match (SingularDataSourceFindError("EC2 VPC")); then the VPC's DNS and
// usage-metrics attributes and its main route table. pulumi-aws names the default flag
// `default`.
func getVpc(ctx context.Context, p *provider, args pmap) (pmap, error) {
	c, err := p.clients()
	if err != nil {
		return nil, err
	}
	var filters []ec2Filter
	for _, a := range []struct{ arg, filter string }{{"cidrBlock", "cidr"}, {"dhcpOptionsId", "dhcp-options-id"}, {"state", "state"}} {
		if v := str(args, a.arg); v != "" {
			filters = append(filters, ec2Filter{Name: a.filter, Values: []string{v}})
		}
	}
	if b, _ := boolean(args, "default"); b {
		filters = append(filters, ec2Filter{Name: "isDefault", Values: []string{"true"}})
	}
	more, err := argFilters("aws:ec2/getVpc:getVpc", args)
	if err != nil {
		return nil, err
	}
	moto, _, err := splitFilters("DescribeVpcs", append(filters, more...), nil)
	if err != nil {
		return nil, fmt.Errorf("reading EC2 VPC: %w", err)
	}
	var ids []string
	if id := str(args, "id"); id != "" {
		ids = []string{id}
	}
	vpcs, err := c.ec2.describeVpcs(ctx, ids, moto)
	if errorCode(err) == "InvalidVpcID.NotFound" {
		vpcs, err = nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading EC2 VPC: %w", err)
	}
	switch len(vpcs) {
	case 0:
		return nil, fmt.Errorf("no matching EC2 VPC found")
	case 1:
	default:
		return nil, fmt.Errorf("multiple EC2 VPCs matched; use additional constraints to reduce matches to a single EC2 VPC")
	}
	v := vpcs[0]
	attrs := map[string]bool{}
	for _, a := range []string{"enableDnsHostnames", "enableDnsSupport", "enableNetworkAddressUsageMetrics"} {
		if attrs[a], err = c.ec2.vpcAttribute(ctx, v.VpcID, a); err != nil {
			return nil, fmt.Errorf("reading EC2 VPC (%s) Attribute (%s): %w", v.VpcID, a, err)
		}
	}
	mainRT, _ := c.ec2.mainRouteTable(ctx, v.VpcID) // terraform only logs a failure here
	var assocs []pmap
	for _, a := range v.CidrAssociations {
		assocs = append(assocs, pmap{"associationId": sv(a.AssociationID), "cidrBlock": sv(a.CidrBlock), "state": sv(a.State)})
	}
	ipv6, ipv6Assoc := "", ""
	if len(v.Ipv6Associations) > 0 {
		ipv6, ipv6Assoc = v.Ipv6Associations[0].Ipv6CidrBlock, v.Ipv6Associations[0].AssociationID
	}
	partition, _, _ := partitionOf(c.region)
	out := pmap{
		"arn": sv(fmt.Sprintf("arn:%s:ec2:%s:%s:vpc/%s", partition, c.region, v.OwnerID, v.VpcID)), "cidrBlock": sv(v.CidrBlock),
		"cidrBlockAssociations": listOf(assocs...), "default": bv(v.IsDefault), "dhcpOptionsId": sv(v.DhcpOptionsID),
		"enableDnsHostnames": bv(attrs["enableDnsHostnames"]), "enableDnsSupport": bv(attrs["enableDnsSupport"]),
		"enableNetworkAddressUsageMetrics": bv(attrs["enableNetworkAddressUsageMetrics"]), "id": sv(v.VpcID),
		"instanceTenancy": sv(v.InstanceTenancy), "ipv6AssociationId": sv(ipv6Assoc), "ipv6CidrBlock": sv(ipv6),
		"mainRouteTableId": sv(mainRT), "ownerId": sv(v.OwnerID), "state": sv(v.State), "tags": mapValue(tagMap(v.Tags)),
	}
	if fv, ok := filtersValue(args); ok {
		out["filters"] = fv
	}
	return out, nil
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
