package lab

import (
	"encoding/json"
	"testing"
)

func TestPatternMatches(t *testing.T) {
	event := map[string]any{}
	_ = json.Unmarshal([]byte(`{"source":"aws.ec2","detail-type":"EC2 Spot Instance Interruption Warning",
		"resources":["arn:aws:ec2:us-west-2:123456789012:instance/i-1"],"detail":{"instance-id":"i-1","state":"running"}}`), &event)
	for _, c := range []struct {
		pattern string
		want    bool
		err     bool
	}{
		{`{"source":["aws.ec2"],"detail-type":["EC2 Spot Instance Interruption Warning"]}`, true, false},
		{`{"source":["aws.health"],"detail-type":["EC2 Spot Instance Interruption Warning"]}`, false, false},
		{`{"source":["aws.ec2"],"detail-type":["EC2 Instance State-change Notification"]}`, false, false},
		{`{"detail":{"state":["stopping","running"]}}`, true, false},
		{`{"detail":{"state":["stopped"]}}`, false, false},
		{`{"resources":["arn:aws:ec2:us-west-2:123456789012:instance/i-1"]}`, true, false},
		{`{"source":[{"prefix":"aws."}]}`, false, true},
		{`{"source":"aws.ec2"}`, false, true},
	} {
		var p map[string]any
		if err := json.Unmarshal([]byte(c.pattern), &p); err != nil {
			t.Fatal(err)
		}
		got, err := PatternMatches(p, event)
		if got != c.want || (err != nil) != c.err {
			t.Errorf("%s: %v, %v; want %v, error %v", c.pattern, got, err, c.want, c.err)
		}
	}
}
