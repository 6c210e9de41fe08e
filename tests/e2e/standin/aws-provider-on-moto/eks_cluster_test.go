//go:build e2e

package main

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc/status"
)

const tCluster = "aws:eks/cluster:Cluster"

var networks atomic.Int32

// testNetwork makes a VPC in moto (10.<n>.0.0/16, n unique in the test binary) with a subnet in
// each of the given zones, tagged as the test says.
func testNetwork(t *testing.T, tags map[string]string, zones ...string) (vpc string, subnets []string) {
	t.Helper()
	n := 100 + networks.Add(1)
	q := moto().ec2
	var v struct {
		ID string `xml:"vpc>vpcId"`
	}
	if err := q.call(context.Background(), "CreateVpc", url.Values{"CidrBlock": {"10." + itoa(int(n)) + ".0.0/16"}}, &v); err != nil {
		t.Fatal(err)
	}
	for i, zone := range zones {
		params := url.Values{"VpcId": {v.ID}, "CidrBlock": {"10." + itoa(int(n)) + "." + itoa(i+1) + ".0/24"}, "AvailabilityZone": {zone}}
		j := 1
		for _, k := range sortedKeys(tags) {
			params.Set("TagSpecification.1.ResourceType", "subnet")
			params.Set("TagSpecification.1.Tag."+itoa(j)+".Key", k)
			params.Set("TagSpecification.1.Tag."+itoa(j)+".Value", tags[k])
			j++
		}
		var s struct {
			ID string `xml:"subnet>subnetId"`
		}
		if err := q.call(context.Background(), "CreateSubnet", params, &s); err != nil {
			t.Fatal(err)
		}
		subnets = append(subnets, s.ID)
	}
	return v.ID, subnets
}

func itoa(n int) string { return strconv.Itoa(n) }

// clusterRole creates the cluster's IAM role in moto, trusting EKS.
func clusterRole(t *testing.T, p *pluginProc) *res {
	t.Helper()
	r := p.create(t, tRole, "cluster-role", pmap{"name": sv(unique(t, "cluster")), "assumeRolePolicy": sv(trust("eks.amazonaws.com"))})
	t.Cleanup(func() { _ = p.tryDelete(r) })
	return r
}

// createTestCluster creates an EKS cluster through the stand-in: its role and a network in two
// zones, and the inputs given (which may name it); it is deleted when the test ends, if the test
// did not.
func createTestCluster(t *testing.T, p *pluginProc, logical string, extra pmap) *res {
	t.Helper()
	role := clusterRole(t, p)
	_, subnets := testNetwork(t, nil, "us-west-2a", "us-west-2b")
	in := pmap{
		"roleArn":   sv(str(role.outputs, "arn")),
		"vpcConfig": resource.NewObjectProperty(pmap{"subnetIds": listValue(subnets)}),
	}
	for k, v := range extra {
		in[k] = v
	}
	c := p.create(t, tCluster, logical, in)
	t.Cleanup(func() { _ = p.tryDelete(c) })
	return c
}

func describeCluster(t *testing.T, name string) (*eks.DescribeClusterOutput, error) {
	t.Helper()
	return moto().eks.DescribeCluster(context.Background(), &eks.DescribeClusterInput{Name: aws.String(name)})
}

func obj(v resource.PropertyValue) pmap { return objectOf(v) }

// errText is the message of an error the stand-in answered over gRPC ("" for none).
func errText(err error) string {
	if err == nil {
		return ""
	}
	if s, ok := status.FromError(err); ok {
		return s.Message()
	}
	return err.Error()
}

func first(v resource.PropertyValue) pmap {
	if v = plain(v); v.IsArray() && len(v.ArrayValue()) > 0 {
		return objectOf(v.ArrayValue()[0])
	}
	return pmap{}
}

// TestClusterLifecycle creates a cluster with EKS's defaults, reads it, updates what terraform
// updates in place, refuses what EKS refuses, and deletes it with what EKS deletes with it.
func TestClusterLifecycle(t *testing.T) {
	env := testSettings(t)
	env.eksEndpoint, env.eksCAData = "https://127.0.0.1:6443", "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg=="
	p := newPlugin(t, env)
	c := createTestCluster(t, p, "lab", pmap{"tags": mapValue(map[string]string{"team": "platform"})})
	name := c.id
	if !regexp.MustCompile(`^lab-[0-9a-f]{7}$`).MatchString(name) || str(c.outputs, "name") != name {
		t.Errorf("cluster name %q, want pulumi-aws's auto-name lab-<7 hex>", name)
	}
	o := c.outputs
	checks := map[string]string{
		"arn": "arn:aws:eks:" + testRegion + ":" + testAccount + ":cluster/" + name, "endpoint": env.eksEndpoint,
		"status": "ACTIVE", "version": defaultKubernetesVersion, "clusterId": "",
	}
	for k, want := range checks {
		if got := str(o, k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if str(obj(o["certificateAuthority"]), "data") != env.eksCAData || str(first(o["certificateAuthorities"]), "data") != env.eksCAData {
		t.Errorf("certificate authority %v %v", o["certificateAuthority"], o["certificateAuthorities"])
	}
	issuer := str(first(first(o["identities"])["oidcs"]), "issuer")
	if !regexp.MustCompile(`^https://oidc\.eks\.us-west-2\.amazonaws\.com/id/[0-9A-F]{32}$`).MatchString(issuer) {
		t.Errorf("OIDC issuer %q", issuer)
	}
	if _, err := time.Parse(time.RFC3339, str(o, "createdAt")); err != nil || str(o, "platformVersion") == "" {
		t.Errorf("createdAt %q platformVersion %q", str(o, "createdAt"), str(o, "platformVersion"))
	}
	if ac := obj(o["accessConfig"]); str(ac, "authenticationMode") != "CONFIG_MAP" || !boolOr(ac, "bootstrapClusterCreatorAdminPermissions", false) {
		t.Errorf("accessConfig %v, want EKS's defaults CONFIG_MAP and true", ac)
	}
	if nc := obj(o["kubernetesNetworkConfig"]); str(nc, "serviceIpv4Cidr") != "172.20.0.0/16" || str(nc, "ipFamily") != "ipv4" {
		t.Errorf("kubernetesNetworkConfig %v, want 172.20.0.0/16 for a VPC in 10.0.0.0/8", nc)
	}
	if str(obj(o["upgradePolicy"]), "supportType") != "EXTENDED" || !boolOr(o, "bootstrapSelfManagedAddons", false) {
		t.Errorf("upgradePolicy %v bootstrapSelfManagedAddons %v", o["upgradePolicy"], o["bootstrapSelfManagedAddons"])
	}
	if stringMap(o, "tagsAll")["team"] != "platform" {
		t.Errorf("tagsAll %v", o["tagsAll"])
	}
	vc := obj(o["vpcConfig"])
	sg := str(vc, "clusterSecurityGroupId")
	if !strings.HasPrefix(str(vc, "vpcId"), "vpc-") || !strings.HasPrefix(sg, "sg-") || !boolOr(vc, "endpointPublicAccess", false) ||
		boolOr(vc, "endpointPrivateAccess", true) || strings.Join(stringList(vc, "publicAccessCidrs"), ",") != "0.0.0.0/0" {
		t.Errorf("vpcConfig %v", vc)
	}
	// The cluster security group EKS creates, in moto's EC2.
	groups, err := moto().ec2.describeSecurityGroups(context.Background(), []string{sg}, nil)
	if err != nil || len(groups) != 1 {
		t.Fatalf("cluster security group %s in moto: %v %v", sg, groups, err)
	}
	tags := tagMap(groups[0].Tags)
	if !regexp.MustCompile(`^eks-cluster-sg-`+name+`-[0-9]{10}$`).MatchString(groups[0].GroupName) || groups[0].VpcID != str(vc, "vpcId") ||
		tags["aws:eks:cluster-name"] != name || tags["kubernetes.io/cluster/"+name] != "owned" || tags["Name"] != groups[0].GroupName {
		t.Errorf("cluster security group %+v", groups[0])
	}
	// moto's EKS has it (what the Karpenter controller reads).
	d, err := describeCluster(t, name)
	if err != nil || aws.ToString(d.Cluster.Version) != defaultKubernetesVersion || d.Cluster.Tags["team"] != "platform" ||
		aws.ToString(d.Cluster.KubernetesNetworkConfig.ServiceIpv4Cidr) != "172.20.0.0/16" {
		t.Fatalf("moto DescribeCluster: %+v %v", d, err)
	}

	// Read (a new plugin process) answers the same; a second pass has no changes.
	next := newPlugin(t, env)
	if _, outs, _ := next.read(t, c); str(outs, "endpoint") != env.eksEndpoint || str(first(first(outs["identities"])["oidcs"]), "issuer") != issuer {
		t.Errorf("read: %v", outs)
	}
	news := c.inputs.Copy()
	delete(news, defaultsKey)
	if d := next.diff(t, c, next.check(t, tCluster, "lab", news, c.inputs)); d.GetChanges() != pulumirpc.DiffResponse_DIFF_NONE {
		t.Errorf("second pass diff %v", d.GetDiffs())
	}

	// Create-only inputs replace the cluster.
	for key, v := range map[string]resource.PropertyValue{
		"bootstrapSelfManagedAddons": bv(false),
		"roleArn":                    sv("arn:aws:iam::" + testAccount + ":role/other"),
		"kubernetesNetworkConfig":    resource.NewObjectProperty(pmap{"ipFamily": sv("ipv6")}),
		"accessConfig":               resource.NewObjectProperty(pmap{"bootstrapClusterCreatorAdminPermissions": bv(false), "authenticationMode": sv("API")}),
	} {
		in := c.inputs.Copy()
		in[resource.PropertyKey(key)] = v
		if d := next.diff(t, c, next.check(t, tCluster, "lab", in, c.inputs)); len(d.GetReplaces()) != 1 || d.GetReplaces()[0] != key {
			t.Errorf("%s change: replaces %v, want [%s]", key, d.GetReplaces(), key)
		}
	}
	// The same service CIDR EKS computed, now written out: no change.
	in := c.inputs.Copy()
	in["kubernetesNetworkConfig"] = resource.NewObjectProperty(pmap{"serviceIpv4Cidr": sv("172.20.0.0/16")})
	if d := next.diff(t, c, next.check(t, tCluster, "lab", in, c.inputs)); d.GetChanges() != pulumirpc.DiffResponse_DIFF_NONE {
		t.Errorf("the computed service CIDR written out: %v", d.GetDiffs())
	}

	// A preview of an update keeps what EKS computed inside the blocks.
	in = c.inputs.Copy()
	in["tags"] = mapValue(map[string]string{"team": "infra"})
	if vc := obj(next.previewUpdate(t, c, in)["vpcConfig"]); str(vc, "vpcId") != str(obj(c.outputs["vpcConfig"]), "vpcId") || str(vc, "clusterSecurityGroupId") != sg {
		t.Errorf("preview of an update: vpcConfig %v", vc)
	}

	// In place: the version (one minor up), the tags, the endpoint access, the authentication mode
	// (CONFIG_MAP -> API_AND_CONFIG_MAP -> API only).
	in = c.inputs.Copy()
	in["version"] = sv("1.34")
	in["tags"] = mapValue(map[string]string{"team": "infra"})
	in["vpcConfig"] = resource.NewObjectProperty(obj(c.inputs["vpcConfig"]).Copy())
	obj(in["vpcConfig"])["endpointPrivateAccess"] = bv(true)
	in["accessConfig"] = resource.NewObjectProperty(pmap{"authenticationMode": sv("API_AND_CONFIG_MAP")})
	c = next.update(t, c, in)
	if str(c.outputs, "version") != "1.34" || stringMap(c.outputs, "tags")["team"] != "infra" ||
		!boolOr(obj(c.outputs["vpcConfig"]), "endpointPrivateAccess", false) || str(obj(c.outputs["accessConfig"]), "authenticationMode") != "API_AND_CONFIG_MAP" ||
		str(obj(c.outputs["vpcConfig"]), "clusterSecurityGroupId") != sg {
		t.Errorf("after the update: %v", c.outputs)
	}
	if d, _ := describeCluster(t, name); d.Cluster.Tags["team"] != "infra" || !d.Cluster.ResourcesVpcConfig.EndpointPrivateAccess {
		t.Errorf("moto after the update: tags %v vpc %+v", d.Cluster.Tags, d.Cluster.ResourcesVpcConfig)
	}
	refused := func(in pmap, want string) {
		t.Helper()
		checked := next.check(t, tCluster, "lab", in, c.inputs)
		_, err := next.Update(context.Background(), &pulumirpc.UpdateRequest{
			Id: c.id, Urn: c.urn, Name: c.name, Type: c.typ,
			Olds: mustMarshal(t, c.outputs), OldInputs: mustMarshal(t, c.inputs), News: mustMarshal(t, checked),
		})
		if !regexp.MustCompile(want).MatchString(errText(err)) {
			t.Errorf("update: %v, want an error matching %q", err, want)
		}
	}
	const awsErr = `operation error EKS: %s, https response error StatusCode: 400, RequestID: [0-9a-f-]{36}, InvalidParameterException: `
	in = c.inputs.Copy()
	in["version"] = sv("1.36")
	refused(in, `^updating EKS Cluster \(`+name+`\) version: `+strings.Replace(awsErr, "%s", "UpdateClusterVersion", 1)+`Unsupported Kubernetes minor version update from 1\.34 to 1\.36$`)
	in = c.inputs.Copy()
	in["accessConfig"] = resource.NewObjectProperty(pmap{"authenticationMode": sv("CONFIG_MAP")})
	refused(in, `^updating EKS Cluster \(`+name+`\) access configuration: `+strings.Replace(awsErr, "%s", "UpdateClusterConfig", 1)+`Unsupported authentication mode update from API_AND_CONFIG_MAP to CONFIG_MAP\.$`)
	in = c.inputs.Copy()
	in["accessConfig"] = resource.NewObjectProperty(pmap{"authenticationMode": sv("API")})
	c = next.update(t, c, in)
	if str(obj(c.outputs["accessConfig"]), "authenticationMode") != "API" {
		t.Errorf("authenticationMode after API_AND_CONFIG_MAP -> API: %v", c.outputs["accessConfig"])
	}

	// What EKS deletes with the cluster: its access entries, add-ons, pod identity associations
	// (and the cluster security group).
	node := next.create(t, tRole, "node", pmap{"name": sv(unique(t, "node")), "assumeRolePolicy": sv(trust("ec2.amazonaws.com"))})
	t.Cleanup(func() { _ = next.tryDelete(node) })
	entry := next.create(t, tAccessEntry, "node-access", pmap{"clusterName": sv(name), "principalArn": sv(str(node.outputs, "arn")), "type": sv("EC2_LINUX")})
	next.create(t, tAddon, "agent", pmap{"clusterName": sv(name), "addonName": sv("eks-pod-identity-agent")})
	next.create(t, tPodIdentity, "pia", pmap{"clusterName": sv(name), "namespace": sv("kube-system"), "serviceAccount": sv("karpenter"), "roleArn": sv(str(node.outputs, "arn"))})
	next.delete(t, c)
	if _, err := describeCluster(t, name); !isNotFound(err) {
		t.Errorf("cluster still in moto: %v", err)
	}
	if groups, err := moto().ec2.describeSecurityGroups(context.Background(), nil, []ec2Filter{{Name: "group-id", Values: []string{sg}}}); err != nil || len(groups) != 0 {
		t.Errorf("cluster security group left: %v %v", groups, err)
	}
	var rec eksRecord
	data, _ := os.ReadFile(filepath.Join(env.stateDir, "aws-eks.json"))
	if err := json.Unmarshal(data, &rec); err != nil || len(rec.Clusters)+len(rec.AccessEntries)+len(rec.Addons)+len(rec.PodIdentityAssociations) != 0 {
		t.Errorf("record after the cluster's delete: %s (%v)", data, err)
	}
	if resp, _, _ := next.read(t, entry); resp.GetId() != "" {
		t.Errorf("access entry still read after its cluster's delete")
	}
	if resp, _, _ := next.read(t, c); resp.GetId() != "" {
		t.Errorf("cluster still read after its delete")
	}
}

// TestClusterRefusals: what EKS refuses at CreateCluster, with its words after terraform's.
func TestClusterRefusals(t *testing.T) {
	p := newPlugin(t, testSettings(t))
	role := clusterRole(t, p)
	_, two := testNetwork(t, nil, "us-west-2a", "us-west-2b")
	_, oneZone := testNetwork(t, nil, "us-west-2a", "us-west-2a")
	const prefix = `^creating EKS Cluster \(%s\): operation error EKS: CreateCluster, https response error StatusCode: 400, RequestID: [0-9a-f-]{36}, InvalidParameterException: `
	for _, tc := range []struct {
		what string
		in   pmap
		want string
	}{
		{"a role that does not exist", pmap{"roleArn": sv("arn:aws:iam::" + testAccount + ":role/nope")},
			`roleArn, arn:aws:iam::123456789012:role/nope, does not exist$`},
		{"subnets in one zone", pmap{"vpcConfig": resource.NewObjectProperty(pmap{"subnetIds": listValue(oneZone)})},
			`Subnets specified must be in at least two different AZs$`},
		{"a subnet that does not exist", pmap{"vpcConfig": resource.NewObjectProperty(pmap{"subnetIds": listValue(append(two, "subnet-0123456789abcdef0"))})},
			`The subnet ID 'subnet-0123456789abcdef0' does not exist \(Service: AmazonEC2; Status Code: 400; Error Code: InvalidSubnetID.NotFound; Request ID: [0-9a-f-]{36}; Proxy: null\)$`},
		{"no admin for the creator with CONFIG_MAP", pmap{"accessConfig": resource.NewObjectProperty(pmap{"authenticationMode": sv("CONFIG_MAP"), "bootstrapClusterCreatorAdminPermissions": bv(false)})},
			`bootstrapClusterCreatorAdminPermissions must be true if cluster authentication mode is set to CONFIG_MAP$`},
		{"no admin for the creator with EKS's default mode", pmap{"accessConfig": resource.NewObjectProperty(pmap{"bootstrapClusterCreatorAdminPermissions": bv(false)})},
			`bootstrapClusterCreatorAdminPermissions must be true if cluster authentication mode is set to CONFIG_MAP$`},
	} {
		name := unique(t, "refused")
		in := pmap{"name": sv(name), "roleArn": sv(str(role.outputs, "arn")), "vpcConfig": resource.NewObjectProperty(pmap{"subnetIds": listValue(two)})}
		for k, v := range tc.in {
			in[k] = v
		}
		_, err := p.tryCreate(t, tCluster, "refused", in)
		if want := strings.Replace(prefix, "%s", name, 1) + tc.want; !regexp.MustCompile(want).MatchString(errText(err)) {
			t.Errorf("%s: %v, want %q", tc.what, err, want)
		}
		if _, err := describeCluster(t, name); !isNotFound(err) {
			t.Errorf("%s: the cluster exists in moto: %v", tc.what, err)
		}
	}
	// No admin for the creator is fine with the access-entry API; the name is then taken (moto's
	// ResourceInUseException).
	c := createTestCluster(t, p, "api", pmap{"accessConfig": resource.NewObjectProperty(pmap{"authenticationMode": sv("API"), "bootstrapClusterCreatorAdminPermissions": bv(false)})})
	if ac := obj(c.outputs["accessConfig"]); str(ac, "authenticationMode") != "API" || boolOr(ac, "bootstrapClusterCreatorAdminPermissions", true) {
		t.Errorf("accessConfig %v", ac)
	}
	in := c.inputs.Copy()
	delete(in, defaultsKey)
	if _, err := p.tryCreate(t, tCluster, "again", in); !strings.Contains(errText(err), "ResourceInUseException: Cluster already exists with name: "+c.id) {
		t.Errorf("a second cluster of the same name: %v", err)
	}
}

// TestClusterCheck: the inputs Check refuses, as terraform's schema does.
func TestClusterCheck(t *testing.T) {
	p := newPlugin(t, testSettings(t))
	base := func() pmap {
		return pmap{"roleArn": sv("arn:aws:iam::1:role/r"), "vpcConfig": resource.NewObjectProperty(pmap{"subnetIds": listValue([]string{"subnet-1", "subnet-2"})})}
	}
	for _, tc := range []struct {
		key  string
		v    resource.PropertyValue
		want string
	}{
		{"outpostConfig", resource.NewObjectProperty(pmap{}), `outpostConfig: aws:eks/cluster:Cluster input "outpostConfig" is not supported by the stand-in`},
		{"vpcConfig", resource.NewObjectProperty(pmap{"subnetIds": listValue([]string{"s"}), "vpcId": sv("vpc-1")}), `vpcConfig.vpcId: "vpcConfig.vpcId" is computed by the provider`},
		{"vpcConfig", resource.NewObjectProperty(pmap{"subnetIds": listValue([]string{"s"}), "subnetIDs": listValue(nil)}), `vpcConfig.subnetIDs: aws:eks/cluster:Cluster has no input "vpcConfig.subnetIDs"`},
		{"vpcConfig", resource.NewObjectProperty(pmap{}), `vpcConfig.subnetIds: Missing required argument`},
		{"accessConfig", resource.NewObjectProperty(pmap{"authenticationMode": sv("IAM")}), `expected accessConfig.authenticationMode to be one of [API API_AND_CONFIG_MAP CONFIG_MAP], got IAM`},
		{"name", sv("-bad"), `"name" must be 1 to 100 characters`},
		{"computeConfig", resource.NewObjectProperty(pmap{"enabled": bv(true)}), `compute_config.enabled, kubernetes_networking_config.elastic_load_balancing.enabled, and storage_config.block_storage.enabled must all be set to either true or false`},
		{"kubernetesNetworkConfig", resource.NewObjectProperty(pmap{"serviceIpv4Cidr": sv("10.0.0.0/8")}), `between 12 and 24 significant bits`},
	} {
		in := base()
		in[resource.PropertyKey(tc.key)] = tc.v
		_, failures := p.checkFailures(t, tCluster, "c", in, nil)
		if !strings.Contains(strings.Join(failures, "\n"), tc.want) {
			t.Errorf("%s %v: failures %q, want one containing %q", tc.key, tc.v, failures, tc.want)
		}
	}
	if _, failures := p.checkFailures(t, tCluster, "c", pmap{}, nil); !strings.Contains(strings.Join(failures, "\n"), "roleArn: Missing required argument") {
		t.Errorf("no inputs: %v", failures)
	}
	// EKS Auto Mode, all three on, passes.
	in := base()
	in["computeConfig"] = resource.NewObjectProperty(pmap{"enabled": bv(true), "nodePools": listValue([]string{"general-purpose", "system"})})
	in["kubernetesNetworkConfig"] = resource.NewObjectProperty(pmap{"elasticLoadBalancing": resource.NewObjectProperty(pmap{"enabled": bv(true)})})
	in["storageConfig"] = resource.NewObjectProperty(pmap{"blockStorage": resource.NewObjectProperty(pmap{"enabled": bv(true)})})
	if _, failures := p.checkFailures(t, tCluster, "c", in, nil); len(failures) > 0 {
		t.Errorf("Auto Mode: %v", failures)
	}
	// In a preview, a block not known yet (pulumi-eks's compute config waits for its node role)
	// is checked when it is known.
	in["computeConfig"] = resource.MakeComputed(sv(""))
	if _, failures := p.checkFailures(t, tCluster, "c", in, nil); len(failures) > 0 {
		t.Errorf("Auto Mode with the compute config unknown: %v", failures)
	}
}

// TestClusterPreview: a preview of a create calls nothing and answers unknowns for what EKS
// computes, inside the blocks too.
func TestClusterPreview(t *testing.T) {
	env := testSettings(t)
	p := newPlugin(t, env)
	in := p.check(t, tCluster, "lab", pmap{
		"roleArn":      resource.MakeComputed(sv("")),
		"vpcConfig":    resource.NewObjectProperty(pmap{"subnetIds": listValue([]string{"subnet-1", "subnet-2"})}),
		"accessConfig": resource.NewObjectProperty(pmap{"bootstrapClusterCreatorAdminPermissions": bv(true)}),
	}, nil)
	outs := p.previewCreate(t, tCluster, "lab", in)
	for _, k := range []string{"arn", "endpoint", "identities", "certificateAuthority", "version", "kubernetesNetworkConfig", "status"} {
		if !isUnknown(outs[resource.PropertyKey(k)]) {
			t.Errorf("preview %s = %v, want unknown", k, outs[resource.PropertyKey(k)])
		}
	}
	vc, ac := obj(outs["vpcConfig"]), obj(outs["accessConfig"])
	if !isUnknown(vc["vpcId"]) || !isUnknown(vc["clusterSecurityGroupId"]) || len(stringList(vc, "subnetIds")) != 2 || !boolOr(vc, "endpointPublicAccess", false) {
		t.Errorf("preview vpcConfig %v", vc)
	}
	if !isUnknown(ac["authenticationMode"]) || !boolOr(ac, "bootstrapClusterCreatorAdminPermissions", false) {
		t.Errorf("preview accessConfig %v", ac)
	}
	if !regexp.MustCompile(`^lab-[0-9a-f]{7}$`).MatchString(str(outs, "name")) {
		t.Errorf("preview name %v", outs["name"])
	}
	if _, err := describeCluster(t, str(outs, "name")); !isNotFound(err) {
		t.Errorf("a preview created the cluster: %v", err)
	}
	if len(opLines(t, env)) != 0 {
		t.Errorf("a preview was logged: %v", opLines(t, env))
	}
}
