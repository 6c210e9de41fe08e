//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/lab"
)

// TestExamples runs the programs a Registry visitor copies — the TypeScript, Python, YAML and Go
// programs of docs/_index.md — through the real CLI and engine, each in a world of its own with the
// real Karpenter controller in its loop. The TypeScript and Python ones run as examples/typescript
// and examples/python, which are those programs plus the outputs a team's stack reads
// (provider/registry_page_test.go holds that), and after each its team-pool example
// (examples/typescript-team-pool, examples/python-team-pool) runs as a second stack of the same
// backend, reading the first through a StackReference; the YAML one runs as the page has it
// (examples/yaml is it with version pins and the package built from source); the Go one, which is
// examples/go, as an Automation API inline program (examples_go_test.go, snippets/runner.go) on
// pulumi-eks v3.9.1 and pulumi-awsx v2.22.0, which the stand-ins answer as.
//
// Each: preview (nothing created, the component's cluster checks wait for the cluster the same
// update creates), up — the awsx VPC's private subnets tagged for discovery by awsx, pulumi-eks's
// node security group by pulumi-eks, the component's node role given its EC2_LINUX access entry —;
// a workload that lands on the team's spot pool (YAML: the default pool) gets a node in one of the
// VPC's private subnets; the team's stack, then the platform's, destroyed with nothing left.
//
// What runs and what stands in is TestREADMESnippets's (the same runners and packages, the
// release's npm tarball and wheel), and pulumi-awsx 3.9.0's component provider is a stand-in too
// (standin/awsx-component-provider: its Vpc registers what awsx's does, through the aws stand-in,
// against moto's EC2).
//
// examples/typescript-automode runs too, on an Auto Mode world (examples_automode_test.go), and
// examples/java, on plain pulumi-aws resources, as an Automation API inline program
// (examples_java_test.go).
//
// Not run: C# (no .NET here): CONTRIBUTING.md's limits of our CI.
func TestExamples(t *testing.T) {
	programs := examplePrograms(t)
	dist := findSDKDist(t)
	t.Setenv("PROVIDER_BIN", dist.plugin) // the world installs the released plugin, at its version
	tools, err := lab.FindTools()
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"typescript", "python", "yaml", "go"} {
		t.Run(lang, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			ecr, err := w.PrepareSnippets(standIns, tools)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(ecr.Stop)
			kw := withLoop(t, w)
			p := programs[lang]
			platform := &snippetRun{lang: lang, w: w, kw: kw, ecr: ecr, cluster: clusterName(t, lang, p.platform), snippet: p.platform}
			platform.prepare(t, dist, "examples-"+lang, nil)
			var team *snippetRun
			if p.team != "" {
				team = &snippetRun{lang: lang, w: w, kw: kw, ecr: ecr, snippet: p.team}
				team.prepare(t, dist, "examples-"+lang+"-team-pool", map[string]string{"platformStack": "organization/examples-" + lang + "/dev"})
			}
			t.Run("preview", platform.previewWaitsForCluster)
			if t.Failed() {
				return
			}
			var subnets []string
			t.Run("up", func(t *testing.T) {
				outputs, _ := platform.step(t, "up")
				subnets = platform.checkExampleUp(t, outputs)
			})
			if !t.Failed() && team != nil {
				t.Run("a team's stack", func(t *testing.T) {
					team.step(t, "preview")
					outputs, _ := team.step(t, "up")
					if outputs["nodePoolName"] != "team-a-spot" || outputs["nodeClassName"] != "team-a" {
						t.Errorf("the team stack's outputs %v, want nodePoolName team-a-spot and nodeClassName team-a", outputs)
					}
				})
			}
			if !t.Failed() {
				t.Run("pending pods get a node in a private subnet", func(t *testing.T) {
					platform.landWorkload(t, team != nil, subnets)
				})
			}
			t.Run("destroy", func(t *testing.T) {
				if team != nil {
					team.step(t, "destroy")
				}
				platform.step(t, "destroy")
				w.assertNothingLeft(t)
				platform.checkNoVPCLeft(t)
				platform.checkOnlyPublicECR(t)
			})
		})
	}
	t.Run("typescript-automode", func(t *testing.T) {
		t.Parallel()
		autoModeExample(t, dist, tools)
	})
	t.Run("java", func(t *testing.T) {
		t.Parallel()
		javaExample(t, dist, tools)
	})
}

// previewWaitsForCluster: the preview creates nothing and says the component's checks against
// the cluster wait (the same update creates the cluster).
func (r *snippetRun) previewWaitsForCluster(t *testing.T) {
	_, out := r.step(t, "preview")
	if !strings.Contains(out, "the component reads the cluster and checks") {
		t.Errorf("the preview does not say the component's cluster checks wait for the cluster:\n%s", tail(out, 60))
	}
	r.w.assertNothingCreated(t)
}

// checkOnlyPublicECR: the program asked no host but public.ecr.aws (through its stand-in) for
// anything; none other is reachable here.
func (r *snippetRun) checkOnlyPublicECR(t *testing.T) {
	if refused := r.ecr.Refused(); len(refused) > 0 {
		t.Errorf("requests to hosts other than %s (none is reachable here): %q", lab.PublicECRHost, refused)
	}
}

// exampleProgram is a language's platform program and, where the language has one, its team's.
type exampleProgram struct{ platform, team string }

// examplePrograms: examples/typescript's index.ts and examples/python's __main__.py with their
// team-pool examples, and the Registry page's YAML program.
func examplePrograms(t *testing.T) map[string]exampleProgram {
	t.Helper()
	read := func(path string) string {
		data, err := os.ReadFile(filepath.Join(testsPath(t), "..", path))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	return map[string]exampleProgram{
		"typescript": {read("examples/typescript/index.ts"), read("examples/typescript-team-pool/index.ts")},
		"python":     {read("examples/python/__main__.py"), read("examples/python-team-pool/__main__.py")},
		"yaml":       {platform: registryPagePrograms(t)["yaml"]},
		"go":         {platform: registryPagePrograms(t)["go"]},
	}
}

// registryPagePrograms are docs/_index.md's first ```typescript, ```python, ```yaml and ```go fences.
func registryPagePrograms(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testsPath(t), "..", "docs", "_index.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	out := map[string]string{}
	for _, lang := range []string{"typescript", "python", "yaml", "go"} {
		open := slices.Index(lines, "```"+lang)
		if open < 0 {
			t.Fatalf("docs/_index.md has no ```%s fence: TestExamples runs the Registry page's programs", lang)
		}
		end := slices.Index(lines[open+1:], "```")
		if end < 0 {
			t.Fatalf("docs/_index.md: the ```%s fence is not closed", lang)
		}
		out[lang] = strings.Join(lines[open+1:open+1+end], "\n") + "\n"
	}
	return out
}

// prepare installs the program as snippetRun does for the README's, as its own project with
// config (the runners' RUNNER_PROJECT and RUNNER_CONFIG; YAML: the project's Pulumi.yaml).
func (r *snippetRun) prepare(t *testing.T, dist sdkDist, project string, config map[string]string) {
	t.Helper()
	switch r.lang {
	case "typescript":
		r.prepareTypeScript(t, r.snippet, dist)
	case "python":
		r.preparePython(t, r.snippet, dist)
	case "yaml":
		r.prepareYAML(t, r.snippet)
		return
	case "go":
		r.prepareGo(t, r.snippet, dist)
	}
	if config == nil {
		config = map[string]string{}
	}
	data, err := json.Marshal(config)
	if err != nil {
		t.Fatal(err)
	}
	r.env = append(r.env, "RUNNER_PROJECT="+project, "RUNNER_CONFIG="+string(data))
}

// checkExampleUp: what `pulumi up` made. Karpenter discovers the awsx VPC's private subnets, tagged
// by awsx (the program's subnetSpecs tags), and pulumi-eks's node security group, tagged by
// pulumi-eks — the component tags nothing itself; the node role has its EC2_LINUX access entry; no
// aws-auth. It returns the subnets tagged for discovery.
func (r *snippetRun) checkExampleUp(t *testing.T, outputs map[string]any) []string {
	if arn := str(outputs["nodeRoleArn"]); !strings.HasPrefix(arn, "arn:aws:iam::123456789012:role/") {
		t.Errorf("output nodeRoleArn = %v, want the component's node role ARN (outputs %v)", outputs["nodeRoleArn"], outputs)
	}
	cluster := r.eksCluster(t)
	ids := r.discoverySubnets(t, cluster)
	vpc := aws.ToString(r.programVPCs(t)[0].VpcId)
	if group := r.discoveredGroup(t, cluster); aws.ToString(group.VpcId) != vpc {
		t.Errorf("pulumi-eks's node security group %s is in VPC %s, want the awsx VPC %s", aws.ToString(group.GroupId), aws.ToString(group.VpcId), vpc)
	}
	ops, err := r.w.Ops()
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range ops {
		if op.Type == "aws:ec2/tag:Tag" {
			t.Errorf("a tag resource was created (%s %s): the program's subnets and security group are tagged by their owners", op.Op, op.Name)
		}
	}
	entries := r.nodeAccessEntries(t, cluster)
	if entries[str(outputs["nodeRoleArn"])] != "EC2_LINUX" {
		t.Errorf("access entries of cluster %s: %v, want an EC2_LINUX entry for the node role %v", cluster, entries, outputs["nodeRoleArn"])
	}
	t.Logf("up: cluster %s in the awsx VPC %s; %d subnets tagged for discovery by awsx; access entries %v", cluster, vpc, len(ids), entries)
	return ids
}

// landWorkload: two pods that tolerate the team pool's taint (without a team stack: the program's
// first pool) get a node the real controller launches in one of the tagged private subnets, which
// joins the cluster; a team's node is Spot and carries the team class's tags.
func (r *snippetRun) landWorkload(t *testing.T, team bool, subnets []string) {
	kw := r.kw
	pool, selector, tolerations := "team-a-spot", map[string]string{"karpenter.sh/nodepool": "team-a-spot", corev1.LabelInstanceTypeStable: "m5.large"},
		[]corev1.Toleration{{Key: "team", Operator: corev1.TolerationOpEqual, Value: "a", Effect: corev1.TaintEffectNoSchedule}}
	if !team {
		pool, selector, tolerations = r.programPool(t)
	}
	if err := lab.ScaleWorkloadTolerating(context.Background(), kw.cs, 2, selector, tolerations); err != nil {
		t.Fatal(err)
	}
	node := kw.workloadOn(t, 2, 4*time.Minute)
	if !slices.Contains(subnets, node.SubnetID) {
		t.Errorf("node %s of pool %s is in subnet %s, want one of the private subnets tagged for discovery %v", node.ID, pool, node.SubnetID, subnets)
	}
	if team && (node.Lifecycle != "spot" || node.Tags["team"] != "a") {
		t.Errorf("node %s of the team's pool: lifecycle %q, tags %v; want a Spot instance tagged team=a (its class's tags)", node.ID, node.Lifecycle, node.Tags)
	}
	if refused := kw.registrar.Refused(); len(refused) > 0 {
		t.Errorf("instances the cluster did not let in: %q", refused)
	}
	t.Logf("the workload runs on %s (%s, %s) of pool %s in subnet %s", node.ID, node.Type, node.Lifecycle, pool, node.SubnetID)
	// The workload is the test's, not a stack's: gone before the destroys, which then also remove
	// the empty node.
	if err := lab.DeleteWorkload(context.Background(), kw.cs); err != nil {
		t.Fatal(err)
	}
}

// programVPC is the name of the programs' awsx.ec2.Vpc, which awsx gives its VPC as its Name tag
// (the world's own VPC, which the scenarios' programs use, is another).
const programVPC = "vpc"

// programVPCs are the VPCs tagged Name: programVPC.
func (r *snippetRun) programVPCs(t *testing.T) []ec2types.Vpc {
	t.Helper()
	vpcs, err := ec2.NewFromConfig(r.w.AWS).DescribeVpcs(context.Background(), &ec2.DescribeVpcsInput{
		Filters: []ec2types.Filter{{Name: aws.String("tag:Name"), Values: []string{programVPC}}}})
	if err != nil {
		t.Fatal(err)
	}
	return vpcs.Vpcs
}

// checkNoVPCLeft: after the destroys moto holds no VPC of the program's, no Elastic IP and no NAT
// gateway that is not deleted.
func (r *snippetRun) checkNoVPCLeft(t *testing.T) {
	ctx := context.Background()
	cl := ec2.NewFromConfig(r.w.AWS)
	if vpcs := r.programVPCs(t); len(vpcs) > 0 {
		t.Errorf("the program's VPC is left: %s", aws.ToString(vpcs[0].VpcId))
	}
	addresses, err := cl.DescribeAddresses(ctx, &ec2.DescribeAddressesInput{})
	if err != nil || len(addresses.Addresses) > 0 {
		t.Errorf("Elastic IPs left: %v %v", addresses, err)
	}
	gateways, err := cl.DescribeNatGateways(ctx, &ec2.DescribeNatGatewaysInput{})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range gateways.NatGateways {
		if g.State != ec2types.NatGatewayStateDeleted {
			t.Errorf("NAT gateway %s left (%s)", aws.ToString(g.NatGatewayId), g.State)
		}
	}
	if pools, err := r.w.Cluster.Dynamic.Resource(nodePoolGVR).List(ctx, metav1.ListOptions{}); err == nil && len(pools.Items) > 0 {
		t.Errorf("NodePools left: %d", len(pools.Items))
	}
}
