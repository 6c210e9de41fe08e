package main

import "github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/standin/componentprovider"

// release is what differs between the pulumi-eks versions the stand-in answers as, for the inputs
// it implements (`git diff v3.9.1 v4.3.0 -- nodejs/eks`: servicerole.ts, cluster/authenticationMode.ts
// and nodes/securitygroup.ts are unchanged; in cluster.ts createCore's network, security groups,
// access entries, OIDC provider, kubeconfig and Auto Mode are the same but for what follows). The
// cluster.ts lines cited elsewhere in the stand-in are v4.3.0's.
type release struct {
	version string
	// awsChildVersion and kubernetesChildVersion are what it registers its children at: its own
	// @pulumi/aws and @pulumi/kubernetes (nodejs/eks/package.json). The program's explicit
	// providers, inherited from the component, serve them whatever their version.
	awsChildVersion, kubernetesChildVersion string
	// bootstrapAddons: without Auto Mode, the cluster is registered with bootstrapSelfManagedAddons
	// true (true), or without it (false: EKS's and the aws provider's default is true, so the
	// cluster is the same). With Auto Mode both send false.
	bootstrapAddons bool
	// principalsFromDNSSuffix: the service roles trust `<service>.${dnsSuffix}` of getPartition
	// (true) or `<service>.amazonaws.com` (false); the same in the aws partition.
	principalsFromDNSSuffix bool
	// awsSchemaRef is the aws package its schema's references name (schema.go): pulumi-eks's own
	// names its @pulumi/aws's; the stand-in names the same types at the version of pulumi-aws the
	// lab's worlds install of that major version, so that pulumi-yaml can load them.
	awsSchemaRef string
}

// releases are the versions the stand-in answers as, the default first.
var releases = []release{
	{
		// The README's programs' (@pulumi/eks and pulumi_eks 4.3.0).
		version: "4.3.0",
		// nodejs/eks/package.json:30-31 at v4.3.0.
		awsChildVersion: "7.25.0", kubernetesChildVersion: "4.19.0",
		// `bootstrapSelfManagedAddons: args.autoMode?.enabled ? false : args.bootstrapSelfManagedAddons
		// ?? true` (cluster.ts:698-700; the stand-in does not implement that input).
		bootstrapAddons: true,
		// `service: "eks.amazonaws.com"` / "ec2.amazonaws.com" (cluster.ts:533, 632, 952: "All aws
		// partitions use same service").
		principalsFromDNSSuffix: false,
		// Its schema refers to /aws/v7.14.0 (provider/cmd/pulumi-resource-eks/schema.json); the
		// snippet worlds install the aws stand-in as 7.48.0.
		awsSchemaRef: "/aws/v7.48.0/schema.json",
	},
	{
		// The Registry page's Go program's (examples/go: github.com/pulumi/pulumi-eks/sdk/v3
		// v3.9.1, whose NewCluster asks for the eks plugin 3.9.1).
		version: "3.9.1",
		// nodejs/eks/package.json:29-30 at v3.9.1.
		awsChildVersion: "6.79.1", kubernetesChildVersion: "4.19.0",
		// `bootstrapSelfManagedAddons: args.autoMode?.enabled ? false : undefined` (cluster.ts:694
		// at v3.9.1: v3.9.1 has no bootstrapSelfManagedAddons input).
		bootstrapAddons: false,
		// `const { partition, dnsSuffix } = aws.getPartitionOutput({}, { parent })` (cluster.ts:480
		// at v3.9.1), then ``service: pulumi.interpolate`eks.${dnsSuffix}` `` for the cluster role
		// (:530) and `ec2.${dnsSuffix}` for the Auto Mode node role (:628) and the instance role
		// (:943).
		principalsFromDNSSuffix: true,
		// Its schema refers to /aws/v6.79.1; every world installs the aws stand-in as 6.83.2
		// (tests/e2e/lab/world.go, AWSVersion).
		awsSchemaRef: "/aws/v6.83.2/schema.json",
	},
}

// What is the same in both, for the inputs the stand-in implements: the inputs and their schema
// types (provider/cmd/pulumi-resource-eks/schema.json: accessEntries, authenticationMode, autoMode
// {enabled, createNodeRole default true, computeConfig}, ... the same at both tags) and the outputs;
// the Auto Mode cluster policies, node role (`args.autoMode?.enabled &&
// args.autoMode.createNodeRole !== false`, cluster.ts:624 at v3.9.1, :627 at v4.3.0), compute,
// storage and network configuration; the refusal of Auto Mode without access entries (:456-461 at
// v3.9.1, :458-463 at v4.3.0); the trust actions (sts:AssumeRole and sts:TagSession for the cluster
// role, :538 at v3.9.1); accessConfig, ignoreChanges and dependsOn; and the AccessEntry inputs
// (pulumi-aws 6's eks.AccessEntry takes the ones 7's does but `region`, which the stand-in does not
// send: sdk v6.83.2 go/aws/eks/accessEntry.go:180-192).

var (
	// rel is the release the stand-in answers as, standIn how it names itself: plugin.Use
	// (useRelease) sets both.
	rel     = releases[0]
	standIn = componentprovider.StandIn("eks", rel.version)
	// versions are the releases' versions, the default first.
	versions, useRelease = componentprovider.Releases("eks", releases, func(r release) string { return r.version }, &rel, &standIn)
)

// servicePrincipal is the principal a service role trusts: service ("eks", "ec2") in the
// partition's DNS suffix (getPartition's dnsSuffix), as the release writes it.
func (r release) servicePrincipal(service, dnsSuffix string) string {
	if r.principalsFromDNSSuffix {
		return service + "." + dnsSuffix
	}
	return service + ".amazonaws.com"
}
