package main

import (
	"context"
	"fmt"
	"net/url"
)

// The EC2 reads (and the cluster security group's calls) the stand-in makes with ec2Query: the
// subnets, security groups and VPCs the EKS cluster and the read functions look at. The answers
// are EC2's XML (moto 5.2.5 serializes them from botocore's shapes, the same element names).

type ec2Tag struct {
	Key   string `xml:"key"`
	Value string `xml:"value"`
}

func tagMap(tags []ec2Tag) map[string]string {
	out := map[string]string{}
	for _, t := range tags {
		out[t.Key] = t.Value
	}
	return out
}

// ec2Filter is one EC2 API filter (Filter.N.Name, Filter.N.Value.M).
type ec2Filter struct {
	Name   string
	Values []string
}

// tagFilters are terraform's newTagFilterList: one tag:<key> filter per tag.
func tagFilters(tags map[string]string) []ec2Filter {
	var out []ec2Filter
	for _, k := range sortedKeys(tags) {
		out = append(out, ec2Filter{Name: "tag:" + k, Values: []string{tags[k]}})
	}
	return out
}

func filterParams(params url.Values, filters []ec2Filter) {
	for i, f := range filters {
		params.Set(fmt.Sprintf("Filter.%d.Name", i+1), f.Name)
		for j, v := range f.Values {
			params.Set(fmt.Sprintf("Filter.%d.Value.%d", i+1, j+1), v)
		}
	}
}

func idParams(params url.Values, prefix string, ids []string) {
	for i, id := range ids {
		params.Set(fmt.Sprintf("%s.%d", prefix, i+1), id)
	}
}

type ec2Subnet struct {
	SubnetID                    string `xml:"subnetId"`
	SubnetArn                   string `xml:"subnetArn"`
	State                       string `xml:"state"`
	VpcID                       string `xml:"vpcId"`
	CidrBlock                   string `xml:"cidrBlock"`
	AvailabilityZone            string `xml:"availabilityZone"`
	AvailabilityZoneID          string `xml:"availabilityZoneId"`
	AvailableIPAddressCount     int    `xml:"availableIpAddressCount"`
	DefaultForAz                bool   `xml:"defaultForAz"`
	MapPublicIPOnLaunch         bool   `xml:"mapPublicIpOnLaunch"`
	MapCustomerOwnedIPOnLaunch  bool   `xml:"mapCustomerOwnedIpOnLaunch"`
	AssignIpv6AddressOnCreation bool   `xml:"assignIpv6AddressOnCreation"`
	Ipv6Native                  bool   `xml:"ipv6Native"`
	EnableDns64                 bool   `xml:"enableDns64"`
	EnableLniAtDeviceIndex      int    `xml:"enableLniAtDeviceIndex"`
	CustomerOwnedIpv4Pool       string `xml:"customerOwnedIpv4Pool"`
	OutpostArn                  string `xml:"outpostArn"`
	OwnerID                     string `xml:"ownerId"`
	Ipv6                        []struct {
		AssociationID string `xml:"associationId"`
		Ipv6CidrBlock string `xml:"ipv6CidrBlock"`
		State         string `xml:"ipv6CidrBlockState>state"`
	} `xml:"ipv6CidrBlockAssociationSet>item"`
	PrivateDNS *struct {
		HostnameType string `xml:"hostnameType"`
		A            bool   `xml:"enableResourceNameDnsARecord"`
		AAAA         bool   `xml:"enableResourceNameDnsAAAARecord"`
	} `xml:"privateDnsNameOptionsOnLaunch"`
	Tags []ec2Tag `xml:"tagSet>item"`
}

// describeSubnets answers DescribeSubnets (EC2 refuses an unknown subnet ID with
// InvalidSubnetID.NotFound; a filter that matches nothing answers an empty list).
func (q *ec2Query) describeSubnets(ctx context.Context, ids []string, filters []ec2Filter) ([]ec2Subnet, error) {
	params := url.Values{}
	idParams(params, "SubnetId", ids)
	filterParams(params, filters)
	var out struct {
		Subnets []ec2Subnet `xml:"subnetSet>item"`
	}
	err := q.call(ctx, "DescribeSubnets", params, &out)
	return out.Subnets, err
}

type ec2SecurityGroup struct {
	GroupID   string   `xml:"groupId"`
	GroupName string   `xml:"groupName"`
	VpcID     string   `xml:"vpcId"`
	OwnerID   string   `xml:"ownerId"`
	Tags      []ec2Tag `xml:"tagSet>item"`
}

func (q *ec2Query) describeSecurityGroups(ctx context.Context, ids []string, filters []ec2Filter) ([]ec2SecurityGroup, error) {
	params := url.Values{}
	idParams(params, "GroupId", ids)
	filterParams(params, filters)
	var out struct {
		Groups []ec2SecurityGroup `xml:"securityGroupInfo>item"`
	}
	err := q.call(ctx, "DescribeSecurityGroups", params, &out)
	return out.Groups, err
}

type ec2Vpc struct {
	VpcID            string `xml:"vpcId"`
	State            string `xml:"state"`
	CidrBlock        string `xml:"cidrBlock"`
	DhcpOptionsID    string `xml:"dhcpOptionsId"`
	InstanceTenancy  string `xml:"instanceTenancy"`
	IsDefault        bool   `xml:"isDefault"`
	OwnerID          string `xml:"ownerId"`
	CidrAssociations []struct {
		AssociationID string `xml:"associationId"`
		CidrBlock     string `xml:"cidrBlock"`
		State         string `xml:"cidrBlockState>state"`
	} `xml:"cidrBlockAssociationSet>item"`
	Ipv6Associations []struct {
		AssociationID string `xml:"associationId"`
		Ipv6CidrBlock string `xml:"ipv6CidrBlock"`
	} `xml:"ipv6CidrBlockAssociationSet>item"`
	Tags []ec2Tag `xml:"tagSet>item"`
}

func (q *ec2Query) describeVpcs(ctx context.Context, ids []string, filters []ec2Filter) ([]ec2Vpc, error) {
	params := url.Values{}
	idParams(params, "VpcId", ids)
	filterParams(params, filters)
	var out struct {
		Vpcs []ec2Vpc `xml:"vpcSet>item"`
	}
	err := q.call(ctx, "DescribeVpcs", params, &out)
	return out.Vpcs, err
}

// vpcAttribute is DescribeVpcAttribute's boolean answer (enableDnsHostnames, enableDnsSupport,
// enableNetworkAddressUsageMetrics).
func (q *ec2Query) vpcAttribute(ctx context.Context, vpcID, attribute string) (bool, error) {
	var out struct {
		DNSHostnames bool `xml:"enableDnsHostnames>value"`
		DNSSupport   bool `xml:"enableDnsSupport>value"`
		UsageMetrics bool `xml:"enableNetworkAddressUsageMetrics>value"`
	}
	if err := q.call(ctx, "DescribeVpcAttribute", url.Values{"VpcId": {vpcID}, "Attribute": {attribute}}, &out); err != nil {
		return false, err
	}
	switch attribute {
	case "enableDnsHostnames":
		return out.DNSHostnames, nil
	case "enableDnsSupport":
		return out.DNSSupport, nil
	}
	return out.UsageMetrics, nil
}

// mainRouteTable is the ID of a VPC's main route table ("" when EC2 answers none).
func (q *ec2Query) mainRouteTable(ctx context.Context, vpcID string) (string, error) {
	params := url.Values{}
	filterParams(params, []ec2Filter{{Name: "vpc-id", Values: []string{vpcID}}, {Name: "association.main", Values: []string{"true"}}})
	var out struct {
		IDs []string `xml:"routeTableSet>item>routeTableId"`
	}
	if err := q.call(ctx, "DescribeRouteTables", params, &out); err != nil || len(out.IDs) == 0 {
		return "", err
	}
	return out.IDs[0], nil
}

// createSecurityGroup creates a security group with tags and returns its ID.
func (q *ec2Query) createSecurityGroup(ctx context.Context, name, description, vpcID string, tags map[string]string) (string, error) {
	params := url.Values{"GroupName": {name}, "GroupDescription": {description}, "VpcId": {vpcID}}
	tagSpecification(params, "security-group", tags)
	var out struct {
		GroupID string `xml:"groupId"`
	}
	err := q.call(ctx, "CreateSecurityGroup", params, &out)
	return out.GroupID, err
}

// allowSelf adds an inbound rule for all traffic from the group itself.
func (q *ec2Query) allowSelf(ctx context.Context, groupID string) error {
	return q.call(ctx, "AuthorizeSecurityGroupIngress", url.Values{
		"GroupId": {groupID}, "IpPermissions.1.IpProtocol": {"-1"}, "IpPermissions.1.Groups.1.GroupId": {groupID},
	}, nil)
}

func (q *ec2Query) deleteSecurityGroup(ctx context.Context, groupID string) error {
	return q.call(ctx, "DeleteSecurityGroup", url.Values{"GroupId": {groupID}}, nil)
}
