package main

import "github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/standin/componentprovider"

// release is what differs between the pulumi-awsx versions the stand-in answers as, for the inputs
// it implements (`git diff v2.22.0 e60adf3c -- awsx/ec2`). The same in both, for these inputs
// (subnetStrategy "Legacy", subnetNameTagStrategy unset): the zones (getDefaultAzs), the CIDR
// allocation (subnetDistributorLegacy.ts: 3.x only adds subnetNameTagStrategy and IPv6 fields),
// the names (3.x's resourceName and nameTag are v2's subnetName), the tags, the order, parents and
// dependsOn of the Vpc, InternetGateway, Subnet, RouteTable, RouteTableAssociation, Eip (tags only,
// v2.22.0 vpc.ts:223-231), NatGateway and Route, the subnetStrategy warning (v2.22.0 vpc.ts:501)
// and awsx's other refusals. 3.x's `region: args.region` on every child is unset here (no region
// input), so not sent. The e60adf3c lines cited elsewhere in the stand-in are 3.x's.
type release struct {
	version string
	// awsChildVersion is what it registers its children (and invokes getAvailabilityZones) at: its
	// own @pulumi/aws (awsx/package.json). The program's explicit aws provider, inherited from the
	// component, serves them whatever their version.
	awsChildVersion string
	// subnetIPv6: each subnet is registered with assignIpv6AddressOnCreation (false unless asked)
	// and ipv6CidrBlock (unset unless assigned, unknown while the Vpc's ipv6CidrBlock is).
	subnetIPv6 bool
	// subnetsByType: the outputs publicSubnets, privateSubnets and isolatedSubnets.
	subnetsByType bool
	// natInnerTypes are the subnet types of which a NAT gateway strategy (OnePerAz, Single) needs
	// one, beside a public subnet; natRefusal is validateNatGatewayStrategy's error without them.
	natInnerTypes []string
	natRefusal    string
	// uniqueSpecNames: validateAndNormalizeSubnetInputs refuses two specs of a type without unique
	// names. Without the check, such specs make two subnets of one name, which the engine refuses
	// as a duplicate URN.
	uniqueSpecNames bool
	// subnetStrategies are awsx:ec2:SubnetAllocationStrategy's values (its schema).
	subnetStrategies []string
	// awsSchemaRef is the aws package its schema's references name (schema.go): awsx's own names its
	// @pulumi/aws's; the stand-in names the same types at the version of pulumi-aws the lab's
	// worlds install of that major version, so that pulumi-yaml can load them.
	awsSchemaRef string
}

// releases are the versions the stand-in answers as, the default first.
var releases = []release{
	{
		// The documentation's programs' (@pulumi/awsx and pulumi_awsx 3.9.0), modelled from
		// e60adf3c (main.go).
		version: "3.9.0",
		// awsx/package.json:28 at e60adf3c (the version its schema refers to).
		awsChildVersion: "7.42.0",
		// resolveAssignIpv6AddressOnCreation and handleIpv6Cidr (vpc.ts:196-222 at e60adf3c).
		subnetIPv6: true,
		// VpcData and the constructor (vpc.ts:36-38, 73-75 at e60adf3c), schema.json's required list.
		subnetsByType: true,
		// vpc.ts:1005-1025 at e60adf3c.
		natInnerTypes: []string{"Private", "Isolated"},
		natRefusal: "If NAT Gateway strategy is 'OnePerAz' or 'Single', public subnets must be declared to host the NAT Gateway resource, " +
			"along with private or isolated subnets to route through it.",
		// subnetDistributorNew.ts:340-366 at e60adf3c.
		uniqueSpecNames:  true,
		subnetStrategies: []string{"Legacy", "Auto", "AutoMerge", "Exact"},
		// Its schema refers to /aws/v7.42.0; the snippet worlds install the aws stand-in as 7.48.0.
		awsSchemaRef: "/aws/v7.48.0/schema.json",
	},
	{
		// The Registry page's Go program's (examples/go: github.com/pulumi/pulumi-awsx/sdk/v2
		// v2.22.0, whose NewVpc asks for the awsx plugin 2.22.0).
		version: "2.22.0",
		// awsx/package.json:28 at v2.22.0.
		awsChildVersion: "6.66.3",
		// The Subnet's inputs are vpcId, availabilityZone, mapPublicIpOnLaunch, cidrBlock and tags
		// (vpc.ts:167-181 at v2.22.0).
		subnetIPv6: false,
		// VpcData has subnets only (vpc.ts:30-45 at v2.22.0); its schema has no such outputs.
		subnetsByType: false,
		// vpc.ts:648-670 at v2.22.0: isolated subnets do not count.
		natInnerTypes: []string{"Private"},
		natRefusal: "If NAT Gateway strategy is 'OnePerAz' or 'Single', both private and public subnets must be declared. " +
			"The private subnet creates the need for a NAT Gateway, and the public subnet is required to host the NAT Gateway resource.",
		// validateAndNormalizeSubnetInputs has no such check (subnetDistributorNew.ts:216-316 at v2.22.0).
		uniqueSpecNames:  false,
		subnetStrategies: []string{"Legacy", "Auto", "Exact"},
		// Its schema refers to /aws/v6.66.3; every world installs the aws stand-in as 6.83.2
		// (tests/e2e/lab/world.go, AWSVersion).
		awsSchemaRef: "/aws/v6.83.2/schema.json",
	},
}

var (
	// rel is the release the stand-in answers as, standIn how it names itself: plugin.Use
	// (useRelease) sets both.
	rel     = releases[0]
	standIn = componentprovider.StandIn("awsx", rel.version)
	// versions are the releases' versions, the default first.
	versions, useRelease = componentprovider.Releases("awsx", releases, func(r release) string { return r.version }, &rel, &standIn)
)
