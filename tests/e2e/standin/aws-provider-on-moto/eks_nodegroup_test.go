//go:build e2e

package main

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

const tNodeGroup = "aws:eks/nodeGroup:NodeGroup"

// TestNodeGroup: a managed node group in moto's EKS, at its cluster's version, named
// terraform's way when the program names it not; scaling updates in place
// (UpdateNodegroupConfig), its instance types replace it, a version update is refused (moto has
// no UpdateNodegroupVersion); deleted, moto no longer has it.
func TestNodeGroup(t *testing.T) {
	p := newPlugin(t, testSettings(t))
	cluster := createTestCluster(t, p, "ng", pmap{"name": sv(unique(t, "ng"))})
	role := p.create(t, tRole, "nodes", pmap{"name": sv(unique(t, "nodes")), "assumeRolePolicy": sv(trust("ec2.amazonaws.com"))})
	scaling := func(n int) resource.PropertyValue {
		return resource.NewObjectProperty(pmap{"desiredSize": nv(n), "minSize": nv(n), "maxSize": nv(n)})
	}
	in := pmap{
		"clusterName": sv(cluster.id), "nodeRoleArn": role.outputs["arn"], "instanceTypes": listValue([]string{"t3.medium"}),
		"subnetIds": obj(cluster.outputs["vpcConfig"])["subnetIds"], "scalingConfig": scaling(2),
	}
	ng := p.create(t, tNodeGroup, "system", in)
	name := str(ng.outputs, "nodeGroupName")
	if ng.id != cluster.id+":"+name || !strings.HasPrefix(name, "terraform-") || str(ng.outputs, "status") != "ACTIVE" ||
		str(ng.outputs, "version") != str(cluster.outputs, "version") || intOr(ng.outputs, "diskSize", 0) != 20 {
		t.Errorf("node group id %q outputs %v; want <cluster>:terraform-…, ACTIVE, the cluster's version %s, 20 GiB", ng.id, ng.outputs, str(cluster.outputs, "version"))
	}

	news := ng.inputs.Copy()
	news["scalingConfig"] = scaling(3)
	if d := p.diff(t, ng, p.check(t, tNodeGroup, "system", news, ng.inputs)); len(d.GetReplaces()) != 0 {
		t.Errorf("a scaling change replaces: %v", d.GetReplaces())
	}
	ng = p.update(t, ng, news)
	got, err := moto().eks.DescribeNodegroup(context.Background(), &eks.DescribeNodegroupInput{ClusterName: aws.String(cluster.id), NodegroupName: aws.String(name)})
	if err != nil || aws.ToInt32(got.Nodegroup.ScalingConfig.DesiredSize) != 3 {
		t.Errorf("moto's node group after the update: %v %v", got, err)
	}
	news = ng.inputs.Copy()
	news["instanceTypes"] = listValue([]string{"m5.large"})
	if d := p.diff(t, ng, p.check(t, tNodeGroup, "system", news, ng.inputs)); len(d.GetReplaces()) != 1 || d.GetReplaces()[0] != "instanceTypes" {
		t.Errorf("an instance type change: replaces %v, want instanceTypes", d.GetReplaces())
	}
	news = ng.inputs.Copy()
	news["version"] = sv("1.34")
	_, err = p.Update(context.Background(), &pulumirpc.UpdateRequest{Id: ng.id, Urn: ng.urn, Name: ng.name, Type: ng.typ,
		Olds: mustMarshal(t, ng.outputs), OldInputs: mustMarshal(t, ng.inputs), News: mustMarshal(t, p.check(t, tNodeGroup, "system", news, ng.inputs))})
	if !strings.Contains(errText(err), "UpdateNodegroupVersion is not implemented by moto") {
		t.Errorf("a version update: %v", err)
	}

	if err := p.tryDelete(ng); err != nil {
		t.Fatal(err)
	}
	if _, err := moto().eks.DescribeNodegroup(context.Background(), &eks.DescribeNodegroupInput{ClusterName: aws.String(cluster.id), NodegroupName: aws.String(name)}); !isNotFound(err) {
		t.Errorf("moto's node group after the delete: %v", err)
	}
}
