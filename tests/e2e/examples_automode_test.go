//go:build e2e

package e2e

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/lab"
)

// autoModeExample runs examples/typescript-automode in a world of its own whose API server serves
// EKS's Auto Mode CRDs (installed first, as EKS does when Auto Mode is enabled; TestAutoMode's
// world): preview (nothing created), up — pulumi-eks's Auto Mode cluster (computeConfig with its
// node role and EKS's two built-in pools, no security groups of its own), the component's
// NodeClasses on the security group EKS made for the cluster and on the awsx VPC's private
// subnets, its node role with an EC2 access entry and AmazonEKSAutoNodePolicy —, then destroy
// with nothing left and EKS's CRDs untouched. No node is launched: in Auto Mode AWS runs
// Karpenter, and the lab has no Auto Mode controller (CONTRIBUTING.md's limits of our CI).
func autoModeExample(t *testing.T, dist sdkDist, tools lab.Tools) {
	w := newWorld(t)
	ctx := context.Background()
	if err := w.Cluster.InstallAutoModeCRDs(ctx); err != nil {
		t.Fatal(err)
	}
	w.baseline = w.waitForSnapshot(t, "apiservices.apiregistration.k8s.io v1.eks.amazonaws.com", "apiservices.apiregistration.k8s.io v1.karpenter.sh")
	crdVersions := w.crdResourceVersions(t)
	ecr, err := w.PrepareSnippets(standIns, tools)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ecr.Stop)
	program, err := os.ReadFile(filepath.Join(testsPath(t), "..", "examples", "typescript-automode", "index.ts"))
	if err != nil {
		t.Fatal(err)
	}
	r := &snippetRun{lang: "typescript", w: w, ecr: ecr, cluster: "cluster", snippet: string(program)}
	r.prepare(t, dist, "examples-typescript-automode", nil)

	t.Run("preview", func(t *testing.T) {
		r.step(t, "preview")
		w.assertNothingCreated(t)
	})
	if t.Failed() {
		return
	}
	t.Run("up", func(t *testing.T) {
		outputs, _ := r.step(t, "up")
		r.checkAutoModeExampleUp(t, outputs)
	})
	t.Run("destroy", func(t *testing.T) {
		r.step(t, "destroy")
		w.assertNothingLeft(t)
		r.checkNoVPCLeft(t)
		if got := w.crdResourceVersions(t); !reflect.DeepEqual(got, crdVersions) {
			t.Errorf("EKS's Auto Mode CRDs after the destroy: %v, want them untouched: %v", got, crdVersions)
		}
		r.checkOnlyPublicECR(t)
	})
}

// checkAutoModeExampleUp: what the Auto Mode example's `pulumi up` made.
func (r *snippetRun) checkAutoModeExampleUp(t *testing.T, outputs map[string]any) {
	ctx := context.Background()
	for _, k := range []string{"nodePoolNames", "nodeClassNames"} {
		if got, ok := outputs[k].([]any); !ok || !reflect.DeepEqual(got, []any{"gpu", "spot"}) {
			t.Errorf("output %s = %v, want [gpu spot]", k, outputs[k])
		}
	}
	// pulumi-eks's Auto Mode cluster: compute with its own node role and EKS's built-in pools.
	name := r.eksCluster(t)
	got, err := eks.NewFromConfig(r.w.AWS).DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	if sgs := got.Cluster.ResourcesVpcConfig.SecurityGroupIds; len(sgs) > 0 {
		t.Errorf("cluster %s: security groups %v, want none of pulumi-eks's (Auto Mode skips them)", name, sgs)
	}
	// What moto's EKS drops, the aws stand-in's record holds: the compute configuration and the
	// security group EKS makes for the cluster.
	rec, err := r.w.EKSRecord()
	if err != nil {
		t.Fatal(err)
	}
	cc, clusterSG := rec.Clusters[name].ComputeConfig, rec.Clusters[name].ClusterSecurityGroupID
	if cc["enabled"] != true || !strings.Contains(str(cc["nodeRoleArn"]), ":role/cluster-nodeRole-role-") ||
		!reflect.DeepEqual(cc["nodePools"], []any{"general-purpose", "system"}) || clusterSG == "" {
		t.Errorf("cluster %s: computeConfig %v, security group %q; want Auto Mode with pulumi-eks's node role (cluster-nodeRole-role-…) "+
			"and EKS's two pools, and the security group EKS made", name, cc, clusterSG)
	}
	groups, err := ec2.NewFromConfig(r.w.AWS).DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range groups.SecurityGroups {
		if strings.HasPrefix(aws.ToString(g.GroupName), "cluster-") {
			t.Errorf("security group %s (%s) was created: pulumi-eks makes none in Auto Mode", aws.ToString(g.GroupName), aws.ToString(g.GroupId))
		}
	}

	// The classes: the node role, the security group EKS made, the awsx VPC's private subnets.
	subnets := r.discoverySubnets(t, name)
	for _, class := range []string{"gpu", "spot"} {
		obj, err := r.w.Cluster.Dynamic.Resource(nodeClassGVR).Get(ctx, class, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("NodeClass %s: %v", class, err)
		}
		role, _, _ := unstructured.NestedString(obj.Object, "spec", "role")
		sgTerms, _, _ := unstructured.NestedSlice(obj.Object, "spec", "securityGroupSelectorTerms")
		subnetTerms, _, _ := unstructured.NestedSlice(obj.Object, "spec", "subnetSelectorTerms")
		if role != str(outputs["nodeRoleName"]) || !reflect.DeepEqual(sgTerms, []any{map[string]any{"id": clusterSG}}) ||
			!reflect.DeepEqual(subnetTerms, []any{map[string]any{"tags": map[string]any{"karpenter.sh/discovery": name}}}) {
			t.Errorf("NodeClass %s: role %q, securityGroupSelectorTerms %v, subnetSelectorTerms %v; want role %v, the cluster security group %s, "+
				"the subnets tagged karpenter.sh/discovery=%s", class, role, sgTerms, subnetTerms, outputs["nodeRoleName"], clusterSG, name)
		}
	}
	// The node role's entry is an Auto Mode node's, beside pulumi-eks's instance role's.
	roleArn := "arn:aws:iam::123456789012:role/" + str(outputs["nodeRoleName"])
	entries := r.nodeAccessEntries(t, name)
	if entries[roleArn] != "EC2" || !slices.Contains(slices.Collect(maps.Values(entries)), "EC2_LINUX") || len(entries) != 2 {
		t.Errorf("access entries of cluster %s: %v, want an EC2 entry for the node role %s and pulumi-eks's EC2_LINUX one", name, entries, roleArn)
	}
	if rec, err = r.w.EKSRecord(); err != nil {
		t.Fatal(err)
	}
	if _, ok := rec.AccessPolicies[name+"#"+roleArn+"#"+autoNodePolicy]; !ok {
		t.Errorf("no %s association for the node role %s: %v", autoNodePolicy, roleArn, sortedKeys(rec.AccessPolicies))
	}
	t.Logf("up: Auto Mode cluster %s (its security group %s); classes on %d private subnets; access entries %v", name, clusterSG, len(subnets), entries)
}

// discoverySubnets are the subnets tagged karpenter.sh/discovery: cluster, which must be the awsx
// VPC's private ones (tagged by awsx, through the program's subnetSpecs).
func (r *snippetRun) discoverySubnets(t *testing.T, cluster string) []string {
	t.Helper()
	vpcs := r.programVPCs(t)
	if len(vpcs) != 1 || aws.ToString(vpcs[0].CidrBlock) != "10.0.0.0/16" {
		t.Fatalf("VPCs named %s: %v, want the awsx VPC (10.0.0.0/16, awsx's default)", programVPC, vpcs)
	}
	vpc := aws.ToString(vpcs[0].VpcId)
	tagged, err := ec2.NewFromConfig(r.w.AWS).DescribeSubnets(context.Background(), &ec2.DescribeSubnetsInput{
		Filters: []ec2types.Filter{{Name: aws.String("tag:karpenter.sh/discovery"), Values: []string{cluster}}}})
	if err != nil || len(tagged.Subnets) == 0 {
		t.Fatalf("subnets tagged karpenter.sh/discovery=%s: %v %v, want the awsx VPC's private subnets", cluster, tagged, err)
	}
	var ids []string
	for _, s := range tagged.Subnets {
		ids = append(ids, aws.ToString(s.SubnetId))
		if aws.ToString(s.VpcId) != vpc || aws.ToBool(s.MapPublicIpOnLaunch) || !strings.Contains(tag(s.Tags, "Name"), "private") {
			t.Errorf("subnet %s (%s, VPC %s) is tagged for discovery: want only the awsx VPC %s's private subnets", aws.ToString(s.SubnetId),
				tag(s.Tags, "Name"), aws.ToString(s.VpcId), vpc)
		}
	}
	return ids
}
