//go:build e2e

package main

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/protobuf/types/known/emptypb"
)

// defaultVPC is moto's default VPC of the test region (every region has one, with a default
// subnet per zone), as pulumi-eks's getVpc({default: true}) finds it.
func defaultVPC(t *testing.T) string {
	t.Helper()
	vpcs, err := moto().ec2.describeVpcs(context.Background(), nil, []ec2Filter{{Name: "is-default", Values: []string{"true"}}})
	if err != nil || len(vpcs) != 1 {
		t.Fatalf("moto's default VPC: %v %v", vpcs, err)
	}
	return vpcs[0].VpcID
}

// permissions are a group's rules in moto, one "<ingress|egress> <protocol> <from>-<to> <source>"
// line per source, sorted.
func permissions(t *testing.T, id string) []string {
	t.Helper()
	g, err := moto().ec2.securityGroup(context.Background(), id)
	if err != nil || g == nil {
		t.Fatalf("security group %s in moto: %v %v", id, g, err)
	}
	var out []string
	for dir, perms := range map[string][]ec2Permission{"ingress": g.Ingress, "egress": g.Egress} {
		for _, p := range perms {
			ports := "all"
			if p.IPProtocol != "-1" && p.FromPort != nil && p.ToPort != nil {
				ports = strings.Join([]string{itoa(*p.FromPort), itoa(*p.ToPort)}, "-")
			}
			for _, r := range p.IPRanges {
				out = append(out, dir+" "+p.IPProtocol+" "+ports+" "+r.CidrIP+" "+r.Description)
			}
			for _, r := range p.Groups {
				src := r.GroupID
				if src == id {
					src = "self"
				}
				out = append(out, dir+" "+p.IPProtocol+" "+ports+" "+src+" "+r.Description)
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestSecurityGroupsAndRules: pulumi-eks's cluster and node security groups and their rules (the
// shapes cluster.ts and nodes/securitygroup.ts register) against moto's EC2.
func TestSecurityGroupsAndRules(t *testing.T) {
	p := newPlugin(t, testSettings(t))
	vpc := defaultVPC(t)
	const sgType, ruleType = "aws:ec2/securityGroup:SecurityGroup", "aws:ec2/securityGroupRule:SecurityGroupRule"

	// A preview: the auto-name and the defaults known, what EC2 computes unknown.
	in := p.check(t, sgType, "demo-eksClusterSecurityGroup", pmap{"vpcId": sv(vpc), "revokeRulesOnDelete": bv(true),
		"tags": mapValue(map[string]string{"Name": "demo-eksClusterSecurityGroup"})}, nil)
	if name := str(in, "name"); !strings.HasPrefix(name, "demo-eksClusterSecurityGroup-") {
		t.Errorf("auto-name %q", name)
	}
	pre := p.previewCreate(t, sgType, "demo-eksClusterSecurityGroup", in)
	if str(pre, "description") != "Managed by Pulumi" || !isUnknown(pre["arn"]) || !isUnknown(pre["id"]) {
		t.Errorf("preview: %v", pre)
	}

	cluster := p.create(t, sgType, "demo-eksClusterSecurityGroup", pmap{"vpcId": sv(vpc), "revokeRulesOnDelete": bv(true),
		"tags": mapValue(map[string]string{"Name": "demo-eksClusterSecurityGroup"})})
	node := p.create(t, sgType, "demo-nodeSecurityGroup", pmap{"vpcId": sv(vpc), "revokeRulesOnDelete": bv(true)})
	if !strings.HasPrefix(cluster.id, "sg-") || str(cluster.outputs, "vpcId") != vpc || str(cluster.outputs, "ownerId") != testAccount ||
		!strings.Contains(str(cluster.outputs, "arn"), ":security-group/"+cluster.id) || stringMap(cluster.outputs, "tags")["Name"] != "demo-eksClusterSecurityGroup" {
		t.Errorf("created group: %s %v", cluster.id, cluster.outputs)
	}
	// EC2's allow-all egress rule was revoked, as terraform does.
	if got := permissions(t, cluster.id); len(got) != 0 {
		t.Errorf("a new group has rules %q, want none", got)
	}

	rules := []*res{
		p.create(t, ruleType, "demo-eksClusterInternetEgressRule", pmap{"description": sv("Allow internet access."), "type": sv("egress"),
			"fromPort": nv(0), "toPort": nv(0), "protocol": sv("-1"), "cidrBlocks": listValue([]string{"0.0.0.0/0"}), "securityGroupId": sv(cluster.id)}),
		p.create(t, ruleType, "demo-eksNodeIngressRule", pmap{"description": sv("Allow nodes to communicate with each other"), "type": sv("ingress"),
			"fromPort": nv(0), "toPort": nv(0), "protocol": sv("-1"), "self": bv(true), "securityGroupId": sv(node.id)}),
		p.create(t, ruleType, "demo-eksNodeClusterIngressRule", pmap{"type": sv("ingress"), "fromPort": nv(1025), "toPort": nv(65535),
			"protocol": sv("tcp"), "securityGroupId": sv(node.id), "sourceSecurityGroupId": sv(cluster.id)}),
		p.create(t, ruleType, "demo-eksClusterIngressRule", pmap{"type": sv("ingress"), "fromPort": nv(443), "toPort": nv(443),
			"protocol": sv("tcp"), "securityGroupId": sv(cluster.id), "sourceSecurityGroupId": sv(node.id)}),
	}
	for _, r := range rules {
		if !strings.HasPrefix(r.id, "sgrule-") || !strings.HasPrefix(str(r.outputs, "securityGroupRuleId"), "sgr-") {
			t.Errorf("rule %s: id %s, outputs %v", r.name, r.id, r.outputs)
		}
	}
	if got, want := permissions(t, cluster.id), []string{"egress -1 all 0.0.0.0/0 Allow internet access.", "ingress tcp 443-443 " + node.id + " "}; !slices.Equal(got, want) {
		t.Errorf("cluster group rules %q, want %q", got, want)
	}
	if got, want := permissions(t, node.id), []string{"ingress -1 all self Allow nodes to communicate with each other", "ingress tcp 1025-65535 " + cluster.id + " "}; !slices.Equal(got, want) {
		t.Errorf("node group rules %q, want %q", got, want)
	}

	// Every attribute but the description replaces a rule; the description updates in place.
	if d := p.diff(t, rules[3], p.check(t, ruleType, rules[3].name, withKey(rules[3].inputs, "fromPort", nv(444)), rules[3].inputs)); !slices.Equal(d.GetReplaces(), []string{"fromPort"}) {
		t.Errorf("fromPort change: replaces %v", d.GetReplaces())
	}
	rules[3] = p.update(t, rules[3], withKey(rules[3].inputs, "description", sv("Allow pods to communicate with the cluster API Server")))
	if got := permissions(t, cluster.id); !slices.Contains(got, "ingress tcp 443-443 "+node.id+" Allow pods to communicate with the cluster API Server") {
		t.Errorf("after the description update: %q", got)
	}
	// Tags update in place.
	node = p.update(t, node, withKey(node.inputs, "tags", mapValue(map[string]string{"kubernetes.io/cluster/demo": "owned"})))
	// A tag another tool added (an aws:ec2/tag:Tag) is what EC2 holds: a refresh reads it into the
	// group's tags, and the next update removes it, as terraform does for tags absent from the
	// configuration (pulumi-aws, ec2.Tag: "a perpetual difference").
	if err := moto().ec2.createTags(context.Background(), node.id, "karpenter.sh/discovery", "demo"); err != nil {
		t.Fatal(err)
	}
	_, _, refreshed := p.read(t, node)
	if got := stringMap(refreshed, "tags"); got["karpenter.sh/discovery"] != "demo" || got["kubernetes.io/cluster/demo"] != "owned" {
		t.Errorf("refreshed tags %v: want EC2's, the outside tag included", got)
	}
	node.inputs = refreshed
	if d := p.diff(t, node, p.check(t, sgType, node.name, withKey(node.inputs, "tags", mapValue(map[string]string{"kubernetes.io/cluster/demo": "owned"})), node.inputs)); !slices.Equal(d.GetDiffs(), []string{"tags"}) {
		t.Errorf("the program's tags against the refreshed ones: diffs %v, want tags", d.GetDiffs())
	}
	node = p.update(t, node, withKey(node.inputs, "tags", mapValue(map[string]string{"kubernetes.io/cluster/demo": "owned"})))
	if v, ok, err := moto().ec2.tag(context.Background(), node.id, "karpenter.sh/discovery"); err != nil || ok {
		t.Errorf("after the owner's update the outside tag is still there (%q, %v)", v, err)
	}
	if stringMap(node.outputs, "tags")["kubernetes.io/cluster/demo"] != "owned" {
		t.Errorf("tags after update: %v", node.outputs["tags"])
	}

	// A rule revoked outside Pulumi is gone on refresh.
	if err := moto().ec2.call(context.Background(), "RevokeSecurityGroupIngress", ruleOf(rules[2].inputs).params(node.id), nil); err != nil {
		t.Fatal(err)
	}
	if resp, _, _ := p.read(t, rules[2]); resp.GetId() != "" {
		t.Errorf("a revoked rule still reads: %v", resp)
	}
	p.delete(t, rules[2]) // revoking what is gone succeeds

	// The cluster group is deleted with its rules (revokeRulesOnDelete), though the node group's
	// rule still names it... as long as that rule is deleted first, as the engine orders it.
	for _, r := range []*res{rules[0], rules[1], rules[3]} {
		p.delete(t, r)
	}
	p.delete(t, cluster)
	p.delete(t, node)
	for _, g := range []*res{cluster, node} {
		if got, err := moto().ec2.securityGroup(context.Background(), g.id); got != nil || err != nil {
			t.Errorf("group %s still in moto: %v %v", g.id, got, err)
		}
	}

	// Check refuses what terraform's schema refuses.
	for _, tc := range []struct {
		in   pmap
		want string
	}{
		{pmap{"type": sv("inbound"), "fromPort": nv(0), "toPort": nv(0), "protocol": sv("-1"), "self": bv(true), "securityGroupId": sv("sg-1")}, "expected type to be one of [egress ingress], got inbound"},
		{pmap{"type": sv("ingress"), "fromPort": nv(0), "toPort": nv(0), "protocol": sv("-1"), "self": bv(true), "cidrBlocks": listValue([]string{"10.0.0.0/8"}), "securityGroupId": sv("sg-1")}, "conflicts with self"},
		{pmap{"type": sv("ingress"), "fromPort": nv(0), "toPort": nv(0), "protocol": sv("-1"), "securityGroupId": sv("sg-1")}, `one of "cidrBlocks"`},
		{pmap{"type": sv("ingress"), "fromPort": nv(0), "toPort": nv(0), "protocol": sv("-1"), "cidrBlocks": listValue([]string{"10.0.0.1/8"}), "securityGroupId": sv("sg-1")}, "not a valid IPv4 CIDR"},
	} {
		_, failures := p.checkFailures(t, ruleType, "bad", tc.in, nil)
		if !strings.Contains(strings.Join(failures, "\n"), tc.want) {
			t.Errorf("Check %v: failures %q, want %q", tc.in, failures, tc.want)
		}
	}
	if _, failures := p.checkFailures(t, sgType, "bad", pmap{"ingress": resource.NewArrayProperty(nil)}, nil); len(failures) != 1 ||
		!strings.Contains(failures[0], `input "ingress" is not supported by the stand-in`) {
		t.Errorf("in-line rules: %q", failures)
	}
}

func withKey(m pmap, k string, v resource.PropertyValue) pmap {
	out := m.Copy()
	delete(out, defaultsKey)
	out[resource.PropertyKey(k)] = v
	return out
}

// TestAnswersAsV7: installed as 7.48.0 the stand-in answers as pulumi-aws 7.48.0 where the two
// differ for what it serves: its version, getRegion's `region`, and the `region` input of regional
// resources (IAM is global: none).
func TestAnswersAsV7(t *testing.T) {
	setVersion(awsV7)
	t.Cleanup(func() { setVersion(awsV6) })
	p := newPlugin(t, testSettings(t))
	if info, err := p.GetPluginInfo(context.Background(), &emptypb.Empty{}); err != nil || info.GetVersion() != "7.48.0+standin" {
		t.Errorf("GetPluginInfo = %v, %v", info, err)
	}
	resp, err := p.GetSchema(context.Background(), &pulumirpc.GetSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Version   string
		Resources map[string]struct{ InputProperties map[string]any }
		Functions map[string]struct {
			Outputs struct{ Properties map[string]any }
		}
	}
	if err := json.Unmarshal([]byte(resp.GetSchema()), &s); err != nil {
		t.Fatal(err)
	}
	if s.Version != "7.48.0" || s.Functions["aws:index/getRegion:getRegion"].Outputs.Properties["region"] == nil ||
		s.Resources["aws:sqs/queue:Queue"].InputProperties["region"] == nil || s.Resources["aws:iam/role:Role"].InputProperties["region"] != nil {
		t.Errorf("schema as 7.48.0: version %s, getRegion %v, queue region %v, role region %v", s.Version,
			s.Functions["aws:index/getRegion:getRegion"].Outputs.Properties, s.Resources["aws:sqs/queue:Queue"].InputProperties["region"],
			s.Resources["aws:iam/role:Role"].InputProperties["region"])
	}
	out, err := p.invoke(t, "aws:index/getRegion:getRegion", pmap{})
	if err != nil || str(out, "region") != testRegion || str(out, "name") != testRegion {
		t.Errorf("getRegion = %v, %v", out, err)
	}

	// The region input: unset, the provider's, in the preview and after create; another, refused.
	const sgType = "aws:ec2/securityGroup:SecurityGroup"
	in := p.check(t, sgType, "v7", pmap{"vpcId": sv(defaultVPC(t))}, nil)
	if pre := p.previewCreate(t, sgType, "v7", in); str(pre, "region") != testRegion {
		t.Errorf("preview region %v", pre["region"])
	}
	g := p.create(t, sgType, "v7", pmap{"vpcId": sv(defaultVPC(t)), "region": sv(testRegion)})
	if str(g.outputs, "region") != testRegion {
		t.Errorf("region output %v", g.outputs["region"])
	}
	p.delete(t, g)
	if _, failures := p.checkFailures(t, "aws:sqs/queue:Queue", "q", pmap{"region": sv("eu-west-1")}, nil); len(failures) != 1 ||
		!strings.Contains(failures[0], `region "eu-west-1": the stand-in for pulumi-aws 7.48.0 (test only) serves only its provider's region, us-west-2`) {
		t.Errorf("another region: %q", failures)
	}
	if _, failures := p.checkFailures(t, "aws:iam/role:Role", "r", pmap{"assumeRolePolicy": sv(trust("ec2.amazonaws.com")), "region": sv(testRegion)}, nil); len(failures) != 1 ||
		!strings.Contains(failures[0], `has no input "region" (pulumi-aws 7.48.0)`) {
		t.Errorf("region on a global (IAM) resource: %q", failures)
	}
}

// TestVersionFromPluginDirectory: the version is the plugin directory's (where `pulumi plugin
// install` puts it), STANDIN_AWS_VERSION overrides it, and another version is refused.
func TestVersionFromPluginDirectory(t *testing.T) {
	for _, tc := range []struct {
		env  []string
		want string
	}{
		{nil, "6.83.2"},
		{[]string{"STANDIN_AWS_VERSION=7.48.0"}, "7.48.0"},
		{[]string{"STANDIN_AWS_VERSION=6.83.0"}, "6.83.0"}, // com.pulumi:aws 6.83.0's (examples/java)
	} {
		out, err := runSelf(t, tc.env, "--version").Output()
		if err != nil || strings.TrimSpace(string(out)) != tc.want {
			t.Errorf("%v --version: %q, %v", tc.env, out, err)
		}
	}
	out, err := runSelf(t, []string{"STANDIN_AWS_VERSION=7.1.0"}, "--version").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "installed as aws 7.1.0 (STANDIN_AWS_VERSION): the pulumi-aws stand-in answers only as 6.83.2, 6.83.0 or 7.48.0") {
		t.Errorf("an unsupported version: %v %s", err, out)
	}
	for dir, want := range map[string]string{"resource-aws-v7.48.0": "7.48.0", "resource-aws-v6.83.2": "6.83.2", "bin": ""} {
		got := ""
		if m := pluginDirVersion.FindStringSubmatch(dir); m != nil {
			got = m[1]
		}
		if got != want {
			t.Errorf("plugin directory %s: version %q, want %q", dir, got, want)
		}
	}
}
