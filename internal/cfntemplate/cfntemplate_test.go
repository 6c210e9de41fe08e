package cfntemplate

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

// The copy is upstream's file, byte for byte.
func TestTheCopyIsUpstreams(t *testing.T) {
	sum := sha256.Sum256(GettingStartedV114)
	if got := hex.EncodeToString(sum[:]); got != GettingStartedV114SHA256 {
		t.Fatalf("templates/cfn-v1.14.yaml has sha256 %s, upstream's file %s: restore it from upstream", got, GettingStartedV114SHA256)
	}
}

var stack = Stack{Partition: "aws", Region: "us-west-2", AccountID: "123456789012", URLSuffix: "amazonaws.com",
	Parameters: map[string]string{"ClusterName": "demo"},
	Attributes: map[string]string{
		"KarpenterNodeRole.Arn":          "arn:aws:iam::123456789012:role/KarpenterNodeRole-demo",
		"KarpenterInterruptionQueue.Arn": "arn:aws:sqs:us-west-2:123456789012:demo",
		"KarpenterInterruptionQueue":     "https://sqs.us-west-2.amazonaws.com/123456789012/demo",
	}}

func TestTheV114TemplateEvaluates(t *testing.T) {
	tmpl, err := Parse(GettingStartedV114, stack)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(tmpl.OfType("AWS::IAM::ManagedPolicy")); got != 6 {
		t.Errorf("%d managed policies, want the six of the split layout", got)
	}
	if got := len(tmpl.OfType("AWS::Events::Rule")); got != 5 {
		t.Errorf("%d rules, want 5", got)
	}
	role := tmpl.Resources["KarpenterNodeRole"].Properties
	if role["RoleName"] != "KarpenterNodeRole-demo" {
		t.Errorf("RoleName %v", role["RoleName"])
	}
	doc := tmpl.Resources["IAMIntegrationPolicy"].Properties["PolicyDocument"].(string)
	if !strings.Contains(doc, `"Resource": "arn:aws:iam::123456789012:role/KarpenterNodeRole-demo"`) {
		t.Errorf("${KarpenterNodeRole.Arn} not substituted:\n%s", doc)
	}
	if strings.Contains(doc, "${") {
		t.Errorf("a variable left:\n%s", doc)
	}
	target := tmpl.Resources["ScheduledChangeRule"].Properties["Targets"].([]any)[0].(map[string]any)
	if target["Arn"] != "arn:aws:sqs:us-west-2:123456789012:demo" {
		t.Errorf("!GetAtt: target %v", target)
	}
}

// What the reader does not evaluate fails, naming it; so does a variable without a value.
func TestWhatIsNotEvaluatedFails(t *testing.T) {
	for text, want := range map[string]string{
		"Resources:\n  R:\n    Type: X\n    Properties:\n      A: !Join [\"\", [a]]\n":  "!Join is not evaluated",
		"Resources:\n  R:\n    Type: X\n    Properties:\n      A: !Sub \"${Nope}\"\n":     "no value for Nope",
		"Resources:\n  R:\n    Type: X\n    Properties:\n      A: {\"Fn::Sub\": \"x\"}\n": "Fn::Sub is not evaluated",
	} {
		if _, err := Parse([]byte(text), stack); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", text, err, want)
		}
	}
}
