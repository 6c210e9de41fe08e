package main

import (
	"encoding/json"
	"strings"
)

// The versions of the packages the schema's references name. pulumi-eks 4.3.0's own schema refers
// to /aws/v7.14.0 and /kubernetes/v4.19.0 (3.9.1's to /aws/v6.79.1 and /kubernetes/v4.19.0); these
// are the same types at versions this machine has, so that pulumi-yaml can load them when it
// type-checks a program (${cluster.eksCluster.name} is the aws stand-in's aws:eks/cluster:Cluster
// `name`). The engine's schema loader checks that the plugin's schema has the version asked for:
// the aws stand-in installed as 7.48.0 answers 7.48.0, as 6.83.2 6.83.2 (rel.awsSchemaRef); the one
// pulumi-kubernetes binary there is answers its own, 4.25.0 (tests/e2e/lab/world_snippets.go
// installs it under that version too).
const kubernetesSchemaRef = "/kubernetes/v4.25.0/schema.json"

// accessScopeType stands for pulumi-aws's aws:eks/AccessPolicyAssociationAccessScope type.
const accessScopeType = "eks:index:AccessPolicyAssociationAccessScope"

// schemaJSON is a Pulumi package schema for eks at the version the stand-in answers as (rel) with
// what it serves:
// eks:index:Cluster (a component) with the inputs it implements and the outputs it returns, typed
// as pulumi-eks's schema types them (provider/cmd/pulumi-resource-eks/schema.json, the same at
// v4.3.0 and v3.9.1 for these).
func schemaJSON() (string, error) {
	var (
		str     = map[string]any{"type": "string"}
		boolean = map[string]any{"type": "boolean"}
		integer = map[string]any{"type": "integer"}
		strList = map[string]any{"type": "array", "items": str}
		strMap  = map[string]any{"type": "object", "additionalProperties": str}
		any_    = map[string]any{"$ref": "pulumi.json#/Any"}
	)
	awsRes := func(tok string) map[string]any {
		return map[string]any{"$ref": rel.awsSchemaRef + "#/resources/" + escape(tok)}
	}
	k8sRes := func(tok string) map[string]any {
		return map[string]any{"$ref": kubernetesSchemaRef + "#/resources/" + escape(tok)}
	}
	list := func(item map[string]any) map[string]any { return map[string]any{"type": "array", "items": item} }
	described := func(d string, spec map[string]any) map[string]any {
		out := map[string]any{"description": d}
		for k, v := range spec {
			out[k] = v
		}
		return out
	}
	s := map[string]any{
		"name":        "eks",
		"displayName": "Amazon EKS (stand-in)",
		"version":     rel.version,
		"description": "A " + standIn + ": eks:index:Cluster only, for the inputs it implements (" +
			strings.Join(implemented, ", ") + "); its children go to the program's aws and kubernetes providers.",
		"resources": map[string]any{
			clusterType: map[string]any{
				"isComponent": true,
				"description": "Stand-in for pulumi-eks " + rel.version + "'s Cluster (test only): what pulumi-eks registers for these inputs, without the default node group and add-ons.",
				"inputProperties": map[string]any{
					"accessEntries": described("Access entries to add to the EKS cluster (API and API_AND_CONFIG_MAP only).",
						map[string]any{"type": "object", "additionalProperties": map[string]any{"$ref": "#/types/eks:index:AccessEntry", "plain": true}, "plain": true}),
					"authenticationMode": described("The authentication mode of the cluster (unset: CONFIG_MAP, as pulumi-eks treats it).",
						map[string]any{"$ref": "#/types/eks:index:AuthenticationMode", "plain": true}),
					"autoMode": described("EKS Auto Mode: enabled, and createNodeRole (default true); computeConfig is not implemented by the stand-in.",
						map[string]any{"$ref": "#/types/eks:index:AutoModeOptions", "plain": true}),
					"clusterSecurityGroupTags": described("The tags to apply to the cluster security group.", strMap),
					"createOidcProvider":       described("Whether an IAM OIDC Provider is created for the EKS cluster.", boolean),
					"desiredCapacity":          described("The number of worker nodes of the default node group (not created by the stand-in).", integer),
					"instanceType":             described("The instance type of the default node group (not created by the stand-in).", str),
					"maxSize":                  described("The maximum size of the default node group (not created by the stand-in).", integer),
					"minSize":                  described("The minimum size of the default node group (not created by the stand-in).", integer),
					"privateSubnetIds":         described("The private subnets of the cluster, after publicSubnetIds.", strList),
					"publicSubnetIds":          described("The public subnets of the cluster.", strList),
					"subnetIds":                described("All subnets of the cluster (exclusive with publicSubnetIds and privateSubnetIds).", strList),
					"vpcId":                    described("The cluster's VPC (unset: the account's default VPC).", str),
					"name":                     described("The EKS cluster's name (default: auto-named from the resource's).", str),
					"nodeSecurityGroupTags":    described("The tags to apply to the default nodeSecurityGroup created by the cluster.", strMap),
					"roleMappings": described("Optional mappings from AWS IAM roles to Kubernetes users and groups (CONFIG_MAP and API_AND_CONFIG_MAP only).",
						list(map[string]any{"$ref": "#/types/eks:index:RoleMapping"})),
					"version": described("The Kubernetes version of the control plane.", str),
				},
				"properties": map[string]any{
					"autoModeNodeRoleName":    str,
					"clusterIngressRuleId":    str,
					"clusterSecurityGroup":    awsRes("aws:ec2/securityGroup:SecurityGroup"),
					"clusterSecurityGroupId":  str,
					"core":                    map[string]any{"$ref": "#/types/eks:index:CoreData"},
					"defaultNodeGroupAsgName": described("Empty: the stand-in creates no default node group.", str),
					"eksCluster":              awsRes("aws:eks/cluster:Cluster"),
					"eksClusterIngressRule":   awsRes("aws:ec2/securityGroupRule:SecurityGroupRule"),
					"fargateProfileId":        str,
					"fargateProfileStatus":    str,
					"instanceRoles":           list(awsRes("aws:iam/role:Role")),
					"kubeconfig":              any_,
					"kubeconfigJson":          str,
					"nodeSecurityGroup":       awsRes("aws:ec2/securityGroup:SecurityGroup"),
					"nodeSecurityGroupId":     str,
					"oidcIssuer":              str,
					"oidcProviderArn":         str,
					"oidcProviderUrl":         str,
				},
				"required": []string{"autoModeNodeRoleName", "clusterIngressRuleId", "clusterSecurityGroupId", "core",
					"defaultNodeGroupAsgName", "eksCluster", "fargateProfileId", "fargateProfileStatus", "instanceRoles",
					"kubeconfig", "kubeconfigJson", "nodeSecurityGroupId", "oidcIssuer", "oidcProviderArn", "oidcProviderUrl"},
			},
		},
		"types": map[string]any{
			"eks:index:AuthenticationMode": map[string]any{"type": "string", "enum": []any{
				map[string]any{"name": "ConfigMap", "value": "CONFIG_MAP"},
				map[string]any{"name": "Api", "value": "API"},
				map[string]any{"name": "ApiAndConfigMap", "value": "API_AND_CONFIG_MAP"},
			}},
			"eks:index:AutoModeOptions": map[string]any{"type": "object", "required": []string{"enabled"},
				"properties": map[string]any{
					"createNodeRole": map[string]any{"type": "boolean", "plain": true, "default": true},
					"enabled":        map[string]any{"type": "boolean", "plain": true},
				}},
			"eks:index:AccessEntry": map[string]any{"type": "object", "required": []string{"principalArn"},
				"properties": map[string]any{
					"accessPolicies": map[string]any{"type": "object", "plain": true,
						"additionalProperties": map[string]any{"$ref": "#/types/eks:index:AccessPolicyAssociation"}},
					"kubernetesGroups": strList,
					"principalArn":     str,
					"tags":             strMap,
					"type":             map[string]any{"$ref": "#/types/eks:index:AccessEntryType"},
					"username":         str,
				}},
			"eks:index:AccessEntryType": map[string]any{"type": "string", "enum": []any{
				map[string]any{"name": "Standard", "value": "STANDARD"},
				map[string]any{"name": "FargateLinux", "value": "FARGATE_LINUX"},
				map[string]any{"name": "EC2Linux", "value": "EC2_LINUX"},
				map[string]any{"name": "EC2Windows", "value": "EC2_WINDOWS"},
				map[string]any{"name": "EC2", "value": "EC2"},
			}},
			"eks:index:AccessPolicyAssociation": map[string]any{"type": "object", "required": []string{"policyArn", "accessScope"},
				"properties": map[string]any{
					"accessScope": map[string]any{"$ref": "#/types/" + accessScopeType},
					"policyArn":   str,
				}},
			// pulumi-eks refers to pulumi-aws's type; the aws stand-in's schema does not declare it,
			// so its shape is declared here (AccessPolicyAssociationAccessScope: {namespaces, type} in
			// @pulumi/aws 7.25.0, and in pulumi-aws 6, sdk v6.83.2 go/aws/eks/pulumiTypes.go:16-21).
			accessScopeType: map[string]any{"type": "object", "required": []string{"type"},
				"properties": map[string]any{"namespaces": strList, "type": str}},
			"eks:index:RoleMapping": map[string]any{"type": "object", "required": []string{"roleArn", "username", "groups"},
				"properties": map[string]any{"groups": strList, "roleArn": str, "username": str}},
			"eks:index:ClusterNodeGroupOptions": map[string]any{"type": "object", "properties": map[string]any{
				"clusterIngressRule": awsRes("aws:ec2/securityGroupRule:SecurityGroupRule"),
				"instanceProfile":    awsRes("aws:iam/instanceProfile:InstanceProfile"),
				"nodeSecurityGroup":  awsRes("aws:ec2/securityGroup:SecurityGroup"),
			}},
			"eks:index:CoreData": map[string]any{"type": "object",
				"description": "The EKS cluster and its dependencies (the properties the stand-in returns).",
				"properties": map[string]any{
					"accessEntries":         list(map[string]any{"$ref": "#/types/eks:index:AccessEntry"}),
					"cluster":               awsRes("aws:eks/cluster:Cluster"),
					"clusterIamRole":        awsRes("aws:iam/role:Role"),
					"clusterSecurityGroup":  awsRes("aws:ec2/securityGroup:SecurityGroup"),
					"eksNodeAccess":         k8sRes("kubernetes:core/v1:ConfigMap"),
					"endpoint":              str,
					"instanceRoles":         list(awsRes("aws:iam/role:Role")),
					"kubeconfig":            any_,
					"nodeGroupOptions":      map[string]any{"$ref": "#/types/eks:index:ClusterNodeGroupOptions"},
					"nodeSecurityGroupTags": strMap,
					"oidcProvider":          awsRes("aws:iam/openIdConnectProvider:OpenIdConnectProvider"),
					"provider":              map[string]any{"$ref": kubernetesSchemaRef + "#/provider"},
					"storageClasses":        map[string]any{"type": "object", "additionalProperties": k8sRes("kubernetes:storage.k8s.io/v1:StorageClass")},
					"privateSubnetIds":      strList,
					"publicSubnetIds":       strList,
					"subnetIds":             strList,
					"vpcId":                 str,
				},
				"required": []string{"cluster", "vpcId", "subnetIds", "endpoint", "provider", "instanceRoles", "nodeGroupOptions", "clusterIamRole"},
			},
		},
		"language": map[string]any{"nodejs": map[string]any{"packageName": "@pulumi/eks"}},
	}
	out, err := json.Marshal(s)
	return string(out), err
}

// escape is a type token as a schema reference writes it ("/" as %2F).
func escape(tok string) string {
	out := []byte{}
	for i := 0; i < len(tok); i++ {
		if tok[i] == '/' {
			out = append(out, "%2F"...)
		} else {
			out = append(out, tok[i])
		}
	}
	return string(out)
}
