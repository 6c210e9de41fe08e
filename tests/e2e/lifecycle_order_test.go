//go:build e2e

package e2e

import (
	"strings"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/lab"
)

// The order a destroy must keep: the dependencies the engine recorded, and the destroy it ran.

// checkStateOrder: the dependencies the engine recorded (`pulumi stack export`), which every
// destroy honours whatever its scheduling: each NodePool/EC2NodeClass depends, directly or not,
// on the controller release, and the release on every controller IAM resource (role, policies,
// attachments) and every interruption resource (queue, its policy, rules, targets). The engine
// (v3.259.0) deletes in waves by dependency depth, which can hide one missing edge from
// checkDestroyOrder: the release may still land in an earlier wave than what it no longer
// depends on. This check sees the edge itself.
func checkStateOrder(t *testing.T, state []lab.StateResource) {
	t.Helper()
	deps := map[string][]string{}
	byName := map[string]lab.StateResource{}
	for _, r := range state {
		var ds []string
		for _, d := range r.Dependencies {
			ds = append(ds, urnName(d))
		}
		deps[r.Name()] = ds
		byName[r.Name()] = r
	}
	reach := func(from string) map[string]bool {
		seen := map[string]bool{}
		stack := []string{from}
		for len(stack) > 0 {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, d := range deps[n] {
				if !seen[d] {
					seen[d] = true
					stack = append(stack, d)
				}
			}
		}
		return seen
	}
	release := reach("karpenter-release")
	var checked int
	for _, name := range sortedKeys(byName) {
		r := byName[name]
		switch {
		case strings.HasPrefix(r.Type, "kubernetes:karpenter."):
			if !reach(name)["karpenter-release"] {
				t.Errorf("%s does not depend on karpenter-release: a destroy may delete the controller first", name)
			}
			checked++
		case strings.HasPrefix(name, "karpenter-controller"), strings.HasPrefix(name, "karpenter-interruption"),
			r.Type == "aws:cloudwatch/eventRule:EventRule", r.Type == "aws:cloudwatch/eventTarget:EventTarget":
			if !release[name] {
				t.Errorf("karpenter-release does not depend on %s: a destroy may delete it while the controller runs", name)
			}
			checked++
		}
	}
	if checked != 27 {
		t.Errorf("checked %d resources, want 27 (2 custom resources, 25 controller IAM and interruption resources)", checked)
	}
}

// checkDestroyOrder reads the engine's record of the destroy (its gRPC log: when it sent each
// Delete and when the plugin answered): each NodePool and EC2NodeClass delete had completed —
// the objects gone, their finalizers done — before the controller release's delete began, and
// that delete (the Helm uninstall, waiting until the controller's objects are gone) had completed
// before the delete of any of its IAM (role, policies, attachments) or its queue (queue, policy,
// rules, targets) began. Pulumi deletes unrelated resources in parallel, so only these
// dependencies order anything; a missing edge lets a fast IAM delete run during the slow uninstall.
func checkDestroyOrder(t *testing.T, ops []lab.Op) {
	t.Helper()
	var release *lab.Op
	var crs, controllerSide []lab.Op
	for i, op := range ops {
		if op.Op != "Delete" || op.Failed {
			continue
		}
		switch {
		case op.Name == "karpenter-release":
			release = &ops[i]
		case strings.HasPrefix(op.Type, "kubernetes:karpenter."):
			crs = append(crs, op)
		case strings.HasPrefix(op.Name, "karpenter-controller"), strings.HasPrefix(op.Name, "karpenter-interruption"),
			op.Type == "aws:cloudwatch/eventRule:EventRule", op.Type == "aws:cloudwatch/eventTarget:EventTarget":
			controllerSide = append(controllerSide, op)
		}
	}
	if release == nil {
		t.Fatalf("the engine deleted no karpenter-release; deletes: %v", ops)
	}
	kinds := map[string]bool{}
	for _, op := range crs {
		kinds[op.Type[strings.LastIndex(op.Type, ":")+1:]] = true
	}
	if !kinds["NodePool"] || !kinds["EC2NodeClass"] {
		t.Errorf("want the NodePools and EC2NodeClasses deleted, got %v", crs)
	}
	for _, op := range crs {
		if !op.Time.Before(release.Start) {
			t.Errorf("%s was deleted at %s, not before the controller release's delete began (%s)", op.Name, op.Time.Format("15:04:05.000000"), release.Start.Format("15:04:05.000000"))
		}
	}
	// 1 role + 6 policies + 6 attachments + queue + queue policy + 5 rules + 5 targets.
	if len(controllerSide) != 25 {
		t.Errorf("want 25 controller IAM and interruption resources deleted, got %d: %v", len(controllerSide), controllerSide)
	}
	for _, op := range controllerSide {
		if !op.Start.After(release.Time) {
			t.Errorf("%s's delete began at %s, before the controller release was gone (%s): the controller would run without its permissions or queue",
				op.Name, op.Start.Format("15:04:05.000000"), release.Time.Format("15:04:05.000000"))
		}
	}
	if t.Failed() {
		var lines []string
		for _, op := range ops {
			if op.Op == "Delete" {
				lines = append(lines, op.String())
			}
		}
		t.Logf("deletes (sent-answered), in completion order:\n%s", strings.Join(lines, "\n"))
	}
}
