//go:build e2e

package main

import (
	"context"
	"strings"
	"testing"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// TestImport: each type the component adopts is imported by the id its docs give (a Read with
// no inputs and no state, as the engine's import step sends it): the read finds the object, the
// id is the one terraform keeps, and the inputs it answers are those of the program that made
// the object — so the engine's diff of that program against the import is empty (or an
// in-place update), never a replacement of what was imported.
// A malformed id is refused with terraform's message.
func TestImport(t *testing.T) {
	env := testSettings(t)
	p := newPlugin(t, env)
	role := p.create(t, tRole, "node", pmap{"name": sv(unique(t, "node")), "assumeRolePolicy": sv(trust("ec2.amazonaws.com"))})
	roleArn := str(role.outputs, "arn")
	cni := "arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy"
	att := p.create(t, tAttachment, "cni", pmap{"role": sv(role.id), "policyArn": sv(cni)})
	q := p.create(t, tQueue, "q", pmap{"name": sv(unique(t, "q"))})
	rule := p.create(t, tRule, "spot", pmap{"name": sv(unique(t, "spot")), "eventPattern": sv(`{"source":["aws.ec2"]}`)})
	target := p.create(t, tTarget, "spot-target", pmap{"rule": sv(rule.id), "arn": sv(str(q.outputs, "arn")), "targetId": sv("KarpenterInterruptionQueueTarget")})
	cluster := createTestCluster(t, p, "c", pmap{"name": sv(unique(t, "c"))}).id
	assoc := p.create(t, tPodIdentity, "controller", pmap{"clusterName": sv(cluster), "namespace": sv("kube-system"), "serviceAccount": sv("karpenter"), "roleArn": sv(roleArn)})

	for _, c := range []struct {
		r        *res
		importID string
		wantID   string
	}{
		{role, role.id, role.id},
		{att, role.id + "/" + cni, role.id + "/" + cni},
		{q, q.id, q.id},
		{rule, rule.id, rule.id},
		{target, rule.id + "/KarpenterInterruptionQueueTarget", target.id},
		{target, "default/" + rule.id + "/KarpenterInterruptionQueueTarget", target.id},
		{assoc, cluster + "," + assoc.id, assoc.id},
	} {
		resp, err := p.Read(context.Background(), &pulumirpc.ReadRequest{Id: c.importID, Urn: c.r.urn, Name: c.r.name, Type: c.r.typ})
		if err != nil {
			t.Errorf("import %s by %q: %v", c.r.typ, c.importID, err)
			continue
		}
		if resp.GetId() != c.wantID || resp.GetProperties() == nil || resp.GetInputs() == nil {
			t.Errorf("import %s by %q: id %q (want %q), found %v", c.r.typ, c.importID, resp.GetId(), c.wantID, resp.GetProperties() != nil)
			continue
		}
		imported := &res{typ: c.r.typ, name: c.r.name, urn: c.r.urn, id: resp.GetId(),
			inputs: mustUnmarshal(t, resp.GetInputs()), outputs: mustUnmarshal(t, resp.GetProperties())}
		d := p.diff(t, imported, p.check(t, c.r.typ, c.r.name, c.r.inputs, imported.inputs))
		if len(d.GetReplaces()) > 0 {
			t.Errorf("import %s by %q: the program that made it would replace the import: %v", c.r.typ, c.importID, d.GetReplaces())
		}
		// What the read cannot tell from unset (a rule's deprecated isEnabled, which EventBridge
		// answers from the rule's state) is an in-place update at most; the rest matches.
		for _, k := range d.GetDiffs() {
			if !(c.r.typ == tRule && k == "isEnabled") {
				t.Errorf("import %s by %q: %s differs from the program that made it", c.r.typ, c.importID, k)
			}
		}
	}

	// An imported queue's inputs hold every attribute it has; an update by a program that sets
	// only some changes those and keeps the rest (terraform's Optional+Computed).
	resp, err := p.Read(context.Background(), &pulumirpc.ReadRequest{Id: q.id, Urn: q.urn, Name: q.name, Type: q.typ})
	if err != nil {
		t.Fatal(err)
	}
	imported := &res{typ: q.typ, name: q.name, urn: q.urn, id: resp.GetId(), inputs: mustUnmarshal(t, resp.GetInputs()), outputs: mustUnmarshal(t, resp.GetProperties())}
	news := q.inputs.Copy()
	news["messageRetentionSeconds"] = nv(300)
	p.update(t, imported, news)
	if got := queueAttrs(t, q.id)["MessageRetentionPeriod"]; got != "300" {
		t.Errorf("imported queue after the update: retention %s, want 300", got)
	}
	// So does an imported role's: its attached policies (managedPolicyArns) stay attached.
	resp, err = p.Read(context.Background(), &pulumirpc.ReadRequest{Id: role.id, Urn: role.urn, Name: role.name, Type: role.typ})
	if err != nil {
		t.Fatal(err)
	}
	imported = &res{typ: role.typ, name: role.name, urn: role.urn, id: resp.GetId(), inputs: mustUnmarshal(t, resp.GetInputs()), outputs: mustUnmarshal(t, resp.GetProperties())}
	news = role.inputs.Copy()
	news["description"] = sv("adopted")
	p.update(t, imported, news)
	if attached, err := roleAttachedPolicies(context.Background(), moto().iam, role.id); err != nil || len(attached) != 1 || attached[0] != cni {
		t.Errorf("imported role after the update: attached %v (%v), want only %s", attached, err, cni)
	}

	for _, c := range []struct {
		r        *res
		importID string
		want     string
	}{
		{att, role.id, "expected <role-name>/<policy_arn>"},
		{target, rule.id, "expected <event-bus-name>/<rule-name>/<target-id> or <rule-name>/<target-id>"},
		{assoc, assoc.id, "expected cluster-name,association-id"},
	} {
		_, err := p.Read(context.Background(), &pulumirpc.ReadRequest{Id: c.importID, Urn: c.r.urn, Name: c.r.name, Type: c.r.typ})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("import %s by %q: want the refusal %q, got %v", c.r.typ, c.importID, c.want, err)
		}
	}
	// An id naming nothing: the read answers nothing (the engine's "does not exist").
	if resp, err := p.Read(context.Background(), &pulumirpc.ReadRequest{Id: role.id + "/arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore", Urn: att.urn, Name: att.name, Type: att.typ}); err != nil || resp.GetProperties() != nil {
		t.Errorf("import of an attachment that does not exist: %v, %v", resp.GetProperties(), err)
	}
}
