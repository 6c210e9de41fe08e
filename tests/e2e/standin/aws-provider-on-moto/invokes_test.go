//go:build e2e

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
)

// The read functions the component checks its inputs with, against moto and the record.

// keysOf are a result's field names, sorted.
func keysOf(m pmap) string {
	keys := sortedKeys(m.Mappable())
	return strings.Join(keys, " ")
}

// invokeErr is an invoke's error message ("" when it succeeded).
func invokeErr(t *testing.T, p *pluginProc, tok string, args pmap) string {
	t.Helper()
	_, err := p.invoke(t, tok, args)
	return errText(err)
}

func TestGetCluster(t *testing.T) {
	env := testSettings(t)
	env.eksEndpoint = "https://127.0.0.1:6443"
	p := newPlugin(t, env)
	c := createTestCluster(t, p, "read", pmap{
		"version":      sv("1.32"),
		"tags":         mapValue(map[string]string{"team": "platform"}),
		"accessConfig": resource.NewObjectProperty(pmap{"authenticationMode": sv("API_AND_CONFIG_MAP")}),
	})
	got, err := p.invoke(t, "aws:eks/getCluster:getCluster", pmap{"name": sv(c.id)})
	if err != nil {
		t.Fatal(err)
	}
	// pulumi-aws 6.83.2's GetClusterResult, field by field.
	const fields = "accessConfigs arn certificateAuthorities clusterId computeConfigs createdAt enabledClusterLogTypes endpoint id " +
		"identities kubernetesNetworkConfigs name outpostConfigs platformVersion remoteNetworkConfigs roleArn status " +
		"storageConfigs tags upgradePolicies version vpcConfig zonalShiftConfigs"
	if keysOf(got) != fields {
		t.Errorf("getCluster fields:\n %s\nwant\n %s", keysOf(got), fields)
	}
	for k, want := range map[string]string{
		"arn": str(c.outputs, "arn"), "endpoint": env.eksEndpoint, "id": c.id, "name": c.id, "version": "1.32",
		"status": "ACTIVE", "roleArn": str(c.outputs, "roleArn"), "clusterId": "", "createdAt": str(c.outputs, "createdAt"),
	} {
		if str(got, k) != want {
			t.Errorf("getCluster %s = %q, want %q", k, str(got, k), want)
		}
	}
	if ac := first(got["accessConfigs"]); str(ac, "authenticationMode") != "API_AND_CONFIG_MAP" || !boolOr(ac, "bootstrapClusterCreatorAdminPermissions", false) {
		t.Errorf("accessConfigs %v", got["accessConfigs"])
	}
	if str(first(first(got["identities"])["oidcs"]), "issuer") != str(first(first(c.outputs["identities"])["oidcs"]), "issuer") {
		t.Errorf("identities %v", got["identities"])
	}
	if vc := obj(got["vpcConfig"]); str(vc, "vpcId") != str(obj(c.outputs["vpcConfig"]), "vpcId") ||
		str(vc, "clusterSecurityGroupId") != str(obj(c.outputs["vpcConfig"]), "clusterSecurityGroupId") || len(stringList(vc, "subnetIds")) != 2 {
		t.Errorf("vpcConfig %v", vc)
	}
	if nc := first(got["kubernetesNetworkConfigs"]); str(nc, "serviceIpv4Cidr") != "172.20.0.0/16" || str(nc, "ipFamily") != "ipv4" || len(plain(nc["elasticLoadBalancings"]).ArrayValue()) != 0 {
		t.Errorf("kubernetesNetworkConfigs %v", got["kubernetesNetworkConfigs"])
	}
	for _, k := range []string{"computeConfigs", "storageConfigs", "outpostConfigs", "remoteNetworkConfigs", "zonalShiftConfigs"} {
		if v := plain(got[resource.PropertyKey(k)]); !v.IsArray() || len(v.ArrayValue()) != 0 {
			t.Errorf("%s = %v, want []", k, v)
		}
	}
	if str(first(got["upgradePolicies"]), "supportType") != "EXTENDED" || stringMap(got, "tags")["team"] != "platform" {
		t.Errorf("upgradePolicies %v tags %v", got["upgradePolicies"], got["tags"])
	}

	// terraform's data source: "reading EKS Cluster (<name>): couldn't find resource".
	if msg := invokeErr(t, p, "aws:eks/getCluster:getCluster", pmap{"name": sv("no-such-cluster")}); msg != "reading EKS Cluster (no-such-cluster): couldn't find resource" {
		t.Errorf("getCluster of a missing cluster: %q", msg)
	}

	// An EKS Auto Mode cluster.
	node := p.create(t, tRole, "auto-node", pmap{"name": sv(unique(t, "auto-node")), "assumeRolePolicy": sv(trust("ec2.amazonaws.com"))})
	t.Cleanup(func() { _ = p.tryDelete(node) })
	auto := createTestCluster(t, p, "auto", pmap{
		"accessConfig":               resource.NewObjectProperty(pmap{"authenticationMode": sv("API")}),
		"computeConfig":              resource.NewObjectProperty(pmap{"enabled": bv(true), "nodePools": listValue([]string{"general-purpose", "system"}), "nodeRoleArn": sv(str(node.outputs, "arn"))}),
		"kubernetesNetworkConfig":    resource.NewObjectProperty(pmap{"elasticLoadBalancing": resource.NewObjectProperty(pmap{"enabled": bv(true)})}),
		"storageConfig":              resource.NewObjectProperty(pmap{"blockStorage": resource.NewObjectProperty(pmap{"enabled": bv(true)})}),
		"bootstrapSelfManagedAddons": bv(false),
	})
	if cc := obj(auto.outputs["computeConfig"]); !boolOr(cc, "enabled", false) || str(cc, "nodeRoleArn") != str(node.outputs, "arn") {
		t.Errorf("Auto Mode cluster computeConfig output %v", cc)
	}
	got, err = p.invoke(t, "aws:eks/getCluster:getCluster", pmap{"name": sv(auto.id)})
	if err != nil {
		t.Fatal(err)
	}
	cc := first(got["computeConfigs"])
	if !boolOr(cc, "enabled", false) || strings.Join(stringList(cc, "nodePools"), ",") != "general-purpose,system" || str(cc, "nodeRoleArn") != str(node.outputs, "arn") ||
		!boolOr(first(first(got["kubernetesNetworkConfigs"])["elasticLoadBalancings"]), "enabled", false) ||
		!boolOr(first(first(got["storageConfigs"])["blockStorages"]), "enabled", false) {
		t.Errorf("Auto Mode getCluster: compute %v network %v storage %v", got["computeConfigs"], got["kubernetesNetworkConfigs"], got["storageConfigs"])
	}

	// A cluster only moto knows: what moto has, and the EKS API's default authentication mode.
	direct := unique(t, "direct")
	if _, err := moto().eks.CreateCluster(context.Background(), &eks.CreateClusterInput{
		Name: aws.String(direct), RoleArn: aws.String(str(c.outputs, "roleArn")), ResourcesVpcConfig: &ekstypes.VpcConfigRequest{}, Version: aws.String("1.33"),
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = moto().eks.DeleteCluster(context.Background(), &eks.DeleteClusterInput{Name: aws.String(direct)})
	})
	got, err = p.invoke(t, "aws:eks/getCluster:getCluster", pmap{"name": sv(direct)})
	if err != nil || str(got, "version") != "1.33" || str(first(got["accessConfigs"]), "authenticationMode") != "CONFIG_MAP" || str(got, "endpoint") == "" {
		t.Errorf("getCluster of a cluster only moto knows: %v %v", got, err)
	}
}

func TestGetOpenIdConnectProvider(t *testing.T) {
	p := newPlugin(t, testSettings(t))
	issuer := "https://oidc.eks.us-west-2.amazonaws.com/id/" + upperHex(32)
	oidc := p.create(t, "aws:iam/openIdConnectProvider:OpenIdConnectProvider", "oidc", pmap{
		"url": sv(issuer), "clientIdLists": listValue([]string{"sts.amazonaws.com"}), "thumbprintLists": listValue([]string{strings.Repeat("9", 40)}),
		"tags": mapValue(map[string]string{"cluster": "lab"}),
	})
	t.Cleanup(func() { _ = p.tryDelete(oidc) })
	arn := str(oidc.outputs, "arn")
	for _, args := range []pmap{{"arn": sv(arn)}, {"url": sv(issuer)}, {"url": sv(strings.TrimPrefix(issuer, "https://"))}} {
		got, err := p.invoke(t, "aws:iam/getOpenIdConnectProvider:getOpenIdConnectProvider", args)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if keysOf(got) != "arn clientIdLists id tags thumbprintLists url" || str(got, "arn") != arn || str(got, "id") != arn ||
			str(got, "url") != strings.TrimPrefix(issuer, "https://") || strings.Join(stringList(got, "clientIdLists"), ",") != "sts.amazonaws.com" ||
			len(stringList(got, "thumbprintLists")) != 1 || stringMap(got, "tags")["cluster"] != "lab" {
			t.Errorf("getOpenIdConnectProvider %v = %v", args, got)
		}
	}
	missing := "https://oidc.eks.us-west-2.amazonaws.com/id/" + strings.Repeat("0", 32)
	for args, want := range map[string]string{
		"arn:aws:iam::" + testAccount + ":oidc-provider/" + strings.TrimPrefix(missing, "https://"): "reading IAM OIDC Provider: couldn't find resource",
		missing: "reading IAM OIDC Provider (" + missing + "): couldn't find resource",
	} {
		key := "url"
		if strings.HasPrefix(args, "arn:") {
			key = "arn"
		}
		if msg := invokeErr(t, p, "aws:iam/getOpenIdConnectProvider:getOpenIdConnectProvider", pmap{resource.PropertyKey(key): sv(args)}); msg != want {
			t.Errorf("%s %s: %q, want %q", key, args, msg, want)
		}
	}
	if msg := invokeErr(t, p, "aws:iam/getOpenIdConnectProvider:getOpenIdConnectProvider", pmap{}); !strings.Contains(msg, "one of `arn,url` must be specified") {
		t.Errorf("neither arn nor url: %q", msg)
	}
}

func TestGetRole(t *testing.T) {
	p := newPlugin(t, testSettings(t))
	name := unique(t, "node")
	role := p.create(t, tRole, "node", pmap{"name": sv(name), "assumeRolePolicy": sv(trust("ec2.amazonaws.com")), "description": sv("nodes"),
		"tags": mapValue(map[string]string{"team": "a"})})
	t.Cleanup(func() { _ = p.tryDelete(role) })
	got, err := p.invoke(t, "aws:iam/getRole:getRole", pmap{"name": sv(name)})
	if err != nil {
		t.Fatal(err)
	}
	const fields = "arn assumeRolePolicy createDate description id maxSessionDuration name path permissionsBoundary roleLastUseds tags uniqueId"
	if keysOf(got) != fields || str(got, "arn") != str(role.outputs, "arn") || str(got, "id") != name || str(got, "description") != "nodes" ||
		!jsonEquivalent(str(got, "assumeRolePolicy"), trust("ec2.amazonaws.com")) || str(got, "uniqueId") != str(role.outputs, "uniqueId") ||
		str(got, "path") != "/" || stringMap(got, "tags")["team"] != "a" || str(got, "permissionsBoundary") != "" {
		t.Errorf("getRole = %v", got)
	}
	if n, _ := integer(got, "maxSessionDuration"); n != 3600 {
		t.Errorf("maxSessionDuration %v", got["maxSessionDuration"])
	}
	if msg := invokeErr(t, p, "aws:iam/getRole:getRole", pmap{"name": sv("no-such-role")}); msg != "reading IAM Role (no-such-role): couldn't find resource" {
		t.Errorf("getRole of a missing role: %q", msg)
	}
}

// TestAdoptionReads: the reads an adoption makes of the parts of a running install, found and not.
func TestAdoptionReads(t *testing.T) {
	p := newPlugin(t, testSettings(t))
	const document = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"ec2:DescribeImages","Resource":"*"}]}`
	policy := p.create(t, tPolicy, "controller-policy", pmap{"name": sv(unique(t, "pol")), "policy": sv(document)})
	t.Cleanup(func() { _ = p.tryDelete(policy) })
	got, err := p.invoke(t, "aws:iam/getPolicy:getPolicy", pmap{"arn": sv(policy.id)})
	if err != nil || str(got, "arn") != policy.id || str(got, "name") != str(policy.inputs, "name") || !jsonEquivalent(str(got, "policy"), document) {
		t.Errorf("getPolicy = %v, %v", got, err)
	}
	missing := "arn:aws:iam::" + testAccount + ":policy/no-such-policy"
	if msg := invokeErr(t, p, "aws:iam/getPolicy:getPolicy", pmap{"arn": sv(missing)}); msg != "reading IAM Policy ("+missing+"): couldn't find resource" {
		t.Errorf("getPolicy of a missing policy: %q", msg)
	}
	// By name, as the component reads it: the ARN carries the policy's path.
	pathed := p.create(t, tPolicy, "pathed-policy", pmap{"name": sv(unique(t, "pol")), "path": sv("/karpenter/"), "policy": sv(document)})
	t.Cleanup(func() { _ = p.tryDelete(pathed) })
	got, err = p.invoke(t, "aws:iam/getPolicy:getPolicy", pmap{"name": pathed.inputs["name"]})
	if err != nil || str(got, "arn") != pathed.id || !strings.Contains(pathed.id, ":policy/karpenter/") {
		t.Errorf("getPolicy by name = %v, %v (want the ARN %s)", got, err, pathed.id)
	}
	if msg := invokeErr(t, p, "aws:iam/getPolicy:getPolicy", pmap{"name": sv("no-such-policy")}); msg != "no matching IAM Policy found" {
		t.Errorf("getPolicy by the name of a missing policy: %q", msg)
	}

	queue := p.create(t, tQueue, "q", pmap{"name": sv(unique(t, "q"))})
	t.Cleanup(func() { _ = p.tryDelete(queue) })
	got, err = p.invoke(t, "aws:sqs/getQueue:getQueue", pmap{"name": queue.inputs["name"]})
	if err != nil || str(got, "url") != queue.id || str(got, "arn") != str(queue.outputs, "arn") {
		t.Errorf("getQueue = %v, %v", got, err)
	}
	if msg := invokeErr(t, p, "aws:sqs/getQueue:getQueue", pmap{"name": sv("no-such-queue")}); !strings.HasPrefix(msg, "reading SQS Queue (no-such-queue) URL: ") ||
		!regexp.MustCompile(`NonExistentQueue|QueueDoesNotExist`).MatchString(msg) {
		t.Errorf("getQueue of a missing queue: %q", msg)
	}

	role := p.create(t, tRole, "node", pmap{"name": sv(unique(t, "node")), "assumeRolePolicy": sv(trust("ec2.amazonaws.com"))})
	t.Cleanup(func() { _ = p.tryDelete(role) })
	cluster := createTestCluster(t, p, "adopted", pmap{"name": sv(unique(t, "adopted")),
		"accessConfig": resource.NewObjectProperty(pmap{"authenticationMode": sv("API")})}).id
	entryArgs := pmap{"clusterName": sv(cluster), "principalArn": role.outputs["arn"]}
	if msg := invokeErr(t, p, "aws:eks/getAccessEntry:getAccessEntry", entryArgs); msg != "reading EKS Access Entry ("+cluster+":"+str(role.outputs, "arn")+"): couldn't find resource" {
		t.Errorf("getAccessEntry before the entry: %q", msg)
	}
	entry := p.create(t, tAccessEntry, "node-access", pmap{"clusterName": sv(cluster), "principalArn": role.outputs["arn"], "type": sv("EC2_LINUX")})
	t.Cleanup(func() { _ = p.tryDelete(entry) })
	got, err = p.invoke(t, "aws:eks/getAccessEntry:getAccessEntry", entryArgs)
	if err != nil || str(got, "id") != entry.id || str(got, "type") != "EC2_LINUX" || str(got, "userName") != "system:node:{{EC2PrivateDNSName}}" {
		t.Errorf("getAccessEntry = %v, %v", got, err)
	}
}

// TestGetParameter reads the EKS optimized-AMI parameters tests/e2e/lab/moto/motoserver.py preloads.
func TestGetParameter(t *testing.T) {
	p := newPlugin(t, testSettings(t))
	name := "/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/recommended/image_id"
	const image = "ami-b112504511528ce03" // the table's image of that path
	got, err := p.invoke(t, "aws:ssm/getParameter:getParameter", pmap{"name": sv(name)})
	if err != nil {
		t.Fatal(err)
	}
	if keysOf(got) != "arn id insecureValue name type value version withDecryption" || str(got, "value") != image ||
		str(got, "insecureValue") != image || str(got, "type") != "String" || str(got, "id") != name || str(got, "name") != name ||
		str(got, "arn") != "arn:aws:ssm:"+testRegion+"::parameter"+name || !boolOr(got, "withDecryption", false) {
		t.Errorf("getParameter = %v", got)
	}
	al2 := "/aws/service/eks/optimized-ami/1.33/amazon-linux-2/recommended/image_id"
	if msg := invokeErr(t, p, "aws:ssm/getParameter:getParameter", pmap{"name": sv(al2)}); msg != "reading SSM Parameter ("+al2+"): couldn't find resource" {
		t.Errorf("getParameter of AL2 on 1.33: %q", msg)
	}
}

// TestEC2Reads: getSubnets, getSubnet, getSecurityGroups and getVpc against moto's EC2, with the
// filters the component uses.
func TestEC2Reads(t *testing.T) {
	p := newPlugin(t, testSettings(t))
	discovery := unique(t, "discovery")
	vpc, subnets := testNetwork(t, map[string]string{"karpenter.sh/discovery": discovery}, "us-west-2a", "us-west-2b")
	both := append([]string(nil), subnets...)
	sort.Strings(both) // getSubnets answers them in ID order
	ids := func(args pmap) []string {
		t.Helper()
		got, err := p.invoke(t, "aws:ec2/getSubnets:getSubnets", args)
		if err != nil {
			t.Fatalf("getSubnets %v: %v", args, err)
		}
		want := "id ids tags"
		if has(args, "filters") {
			want = "filters id ids tags"
		}
		if str(got, "id") != testRegion || keysOf(got) != want {
			t.Errorf("getSubnets %v: %v", args, got)
		}
		return stringList(got, "ids")
	}
	filter := func(name string, values ...string) resource.PropertyValue {
		return resource.NewObjectProperty(pmap{"name": sv(name), "values": listValue(values)})
	}
	filters := func(fs ...resource.PropertyValue) pmap { return pmap{"filters": resource.NewArrayProperty(fs)} }
	for what, tc := range map[string]struct {
		args pmap
		want []string
	}{
		"tag:<key>":                 {filters(filter("tag:karpenter.sh/discovery", discovery)), both},
		"tags":                      {pmap{"tags": mapValue(map[string]string{"karpenter.sh/discovery": discovery})}, both},
		"vpc-id, availability-zone": {filters(filter("vpc-id", vpc), filter("availability-zone", "us-west-2b")), subnets[1:]},
		"subnet-id":                 {filters(filter("subnet-id", subnets[0])), subnets[:1]},
		"tag-key, vpc-id":           {filters(filter("tag-key", "karpenter.sh/discovery"), filter("vpc-id", vpc)), both},
		"no match (not an error)":   {filters(filter("tag:karpenter.sh/discovery", "nothing")), nil},
	} {
		got := ids(tc.args)
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("getSubnets %s: %v, want %v", what, got, tc.want)
		}
	}
	if got, _ := p.invoke(t, "aws:ec2/getSubnets:getSubnets", filters(filter("tag:x", "nothing"))); got == nil || !plain(got["ids"]).IsArray() || len(plain(got["filters"]).ArrayValue()) != 1 {
		t.Errorf("getSubnets without a match: ids %v filters %v", got["ids"], got["filters"])
	}
	if msg := invokeErr(t, p, "aws:ec2/getSubnets:getSubnets", filters(filter("mapPublicIpOnLaunch", "true"))); !strings.Contains(msg, `filter "mapPublicIpOnLaunch": moto 5.2.5 does not implement it`) {
		t.Errorf("a filter moto lacks: %q", msg)
	}

	// getSubnet: one subnet, or an error.
	got, err := p.invoke(t, "aws:ec2/getSubnet:getSubnet", pmap{"id": sv(subnets[0])})
	if err != nil {
		t.Fatal(err)
	}
	const subnetFields = "arn assignIpv6AddressOnCreation availabilityZone availabilityZoneId availableIpAddressCount cidrBlock " +
		"customerOwnedIpv4Pool defaultForAz enableDns64 enableLniAtDeviceIndex enableResourceNameDnsARecordOnLaunch " +
		"enableResourceNameDnsAaaaRecordOnLaunch id ipv6CidrBlock ipv6CidrBlockAssociationId ipv6Native mapCustomerOwnedIpOnLaunch " +
		"mapPublicIpOnLaunch outpostArn ownerId privateDnsHostnameTypeOnLaunch state tags vpcId"
	if keysOf(got) != subnetFields || str(got, "vpcId") != vpc || str(got, "availabilityZone") != "us-west-2a" || str(got, "id") != subnets[0] ||
		str(got, "state") != "available" || !strings.HasSuffix(str(got, "arn"), ":subnet/"+subnets[0]) || str(got, "availabilityZoneId") == "" ||
		stringMap(got, "tags")["karpenter.sh/discovery"] != discovery || str(got, "ownerId") != testAccount {
		t.Errorf("getSubnet = %v", got)
	}
	byZoneID, err := p.invoke(t, "aws:ec2/getSubnet:getSubnet", pmap{"vpcId": sv(vpc), "availabilityZoneId": sv(str(got, "availabilityZoneId"))})
	if err != nil || str(byZoneID, "id") != subnets[0] {
		t.Errorf("getSubnet by vpcId and availabilityZoneId: %v %v", byZoneID, err)
	}
	for args, want := range map[string]pmap{
		"no matching EC2 Subnet found": {"id": sv("subnet-0123456789abcdef0")},
		"multiple EC2 Subnets matched; use additional constraints to reduce matches to a single EC2 Subnet": filters(filter("vpc-id", vpc)),
	} {
		if msg := invokeErr(t, p, "aws:ec2/getSubnet:getSubnet", want); msg != args {
			t.Errorf("getSubnet %v: %q, want %q", want, msg, args)
		}
	}
	if msg := invokeErr(t, p, "aws:ec2/getSubnet:getSubnet", pmap{"filters": resource.NewArrayProperty([]resource.PropertyValue{filter("vpc-id", "vpc-none")})}); msg != "no matching EC2 Subnet found" {
		t.Errorf("getSubnet by filters without a match: %q", msg)
	}

	// getSecurityGroups: the cluster security group EKS created, and the VPC's default group.
	c := createTestCluster(t, p, "sg", nil)
	sg, cvpc := str(obj(c.outputs["vpcConfig"]), "clusterSecurityGroupId"), str(obj(c.outputs["vpcConfig"]), "vpcId")
	groups := func(args pmap) ([]string, pmap) {
		t.Helper()
		got, err := p.invoke(t, "aws:ec2/getSecurityGroups:getSecurityGroups", args)
		if err != nil {
			t.Fatalf("getSecurityGroups %v: %v", args, err)
		}
		return stringList(got, "ids"), got
	}
	gotIDs, res := groups(filters(filter("tag:aws:eks:cluster-name", c.id)))
	if strings.Join(gotIDs, ",") != sg || strings.Join(stringList(res, "vpcIds"), ",") != cvpc || str(res, "id") != testRegion ||
		strings.Join(stringList(res, "arns"), ",") != "arn:aws:ec2:"+testRegion+":"+testAccount+":security-group/"+sg {
		t.Errorf("getSecurityGroups by the cluster tag: %v", res)
	}
	if keysOf(res) != "arns filters id ids tags vpcIds" {
		t.Errorf("getSecurityGroups fields %s", keysOf(res))
	}
	for what, args := range map[string]pmap{
		"group-id":           filters(filter("group-id", sg)),
		"group-name, vpc-id": filters(filter("group-name", "eks-cluster-sg-"+c.id+"-*"), filter("vpc-id", cvpc)),
		"tag-key":            filters(filter("tag-key", "kubernetes.io/cluster/"+c.id)),
		"tags":               {"tags": mapValue(map[string]string{"kubernetes.io/cluster/" + c.id: "owned"})},
	} {
		if got, _ := groups(args); strings.Join(got, ",") != sg {
			t.Errorf("getSecurityGroups %s: %v, want [%s]", what, got, sg)
		}
	}
	if got, _ := groups(filters(filter("vpc-id", cvpc))); len(got) != 2 || !contains(got, sg) {
		t.Errorf("getSecurityGroups of the cluster's VPC: %v, want the cluster's and the default group", got)
	}
	if got, res := groups(filters(filter("tag:aws:eks:cluster-name", "none"))); len(got) != 0 || len(stringList(res, "arns")) != 0 {
		t.Errorf("getSecurityGroups without a match: %v", res)
	}

	// getVpc: the region's default VPC (moto has one per region), by id, and the errors.
	def, err := p.invoke(t, "aws:ec2/getVpc:getVpc", pmap{"default": bv(true)})
	if err != nil {
		t.Fatal(err)
	}
	const vpcFields = "arn cidrBlock cidrBlockAssociations default dhcpOptionsId enableDnsHostnames enableDnsSupport " +
		"enableNetworkAddressUsageMetrics id instanceTenancy ipv6AssociationId ipv6CidrBlock mainRouteTableId ownerId state tags"
	if keysOf(def) != vpcFields || !boolOr(def, "default", false) || str(def, "cidrBlock") != "172.31.0.0/16" || !boolOr(def, "enableDnsSupport", false) ||
		str(def, "arn") != "arn:aws:ec2:"+testRegion+":"+testAccount+":vpc/"+str(def, "id") || !strings.HasPrefix(str(def, "mainRouteTableId"), "rtb-") ||
		str(first(def["cidrBlockAssociations"]), "cidrBlock") != "172.31.0.0/16" {
		t.Errorf("getVpc default = %v", def)
	}
	ours, err := p.invoke(t, "aws:ec2/getVpc:getVpc", pmap{"id": sv(vpc)})
	if err != nil || str(ours, "id") != vpc || boolOr(ours, "default", true) || !strings.HasSuffix(str(ours, "cidrBlock"), ".0.0/16") {
		t.Errorf("getVpc by id = %v %v", ours, err)
	}
	if msg := invokeErr(t, p, "aws:ec2/getVpc:getVpc", pmap{"id": sv("vpc-0123456789abcdef0")}); msg != "no matching EC2 VPC found" {
		t.Errorf("getVpc of a missing VPC: %q", msg)
	}
	if msg := invokeErr(t, p, "aws:ec2/getVpc:getVpc", pmap{"state": sv("available")}); msg != "multiple EC2 VPCs matched; use additional constraints to reduce matches to a single EC2 VPC" {
		t.Errorf("getVpc matching several: %q", msg)
	}
}

// TestLauncherParameters: tests/e2e/lab/moto/motoserver.py preloads every parameter of
// tests/e2e/lab/moto/eks-ami-parameters.json into moto's SSM (GetParameter reads them, in any
// region), AL2 only through 1.32, each naming an image of its own that moto's EC2 has (the table's
// images, added by the launcher), of the path's architecture.
func TestLauncherParameters(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot(), "tests", "e2e", "lab", "moto", "eks-ami-parameters.json"))
	if err != nil {
		t.Fatal(err)
	}
	var table struct {
		Comment    []string                               `json:"_comment"`
		Parameters []struct{ Name, Value, Type string }   `json:"parameters"`
		Images     []struct{ ImageId, Base, Name string } `json:"images"`
	}
	if err := json.Unmarshal(data, &table); err != nil || len(table.Comment) == 0 || !strings.Contains(strings.Join(table.Comment, " "), "stand-in") {
		t.Fatalf("the table: %v (%d comment lines)", err, len(table.Comment))
	}
	ctx := context.Background()
	kinds := map[string]int{}
	for _, param := range table.Parameters {
		got, err := moto().ssm.getParameter(ctx, param.Name, false)
		if err != nil || got.Value != param.Value || got.Type != "String" {
			t.Errorf("GetParameter %s: %+v %v", param.Name, got, err)
		}
		switch {
		case strings.Contains(param.Name, "/amazon-linux-2/"), strings.Contains(param.Name, "/amazon-linux-2-arm64/"):
			kinds["al2"]++
		case strings.Contains(param.Name, "/amazon-linux-2023/"):
			kinds["al2023"]++
		case strings.Contains(param.Name, "/bottlerocket/"):
			kinds["bottlerocket"]++
		case strings.Contains(param.Name, "Windows_Server-2022"):
			kinds["windows"]++
		}
	}
	if kinds["al2"] != 10 || kinds["al2023"] != 18 || kinds["bottlerocket"] != 18 || kinds["windows"] != 9 {
		t.Errorf("parameters by family %v, want AL2 1.28-1.32 (2 each), AL2023 and Bottlerocket 1.28-1.36 (2 each), Windows 1.28-1.36", kinds)
	}
	// Any region (moto loads the table into each region's store).
	eu := &jsonRPC{endpoint: motoEndpoint, region: "eu-west-1", creds: moto().ssm.creds, http: moto().ssm.http, signer: moto().ssm.signer, service: "ssm", target: "AmazonSSM", label: "SSM"}
	if got, err := eu.getParameter(ctx, "/aws/service/bottlerocket/aws-k8s-1.36/arm64/latest/image_id", false); err != nil || got.ARN != "arn:aws:ssm:eu-west-1::parameter/aws/service/bottlerocket/aws-k8s-1.36/arm64/latest/image_id" {
		t.Errorf("eu-west-1: %+v %v", got, err)
	}
	for _, k := range []string{"1.33", "1.36"} {
		name := "/aws/service/eks/optimized-ami/" + k + "/amazon-linux-2/recommended/image_id"
		if _, err := moto().ssm.getParameter(ctx, name, false); errorCode(err) != "ParameterNotFound" {
			t.Errorf("AL2 on %s: %v, want ParameterNotFound", k, err)
		}
	}
	// The AMIs exist in moto's EC2, of the path's architecture and platform.
	var images struct {
		Items []struct {
			ID           string `xml:"imageId"`
			Architecture string `xml:"architecture"`
			Platform     string `xml:"platform"`
		} `xml:"imagesSet>item"`
	}
	ids := url.Values{}
	seen := map[string]string{}
	for i, param := range table.Parameters {
		ids.Set(fmt.Sprintf("ImageId.%d", i+1), param.Value)
		if other, ok := seen[param.Value]; ok {
			t.Errorf("%s and %s name the same image %s: each path has its own, as on AWS", other, param.Name, param.Value)
		}
		seen[param.Value] = param.Name
	}
	if len(table.Images) != len(table.Parameters) {
		t.Errorf("%d images for %d parameters", len(table.Images), len(table.Parameters))
	}
	if err := moto().ec2.call(ctx, "DescribeImages", ids, &images); err != nil {
		t.Fatal(err)
	}
	arch := map[string]string{}
	for _, i := range images.Items {
		arch[i.ID] = i.Architecture + "/" + i.Platform
	}
	for _, param := range table.Parameters {
		want := regexp.MustCompile(`^x86_64/(Linux/UNIX)?$`) // moto names the platform of Linux AMIs; EC2 leaves it out
		switch {
		case strings.Contains(param.Name, "arm64"):
			want = regexp.MustCompile(`^arm64/(Linux/UNIX)?$`)
		case strings.Contains(param.Name, "Windows"):
			want = regexp.MustCompile(`^x86_64/windows$`)
		}
		if !want.MatchString(arch[param.Value]) {
			t.Errorf("%s: %s is %q in moto's EC2, want %s", param.Name, param.Value, arch[param.Value], want)
		}
	}
}
