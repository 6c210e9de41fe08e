//go:build e2e

package lab

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// TestTerraformKarpenterModuleEvaluates: terraform.go reads terraform-aws-modules' karpenter module
// (v21.19.0) as Terraform would with its README's arguments: the names its name_prefix and
// coalesce make, what count and for_each leave out, and the controller policy with the queue and
// node role it names.
func TestTerraformKarpenterModuleEvaluates(t *testing.T) {
	m, err := loadTerraformModule(terraformKarpenterModule, "terraform-aws-modules-karpenter", map[string]cty.Value{
		"cluster_name": cty.StringVal("c1"),
		"tags":         cty.MapVal(map[string]cty.Value{"Terraform": cty.StringVal("true")}),
	}, map[string]map[string]map[string]cty.Value{
		"aws_region":            {"current": {"region": cty.StringVal("us-west-2")}},
		"aws_partition":         {"current": {"partition": cty.StringVal("aws")}},
		"aws_caller_identity":   {"current": {"account_id": cty.StringVal("123456789012")}},
		"aws_service_principal": {"ec2": {"name": cty.StringVal("ec2.amazonaws.com")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	// What the policies read, as the world makes it first.
	m.made("aws_sqs_queue", "this", "", map[string]cty.Value{"arn": cty.StringVal("arn:aws:sqs:us-west-2:123456789012:Karpenter-c1")})
	m.made("aws_iam_role", "node", "", map[string]cty.Value{"name": cty.StringVal("Karpenter-c1-x"), "arn": cty.StringVal("arn:aws:iam::123456789012:role/Karpenter-c1-x")})
	arg := func(typ, name, key, arg string) string {
		t.Helper()
		in, err := m.instances(typ, name)
		if err != nil {
			t.Fatal(err)
		}
		for _, i := range in {
			if i.Key == key {
				return ctyString(i.Args[arg])
			}
		}
		t.Fatalf("%s.%s has no instance %q: %+v", typ, name, key, in)
		return ""
	}
	for _, c := range []struct{ typ, name, key, arg, want string }{
		{"aws_iam_role", "controller", "", "name_prefix", "KarpenterController-"},
		{"aws_iam_role", "controller", "", "description", "Karpenter controller IAM role"},
		{"aws_iam_policy", "controller", "", "name_prefix", "KarpenterController-"},
		{"aws_iam_role", "node", "", "name_prefix", "Karpenter-c1-"},
		{"aws_sqs_queue", "this", "", "name", "Karpenter-c1"},
		{"aws_cloudwatch_event_rule", "this", "spot_interrupt", "name_prefix", "KarpenterSpotInterrupt-"},
		{"aws_cloudwatch_event_rule", "this", "spot_interrupt", "event_pattern", `{"detail-type":["EC2 Spot Instance Interruption Warning"],"source":["aws.ec2"]}`},
		{"aws_iam_role_policy_attachment", "node", "AmazonEKS_CNI_Policy", "policy_arn", "arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy"},
		{"aws_eks_access_entry", "node", "", "type", "EC2_LINUX"},
	} {
		if got := arg(c.typ, c.name, c.key, c.arg); got != c.want {
			t.Errorf("%s.%s[%q].%s = %q, want %q", c.typ, c.name, c.key, c.arg, got, c.want)
		}
	}
	for _, res := range [][2]string{{"aws_iam_instance_profile", "this"}, {"aws_iam_role_policy", "controller"}, {"aws_iam_role_policy_attachment", "node_additional"}} {
		if in, err := m.instances(res[0], res[1]); err != nil || len(in) != 0 {
			t.Errorf("%s.%s: %d instances (%v), want none with the README's arguments", res[0], res[1], len(in), err)
		}
	}
	if in, _ := m.instances("aws_cloudwatch_event_rule", "this"); len(in) != 5 {
		t.Errorf("%d rules, want the module's five", len(in))
	}

	// The controller policy names the queue and node role the module made.
	doc, err := m.policyDocument("controller")
	if err != nil {
		t.Fatal(err)
	}
	var policy struct {
		Statement []struct {
			Sid       string
			Effect    string
			Resource  any
			Condition map[string]map[string]any
		}
	}
	if err := json.Unmarshal([]byte(doc), &policy); err != nil {
		t.Fatal(err)
	}
	var sids []string
	for _, s := range policy.Statement {
		sids = append(sids, s.Sid)
		switch s.Sid {
		case "AllowInterruptionQueueActions":
			if s.Resource != "arn:aws:sqs:us-west-2:123456789012:Karpenter-c1" {
				t.Errorf("%s on %v, want the queue", s.Sid, s.Resource)
			}
		case "AllowPassingInstanceRole":
			if s.Resource != "arn:aws:iam::123456789012:role/Karpenter-c1-x" || s.Condition["StringEquals"]["iam:PassedToService"] != "ec2.amazonaws.com" {
				t.Errorf("%s: %v %v, want the node role, passed to EC2", s.Sid, s.Resource, s.Condition)
			}
		case "AllowSSMReadActions":
			if s.Resource != "arn:aws:ssm:us-west-2::parameter/aws/service/*" {
				t.Errorf("%s on %v, want AWS's public parameters (coalescelist of an empty list)", s.Sid, s.Resource)
			}
		}
		if s.Effect != "Allow" {
			t.Errorf("%s: effect %s", s.Sid, s.Effect)
		}
	}
	for _, want := range []string{"AllowScopedEC2InstanceAccessActions", "AllowInterruptionQueueActions", "AllowPassingInstanceRole", "AllowAPIServerEndpointDiscovery"} {
		if !slices.Contains(sids, want) {
			t.Errorf("no statement %s in %s", want, strings.Join(sids, ", "))
		}
	}
}
