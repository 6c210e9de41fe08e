package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// aws:ec2/internetGateway:InternetGateway, aws:ec2/eip:Eip and aws:ec2/natGateway:NatGateway, against
// moto's EC2: the gateways of a VPC's network (ec2_vpcs.go says where each type's schema comes from
// and registers them).

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
