// Command pulumi-resource-awsx is a stand-in for pulumi-awsx 3.9.0 (test only).
//
// The real pulumi-awsx plugin (a Node.js program that GitHub serves) cannot be downloaded on the
// machines this project builds on, so the lab (tests/e2e/lab, PrepareSnippets) installs this binary
// in its place:
//
//	pulumi plugin install resource awsx 3.9.0 --file <this binary>
//
// The real @pulumi/awsx 3.9.0 (npm) and pulumi_awsx 3.9.0 (PyPI) packages, which the documentation's
// programs import, are generated SDKs: `new awsx.ec2.Vpc(...)` asks the engine to Construct
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
// What it does not do, and why:
//   - VPC endpoints, IPv6, IPAM, explicit CIDR layouts and the "Auto", "AutoMerge" and "Exact"
//     subnet strategies are not implemented (the documentation's programs use none of them): their
//     inputs are refused, named;
//   - awsx's own code, a Node.js program, is not what runs: it is published only on GitHub (npm's
//     @pulumi/awsx is the generated SDK), so CI cannot obtain it.
package main

import "github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/standin/componentprovider"

const (
	awsxVersion = "3.9.0"
	standIn     = "stand-in for pulumi-awsx " + awsxVersion + " (test only)"

	// awsChildVersion is what pulumi-awsx registers its children (and invokes
	// getAvailabilityZones) at: its own @pulumi/aws (awsx/package.json at e60adf3c: 7.42.0, the
	// version its schema refers to). The program's explicit aws provider, inherited from the
	// component, serves them whatever their version.
	awsChildVersion = "7.42.0"
)

// logf writes one line to the plugin's log, naming it as the stand-in.
func logf(format string, args ...any) { componentprovider.Logf("awsx", standIn, format, args...) }

func main() { plugin.Main() }
