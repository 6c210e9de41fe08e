package main

import (
	"encoding/json"
	"slices"
	"strings"
)

// subnetsByTypeOutputs are the Vpc's outputs of its subnets by type (3.x only: rel.subnetsByType).
var subnetsByTypeOutputs = map[string]bool{"publicSubnets": true, "privateSubnets": true, "isolatedSubnets": true}

// schemaJSON is a Pulumi package schema for awsx at the version the stand-in answers as (rel) with
// what it serves: awsx:ec2:Vpc (a component) with the inputs it implements and awsx's outputs, typed
// as awsx's schema types them (provider/cmd/pulumi-resource-awsx/schema.json at e60adf3c, and at
// v2.22.0, which has no publicSubnets, privateSubnets and isolatedSubnets) but for vpcEndpoints, a list of
// aws:ec2/vpcEndpoint:VpcEndpoint there, which the aws stand-in does not serve (always empty here).
func schemaJSON() (string, error) {
	var (
		str     = map[string]any{"type": "string"}
		integer = map[string]any{"type": "integer"}
		strList = map[string]any{"type": "array", "items": str}
		strMap  = map[string]any{"type": "object", "additionalProperties": str}
	)
	plain := func(spec map[string]any) map[string]any {
		out := map[string]any{"plain": true}
		for k, v := range spec {
			out[k] = v
		}
		return out
	}
	described := func(d string, spec map[string]any) map[string]any {
		out := map[string]any{"description": d}
		for k, v := range spec {
			out[k] = v
		}
		return out
	}
	ref := func(tok string) map[string]any { return map[string]any{"$ref": "#/types/" + tok} }
	awsRes := func(tok string) map[string]any {
		// pulumi-awsx's own schema refers to its @pulumi/aws's (/aws/v7.42.0, 2.22.0's /aws/v6.66.3);
		// these are the same types at the version the lab's worlds install (rel.awsSchemaRef: the
		// aws stand-in serves every type referred to here, standin/aws-provider-on-moto/ec2_vpcs.go),
		// so that pulumi-yaml can load them when it type-checks a program.
		return map[string]any{"$ref": rel.awsSchemaRef + "#/resources/" + strings.ReplaceAll(tok, "/", "%2F")}
	}
	list := func(item map[string]any) map[string]any { return map[string]any{"type": "array", "items": item} }
	enum := func(d string, values ...string) map[string]any {
		var vs []any
		for _, v := range values {
			vs = append(vs, map[string]any{"value": v})
		}
		return map[string]any{"type": "string", "description": d, "enum": vs}
	}
	vpc := awsRes("aws:ec2/vpc:Vpc")
	vpc["language"] = map[string]any{"csharp": map[string]any{"name": "AwsVpc"}}
	s := map[string]any{
		"name":        "awsx",
		"displayName": "AWSx (Pulumi Crosswalk for AWS) (stand-in)",
		"version":     rel.version,
		"description": "A " + standIn + ": awsx:ec2:Vpc only, for the inputs it implements (" +
			strings.Join(implemented, ", ") + "); its children go to the program's aws provider.",
		"resources": map[string]any{
			vpcType: map[string]any{
				"isComponent": true,
				"description": "Stand-in for pulumi-awsx " + rel.version + "'s Vpc (test only): what awsx registers for these inputs, with its \"Legacy\" subnet allocation.",
				"inputProperties": map[string]any{
					"availabilityZoneNames": described("A list of availability zone names to which the subnets defined in subnetSpecs will be deployed. Optional, defaults to the first 3 AZs in the current region.",
						plain(map[string]any{"type": "array", "items": plain(str)})),
					"cidrBlock": described("The CIDR block for the VPC. Optional. Defaults to 10.0.0.0/16.", plain(str)),
					"natGateways": described("Configuration for NAT Gateways. Optional. If private and public subnets are both specified, defaults to one gateway per availability zone.",
						plain(ref("awsx:ec2:NatGatewayConfiguration"))),
					"numberOfAvailabilityZones": described("A number of availability zones to which the subnets defined in subnetSpecs will be deployed. Optional, defaults to the first 3 AZs in the current region.",
						plain(integer)),
					"subnetSpecs": described("A list of subnet specs that should be deployed to each AZ specified in availabilityZoneNames.",
						plain(map[string]any{"type": "array", "items": plain(ref("awsx:ec2:SubnetSpec"))})),
					"subnetStrategy": described("The strategy to use when allocating subnets for the VPC (the stand-in implements Legacy, awsx's default, only).",
						plain(ref("awsx:ec2:SubnetAllocationStrategy"))),
					"tags": described("A map of tags to assign to the resource.", strMap),
				},
				"properties": map[string]any{
					"eips":                   list(awsRes("aws:ec2/eip:Eip")),
					"internetGateway":        awsRes("aws:ec2/internetGateway:InternetGateway"),
					"isolatedSubnetIds":      strList,
					"isolatedSubnets":        list(awsRes("aws:ec2/subnet:Subnet")),
					"natGateways":            list(awsRes("aws:ec2/natGateway:NatGateway")),
					"privateSubnetIds":       strList,
					"privateSubnets":         list(awsRes("aws:ec2/subnet:Subnet")),
					"publicSubnetIds":        strList,
					"publicSubnets":          list(awsRes("aws:ec2/subnet:Subnet")),
					"routeTableAssociations": list(awsRes("aws:ec2/routeTableAssociation:RouteTableAssociation")),
					"routeTables":            list(awsRes("aws:ec2/routeTable:RouteTable")),
					"routes":                 list(awsRes("aws:ec2/route:Route")),
					"subnetLayout":           described("The resolved subnet specs layout deployed to each availability zone.", list(ref("awsx:ec2:ResolvedSubnetSpec"))),
					"subnets":                list(awsRes("aws:ec2/subnet:Subnet")),
					"vpc":                    described("The VPC.", vpc),
					"vpcEndpoints":           described("Empty: the stand-in implements no vpcEndpointSpecs.", list(map[string]any{"$ref": "pulumi.json#/Any"})),
					"vpcId":                  str,
				},
				// awsx's required outputs (schema.json), in its order.
				"required": []string{"vpc", "subnets", "publicSubnets", "privateSubnets", "isolatedSubnets", "routeTables",
					"routeTableAssociations", "routes", "internetGateway", "natGateways", "eips", "subnetLayout", "publicSubnetIds",
					"privateSubnetIds", "isolatedSubnetIds", "vpcId", "vpcEndpoints"},
			},
		},
		"types": map[string]any{
			"awsx:ec2:SubnetSpec": map[string]any{"type": "object", "description": "Configuration for a VPC subnet.", "required": []string{"type"},
				"properties": map[string]any{
					"cidrMask": plain(integer),
					"name":     plain(str),
					"tags":     strMap,
					"type":     plain(ref("awsx:ec2:SubnetType")),
				}},
			"awsx:ec2:NatGatewayConfiguration": map[string]any{"type": "object", "description": "Configuration for NAT Gateways.", "required": []string{"strategy"},
				"properties": map[string]any{"strategy": plain(ref("awsx:ec2:NatGatewayStrategy"))}},
			"awsx:ec2:ResolvedSubnetSpec": map[string]any{"type": "object", "description": "Configuration for a VPC subnet spec.", "required": []string{"type"},
				"properties": map[string]any{
					"cidrBlocks": strList,
					"cidrMask":   integer,
					"name":       str,
					"size":       integer,
					"type":       ref("awsx:ec2:SubnetType"),
				}},
			"awsx:ec2:SubnetType":               enum("A type of subnet within a VPC.", subnetTypes...),
			"awsx:ec2:NatGatewayStrategy":       enum("A strategy for creating NAT Gateways for private subnets within a VPC.", natStrategies...),
			"awsx:ec2:SubnetAllocationStrategy": enum("Strategy for calculating subnet ranges from the subnet specifications.", rel.subnetStrategies...),
		},
		"language": map[string]any{
			"nodejs": map[string]any{"packageName": "@pulumi/awsx"},
			"python": map[string]any{"packageName": "pulumi_awsx"},
		},
	}
	if !rel.subnetsByType {
		// 2.22.0's Vpc has subnets, not these (its schema.json's properties and required list).
		vpcSchema := s["resources"].(map[string]any)[vpcType].(map[string]any)
		for p := range subnetsByTypeOutputs {
			delete(vpcSchema["properties"].(map[string]any), p)
		}
		vpcSchema["required"] = slices.DeleteFunc(vpcSchema["required"].([]string), func(p string) bool { return subnetsByTypeOutputs[p] })
	}
	out, err := json.Marshal(s)
	return string(out), err
}
