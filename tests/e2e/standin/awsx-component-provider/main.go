// Command pulumi-resource-awsx is a stand-in for pulumi-awsx 3.9.0 and 2.22.0 (test only).
//
// The real pulumi-awsx plugin (a Node.js program that GitHub serves) cannot be downloaded on the
// machines this project builds on, so the lab (tests/e2e/lab, PrepareSnippets) installs this binary
// in its place, under both versions:
//
//	pulumi plugin install resource awsx 3.9.0 --file <this binary>
//	pulumi plugin install resource awsx 2.22.0 --file <this binary>
//
// The real @pulumi/awsx 3.9.0 (npm) and pulumi_awsx 3.9.0 (PyPI) packages, which the documentation's
// programs import, and github.com/pulumi/pulumi-awsx/sdk/v2 v2.22.0, which the Registry page's Go
// program imports, are generated SDKs: `new awsx.ec2.Vpc(...)` asks the engine to Construct
// awsx:ec2:Vpc on the awsx plugin (a YAML program's `type: awsx:ec2:Vpc` too). This stand-in serves
// that Construct with the Go SDK's provider machinery (github.com/pulumi/pulumi/sdk/v3/go/pulumi/provider)
// and registers, through the engine, what pulumi-awsx's Vpc registers for the inputs it implements
// (availabilityZoneNames, cidrBlock, natGateways.strategy, numberOfAvailabilityZones, subnetSpecs'
// type, name, cidrMask and tags, subnetStrategy "Legacy", tags), with awsx's names (so the URNs
// are awsx's), parents, dependencies, tags and defaults: the availability zones (aws
// getAvailabilityZones through the program's aws provider, the first 3), the aws:ec2/vpc:Vpc
// (cidrBlock 10.0.0.0/16), its internet gateway, and per zone and subnet spec a subnet (awsx's
// "Legacy" CIDR allocation), its route table, the table's association and route (public: 0.0.0.0/0
// to the internet gateway; private: to the NAT gateway), and the NAT gateways and their elastic IPs
// of the natGateways strategy (vpc_component.go says what, by name). Any other input fails the
// Construct naming it: it is never ignored.
//
// It is modelled from pulumi-awsx's source at e60adf3c (August 2026, the 3.x line after v3.8.0;
// the programs pin 3.9.0): awsx/ec2/vpc.ts, subnetDistributorLegacy.ts, subnetDistributorNew.ts
// (validateAndNormalizeSubnetInputs), subnetNaming.ts, vpcConverters.ts and pulumi-awsx's
// provider/cmd/pulumi-resource-awsx/schema.json; the lines are cited beside what follows them.
//
// It answers as the version it is installed under (the plugin directory the engine runs it from,
// resource-awsx-v<version>), or as $STANDIN_AWSX_VERSION, else as 3.9.0; any other version is
// refused at startup, naming it (componentprovider.Plugin.SelectVersion). 2.22.0 is modelled from
// awsx's source at v2.22.0; what differs, for the inputs it implements (versions.go, from `git diff
// v2.22.0 e60adf3c -- awsx/ec2`):
//   - 2.22.0's subnets have no assignIpv6AddressOnCreation and no ipv6CidrBlock input (3.x sends
//     false and unset: the same subnets);
//   - 2.22.0's Vpc has no publicSubnets, privateSubnets and isolatedSubnets outputs;
//   - 2.22.0's NAT gateway strategies OnePerAz and Single need a private subnet (3.x: private or
//     isolated), refused in its words; it does not refuse two subnet specs of one type without
//     unique names (the engine then refuses their duplicate URNs);
//   - 2.22.0 registers its children at @pulumi/aws 6.66.3, 3.9.0 at 7.42.0;
//   - its name, GetPluginInfo, --version and schema say the version (the schema's aws references
//     name the aws stand-in's v6 or v7 version; 2.22.0's SubnetAllocationStrategy has no
//     AutoMerge).
//
// What it does not do, and why:
//   - VPC endpoints, IPv6, IPAM, explicit CIDR layouts and the "Auto", "AutoMerge" and "Exact"
//     subnet strategies are not implemented (the documentation's programs use none of them): their
//     inputs are refused, named;
//   - awsx's own code, a Node.js program, is not what runs: it is published only on GitHub (npm's
//     @pulumi/awsx is the generated SDK), so CI cannot obtain it.
package main

import "github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/standin/componentprovider"

// logf writes one line to the plugin's log, naming it as the stand-in.
func logf(format string, args ...any) { componentprovider.Logf("awsx", standIn, format, args...) }

func main() { plugin.Main() }
