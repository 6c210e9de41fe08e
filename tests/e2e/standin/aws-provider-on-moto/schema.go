package main

import (
	"encoding/json"
	"strings"
)

// schemaJSON is a Pulumi package schema for exactly what the stand-in serves: its resource types
// (inputs and outputs as pulumi-aws 6.83.2 names them) and its functions. A YAML program that
// declares one of these types directly gets it from GetSchema, as from the real plugin; the
// full pulumi-aws schema is not reproduced.
func schemaJSON() (string, error) {
	typeSpec := func(k kind) map[string]any {
		switch k {
		case kInt:
			return map[string]any{"type": "integer"}
		case kBool:
			return map[string]any{"type": "boolean"}
		case kStringMap:
			return map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}}
		case kStringList:
			return map[string]any{"type": "array", "items": map[string]any{"type": "string"}}
		case kObjectList:
			return map[string]any{"type": "array", "items": map[string]any{"$ref": "pulumi.json#/Any"}}
		case kObject:
			return map[string]any{"$ref": "pulumi.json#/Any"}
		}
		return map[string]any{"type": "string"}
	}
	functions, objectTypes := functionSpecs()
	typedOutputs := resourceOutputTypes(objectTypes)
	resources := map[string]any{}
	for tok, t := range types {
		inputs, props := map[string]any{}, map[string]any{}
		var required []string
		for name, p := range t.inputs {
			if p.unsupported {
				continue
			}
			inputs[name] = typeSpec(p.kind)
			props[name] = typeSpec(p.kind)
			if p.required {
				required = append(required, name)
			}
		}
		// Computed outputs: strings, and the objects a program reads into (a cluster's
		// identities[0].oidcs[0].issuer), typed as pulumi-aws types them.
		for _, o := range t.outputs {
			props[o] = map[string]any{"type": "string"}
			if typed, ok := typedOutputs[tok][o]; ok {
				props[o] = typed
			}
		}
		if t.tags {
			props["tagsAll"] = typeSpec(kStringMap)
		}
		for _, n := range []string{"attachmentCount"} {
			if _, ok := props[n]; ok {
				props[n] = map[string]any{"type": "integer"}
			}
		}
		desc := "Stand-in for pulumi-aws " + awsVersion + "'s " + tok + " (test only)."
		if t.inMemory != "" {
			desc += " Recorded in memory: " + t.inMemory + "."
		}
		resources[tok] = map[string]any{
			"description":     desc,
			"inputProperties": inputs,
			"properties":      props,
			"requiredInputs":  required,
		}
	}
	v7Functions(functions)
	s := map[string]any{
		"name":        "aws",
		"displayName": "AWS (stand-in)",
		"version":     awsVersion,
		"description": "A " + standIn + ": a few pulumi-aws resources and functions, served against a local moto server.",
		"config": map[string]any{"variables": map[string]any{
			"region": map[string]any{"type": "string", "description": "The region (else AWS_REGION)."},
		}},
		"provider": map[string]any{
			"inputProperties": map[string]any{"region": map[string]any{"type": "string"}},
		},
		// As pulumi-aws's schema: lets programs write aws:iam:Role for aws:iam/role:Role.
		"meta":      map[string]any{"moduleFormat": "(.*)(?:/[^/]*)"},
		"resources": resources,
		"functions": functions,
		"types":     objectTypes,
		"language": map[string]any{
			"nodejs": map[string]any{"packageName": "@pulumi/aws"},
		},
	}
	out, err := json.Marshal(s)
	return strings.TrimSpace(string(out)), err
}

// resourceOutputTypes are the computed outputs of the resource types that are not strings, as
// pulumi-aws 6.83.2 types them (its aws:eks/ClusterIdentity:ClusterIdentity & co.), declaring their
// object types in objectTypes.
func resourceOutputTypes(objectTypes map[string]any) map[string]map[string]any {
	str := map[string]any{"type": "string"}
	object := func(name string, props map[string]any) map[string]any {
		tok := "aws:eks/" + name + ":" + name
		objectTypes[tok] = map[string]any{"type": "object", "properties": props, "required": sortedKeys(props)}
		return map[string]any{"$ref": "#/types/" + tok}
	}
	list := func(item map[string]any) map[string]any { return map[string]any{"type": "array", "items": item} }
	authority := object("ClusterCertificateAuthority", map[string]any{"data": str})
	return map[string]map[string]any{
		"aws:eks/cluster:Cluster": {
			"identities": list(object("ClusterIdentity", map[string]any{
				"oidcs": list(object("ClusterIdentityOidc", map[string]any{"issuer": str})),
			})),
			"certificateAuthority":   authority,
			"certificateAuthorities": list(authority),
		},
	}
}

// functionSpecs are the functions' schemas, with their argument and result shapes as pulumi-aws
// 6.83.2 declares them (the published @pulumi/aws 6.83.2: <module>/<fn>.d.ts for the arguments
// and results, types/input.d.ts and types/output.d.ts for their objects, whose type tokens are
// pulumi-aws's, e.g. aws:eks/getClusterAccessConfig:getClusterAccessConfig).
func functionSpecs() (functions, objectTypes map[string]any) {
	objectTypes = map[string]any{}
	var (
		str     = map[string]any{"type": "string"}
		boolean = map[string]any{"type": "boolean"}
		integer = map[string]any{"type": "integer"}
		strList = map[string]any{"type": "array", "items": str}
		strMap  = map[string]any{"type": "object", "additionalProperties": str}
	)
	list := func(item map[string]any) map[string]any { return map[string]any{"type": "array", "items": item} }
	// object declares an object type (every property required: terraform sets them all) and
	// refers to it.
	object := func(tok string, props map[string]any) map[string]any {
		objectTypes[tok] = map[string]any{"type": "object", "properties": props, "required": sortedKeys(props)}
		return map[string]any{"$ref": "#/types/" + tok}
	}
	strs := func(names ...string) map[string]any {
		out := map[string]any{}
		for _, n := range names {
			out[n] = str
		}
		return out
	}
	fn := func(in map[string]any, required []string, out map[string]any) map[string]any {
		inputs := map[string]any{"properties": in}
		if len(required) > 0 {
			inputs["required"] = required
		}
		return map[string]any{
			"description": "Stand-in (test only).",
			"inputs":      inputs,
			"outputs":     map[string]any{"properties": out, "required": sortedKeys(out)},
		}
	}
	filter := func(tok string) map[string]any {
		return list(object(tok, map[string]any{"name": str, "values": strList}))
	}
	clusterType := func(name string, props map[string]any) map[string]any {
		return object("aws:eks/getCluster"+name+":getCluster"+name, props)
	}
	vpcConfig := clusterType("VpcConfig", map[string]any{
		"clusterSecurityGroupId": str, "endpointPrivateAccess": boolean, "endpointPublicAccess": boolean,
		"publicAccessCidrs": strList, "securityGroupIds": strList, "subnetIds": strList, "vpcId": str,
	})
	functions = map[string]any{
		"aws:index/getPartition:getPartition":           fn(strs("id"), nil, strs("dnsSuffix", "id", "partition", "reverseDnsPrefix")),
		"aws:index/getRegion:getRegion":                 fn(strs("endpoint", "id", "name"), nil, strs("description", "endpoint", "id", "name")),
		"aws:index/getCallerIdentity:getCallerIdentity": fn(strs("id"), nil, strs("accountId", "arn", "id", "userId")),
		"aws:eks/getAddon:getAddon": fn(strs("addonName", "clusterName"), []string{"addonName", "clusterName"}, strs("addonName", "addonVersion", "arn",
			"clusterName", "configurationValues", "createdAt", "id", "modifiedAt", "serviceAccountRoleArn")),
		"aws:iam/getInstanceProfile:getInstanceProfile": fn(strs("name"), []string{"name"}, strs("arn", "createDate", "id", "name", "path",
			"roleArn", "roleId", "roleName")),
		"aws:eks/getCluster:getCluster": fn(map[string]any{"name": str, "tags": strMap}, []string{"name"}, map[string]any{
			"accessConfigs":          list(clusterType("AccessConfig", map[string]any{"authenticationMode": str, "bootstrapClusterCreatorAdminPermissions": boolean})),
			"arn":                    str,
			"certificateAuthorities": list(clusterType("CertificateAuthority", map[string]any{"data": str})),
			"clusterId":              str,
			"computeConfigs":         list(clusterType("ComputeConfig", map[string]any{"enabled": boolean, "nodePools": strList, "nodeRoleArn": str})),
			"createdAt":              str,
			"enabledClusterLogTypes": strList,
			"endpoint":               str,
			"id":                     str,
			"identities": list(clusterType("Identity", map[string]any{
				"oidcs": list(clusterType("IdentityOidc", map[string]any{"issuer": str})),
			})),
			"kubernetesNetworkConfigs": list(clusterType("KubernetesNetworkConfig", map[string]any{
				"elasticLoadBalancings": list(clusterType("KubernetesNetworkConfigElasticLoadBalancing", map[string]any{"enabled": boolean})),
				"ipFamily":              str, "serviceIpv4Cidr": str, "serviceIpv6Cidr": str,
			})),
			"name": str,
			"outpostConfigs": list(clusterType("OutpostConfig", map[string]any{
				"controlPlaneInstanceType": str, "outpostArns": strList,
				"controlPlanePlacements": list(clusterType("OutpostConfigControlPlanePlacement", map[string]any{"groupName": str})),
			})),
			"platformVersion": str,
			"remoteNetworkConfigs": list(clusterType("RemoteNetworkConfig", map[string]any{
				"remoteNodeNetworks": list(clusterType("RemoteNetworkConfigRemoteNodeNetwork", map[string]any{"cidrs": strList})),
				"remotePodNetworks":  list(clusterType("RemoteNetworkConfigRemotePodNetwork", map[string]any{"cidrs": strList})),
			})),
			"roleArn": str,
			"status":  str,
			"storageConfigs": list(clusterType("StorageConfig", map[string]any{
				"blockStorages": list(clusterType("StorageConfigBlockStorage", map[string]any{"enabled": boolean})),
			})),
			"tags":              strMap,
			"upgradePolicies":   list(clusterType("UpgradePolicy", map[string]any{"supportType": str})),
			"version":           str,
			"vpcConfig":         vpcConfig,
			"zonalShiftConfigs": list(clusterType("ZonalShiftConfig", map[string]any{"enabled": boolean})),
		}),
		"aws:iam/getOpenIdConnectProvider:getOpenIdConnectProvider": fn(map[string]any{"arn": str, "tags": strMap, "url": str}, nil,
			map[string]any{"arn": str, "clientIdLists": strList, "id": str, "tags": strMap, "thumbprintLists": strList, "url": str}),
		"aws:iam/getRole:getRole": fn(map[string]any{"name": str, "tags": strMap}, []string{"name"}, map[string]any{
			"arn": str, "assumeRolePolicy": str, "createDate": str, "description": str, "id": str, "maxSessionDuration": integer,
			"name": str, "path": str, "permissionsBoundary": str, "tags": strMap, "uniqueId": str,
			"roleLastUseds": list(object("aws:iam/getRoleRoleLastUsed:getRoleRoleLastUsed", map[string]any{"lastUsedDate": str, "region": str})),
		}),
		"aws:iam/getPolicy:getPolicy": fn(map[string]any{"arn": str, "name": str, "pathPrefix": str, "tags": strMap}, nil, map[string]any{
			"arn": str, "attachmentCount": integer, "description": str, "id": str, "name": str, "path": str, "policy": str,
			"policyId": str, "tags": strMap,
		}),
		"aws:sqs/getQueue:getQueue": fn(map[string]any{"name": str, "tags": strMap}, []string{"name"}, map[string]any{"arn": str, "id": str, "name": str, "tags": strMap, "url": str}),
		"aws:eks/getAccessEntry:getAccessEntry": fn(map[string]any{"clusterName": str, "principalArn": str, "tags": strMap}, []string{"clusterName", "principalArn"},
			map[string]any{"accessEntryArn": str, "clusterName": str, "createdAt": str, "id": str, "kubernetesGroups": strList,
				"modifiedAt": str, "principalArn": str, "tagsAll": strMap, "type": str, "userName": str}),
		"aws:ssm/getParameter:getParameter": fn(map[string]any{"name": str, "withDecryption": boolean}, []string{"name"}, map[string]any{
			"arn": str, "id": str, "insecureValue": str, "name": str, "type": str, "value": str, "version": integer, "withDecryption": boolean,
		}),
		"aws:ec2/getSubnets:getSubnets": fn(map[string]any{"filters": filter("aws:ec2/getSubnetsFilter:getSubnetsFilter"), "tags": strMap}, nil,
			map[string]any{"filters": filter("aws:ec2/getSubnetsFilter:getSubnetsFilter"), "id": str, "ids": strList, "tags": strMap}),
		"aws:ec2/getSubnet:getSubnet": fn(map[string]any{
			"availabilityZone": str, "availabilityZoneId": str, "cidrBlock": str, "defaultForAz": boolean,
			"filters": filter("aws:ec2/getSubnetFilter:getSubnetFilter"), "id": str, "ipv6CidrBlock": str, "state": str, "tags": strMap, "vpcId": str,
		}, nil, map[string]any{
			"arn": str, "assignIpv6AddressOnCreation": boolean, "availabilityZone": str, "availabilityZoneId": str,
			"availableIpAddressCount": integer, "cidrBlock": str, "customerOwnedIpv4Pool": str, "defaultForAz": boolean,
			"enableDns64": boolean, "enableLniAtDeviceIndex": integer, "enableResourceNameDnsARecordOnLaunch": boolean,
			"enableResourceNameDnsAaaaRecordOnLaunch": boolean, "filters": filter("aws:ec2/getSubnetFilter:getSubnetFilter"),
			"id": str, "ipv6CidrBlock": str, "ipv6CidrBlockAssociationId": str, "ipv6Native": boolean,
			"mapCustomerOwnedIpOnLaunch": boolean, "mapPublicIpOnLaunch": boolean, "outpostArn": str, "ownerId": str,
			"privateDnsHostnameTypeOnLaunch": str, "state": str, "tags": strMap, "vpcId": str,
		}),
		"aws:ec2/getSecurityGroups:getSecurityGroups": fn(map[string]any{"filters": filter("aws:ec2/getSecurityGroupsFilter:getSecurityGroupsFilter"), "tags": strMap}, nil,
			map[string]any{"arns": strList, "filters": filter("aws:ec2/getSecurityGroupsFilter:getSecurityGroupsFilter"), "id": str,
				"ids": strList, "tags": strMap, "vpcIds": strList}),
		// For the programs' pulumi-awsx stand-in (ec2_vpcs.go).
		"aws:index/getAvailabilityZones:getAvailabilityZones": fn(map[string]any{
			"allAvailabilityZones": boolean, "excludeNames": strList, "excludeZoneIds": strList,
			"filters": filter("aws:index/getAvailabilityZonesFilter:getAvailabilityZonesFilter"), "state": str,
		}, nil, map[string]any{
			"allAvailabilityZones": boolean, "excludeNames": strList, "excludeZoneIds": strList,
			"filters": filter("aws:index/getAvailabilityZonesFilter:getAvailabilityZonesFilter"), "groupNames": strList, "id": str,
			"names": strList, "state": str, "zoneIds": strList,
		}),
		"aws:ec2/getVpc:getVpc": fn(map[string]any{
			"cidrBlock": str, "default": boolean, "dhcpOptionsId": str, "filters": filter("aws:ec2/getVpcFilter:getVpcFilter"),
			"id": str, "state": str, "tags": strMap,
		}, nil, map[string]any{
			"arn": str, "cidrBlock": str, "default": boolean, "dhcpOptionsId": str, "enableDnsHostnames": boolean,
			"enableDnsSupport": boolean, "enableNetworkAddressUsageMetrics": boolean, "filters": filter("aws:ec2/getVpcFilter:getVpcFilter"),
			"id": str, "instanceTenancy": str, "ipv6AssociationId": str, "ipv6CidrBlock": str, "mainRouteTableId": str,
			"ownerId": str, "state": str, "tags": strMap,
			"cidrBlockAssociations": list(object("aws:ec2/getVpcCidrBlockAssociation:getVpcCidrBlockAssociation",
				map[string]any{"associationId": str, "cidrBlock": str, "state": str})),
		}),
	}
	// The first five answer what they always answered (terraform's computed attributes, some
	// absent when unset): no required results.
	for _, tok := range []string{"aws:index/getPartition:getPartition", "aws:index/getRegion:getRegion",
		"aws:index/getCallerIdentity:getCallerIdentity", "aws:eks/getAddon:getAddon", "aws:iam/getInstanceProfile:getInstanceProfile"} {
		delete(functions[tok].(map[string]any)["outputs"].(map[string]any), "required")
	}
	// filters is optional in every result (the argument echoed).
	for _, f := range functions {
		out := f.(map[string]any)["outputs"].(map[string]any)
		props := out["properties"].(map[string]any)
		if _, ok := props["filters"]; ok {
			req := []string{}
			for _, k := range sortedKeys(props) {
				if k != "filters" {
					req = append(req, k)
				}
			}
			out["required"] = req
		}
	}
	// getAvailabilityZones echoes its optional arguments: only its own results are required.
	functions["aws:index/getAvailabilityZones:getAvailabilityZones"].(map[string]any)["outputs"].(map[string]any)["required"] =
		[]string{"groupNames", "id", "names", "zoneIds"}
	return functions, objectTypes
}
