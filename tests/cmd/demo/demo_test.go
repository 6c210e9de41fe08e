//go:build e2e

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/lab"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/internal/repo"
)

// standIns are built once for the three runs.
var standIns lab.StandIns

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "demo-standins-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if standIns, err = lab.BuildStandIns(context.Background(), dir); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// TestDemo runs `make demo`'s program (a real `pulumi up`, the tables, `pulumi destroy`) for the
// default install of each API generation, and checks it prints what CONTRIBUTING.md (End-to-end
// tests) promises: the engine's resource tree with every child under the component, the releases
// deployed, a `kubectl get -o wide` table per custom resource kind listing the default pool and
// class, the AWS inventory, and a destroy that deletes everything it created — but, in the Provisioner
// era, what Helm itself never deletes (the chart's crds/ CRDs, with their APIServices, and the
// namespace the release created, with the `default` ServiceAccount and kube-root-ca.crt
// ConfigMap kube-controller-manager gives every namespace).
//
// Run with the e2e build tag (make e2e): it needs the Pulumi CLI, the YAML host and moto.
func TestDemo(t *testing.T) {
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, version, classes, pools string
		children                      int
		leftovers                     []string
		removedWebhooks               []string
	}{
		// The default install's 36 children and the 4 discovery tags of the loop's inputs (the
		// VPC's three subnets and its security group).
		{"v1", "", "ec2nodeclasses.v1.karpenter.k8s.aws", "nodepools.v1.karpenter.sh", 40, nil, nil},
		{"v1beta1", "0.36.2", "ec2nodeclasses.v1beta1.karpenter.k8s.aws", "nodepools.v1beta1.karpenter.sh", 0, nil, nil},
		{"v1alpha5", "0.31.0", "awsnodetemplates.v1alpha1.karpenter.k8s.aws", "provisioners.v1alpha5.karpenter.sh", 0, []string{
			"apiservices.apiregistration.k8s.io v1alpha1.karpenter.k8s.aws",
			"apiservices.apiregistration.k8s.io v1alpha5.karpenter.sh",
			// kube-controller-manager puts these into every namespace.
			"configmaps karpenter/kube-root-ca.crt",
			"customresourcedefinitions.apiextensions.k8s.io awsnodetemplates.karpenter.k8s.aws",
			"customresourcedefinitions.apiextensions.k8s.io machines.karpenter.sh",
			"customresourcedefinitions.apiextensions.k8s.io provisioners.karpenter.sh",
			"namespaces karpenter",
			"serviceaccounts karpenter/default",
		}, []string{
			// The chart's webhooks-core.yaml and webhooks.yaml (karpenter v0.29.2).
			"MutatingWebhookConfiguration/defaulting.webhook.karpenter.k8s.aws",
			"ValidatingWebhookConfiguration/validation.webhook.config.karpenter.sh",
			"ValidatingWebhookConfiguration/validation.webhook.karpenter.k8s.aws",
			"ValidatingWebhookConfiguration/validation.webhook.karpenter.sh",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := ""
			if tc.version != "" {
				args = filepath.Join(t.TempDir(), "args.json")
				if err := os.WriteFile(args, []byte(`{"version": "`+tc.version+`"}`), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var out bytes.Buffer
			res, err := run(context.Background(), &out, root, args, &standIns)
			if err != nil {
				t.Fatalf("demo failed: %v\n%s", err, out.String())
			}
			sections := splitSections(out.String())

			if !strings.Contains(res.Up, "created") || !strings.Contains(res.Destroy, "deleted") {
				t.Errorf("the engine's up/destroy output is missing:\n%s", out.String())
			}
			// The tree: the component under the stack, its children under it.
			tree := sections["pulumi stack (the resources, as the engine parented them)"]
			var under int
			for _, line := range tree {
				if strings.HasPrefix(strings.TrimSpace(line), "│  ├─") || strings.HasPrefix(strings.TrimSpace(line), "│  └─") {
					under++
				}
			}
			if under == 0 || (tc.children > 0 && under != tc.children) {
				t.Errorf("resource tree: %d children under the component, want %d:\n%s", under, tc.children, strings.Join(tree, "\n"))
			}
			for _, name := range []string{"karpenter-crd", "karpenter"} {
				if tc.name == "v1alpha5" && name == "karpenter-crd" {
					continue // the Provisioner-era chart installs its own CRDs
				}
				if !hasDeployedRow(tableRows(t, sections, "helm list -n "+str(res.Outputs["namespace"])), name) {
					t.Errorf("helm list shows no deployed %s", name)
				}
			}
			for _, resource := range []string{tc.classes, tc.pools} {
				if rows := tableRows(t, sections, "kubectl get "+resource+" -o wide"); !hasRow(rows, "default") {
					t.Errorf("kubectl get %s: no row for the default pool/class in\n%s", resource, strings.Join(rows, "\n"))
				}
			}
			if roles := sections["AWS (moto): IAM roles"]; len(roles) == 0 || !strings.Contains(strings.Join(roles, "\n"), roleName(str(res.Outputs["controllerRoleArn"]))) {
				t.Errorf("the AWS inventory does not list the controller role %v:\n%s", res.Outputs["controllerRoleArn"], strings.Join(roles, "\n"))
			}
			if !reflect.DeepEqual(res.Leftovers, tc.leftovers) {
				t.Errorf("left behind after the destroy:\n got %q\nwant %q", res.Leftovers, tc.leftovers)
			}
			// v1 (the controller built here): Karpenter launched a node for the workload, and the
			// destroy terminated it (Leftovers would name a running instance).
			if launched := res.Launched.ID != ""; launched != (tc.name == "v1") {
				t.Errorf("launched an instance: %v, want it for v1 only", res.Launched)
			}
			if tc.name == "v1" {
				if rows := tableRows(t, sections, "kubectl get nodeclaims.v1.karpenter.sh -o wide"); len(rows) != 1 || !strings.Contains(rows[0], res.Launched.Type) {
					t.Errorf("kubectl get nodeclaims: want the claim of the %s launched, got %q", res.Launched.Type, rows)
				}
				after := strings.Join(sections["AWS (moto) after the destroy: EC2 instances and launch templates"], "\n")
				if !strings.Contains(after, res.Launched.ID) || !strings.Contains(after, "terminated") || !strings.Contains(after, "(no launch template)") {
					t.Errorf("the moto inventory after the destroy does not show %s terminated and no launch template:\n%s", res.Launched.ID, after)
				}
			}
			if !reflect.DeepEqual(res.RemovedWebhooks, tc.removedWebhooks) {
				t.Errorf("admission webhooks removed (no controller pod serves them):\n got %q\nwant %q", res.RemovedWebhooks, tc.removedWebhooks)
			}
			if !strings.Contains(out.String(), "== Stopped moto, the cluster and the registry") {
				t.Errorf("demo did not report stopping moto, the cluster and the registry")
			}
		})
	}
}

func roleName(arn string) string { return arn[strings.LastIndex(arn, "/")+1:] }

// splitSections maps each "== heading" of the demo's output to the lines under it.
func splitSections(out string) map[string][]string {
	sections := map[string][]string{}
	var current string
	for _, line := range strings.Split(out, "\n") {
		if h, ok := strings.CutPrefix(line, "== "); ok {
			current = h
			sections[current] = nil
			continue
		}
		if current != "" && strings.TrimSpace(line) != "" {
			sections[current] = append(sections[current], line)
		}
	}
	return sections
}

// tableRows returns the rows of the table under heading, after its NAME header.
func tableRows(t *testing.T, sections map[string][]string, heading string) []string {
	t.Helper()
	lines, ok := sections[heading]
	if !ok {
		t.Errorf("no section %q in the demo output", heading)
		return nil
	}
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "NAME ") {
		t.Errorf("section %q has no table (want a NAME header): %q", heading, lines)
		return nil
	}
	return lines[1:]
}

func hasRow(rows []string, name string) bool {
	for _, r := range rows {
		if f := strings.Fields(r); len(f) > 0 && f[0] == name {
			return true
		}
	}
	return false
}

func hasDeployedRow(rows []string, name string) bool {
	for _, r := range rows {
		if f := strings.Fields(r); len(f) > 3 && f[0] == name && f[3] == "deployed" {
			return true
		}
	}
	return false
}
