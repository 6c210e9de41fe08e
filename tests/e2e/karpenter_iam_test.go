//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/lab"
)

// The controller's AWS calls against the policies of its role: who made them, and what IAM would
// have allowed (lab.IAMRequests, the simulator).

// controllerPolicies are the identity policies of the controller's role as moto holds them (the
// role the service account's IRSA annotation names: the component's output).
func controllerPolicies(t *testing.T, w *world, roleArn string) []lab.IAMPolicy {
	t.Helper()
	inv := w.aws(t)
	role := inv.Role(roleArn[strings.LastIndex(roleArn, "/")+1:])
	if role == nil {
		t.Fatalf("no role %s in moto", roleArn)
	}
	var out []lab.IAMPolicy
	for _, arn := range role.AttachedPolicyArns {
		p := inv.Policy(arn)
		if p == nil {
			t.Fatalf("policy %s attached to the controller role is not a customer-managed policy of moto", arn)
		}
		var doc map[string]any
		if err := json.Unmarshal([]byte(p.Document), &doc); err != nil {
			t.Fatal(err)
		}
		out = append(out, lab.IAMPolicy{Name: p.Name, Policy: doc})
	}
	return out
}

// denials evaluates the calls against the policies and returns one message per denied request.
func denials(t *testing.T, calls []lab.AWSCall, principal string, policies []lab.IAMPolicy) (msgs []string, requests []lab.IAMRequest, results []lab.IAMResult) {
	t.Helper()
	requests, err := lab.IAMRequests(calls)
	if err != nil {
		t.Error(err)
	}
	results, err = lab.Simulate(principal, policies, requests)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		q := requests[r.ID]
		if permitted(q, r) {
			continue
		}
		var cands []string
		for _, c := range r.Candidates {
			cands = append(cands, c.Statement+" (failed: "+c.Failed+")")
		}
		msg := fmt.Sprintf("%s: %s on %s is %s", q.Call, q.Action, q.Resource, r.Result)
		if r.Errors != "" {
			msg += ": " + r.Errors
		}
		if len(cands) > 0 {
			msg += "; statements for the action: " + strings.Join(cands, ", ")
		} else {
			msg += "; no statement of the controller policies names the action"
		}
		msgs = append(msgs, msg)
	}
	return msgs, requests, results
}

// callsAround splits recorded calls into those made before start, between start and end (an
// `up`), and after end.
func callsAround(calls []lab.AWSCall, start, end time.Time) (before, during, after []lab.AWSCall) {
	for _, c := range calls {
		switch {
		case c.Time.Before(start):
			before = append(before, c)
		case c.Time.Before(end):
			during = append(during, c)
		default:
			after = append(after, c)
		}
	}
	return before, during, after
}

// permitted: the simulator allowed request q, or q is a dependent authorization AWS does not make
// (IAMRequest.Dependent).
func permitted(q lab.IAMRequest, r lab.IAMResult) bool {
	return r.Result == "Allowed" || q.Dependent && r.Result == "Error" && strings.Contains(r.Errors, "no.resource.types")
}

// checkControllerSessions: the controller acted only as the role: it had its credentials from an
// assumption of the role that the checks of STS (a web identity: its service account's token, the
// role's trust policy) or EKS Auth (Pod Identity: the association, the trust policy with the
// session tags) allowed, and signed every other call with them.
func checkControllerSessions(t *testing.T, calls []lab.AWSCall, role string) {
	t.Helper()
	roleName := role[strings.LastIndex(role, "/")+1:]
	var assumed int
	for i, c := range calls {
		if c.Action == "AssumeRoleWithWebIdentity" && c.Params.Get("RoleSessionName") == trustBiteSession {
			continue // the bites' (checkTrustPolicyBites), not the controller's
		}
		if c.Action == "AssumeRoleWithWebIdentity" || c.Action == "AssumeRoleForPodIdentity" {
			switch {
			case c.Trust == nil:
				t.Errorf("call %d: %s without its checks", i, c.Action)
			case c.Trust.Code != "":
				t.Errorf("call %d: %s of %s as %s refused: %s: %s", i, c.Action, c.Trust.Role, c.Trust.Subject, c.Trust.Code, c.Trust.Message)
			case c.Trust.Role != role:
				t.Errorf("call %d: %s of %s, want the controller role %s", i, c.Action, c.Trust.Role, role)
			default:
				assumed++
			}
			continue
		}
		// arn:aws:sts::<account>:assumed-role/<role name>/<session name>
		parts := strings.Split(c.Session, "/")
		if len(parts) != 3 || parts[1] != roleName {
			t.Errorf("call %d %s signed with access key %q: session %q, want one of the controller role %s", i, c.IAMAction(), c.AccessKey, c.Session, role)
		}
	}
	if assumed == 0 {
		t.Errorf("the controller never assumed its role (%d calls)", len(calls))
	}
}

// checkControllerCalls: every AWS call the controller made in the scenario is allowed by the
// policies the component attached to its role (IAMRequests says how calls become authorizations);
// and the check bites: without the statement that allows terminating the cluster's instances and
// deleting its launch templates, exactly the TerminateInstances and DeleteLaunchTemplate
// authorizations are denied, both.
func checkControllerCalls(t *testing.T, w *world, calls []lab.AWSCall, principal string, policies []lab.IAMPolicy) {
	t.Helper()
	_ = os.MkdirAll(w.outDir, 0o755)
	b, _ := json.MarshalIndent(calls, "", " ")
	_ = os.WriteFile(filepath.Join(w.outDir, "aws-calls.json"), b, 0o644)
	checkControllerSessions(t, calls, principal)
	msgs, requests, results := denials(t, calls, principal, policies)
	for _, m := range msgs {
		t.Error(m)
	}
	actions := map[string]bool{}
	grants := map[string]map[string]bool{}
	var dropped int
	for _, r := range results {
		q := requests[r.ID]
		if r.Result == "Error" && q.Dependent {
			dropped++
		}
		actions[strings.SplitN(q.Call, " ", 3)[1]] = true
		for _, s := range r.AllowedBy {
			if grants[s] == nil {
				grants[s] = map[string]bool{}
			}
			grants[s][q.Action] = true
		}
	}
	b, _ = json.MarshalIndent(map[string]any{"requests": requests, "results": results}, "", " ")
	_ = os.WriteFile(filepath.Join(w.outDir, "iam-check.json"), b, 0o644)
	var lines []string
	for _, s := range sortedKeys(grants) {
		lines = append(lines, fmt.Sprintf("  %s: %s", s, strings.Join(sortedKeys(grants[s]), ", ")))
	}
	t.Logf("%d calls (%d actions: %s), %d authorizations (%d launch pairings IAM does not make dropped); allowed by:\n%s", len(calls), len(actions),
		strings.Join(sortedKeys(actions), ", "), len(requests)-dropped, dropped, strings.Join(lines, "\n"))

	t.Run("the check bites: without AllowScopedDeletion, TerminateInstances is denied", func(t *testing.T) {
		var cut []lab.IAMPolicy
		removed := 0
		for _, p := range policies {
			stmts, _ := p.Policy["Statement"].([]any)
			var kept []any
			for _, s := range stmts {
				if m, _ := s.(map[string]any); m["Sid"] == "AllowScopedDeletion" {
					removed++
					continue
				}
				kept = append(kept, s)
			}
			doc := map[string]any{"Version": p.Policy["Version"], "Statement": kept}
			cut = append(cut, lab.IAMPolicy{Name: p.Name, Policy: doc})
		}
		if removed != 1 {
			t.Fatalf("found %d AllowScopedDeletion statements, want 1", removed)
		}
		msgs, _, _ := denials(t, calls, principal, cut)
		var terminate, deleteTemplate int
		for _, m := range msgs {
			switch {
			case strings.Contains(m, ": ec2:TerminateInstances on "):
				terminate++
			case strings.Contains(m, ": ec2:DeleteLaunchTemplate on "):
				deleteTemplate++
			default:
				t.Errorf("unexpected denial without AllowScopedDeletion: %s", m)
			}
		}
		if terminate == 0 || deleteTemplate == 0 {
			t.Errorf("without AllowScopedDeletion %d TerminateInstances and %d DeleteLaunchTemplate authorizations denied, want both: the check does not bite:\n%s",
				terminate, deleteTemplate, strings.Join(msgs, "\n"))
		}
		t.Logf("denied without AllowScopedDeletion:\n%s", strings.Join(msgs, "\n"))
	})
}
