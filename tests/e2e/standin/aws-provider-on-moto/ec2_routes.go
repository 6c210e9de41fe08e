package main

import (
	"context"
	"fmt"
	"hash/crc32"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// aws:ec2/routeTable:RouteTable, aws:ec2/route:Route and aws:ec2/routeTableAssociation:RouteTableAssociation,
// against moto's EC2: a VPC's routing (ec2_vpcs.go says where each type's schema comes from and
// registers them).

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

// routeTableOps: a route table, with inline routes as terraform's resourceRouteTableCreate adds
// them (CreateRoute for each `route` block) — an IPv4 cidrBlock to a gatewayId or natGatewayId,
// the targets the stand-in implements; other route fields fail Check, and a change of the inline
// routes is refused (terraform's routeTableAddRoute/DeleteRoute on update are not implemented).
var routeTableOps = ops{
	check: func(in pmap) []*pulumirpc.CheckFailure {
		var out []*pulumirpc.CheckFailure
		for i, r := range objectList(in, "routes") {
			if !unknown(r["gatewayId"]) && !unknown(r["natGatewayId"]) && (str(r, "cidrBlock") == "" || (str(r, "gatewayId") == "") == (str(r, "natGatewayId") == "")) {
				out = append(out, failure(fmt.Sprintf("routes[%d]", i), "routes[%d] needs a cidrBlock and one of gatewayId, natGatewayId (the %s's inline routes)", i, standIn))
			}
			for k := range r {
				if k != "cidrBlock" && k != "gatewayId" && k != "natGatewayId" && !isZero(r[k]) {
					out = append(out, failure(fmt.Sprintf("routes[%d].%s", i, k), "routes[%d].%s is not implemented by the %s (an inline route: cidrBlock to gatewayId or natGatewayId)", i, k, standIn))
				}
			}
		}
		return out
	},
	create: func(ctx context.Context, c *call, in pmap) (string, error) {
		params := url.Values{"VpcId": {str(in, "vpcId")}}
		tagSpecification(params, "route-table", stringMap(in, "tags"))
		var out struct {
			ID string `xml:"routeTable>routeTableId"`
		}
		if err := c.aws().ec2.call(ctx, "CreateRouteTable", params, &out); err != nil {
			return "", fmt.Errorf("creating Route Table: %w", err)
		}
		for _, r := range objectList(in, "routes") {
			if err := createRoute(ctx, c, out.ID, str(r, "cidrBlock"), r); err != nil {
				return out.ID, err
			}
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
		if has(newIn, "routes") && !newIn["routes"].DeepEquals(oldIn["routes"]) {
			return fmt.Errorf("updating Route Table (%s) routes: changing inline routes is not implemented by the %s", id, standIn)
		}
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

// createRoute is EC2's CreateRoute of a route to dest in the route table rt, through the target
// route names (routeTarget): an aws:ec2/route:Route, or a route table's inline route.
func createRoute(ctx context.Context, c *call, rt, dest string, route pmap) error {
	param, target := routeTarget(route)
	err := c.aws().ec2.call(ctx, "CreateRoute", url.Values{"RouteTableId": {rt}, "DestinationCidrBlock": {dest}, param: {target}}, nil)
	if err != nil {
		return fmt.Errorf("creating Route in Route Table (%s) with destination (%s): %w", rt, dest, err)
	}
	return nil
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
		if err := createRoute(ctx, c, rt, dest, in); err != nil {
			return "", err
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
