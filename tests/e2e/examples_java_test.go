//go:build e2e

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/lab"
	"github.com/pulumi-karpenter/pulumi-karpenter/tests/internal/repo"
)

// javaExample runs examples/java — a VPC of plain pulumi-aws resources, an aws.eks.Cluster with
// access entries, a Tag on the cluster security group, an OIDC provider, a managed node group,
// a kubernetes provider whose kubeconfig runs `aws eks get-token`, and the component — as an
// Automation API inline program (snippets/java/ExampleRunner.java runs karpenterexample.App's
// stack function unchanged), compiled with examples/java's pom.xml: com.pulumi:aws 6.83.0 and
// com.pulumi:kubernetes 4.0.0 ask for plugins aws 6.83.0 (the aws stand-in, answering as it) and
// kubernetes 4.0.0 (the real pulumi-kubernetes), and the release's Maven Central bundle serves
// io.github.pulumikarpenter:karpenter. `aws eks get-token` is the AWS CLI stand-in
// (standin/aws-cli), first on the engine's PATH. The node group launches nothing: the world's
// system nodes stand for its nodes.
//
// Preview (nothing created); up — the outputs, the VPC's private subnets tagged for discovery by
// the program, the cluster security group tagged by its Tag —; pods that tolerate nothing get a
// node of the default pool in a private subnet; destroy with nothing left.
func javaExample(t *testing.T, dist sdkDist, tools lab.Tools) {
	w := newWorld(t)
	ecr, err := w.PrepareSnippets(standIns, tools)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ecr.Stop)
	w.Engine.SetEnv("PATH", filepath.Dir(standIns.AWSCLI())+string(os.PathListSeparator)+w.Engine.Getenv("PATH"))
	kw := withLoop(t, w)
	r := &snippetRun{lang: "java", w: w, kw: kw, ecr: ecr, cluster: "karpenter-dev"}
	start := time.Now()
	r.prepareJavaExample(t, dist)
	t.Logf("examples/java built in %s", time.Since(start).Round(100*time.Millisecond))

	t.Run("preview", r.previewWaitsForCluster)
	if t.Failed() {
		return
	}
	var subnets []string
	var vpc string
	t.Run("up", func(t *testing.T) {
		outputs, out := r.step(t, "up")
		subnets, vpc = r.checkJavaExampleUp(t, outputs)
		if !strings.Contains(out, "no instance and no kubelet are launched; the world's system nodes stand for its nodes") {
			t.Errorf("the up's output does not say the node group launches nothing (the world's system nodes stand for it):\n%s", tail(out, 60))
		}
	})
	if !t.Failed() {
		t.Run("pending pods get a node in a private subnet", func(t *testing.T) {
			r.landWorkload(t, false, subnets)
		})
	}
	t.Run("destroy", func(t *testing.T) {
		r.step(t, "destroy")
		w.assertNothingLeft(t)
		r.checkNoVPCLeft(t)
		if vpc != "" {
			if vpcs, err := ec2.NewFromConfig(w.AWS).DescribeVpcs(context.Background(), &ec2.DescribeVpcsInput{VpcIds: []string{vpc}}); err == nil && len(vpcs.Vpcs) > 0 {
				t.Errorf("the program's VPC %s is left", vpc)
			}
		}
		r.checkOnlyPublicECR(t)
	})
}

// prepareJavaExample: examples/java's App.java and snippets/java/ExampleRunner.java in package
// karpenterexample, built with examples/java's pom.xml plus the release's bundle as a repository
// (and gson, which the runner reads RUNNER_CONFIG with, at the version com.pulumi:pulumi 1.16.0
// runs with), as prepareJava builds the SDK tests' program.
func (r *snippetRun) prepareJavaExample(t *testing.T, dist sdkDist) {
	r.dir = filepath.Join(t.TempDir(), "java")
	src := filepath.Join(r.dir, "src", "main", "java", "karpenterexample")
	mavenRepo := filepath.Join(filepath.Dir(r.dir), "maven-repo")
	for _, d := range []string{src, mavenRepo} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	example := filepath.Join(testsPath(t), "..", "examples", "java")
	copyFiles(t, filepath.Join(example, "src", "main", "java", "karpenterexample"), src, "App.java")
	copyFiles(t, testsPath(t, "e2e", "snippets", "java"), src, "ExampleRunner.java")
	pom, err := os.ReadFile(filepath.Join(example, "pom.xml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, change := range [][2]string{
		{"  <dependencies>\n", "  <repositories>\n    <repository><id>release-bundle</id><url>file://" + mavenRepo + "</url></repository>\n  </repositories>\n\n  <dependencies>\n"},
		{"  </dependencies>\n", "    <dependency>\n      <groupId>com.google.code.gson</groupId>\n      <artifactId>gson</artifactId>\n      <version>2.10</version>\n    </dependency>\n  </dependencies>\n"},
	} {
		if n := strings.Count(string(pom), change[0]); n != 1 {
			t.Fatalf("examples/java/pom.xml has %q %d times, want once: the test adds the release's repository there", change[0], n)
		}
		pom = []byte(strings.Replace(string(pom), change[0], change[1], 1))
	}
	write(t, filepath.Join(r.dir, "pom.xml"), string(pom))
	unzip(t, dist.maven, mavenRepo)
	local := filepath.Join(repo.CacheDir(), "e2e-sdk-java-m2")
	if err := os.RemoveAll(filepath.Join(local, "io", "github", "pulumikarpenter")); err != nil {
		t.Fatal(err)
	}
	install(t, r.dir, "mvn", "-B", "-q", "-ntp", "-Dstyle.color=never", "-Dmaven.repo.local="+local, "-Dkarpenter.version="+dist.version,
		"compile", "dependency:build-classpath", "-Dmdep.outputFile=classpath.txt")
	data, err := os.ReadFile(filepath.Join(r.dir, "classpath.txt"))
	if err != nil {
		t.Fatal(err)
	}
	cp := strings.TrimSpace(string(data))
	for _, jar := range []string{"karpenter-" + dist.version + ".jar", "aws-6.83.0.jar", "kubernetes-4.0.0.jar", "pulumi-1.16.0.jar"} {
		if !strings.Contains(cp, string(os.PathSeparator)+jar) {
			t.Fatalf("the example's classpath has no %s:\n%s", jar, cp)
		}
	}
	r.argv = []string{"java", "-cp", "target/classes" + string(os.PathListSeparator) + cp, "karpenterexample.ExampleRunner"}
	r.env = append(r.env, "RUNNER_PROJECT=examples-java", "RUNNER_CONFIG={}")
}

// checkJavaExampleUp: the outputs; the subnets tagged karpenter.sh/discovery are the program's
// VPC's two private ones (tagged by the program's Subnets); the cluster security group EKS made
// is tagged by the program's Tag and is the only group tagged. It returns the tagged subnets and
// the VPC.
func (r *snippetRun) checkJavaExampleUp(t *testing.T, outputs map[string]any) ([]string, string) {
	ctx := context.Background()
	for _, k := range []string{"controllerRoleArn", "nodeRoleArn"} {
		if !strings.HasPrefix(str(outputs[k]), "arn:aws:iam::123456789012:role/") {
			t.Errorf("output %s = %v, want a role ARN (outputs %v)", k, outputs[k], outputs)
		}
	}
	if str(outputs["interruptionQueueName"]) == "" {
		t.Errorf("output interruptionQueueName is empty (outputs %v)", outputs)
	}
	cluster := r.eksCluster(t)
	if cluster != r.cluster {
		t.Errorf("EKS cluster %s, want %s (karpenter-<stack>)", cluster, r.cluster)
	}
	cl := ec2.NewFromConfig(r.w.AWS)
	tagged, err := cl.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{
		Filters: []ec2types.Filter{{Name: aws.String("tag:karpenter.sh/discovery"), Values: []string{cluster}}}})
	if err != nil || len(tagged.Subnets) != 2 {
		t.Fatalf("subnets tagged karpenter.sh/discovery=%s: %v %v, want the program's two private subnets", cluster, tagged, err)
	}
	var ids []string
	vpc := aws.ToString(tagged.Subnets[0].VpcId)
	for _, s := range tagged.Subnets {
		ids = append(ids, aws.ToString(s.SubnetId))
		if aws.ToString(s.VpcId) != vpc || aws.ToBool(s.MapPublicIpOnLaunch) || !strings.HasPrefix(aws.ToString(s.CidrBlock), "10.0.10") {
			t.Errorf("subnet %s (%s, VPC %s) is tagged for discovery: want only the program's private subnets 10.0.100.0/24 and 10.0.101.0/24",
				aws.ToString(s.SubnetId), aws.ToString(s.CidrBlock), aws.ToString(s.VpcId))
		}
	}
	if vpcs, err := cl.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{VpcIds: []string{vpc}}); err != nil || len(vpcs.Vpcs) != 1 || aws.ToString(vpcs.Vpcs[0].CidrBlock) != "10.0.0.0/16" {
		t.Errorf("the tagged subnets' VPC %s: %v %v, want the program's 10.0.0.0/16", vpc, vpcs, err)
	}
	rec, err := r.w.EKSRecord()
	if err != nil {
		t.Fatal(err)
	}
	clusterSG := rec.Clusters[cluster].ClusterSecurityGroupID
	groups, err := cl.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{
		Filters: []ec2types.Filter{{Name: aws.String("tag:karpenter.sh/discovery"), Values: []string{cluster}}}})
	if err != nil || len(groups.SecurityGroups) != 1 || aws.ToString(groups.SecurityGroups[0].GroupId) != clusterSG || clusterSG == "" {
		t.Errorf("security groups tagged for discovery: %v %v, want the cluster security group %q EKS made (the program's Tag)", groups, err, clusterSG)
	}
	entries := r.nodeAccessEntries(t, cluster)
	if entries[str(outputs["nodeRoleArn"])] != "EC2_LINUX" {
		t.Errorf("access entries of cluster %s: %v, want an EC2_LINUX entry for the node role %v", cluster, entries, outputs["nodeRoleArn"])
	}
	t.Logf("up: cluster %s in VPC %s; private subnets %v tagged by the program; cluster security group %s tagged by its Tag; access entries %v",
		cluster, vpc, ids, clusterSG, entries)
	return ids, vpc
}
