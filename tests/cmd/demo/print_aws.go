package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/lab"
)

// The AWS side of the demo, printed: what moto holds and the stand-in's EKS record.

// printAWS is the AWS inventory: what moto holds (read with the AWS SDK, not through the
// stand-in), then the stand-in's EKS record.
func printAWS(w io.Writer, inv *lab.AWSInventory) {
	heading(w, "AWS (moto): IAM roles")
	for _, r := range inv.Roles {
		fmt.Fprintf(w, "%s\n", r.Name)
		for _, line := range statements("trust", r.AssumeRolePolicy)[1:] {
			fmt.Fprintf(w, "  trust%s\n", line)
		}
		for _, a := range r.AttachedPolicyArns {
			fmt.Fprintf(w, "  attached %s\n", shortArn(a))
		}
	}

	heading(w, "AWS (moto): customer-managed IAM policies")
	for _, p := range inv.Policies {
		fmt.Fprintf(w, "%s (default %s, attached %d)\n", p.Name, p.DefaultVersion, p.AttachmentCount)
		for _, line := range statements("  policy", p.Document) {
			fmt.Fprintf(w, "  %s\n", line)
		}
	}

	heading(w, "AWS (moto): instance profiles, OIDC providers")
	for _, p := range inv.InstanceProfiles {
		fmt.Fprintf(w, "instance profile %s: role %s\n", p.Name, strings.Join(p.Roles, ", "))
	}
	for _, p := range inv.OIDCProviders {
		fmt.Fprintf(w, "OIDC provider %s\n", p)
	}

	heading(w, "AWS (moto): SQS queues, EventBridge rules")
	for _, q := range inv.Queues {
		a := q.Attributes
		fmt.Fprintf(w, "queue %s: retention %ss, SSE %s\n", q.Name, a["MessageRetentionPeriod"], a["SqsManagedSseEnabled"])
		for _, line := range statements("policy", a["Policy"]) {
			fmt.Fprintf(w, "  %s\n", line)
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RULE\tPATTERN\tTARGET")
	for _, r := range inv.Rules {
		var targets []string
		for _, t := range r.Targets {
			targets = append(targets, t.ID+" -> "+shortArn(t.Arn))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Name, compact(decode(r.EventPattern), 90), strings.Join(targets, ", "))
	}
	tw.Flush()

	heading(w, "EKS (the aws stand-in's record: moto has no access entries, add-ons or pod identity)")
	none := true
	for _, l := range [][2]any{{"access entry", inv.AccessEntries}, {"add-on", inv.Addons}, {"pod identity association", inv.PodIdentityAssociations}} {
		for _, e := range l[1].([]string) {
			fmt.Fprintf(w, "%s %s\n", l[0], e)
			none = false
		}
	}
	if none {
		fmt.Fprintln(w, "(none)")
	}
}

// shortArn drops the partition and account of an ARN: arn:aws:iam::aws:policy/X -> iam::aws:policy/X.
func shortArn(arn string) string {
	if parts := strings.SplitN(arn, ":", 4); len(parts) == 4 && parts[0] == "arn" {
		return parts[2] + ":" + parts[3]
	}
	return arn
}

// statements renders an IAM policy document one statement per line, after a summary line.
func statements(label string, v any) []string {
	doc, ok := decode(v).(map[string]any)
	if !ok {
		return []string{label + ": " + compact(v, 100)}
	}
	var sts []any
	switch s := doc["Statement"].(type) {
	case []any:
		sts = s
	case map[string]any:
		sts = []any{s}
	}
	size := len(compact(doc, 1<<20))
	out := []string{fmt.Sprintf("%s: %d statements, %d characters", label, len(sts), size)}
	for _, s := range sts {
		st, _ := s.(map[string]any)
		line := fmt.Sprintf("  %v %s", st["Effect"], compact(st["Action"], 70))
		if sid, ok := st["Sid"].(string); ok {
			line = "  " + sid + ":" + line[1:]
		}
		if p, ok := st["Principal"]; ok {
			line += " by " + compact(p, 120)
		}
		if cond, ok := st["Condition"]; ok {
			line += " if " + compact(cond, 200)
		}
		out = append(out, line)
	}
	return out
}

// decode parses a JSON document given as a string; anything else is returned as is.
func decode(v any) any {
	s, ok := v.(string)
	if !ok {
		return v
	}
	var out any
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return v
	}
	return out
}

func compact(v any, max int) string {
	var s string
	if str, ok := v.(string); ok {
		s = str
	} else {
		b, _ := json.Marshal(v)
		s = string(b)
	}
	if len(s) > max {
		s = s[:max-3] + "..."
	}
	return s
}
