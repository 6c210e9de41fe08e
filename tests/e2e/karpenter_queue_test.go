//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	ebtypes "github.com/aws/aws-sdk-go-v2/service/eventbridge/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/lab"
)

// putEvent puts an event on the default bus, as AWS emits it there, and checks what SQS would
// check before taking each delivery of it: the component's queue policy, as a resource policy,
// lets EventBridge (events.amazonaws.com) send it to the queue from every rule of the stack that
// matches it (aws:SourceArn the rule, aws:SourceAccount the account, over TLS). moto's EventBridge
// delivers whatever the policy says. It returns the rules that matched. The bite: the same
// deliveries under the policy with its service principal changed to sns.amazonaws.com are denied.
func putEvent(t *testing.T, w *karpenterWorld, queueName string, entry ebtypes.PutEventsRequestEntry) []string {
	t.Helper()
	ctx := context.Background()
	policy, queueArn := queuePolicy(t, w, queueName)
	rules := matchingRules(t, w, queueArn, entry)
	if len(rules) == 0 {
		t.Fatalf("no rule delivering to %s matches the event %s/%s", queueArn, aws.ToString(entry.Source), aws.ToString(entry.DetailType))
	}
	deliveries := func(policy map[string]any) []string {
		var reqs []lab.IAMRequest
		for i, rule := range rules {
			reqs = append(reqs, lab.IAMRequest{ID: i, Action: "sqs:SendMessage", Resource: queueArn, Context: map[string]any{
				"aws:SourceArn": rule, "aws:SourceAccount": lab.MotoAccount, "aws:SecureTransport": "true"}})
		}
		results, err := lab.SimulateWithResourcePolicy("events.amazonaws.com", nil, policy, reqs)
		if err != nil {
			t.Fatal(err)
		}
		var denied []string
		for _, r := range results {
			if r.Result != "Allowed" {
				denied = append(denied, fmt.Sprintf("sqs:SendMessage by events.amazonaws.com from %s to %s: %s %s %v", rules[r.ID], queueArn, r.Result, r.Errors, r.Candidates))
			}
		}
		return denied
	}
	for _, d := range deliveries(policy) {
		t.Errorf("the queue policy refuses a delivery: %s", d)
	}
	b, _ := json.Marshal(policy)
	var changed map[string]any
	_ = json.Unmarshal([]byte(strings.ReplaceAll(string(b), `"events.amazonaws.com"`, `"sns.amazonaws.com"`)), &changed)
	if denied := deliveries(changed); len(denied) != len(rules) {
		t.Errorf("with the principal changed to sns.amazonaws.com, %d of %d deliveries denied: the check does not bite", len(denied), len(rules))
	}
	res, err := eventbridge.NewFromConfig(w.AWS).PutEvents(ctx, &eventbridge.PutEventsInput{Entries: []ebtypes.PutEventsRequestEntry{entry}})
	if err != nil || res.FailedEntryCount != 0 {
		t.Fatalf("PutEvents: %v %+v", err, res)
	}
	return rules
}

// queuePolicy is the queue's policy as moto holds it, and the queue's ARN.
func queuePolicy(t *testing.T, w *karpenterWorld, name string) (map[string]any, string) {
	t.Helper()
	ctx := context.Background()
	sq := sqs.NewFromConfig(w.AWS)
	u, err := sq.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	attrs, err := sq.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: u.QueueUrl, AttributeNames: []sqstypes.QueueAttributeName{"Policy", "QueueArn"}})
	if err != nil {
		t.Fatal(err)
	}
	var policy map[string]any
	if err := json.Unmarshal([]byte(attrs.Attributes["Policy"]), &policy); err != nil {
		t.Fatalf("queue %s has no policy (%q): %v", name, attrs.Attributes["Policy"], err)
	}
	return policy, attrs.Attributes["QueueArn"]
}

// matchingRules are the ARNs of the default bus's rules that target the queue and whose pattern
// matches the event (lab.PatternMatches: moto 5.2.5 has no TestEventPattern).
func matchingRules(t *testing.T, w *karpenterWorld, queueArn string, entry ebtypes.PutEventsRequestEntry) []string {
	t.Helper()
	ctx := context.Background()
	eb := eventbridge.NewFromConfig(w.AWS)
	var detail map[string]any
	if err := json.Unmarshal([]byte(aws.ToString(entry.Detail)), &detail); err != nil {
		t.Fatal(err)
	}
	event := map[string]any{
		"id": "7bf73129-1428-4cd3-a780-95db273d1602", "version": "0", "account": lab.MotoAccount, "region": lab.Region,
		"time": time.Now().UTC().Format(time.RFC3339), "source": aws.ToString(entry.Source), "detail-type": aws.ToString(entry.DetailType),
		"resources": entry.Resources, "detail": detail,
	}
	// As JSON decodes it (lists as []any), the form the pattern is matched on.
	b, _ := json.Marshal(event)
	_ = json.Unmarshal(b, &event)
	rules, err := eb.ListRules(ctx, &eventbridge.ListRulesInput{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rules.Rules {
		targets, err := eb.ListTargetsByRule(ctx, &eventbridge.ListTargetsByRuleInput{Rule: r.Name})
		if err != nil {
			t.Fatal(err)
		}
		var toQueue bool
		for _, tg := range targets.Targets {
			toQueue = toQueue || aws.ToString(tg.Arn) == queueArn
		}
		if !toQueue || r.EventPattern == nil {
			continue
		}
		var pattern map[string]any
		if err := json.Unmarshal([]byte(aws.ToString(r.EventPattern)), &pattern); err != nil {
			t.Fatalf("rule %s: pattern: %v", aws.ToString(r.Name), err)
		}
		ok, err := lab.PatternMatches(pattern, event)
		if err != nil {
			t.Fatalf("rule %s: %v", aws.ToString(r.Name), err)
		}
		if ok {
			out = append(out, aws.ToString(r.Arn))
		}
	}
	return out
}
