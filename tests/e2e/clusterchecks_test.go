//go:build e2e

package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/lab"
)

// The program's own resources around the component (the cluster, its role, its OIDC provider):
// all a finding may leave created.
var clusterResources = []string{"created:clusterRole", "created:cluster", "created:oidcProvider"}

// clusterFinding is an input the cluster disagrees with, and what the component must say.
type clusterFinding struct {
	name string
	o    func(*lab.VPC) lab.ProgramOptions
	want []string
}

// clusterFindings: one per fact the component reads, each the classic way an install launches
// nothing (or fails half-way) on AWS.
var clusterFindings = []clusterFinding{
	{"an access entry on a CONFIG_MAP cluster", func(*lab.VPC) lab.ProgramOptions {
		return lab.ProgramOptions{AuthenticationMode: "CONFIG_MAP", Inputs: "nodeAccess: accessEntry\n"}
	}, []string{"nodeAccess: accessEntry, but cluster cluster-", " is in CONFIG_MAP mode, where EKS refuses access entries; set nodeAccess: awsAuth"}},
	{"untagged subnets", func(v *lab.VPC) lab.ProgramOptions {
		return lab.ProgramOptions{NoDiscovery: true, Inputs: "discovery:\n  securityGroupIds: [" + v.SecurityGroupID + "]\n"}
	}, []string{"nodeClasses[0].subnetSelectorTerms (the default class): no subnet in vpc-", " carries karpenter.sh/discovery=cluster-",
		"list the cluster's private subnets in discovery.subnetIds (the component tags them)"}},
	{"untagged security groups", func(v *lab.VPC) lab.ProgramOptions {
		return lab.ProgramOptions{NoDiscovery: true, Inputs: "discovery:\n  subnetIds: [" + strings.Join(v.SubnetIDs, ", ") + "]\n"}
	}, []string{"nodeClasses[0].securityGroupSelectorTerms (the default class): no security group in vpc-",
		"list the cluster's node security group in discovery.securityGroupIds"}},
	{"the OIDC provider of another cluster", func(*lab.VPC) lab.ProgramOptions {
		return lab.ProgramOptions{OIDCIssuer: "https://oidc.eks.us-west-2.amazonaws.com/id/0THER000000000000000000000000000"}
	}, []string{"oidcProviderArn: arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/0THER000000000000000000000000000 is the OIDC provider of issuer",
		"STS would refuse the controller's tokens"}},
	{"Kubernetes 1.35 with Karpenter 1.8.6", func(*lab.VPC) lab.ProgramOptions {
		return lab.ProgramOptions{KubernetesVersion: "1.35", Inputs: "version: 1.8.6\n"}
	}, []string{"version: Karpenter 1.8.6 does not support Kubernetes 1.35, which cluster cluster-", "set version to 1.9.0 or later"}},
	{"al2@latest on Kubernetes 1.33", func(*lab.VPC) lab.ProgramOptions {
		return lab.ProgramOptions{KubernetesVersion: "1.33", Inputs: "nodeClasses:\n  - name: default\n    amiAlias: al2@latest\n"}
	}, []string{"nodeClasses[0].amiAlias: al2@latest has no AMI for Kubernetes 1.33, which cluster cluster-",
		"EKS published its last AL2 optimized AMIs for Kubernetes 1.32"}},
	{"a Spot pool without the service-linked role", func(*lab.VPC) lab.ProgramOptions {
		return lab.ProgramOptions{Inputs: "nodePools:\n  - name: spot\n    requirements:\n      - key: karpenter.sh/capacity-type\n        operator: In\n        values: [spot]\n"}
	}, []string{"nodePools[0].requirements[0]: allows Spot, and this account has no AWSServiceRoleForEC2Spot service-linked role",
		"set createSpotServiceLinkedRole: true"}},
}

// TestClusterFindings: for each finding, through the real engine on one world, both ways a user
// meets it. A cluster that exists (an earlier update made it; the component is added after): the
// preview fails naming input, fact and fix, and nothing is created. A cluster the same update
// creates: the preview passes, saying which checks wait for the cluster; `up` creates the cluster,
// then fails with the same finding before the component creates any child.
func TestClusterFindings(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	for i, c := range clusterFindings {
		t.Run(c.name, func(t *testing.T) {
			o := c.o(w.VPC)
			t.Run("a cluster that exists: the preview fails", func(t *testing.T) {
				cluster := o
				cluster.NoComponent = true
				w.freshStack(t, fmt.Sprintf("existing-%d", i), cluster)
				w.must(t, "up", "--yes", "--non-interactive", "--skip-preview")
				w.programWith(o)
				mark := w.grpcMark(t)
				stdout, stderr, err := w.run(t, "preview", "--non-interactive")
				if err == nil {
					t.Fatalf("the preview passed:\n%s", stdout)
				}
				for _, want := range c.want {
					if !strings.Contains(stdout, want) {
						t.Errorf("the preview does not say %q:\n%s\n%s", want, stdout, stderr)
					}
				}
				w.assertCreatedSince(t, mark)
				w.must(t, "destroy", "--yes", "--non-interactive", "--skip-preview")
			})
			t.Run("a cluster the update creates: up fails before any child", func(t *testing.T) {
				w.freshStack(t, fmt.Sprintf("fresh-%d", i), o)
				p := w.preview(t)
				if !slices.ContainsFunc(p.Diagnostics, func(d diagnostic) bool {
					return strings.Contains(d.Message, "at `pulumi up`, before creating anything, the component reads the cluster and checks")
				}) {
					t.Errorf("the preview does not say the checks wait for the cluster: %+v", p.Diagnostics)
				}
				mark := w.grpcMark(t)
				stdout, stderr, err := w.run(t, "up", "--yes", "--non-interactive", "--skip-preview")
				if err == nil {
					t.Fatalf("up passed:\n%s", stdout)
				}
				for _, want := range c.want {
					if !strings.Contains(stdout, want) {
						t.Errorf("up does not say %q:\n%s\n%s", want, stdout, stderr)
					}
				}
				w.assertCreatedSince(t, mark, clusterResources...)
				w.must(t, "destroy", "--yes", "--non-interactive", "--skip-preview")
			})
		})
	}
	if l := w.aws(t).Leftovers(); len(l) > 0 {
		t.Errorf("moto holds, after every stack was destroyed: %s", strings.Join(l, ", "))
	}
}

// TestWithoutTheChecksACONFIG_MAPClusterFailsHalfWay is what the checks prevent, shown: with
// readCluster off, the component assumes access entries work and `up` on a CONFIG_MAP cluster
// fails in the middle, with EKS's refusal of the access entry and children already created.
func TestWithoutTheChecksACONFIG_MAPClusterFailsHalfWay(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.stackWith(lab.ProgramOptions{AuthenticationMode: "CONFIG_MAP", Inputs: "readCluster: false\n"})
	stdout, stderr, err := w.run(t, "up", "--yes", "--non-interactive", "--skip-preview")
	if err == nil {
		t.Fatalf("up passed:\n%s", stdout)
	}
	const refusal = "InvalidRequestException: The cluster's authentication mode must be set to one of [API, API_AND_CONFIG_MAP] to perform this operation."
	if !strings.Contains(stdout, refusal) {
		t.Errorf("up does not fail with EKS's refusal %q:\n%s\n%s", refusal, stdout, stderr)
	}
	ops, err := w.Ops()
	if err != nil {
		t.Fatal(err)
	}
	var children []string
	for _, op := range ops {
		if op.Op == "Create" && !op.Failed && strings.HasPrefix(op.Name, "karpenter-") {
			children = append(children, op.Name)
		}
	}
	if len(children) == 0 {
		t.Errorf("the failed up should have left some of the component's children created: %v", ops)
	}
	t.Logf("created before EKS refused the access entry (left behind): %s", strings.Join(children, ", "))
	w.must(t, "destroy", "--yes", "--non-interactive", "--skip-preview")
}

// freshStack writes the program shaped by o and creates and selects a new stack of it.
func (w *world) freshStack(t *testing.T, name string, o lab.ProgramOptions) {
	t.Helper()
	w.clusterVersion = ""
	w.programWith(o)
	if err := w.Engine.NewStack(name); err != nil {
		t.Fatal(err)
	}
}

// assertCreatedSince: since the gRPC log's mark, the engine asked no plugin to create anything
// but what allowed names ("created:<name>"), and the API server holds nothing new.
func (w *world) assertCreatedSince(t *testing.T, mark int, allowed ...string) {
	t.Helper()
	calls, err := w.Engine.GRPCCalls()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range lab.GRPCLog(calls[mark:]).Completed("ResourceProvider/Create") {
		var req struct {
			URN     string
			Preview bool
		}
		if err := c.Decode(&req); err != nil {
			t.Fatal(err)
		}
		if _, name := lab.URNTypeName(req.URN); !req.Preview && !slices.Contains(allowed, "created:"+name) {
			t.Errorf("the engine asked a plugin to create %s", req.URN)
		}
	}
	if objs := w.newKubeObjects(t); len(objs) > 0 {
		t.Errorf("the API server holds %d new objects: %s", len(objs), strings.Join(objs, ", "))
	}
}
