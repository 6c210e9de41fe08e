// Command pulumi-resource-eks is a stand-in for pulumi-eks 4.3.0 and 3.9.1 (test only).
//
// The real pulumi-eks plugin (a Node.js program that GitHub serves) cannot be downloaded on the
// machines this project builds on, so the README snippet tests (tests/e2e/snippets_test.go) and
// the Registry page's Go program install this binary in its place, under both versions:
//
//	pulumi plugin install resource eks 4.3.0 --file <this binary>
//	pulumi plugin install resource eks 3.9.1 --file <this binary>
//
// The real @pulumi/eks 4.3.0 (npm) and pulumi_eks 4.3.0 (PyPI) packages, which the snippets
// import, and github.com/pulumi/pulumi-eks/sdk/v3 v3.9.1, which the Go program imports, are
// generated SDKs: `new eks.Cluster(...)` asks the engine to Construct eks:index:Cluster on the eks
// plugin. This stand-in serves that Construct with the Go SDK's provider machinery
// (github.com/pulumi/pulumi/sdk/v3/go/pulumi/provider) and registers, through the engine, what
// pulumi-eks registers for the inputs it implements (accessEntries, authenticationMode, autoMode
// (enabled, createNodeRole), clusterSecurityGroupTags, createOidcProvider, name,
// nodeSecurityGroupTags, roleMappings, version, and the network: vpcId, subnetIds,
// publicSubnetIds, privateSubnetIds), with pulumi-eks's defaults (nodejs/eks/cluster/cluster.ts at
// v4.3.0, and at v3.9.1 but for what the list below says): without vpcId, the default VPC and its subnets (read
// through the program's aws provider), the EKS service role, the cluster security group and its
// egress rule, the cluster, its kubernetes provider, the default node group's instance role and
// instance profile, the aws-auth ConfigMap with roleMappings and the instance role in mapRoles
// (CONFIG_MAP and API_AND_CONFIG_MAP), the instance role's EC2_LINUX access entry and
// accessEntries with their access policy associations (API modes), the OIDC provider
// (createOidcProvider) and the node security group and its rules; with Auto Mode, its node role
// and the cluster's Auto Mode configuration instead of the two security groups
// (cluster_component.go says what, by name). It refuses roleMappings and accessEntries in the
// modes pulumi-eks refuses them, and Auto Mode without access entries, in its words. The default
// node group's inputs (instanceType, desiredCapacity, minSize, maxSize) are checked and named in
// the Construct's log as not applied (below). Any other input (autoMode.computeConfig too)
// fails the Construct naming it: it is never ignored.
//
// It answers as the version it is installed under (the plugin directory the engine runs it from,
// resource-eks-v<version>), or as $STANDIN_EKS_VERSION, else as 4.3.0; any other version is refused
// at startup, naming it (componentprovider.Plugin.SelectVersion). What differs between the two,
// for the inputs it implements (versions.go, from `git diff v3.9.1 v4.3.0 -- nodejs/eks`):
//   - 3.9.1 registers the cluster without bootstrapSelfManagedAddons unless Auto Mode is on
//     (`args.autoMode?.enabled ? false : undefined`), 4.3.0 with true (`?? true`): the same cluster,
//     as true is EKS's default;
//   - 3.9.1's service roles trust `eks.${dnsSuffix}` and `ec2.${dnsSuffix}` of getPartition, 4.3.0's
//     eks.amazonaws.com and ec2.amazonaws.com: the same in the aws partition;
//   - 3.9.1 registers its children at @pulumi/aws 6.79.1, 4.3.0 at 7.25.0 (both @pulumi/kubernetes
//     4.19.0);
//   - its name, GetPluginInfo, --version and schema say the version (the schema's aws references
//     name the aws stand-in's v6 or v7 version).
//
// What it does not do, and why:
//   - the default node group (createNodeGroupV2, nodes/nodegroup.ts:1068-1516: an
//     aws.ec2.LaunchTemplate (:1422) and an aws.autoscaling.Group (:1487) of EC2 instances that
//     join the cluster; a CloudFormation stack is only the legacy NodeGroup's, :1026) is not
//     created, as moto's EC2 runs no kubelet: the world's three system nodes stand for it, and
//     defaultNodeGroupAsgName is empty;
//   - the kube-proxy, CoreDNS and VPC CNI add-ons are not installed (their versions come from
//     aws:eks/getAddonVersion, which the aws stand-in does not serve, and nothing runs them);
//   - the kubeconfig is not pulumi-eks's `aws eks get-token` exec kubeconfig (no AWS CLI, no EKS
//     to issue tokens): it points at the cluster's endpoint (the world's API server, as the aws
//     stand-in reports it) with the cluster's CA and the credentials of the world's own kubeconfig
//     ($STANDIN_EKS_KUBECONFIG);
//   - the OIDC provider's thumbprint is not read from oidc.eks.<region>.amazonaws.com's TLS chain
//     (no network): it is a fixed value of that form.
//
// Environment:
//
//	STANDIN_EKS_KUBECONFIG  required at Construct: the world's kubeconfig, whose user (token or
//	                        client certificate) the cluster's kubeconfig carries
//	STANDIN_EKS_VERSION     optional: the pulumi-eks version to answer as (4.3.0 or 3.9.1), instead
//	                        of the plugin directory's
package main

import "github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/standin/componentprovider"

// logf writes one line to the plugin's log, naming it as the stand-in.
func logf(format string, args ...any) { componentprovider.Logf("eks", standIn, format, args...) }

func main() { plugin.Main() }
