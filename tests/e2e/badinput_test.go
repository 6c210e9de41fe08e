//go:build e2e

package e2e

import (
	"strings"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/lab"
)

// TestBadInput: input the component rejects fails the preview naming each field (all problems at
// once), `pulumi up` fails the same way, and nothing is created — moto empty, the API server as
// it started; so do a requirement value Karpenter never sets, a tag AWS refuses and a chart value
// the component owns, each at the preview. Then a bad value known only when the apply runs (a cluster name from another
// resource's output): the preview passes, `up` fails naming the field, and none of the
// component's children is created (the program's own resources are).
func TestBadInput(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.stack("version: 0.5.0")

	t.Run("an unknown version fails the preview naming it", func(t *testing.T) {
		stdout, _, err := w.run(t, "preview", "--non-interactive")
		if err == nil {
			t.Fatalf("preview succeeded:\n%s", stdout)
		}
		if want := "version: Karpenter 0.5.0 is not supported; supported: >=0.19.0 <1.16.0"; !strings.Contains(stdout, want) {
			t.Errorf("preview output does not say %q:\n%s", want, stdout)
		}
		w.assertNothingCreated(t)
	})

	// Two problems in one program: both reported by one preview.
	w.program("nodePools:\n  - name: default\n    weight: 101\n  - name: Spot_Pool\n")
	wantErrors := []string{
		`nodePools[0].weight: 101 is not between 1 and 100`,
		`nodePools[1].name`,
	}
	t.Run("bad node pools fail the preview naming every field", func(t *testing.T) {
		stdout, stderr, err := w.run(t, "preview", "--non-interactive")
		if err == nil {
			t.Fatalf("preview succeeded:\n%s", stdout)
		}
		for _, want := range wantErrors {
			if !strings.Contains(stdout, want) {
				t.Errorf("preview output does not name %q:\n%s\n%s", want, stdout, stderr)
			}
		}
		w.assertNothingCreated(t)
	})
	t.Run("up fails the same way and creates nothing", func(t *testing.T) {
		stdout, stderr, err := w.run(t, "up", "--yes", "--non-interactive")
		if err == nil {
			t.Fatalf("up succeeded:\n%s", stdout)
		}
		for _, want := range wantErrors {
			if !strings.Contains(stdout, want) {
				t.Errorf("up output does not name %q:\n%s\n%s", want, stdout, stderr)
			}
		}
		w.assertNothingCreated(t)
	})

	// Nothing that passes the preview fails at `up`: a requirement value Karpenter never sets (a
	// plain input, checked with the plan), tags AWS refuses and chart values the component owns
	// (Input values, checked as soon as they are known: at this preview, while the cluster name
	// is still unknown).
	for _, c := range []struct{ name, inputs, want string }{
		{"a capacity type Karpenter never sets",
			"nodePools:\n  - name: default\n    requirements:\n      - key: karpenter.sh/capacity-type\n        operator: In\n        values: [on-demnd]\n",
			`nodePools[0].requirements[0].values[0]: \"on-demnd\" is not a value Karpenter sets on karpenter.sh/capacity-type`},
		{"a tag AWS refuses", "tags:\n  aws:team: platform\n", `tags[\"aws:team\"]: keys starting with \"aws:\" are reserved`},
		{"a chart value the component owns", "values:\n  settings:\n    clusterName: another-cluster\n",
			"values.settings.clusterName: the component sets it from clusterName"},
	} {
		t.Run(c.name+" fails the preview naming its path", func(t *testing.T) {
			w.program(c.inputs)
			stdout, stderr, err := w.run(t, "preview", "--non-interactive")
			if err == nil {
				t.Fatalf("preview succeeded:\n%s", stdout)
			}
			if !strings.Contains(stdout, c.want) && !strings.Contains(stdout, strings.ReplaceAll(c.want, `\"`, `"`)) {
				t.Errorf("preview output does not say %q:\n%s\n%s", c.want, stdout, stderr)
			}
			w.assertNothingCreated(t)
		})
	}

	t.Run("a bad value known only at apply creates none of the children", func(t *testing.T) {
		// A role name may hold '.', an EKS cluster name may not: the preview cannot know (the
		// role's name is unknown until it exists), and the component reads no cluster by a name
		// no cluster can have.
		prog := w.programText(lab.ProgramOptions{})
		prog = strings.Replace(prog, "namePrefix: e2e-cluster-", "namePrefix: e2e.cluster-", 1)
		prog = strings.Replace(prog, "clusterName: ${cluster.name}", "clusterName: ${clusterRole.name}", 1)
		if _, err := w.Engine.NewProject(lab.ProjectName, prog); err != nil {
			t.Fatal(err)
		}
		if _, stderr, err := w.run(t, "preview", "--non-interactive"); err != nil {
			t.Fatalf("the preview should pass (clusterName is unknown): %v\n%s", err, stderr)
		}
		stdout, stderr, err := w.run(t, "up", "--yes", "--non-interactive", "--skip-preview")
		if err == nil {
			t.Fatalf("up succeeded:\n%s", stdout)
		}
		if !strings.Contains(stdout, "clusterName: \"e2e.cluster-") || !strings.Contains(stdout, "is not a valid EKS cluster name") {
			t.Errorf("up output does not name clusterName:\n%s\n%s", stdout, stderr)
		}
		inv := w.aws(t)
		if len(inv.Roles) != 1 || !strings.HasPrefix(inv.Roles[0].Name, "e2e.cluster-") || len(inv.OIDCProviders) != 1 || len(inv.Clusters) != 1 {
			t.Fatalf("moto should hold the program's cluster, its role and OIDC provider only: %v", inv.Leftovers())
		}
		w.assertNothingCreated(t, "IAM role "+inv.Roles[0].Name, "OIDC provider "+inv.OIDCProviders[0], "EKS cluster "+inv.Clusters[0],
			"created:clusterRole", "created:cluster", "created:oidcProvider")
	})
}
