package main

import "github.com/pulumi/pulumi/sdk/v3/go/pulumi"

// autoModeClusterPolicies are the managed policies pulumi-eks adds to the cluster role for Auto
// Mode (cluster.ts:517-529).
var autoModeClusterPolicies = []string{"AmazonEKSComputePolicy", "AmazonEKSBlockStoragePolicy", "AmazonEKSLoadBalancingPolicy", "AmazonEKSNetworkingPolicy"}

// autoMode is what pulumi-eks gives an Auto Mode cluster (cluster.ts:612-699): the node role
// ${name}-nodeRole (unless createNodeRole is false) and the cluster's computeConfig (its node role
// and EKS's two built-in pools), storageConfig and kubernetesNetworkConfig. It returns the node
// role (nil without one) and what the cluster waits for.
func (b *builder) autoMode(clusterProps pulumi.Map, args clusterArgs) (*role, []pulumi.Resource, error) {
	compute := pulumi.Map{
		"enabled":   pulumi.Bool(true),
		"nodePools": pulumi.StringArray{pulumi.String("general-purpose"), pulumi.String("system")},
	}
	var nodeRole *role
	var deps []pulumi.Resource
	if args.autoModeNodeRole {
		var err error
		nodeRole, deps, err = b.serviceRole(b.name+"-nodeRole", "ec2", "", []string{"sts:AssumeRole"},
			[]string{"AmazonEKSWorkerNodeMinimalPolicy", "AmazonEC2ContainerRegistryPullOnly"})
		if err != nil {
			return nil, nil, err
		}
		compute["nodeRoleArn"] = nodeRole.Arn
	}
	clusterProps["computeConfig"] = compute
	clusterProps["storageConfig"] = pulumi.Map{"blockStorage": pulumi.Map{"enabled": pulumi.Bool(true)}}
	// ipFamily defaults to ipv4; serviceIpv4Cidr is kubernetesServiceIpAddressRange, not implemented.
	clusterProps["kubernetesNetworkConfig"] = pulumi.Map{
		"ipFamily":             pulumi.String("ipv4"),
		"elasticLoadBalancing": pulumi.Map{"enabled": pulumi.Bool(true)},
	}
	return nodeRole, deps, nil
}
