//go:build e2e

package main

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

const (
	tQueue       = "aws:sqs/queue:Queue"
	tQueuePolicy = "aws:sqs/queuePolicy:QueuePolicy"
	tRule        = "aws:cloudwatch/eventRule:EventRule"
	tTarget      = "aws:cloudwatch/eventTarget:EventTarget"
	tTag         = "aws:ec2/tag:Tag"
)

func queueAttrs(t *testing.T, u string) map[string]string {
	t.Helper()
	out, err := moto().sqs.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{
		QueueUrl: aws.String(u), AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameAll},
	})
	if err != nil {
		t.Fatalf("GetQueueAttributes %s: %v", u, err)
	}
	return out.Attributes
}

// TestQueueAndPolicy creates the interruption queue and its policy as the component does
// (provider/children/interruption.go, provider/catalog/interruption.go), updates both, and deletes them.
func TestQueueAndPolicy(t *testing.T) {
	p := newPlugin(t, testSettings(t))
	name := unique(t, "interruption")
	q := p.create(t, tQueue, "interruption", pmap{
		"name": sv(name), "messageRetentionSeconds": nv(300), "sqsManagedSseEnabled": bv(true),
		"tags": mapValue(map[string]string{"team": "platform"}),
	})
	wantArn := "arn:aws:sqs:" + testRegion + ":" + testAccount + ":" + name
	if str(q.outputs, "arn") != wantArn || str(q.outputs, "name") != name || q.id != str(q.outputs, "url") ||
		!strings.HasSuffix(q.id, "/"+testAccount+"/"+name) {
		t.Fatalf("id %q outputs arn %q name %q url %q", q.id, str(q.outputs, "arn"), str(q.outputs, "name"), str(q.outputs, "url"))
	}
	attrs := queueAttrs(t, q.id)
	if attrs["MessageRetentionPeriod"] != "300" || attrs["SqsManagedSseEnabled"] != "true" {
		t.Errorf("moto attributes %v", attrs)
	}
	if n, _ := integer(q.outputs, "messageRetentionSeconds"); n != 300 {
		t.Errorf("messageRetentionSeconds output %d", n)
	}

	policy := `{"Version":"2012-10-17","Id":"EC2InterruptionPolicy","Statement":[{"Effect":"Allow","Principal":{"Service":["events.amazonaws.com","sqs.amazonaws.com"]},"Action":"sqs:SendMessage","Resource":"` + wantArn + `"}]}`
	qp := p.create(t, tQueuePolicy, "interruption-policy", pmap{"queueUrl": sv(q.id), "policy": sv(policy)})
	if qp.id != q.id || str(qp.outputs, "policy") != policy {
		t.Errorf("queue policy id %q policy %q", qp.id, str(qp.outputs, "policy"))
	}
	if !jsonEquivalent(queueAttrs(t, q.id)["Policy"], policy) {
		t.Errorf("moto policy %s", queueAttrs(t, q.id)["Policy"])
	}

	// Updates: the retention (SetQueueAttributes), the tags, the policy.
	news := q.inputs.Copy()
	news["messageRetentionSeconds"] = nv(600)
	news["tags"] = mapValue(map[string]string{"team": "infra"})
	q = p.update(t, q, news)
	if queueAttrs(t, q.id)["MessageRetentionPeriod"] != "600" {
		t.Errorf("retention not updated in moto")
	}
	tags, _ := moto().sqs.ListQueueTags(context.Background(), &sqs.ListQueueTagsInput{QueueUrl: aws.String(q.id)})
	if tags.Tags["team"] != "infra" {
		t.Errorf("moto tags %v", tags.Tags)
	}
	newPolicy := strings.Replace(policy, `"sqs:SendMessage"`, `["sqs:SendMessage","sqs:GetQueueUrl"]`, 1)
	pin := qp.inputs.Copy()
	pin["policy"] = sv(newPolicy)
	qp = p.update(t, qp, pin)
	if !jsonEquivalent(queueAttrs(t, q.id)["Policy"], newPolicy) {
		t.Errorf("policy not updated in moto")
	}
	// A new name or FIFO-ness replaces the queue; the URL replaces the policy.
	renamed := q.inputs.Copy()
	renamed["name"] = sv(name + "-2")
	if d := p.diff(t, q, p.check(t, tQueue, "interruption", renamed, q.inputs)); len(d.GetReplaces()) != 1 || !d.GetDeleteBeforeReplace() {
		t.Errorf("queue rename: %v dbr=%v", d.GetReplaces(), d.GetDeleteBeforeReplace())
	}
	moved := qp.inputs.Copy()
	moved["queueUrl"] = sv(q.id + "-other")
	if d := p.diff(t, qp, p.check(t, tQueuePolicy, "interruption-policy", moved, qp.inputs)); len(d.GetReplaces()) != 1 || d.GetReplaces()[0] != "queueUrl" {
		t.Errorf("queueUrl change: %v", d.GetReplaces())
	}

	p.delete(t, qp)
	if queueAttrs(t, q.id)["Policy"] != "" {
		t.Errorf("policy still set after Delete")
	}
	if resp, _, _ := p.read(t, qp); resp.GetId() != "" {
		t.Errorf("Read of a deleted queue policy: id %q", resp.GetId())
	}
	p.delete(t, q)
	if _, err := moto().sqs.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{QueueUrl: aws.String(q.id)}); !isNotFound(err) {
		t.Errorf("queue still in moto: %v", err)
	}
}

// TestRuleAndTarget creates an interruption rule and its target as the component does, shows
// that EventBridge refuses to delete a rule that still has targets, and updates both.
func TestRuleAndTarget(t *testing.T) {
	p := newPlugin(t, testSettings(t))
	q := p.create(t, tQueue, "q", pmap{"name": sv(unique(t, "q"))})
	ruleName := unique(t, "spot")
	pattern := `{"detail-type":["EC2 Spot Instance Interruption Warning"],"source":["aws.ec2"]}`
	rule := p.create(t, tRule, "spot-interruption", pmap{
		"name": sv(ruleName), "description": sv("spot"), "eventPattern": sv(pattern),
		"tags": mapValue(map[string]string{"team": "a"}),
	})
	if rule.id != ruleName || str(rule.outputs, "arn") != "arn:aws:events:"+testRegion+":"+testAccount+":rule/"+ruleName {
		t.Fatalf("rule id %q arn %q", rule.id, str(rule.outputs, "arn"))
	}
	if str(rule.outputs, "eventPattern") != pattern || str(rule.outputs, "eventBusName") != "default" || str(rule.outputs, "state") != "ENABLED" {
		t.Errorf("rule outputs %v", rule.outputs)
	}
	target := p.create(t, tTarget, "spot-interruption-target", pmap{
		"rule": sv(rule.id), "arn": sv(str(q.outputs, "arn")), "targetId": sv("KarpenterInterruptionQueueTarget"),
	})
	if target.id != ruleName+"-KarpenterInterruptionQueueTarget" {
		t.Errorf("target id %q, want terraform's <rule>-<targetId>", target.id)
	}

	err := p.tryDelete(rule)
	if err == nil || !strings.Contains(err.Error(), "Rule can't be deleted since it has targets") {
		t.Fatalf("deleting a rule with targets: want EventBridge's refusal, got %v", err)
	}

	news := rule.inputs.Copy()
	news["description"] = sv("spot, updated")
	news["eventPattern"] = sv(`{"source":["aws.ec2"],"detail-type":["EC2 Spot Instance Interruption Warning","EC2 Instance Rebalance Recommendation"]}`)
	rule = p.update(t, rule, news)
	got, err := moto().events.DescribeRule(context.Background(), &eventbridge.DescribeRuleInput{Name: aws.String(ruleName)})
	if err != nil || aws.ToString(got.Description) != "spot, updated" || !strings.Contains(aws.ToString(got.EventPattern), "Rebalance") {
		t.Errorf("rule after update: %+v %v", got, err)
	}

	q2 := p.create(t, tQueue, "q2", pmap{"name": sv(unique(t, "q2"))})
	tin := target.inputs.Copy()
	tin["arn"] = sv(str(q2.outputs, "arn"))
	target = p.update(t, target, tin)
	targets, _ := moto().events.ListTargetsByRule(context.Background(), &eventbridge.ListTargetsByRuleInput{Rule: aws.String(ruleName)})
	if len(targets.Targets) != 1 || aws.ToString(targets.Targets[0].Arn) != str(q2.outputs, "arn") {
		t.Errorf("moto targets %+v", targets.Targets)
	}
	tin["targetId"] = sv("Other")
	if d := p.diff(t, target, p.check(t, tTarget, "spot-interruption-target", tin, target.inputs)); len(d.GetReplaces()) != 1 || d.GetReplaces()[0] != "targetId" {
		t.Errorf("targetId change: %v", d.GetReplaces())
	}
	renamed := rule.inputs.Copy()
	renamed["name"] = sv(ruleName + "-2")
	if d := p.diff(t, rule, p.check(t, tRule, "spot-interruption", renamed, rule.inputs)); len(d.GetReplaces()) != 1 || d.GetReplaces()[0] != "name" {
		t.Errorf("rule rename: %v", d.GetReplaces())
	}

	p.delete(t, target)
	p.delete(t, rule)
	if _, err := moto().events.DescribeRule(context.Background(), &eventbridge.DescribeRuleInput{Name: aws.String(ruleName)}); !isNotFound(err) {
		t.Errorf("rule still in moto: %v", err)
	}
	p.delete(t, q)
	p.delete(t, q2)
}

// TestTargetGeneratedID: without a targetId, terraform generates one; reads and updates find
// the target by it.
func TestTargetGeneratedID(t *testing.T) {
	p := newPlugin(t, testSettings(t))
	rule := p.create(t, tRule, "r", pmap{"name": sv(unique(t, "r")), "scheduleExpression": sv("rate(5 minutes)")})
	target := p.create(t, tTarget, "t", pmap{"rule": sv(rule.id), "arn": sv("arn:aws:sqs:" + testRegion + ":" + testAccount + ":x")})
	tid := str(target.outputs, "targetId")
	if !strings.HasPrefix(tid, "terraform-") || target.id != rule.id+"-"+tid {
		t.Fatalf("generated targetId %q id %q", tid, target.id)
	}
	news := target.inputs.Copy()
	news["input"] = sv(`{"a":1}`)
	target = p.update(t, target, news)
	if str(target.outputs, "input") != `{"a":1}` || str(target.outputs, "targetId") != tid {
		t.Errorf("after update %v", target.outputs)
	}
	if resp, _, _ := p.read(t, target); resp.GetId() != target.id {
		t.Errorf("Read id %q", resp.GetId())
	}
	p.delete(t, target)
	p.delete(t, rule)
}

// createSubnet makes a VPC and a subnet in moto (EC2 refuses to tag what does not exist).
func createSubnet(t *testing.T) string {
	t.Helper()
	q := moto().ec2
	var vpc struct {
		ID string `xml:"vpc>vpcId"`
	}
	if err := q.call(context.Background(), "CreateVpc", url.Values{"CidrBlock": {"10.0.0.0/16"}}, &vpc); err != nil {
		t.Fatal(err)
	}
	var subnet struct {
		ID string `xml:"subnet>subnetId"`
	}
	if err := q.call(context.Background(), "CreateSubnet", url.Values{"VpcId": {vpc.ID}, "CidrBlock": {"10.0.1.0/24"}}, &subnet); err != nil {
		t.Fatal(err)
	}
	return subnet.ID
}

func TestEC2Tag(t *testing.T) {
	p := newPlugin(t, testSettings(t))
	subnet := createSubnet(t)
	tag := p.create(t, tTag, "discovery-subnet-0", pmap{"resourceId": sv(subnet), "key": sv("karpenter.sh/discovery"), "value": sv("prod")})
	if tag.id != subnet+",karpenter.sh/discovery" {
		t.Errorf("id %q", tag.id)
	}
	if v, ok, err := moto().ec2.tag(context.Background(), subnet, "karpenter.sh/discovery"); err != nil || !ok || v != "prod" {
		t.Fatalf("moto tag %q %v %v", v, ok, err)
	}
	news := tag.inputs.Copy()
	news["value"] = sv("staging")
	tag = p.update(t, tag, news)
	if v, _, _ := moto().ec2.tag(context.Background(), subnet, "karpenter.sh/discovery"); v != "staging" {
		t.Errorf("value after update %q", v)
	}
	news["key"] = sv("other")
	if d := p.diff(t, tag, p.check(t, tTag, "discovery-subnet-0", news, tag.inputs)); len(d.GetReplaces()) != 1 || d.GetReplaces()[0] != "key" {
		t.Errorf("key change: %v", d.GetReplaces())
	}
	p.delete(t, tag)
	if _, ok, _ := moto().ec2.tag(context.Background(), subnet, "karpenter.sh/discovery"); ok {
		t.Errorf("tag still in moto")
	}
	if resp, _, _ := p.read(t, tag); resp.GetId() != "" {
		t.Errorf("Read of a deleted tag: %q", resp.GetId())
	}
	// EC2 refuses to tag what does not exist; so does the stand-in.
	if _, err := p.tryCreate(t, tTag, "bad", pmap{"resourceId": sv("subnet-0123456789abcdef0"), "key": sv("k"), "value": sv("v")}); err == nil || !strings.Contains(err.Error(), "InvalidSubnetID.NotFound") {
		t.Errorf("tagging a missing subnet: %v", err)
	}
}
