// Command pulumi-resource-aws is a stand-in for pulumi-aws 6.83.2, and for 6.83.0 and 7.48.0 (test
// only).
//
// The real pulumi-aws plugin cannot be downloaded on the machines this project builds on, so
// the engine tests (tests/e2e) install this binary in its place:
//
//	pulumi plugin install resource aws 6.83.2 --file <this binary>
//	pulumi plugin install resource aws 7.48.0 --file <this binary>   (the README snippets' worlds)
//	pulumi plugin install resource aws 6.83.0 --file <this binary>   (examples/java's com.pulumi:aws)
//
// Installed under 7.48.0 (the plugin directory's version, or STANDIN_AWS_VERSION), it answers as
// pulumi-aws 7.48.0 where the two differ for what it serves: getRegion's `region`, and the `region`
// input of regional resources (pulumi_aws_versions.go).
//
// It speaks the real resource provider protocol (the engine starts it, it prints its port,
// the engine calls Configure, Check, Diff, Create, Read, Update, Delete and Invoke over gRPC)
// for exactly the resource types and functions the karpenter component uses
// (provider/children/resources.go), plus the types the engine tests' programs declare themselves
// (an EKS cluster, an IAM OIDC provider), those the eks stand-in registers for the README's
// programs as pulumi-eks does (security groups and security group rules) and those the awsx
// stand-in registers as pulumi-awsx's Vpc does (a VPC, its subnets, internet gateway, elastic IPs,
// NAT gateways, route tables, their associations and routes: ec2_vpcs.go, with the
// getAvailabilityZones function), and performs every operation for real against a local moto
// server: IAM roles, policies, attachments, instance profiles, the service-linked role and OIDC
// providers; the SQS queue and its policy; EventBridge rules and targets; EC2 tags, security
// groups and their rules, VPCs and their network; the EKS cluster (moto's EKS, its IAM role and
// subnets checked in moto, its cluster security group created in moto's EC2); an EKS managed
// node group (moto's EKS; it launches no instance and no kubelet: the world's system nodes stand
// for its nodes, eks_nodegroup.go); STS for the caller identity.
// moto has no EKS access entries, access policy associations, add-ons or pod identity
// associations, and its EKS clusters lack the access, compute, storage and upgrade configuration,
// an OIDC issuer of EKS's form, the VPC ID and cluster security group and version updates: those
// are recorded in memory and persisted to $STANDIN_STATE_DIR/aws-eks.json, and the engine's output
// says so. EKS refuses an access entry (and the rest) on a cluster it does not have, and access
// entries on a cluster whose authentication mode is CONFIG_MAP; so does the stand-in.
//
// The read functions are answered from moto and the record as pulumi-aws answers them (their
// result fields, and terraform's data sources' errors): the partition, region and caller; an
// add-on and an instance profile; and, for the component's checks of its inputs against the
// cluster, the cluster (getCluster), the OIDC provider, subnets, security groups, the VPC, an
// SSM parameter (the EKS optimized-AMI parameters come from tests/e2e/lab/moto/motoserver.py, which
// preloads them into moto) and an IAM role.
//
// Check validates inputs as the real provider's schema does and auto-names `name`; Diff
// compares inputs and replaces where the real provider replaces (the create-only properties
// of each type, with their sources, are in resource_types.go); previews call nothing and answer
// unknowns for what the cloud computes.
//
// Environment:
//
//	AWS_ENDPOINT_URL        moto's URL, required, and only on loopback: the stand-in refuses to
//	                        start without it, so it can never reach real AWS
//	AWS_ACCESS_KEY_ID,      credentials, required (any values: moto does not check them)
//	AWS_SECRET_ACCESS_KEY
//	AWS_REGION              the region when the aws:region configuration is not set
//	STANDIN_STATE_DIR       required: where the EKS record is kept between plugin processes
//	STANDIN_LOG             optional: the operation log, one line per operation
//	                        (<RFC3339Nano> aws <op> <type> <urn-name> <id>), see log.go
//	STANDIN_EKS_ENDPOINT    optional: the endpoint an EKS cluster the stand-in creates reports
//	                        (the lab's API server stands for its control plane); else moto's
//	STANDIN_EKS_CA_DATA     optional: its certificateAuthority data (base64 PEM); else moto's
//	STANDIN_EKS_OIDC_ISSUER optional: the OIDC issuer an EKS cluster the stand-in creates reports
//	                        (the lab's API server issues its service-account tokens as it);
//	                        else a new one of EKS's form per cluster
//	STANDIN_EKS_DEFAULT_VERSION
//	                        optional: the Kubernetes version of a cluster created without one
//	                        (real EKS picks its current default); else 1.33, the lab's API server's
//	STANDIN_AWS_VERSION     optional: the pulumi-aws version to answer as (6.83.2 or 7.48.0);
//	                        else the version it is installed under, else 6.83.2
//
// moto must be started with MOTO_IAM_LOAD_MANAGED_POLICIES=true, or the AWS managed policies the
// component attaches (AmazonEKSWorkerNodePolicy, ...) do not exist in it; and through
// tests/e2e/lab/moto/motoserver.py, or the EKS optimized-AMI SSM parameters do not exist in it.
package main

import (
	"fmt"
	"net"
	"net/url"
	"os"

	pprovider "github.com/pulumi/pulumi/sdk/v3/go/pulumi/provider"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// The version the stand-in answers as: pulumi-aws 6.83.2 (the component's), or 7.48.0 when it
// is installed under that version (pulumi_aws_versions.go).
var (
	awsVersion = awsV6
	standIn    = "stand-in for pulumi-aws " + awsVersion + " (test only)"
	// pluginInfoVersion is what GetPluginInfo answers: the version (semver ignores the build
	// metadata, so the engine sees exactly the version it asked for), marked as the stand-in
	// wherever the engine records it.
	pluginInfoVersion = awsVersion + "+standin"
)

// settings is the environment the stand-in runs in.
type settings struct {
	endpoint                           string
	accessKey, secretKey, sessionToken string
	region                             string
	stateDir                           string
	logPath                            string
	// The EKS clusters' control plane as the stand-in reports it (eks_cluster.go): the endpoint
	// and CA of the API server that stands for it, the issuer of its service-account tokens, and
	// the Kubernetes version of a cluster created without one.
	eksEndpoint, eksCAData, eksDefaultVersion, eksOIDCIssuer string
}

// loadSettings reads and checks the environment. It refuses anything but a loopback moto.
func loadSettings() (settings, error) {
	s := settings{
		endpoint:     os.Getenv("AWS_ENDPOINT_URL"),
		accessKey:    os.Getenv("AWS_ACCESS_KEY_ID"),
		secretKey:    os.Getenv("AWS_SECRET_ACCESS_KEY"),
		sessionToken: os.Getenv("AWS_SESSION_TOKEN"),
		region:       os.Getenv("AWS_REGION"),
		stateDir:     os.Getenv("STANDIN_STATE_DIR"),
		logPath:      os.Getenv("STANDIN_LOG"),

		eksEndpoint:       os.Getenv("STANDIN_EKS_ENDPOINT"),
		eksCAData:         os.Getenv("STANDIN_EKS_CA_DATA"),
		eksDefaultVersion: os.Getenv("STANDIN_EKS_DEFAULT_VERSION"),
		eksOIDCIssuer:     os.Getenv("STANDIN_EKS_OIDC_ISSUER"),
	}
	if s.region == "" {
		s.region = os.Getenv("AWS_DEFAULT_REGION")
	}
	if s.endpoint == "" {
		return s, fmt.Errorf("AWS_ENDPOINT_URL is not set: the %s only talks to a local moto server (never to AWS); start moto_server and set AWS_ENDPOINT_URL=http://127.0.0.1:<port>", standIn)
	}
	u, err := url.Parse(s.endpoint)
	if err != nil || u.Scheme == "" || u.Hostname() == "" {
		return s, fmt.Errorf("AWS_ENDPOINT_URL=%q is not a URL", s.endpoint)
	}
	if !loopback(u.Hostname()) {
		return s, fmt.Errorf("AWS_ENDPOINT_URL=%q is not on loopback: the %s only talks to a local moto server", s.endpoint, standIn)
	}
	if s.accessKey == "" || s.secretKey == "" {
		return s, fmt.Errorf("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set (any values: moto does not check them)")
	}
	if s.stateDir == "" {
		return s, fmt.Errorf("STANDIN_STATE_DIR is not set: the %s keeps its EKS record there between plugin processes", standIn)
	}
	return s, nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func main() {
	if err := selectVersion(); err != nil {
		logf("refusing to start: %v", err)
		os.Exit(1)
	}
	for _, a := range os.Args[1:] {
		if a == "--version" || a == "-version" {
			// stdout carries the bare version (tests/e2e's PluginVersion reads it); stderr says
			// what this binary is.
			fmt.Println(awsVersion)
			fmt.Fprintf(os.Stderr, "pulumi-resource-aws: %s\n", standIn)
			return
		}
	}
	env, err := loadSettings()
	if err != nil {
		logf("refusing to start: %v", err)
		os.Exit(1)
	}
	logf("starting: moto at %s, EKS record in %s", env.endpoint, env.stateDir)
	err = pprovider.Main("aws", func(host *pprovider.HostClient) (pulumirpc.ResourceProviderServer, error) {
		return newProvider(host, env), nil
	})
	if err != nil {
		logf("%v", err)
		os.Exit(1)
	}
}
