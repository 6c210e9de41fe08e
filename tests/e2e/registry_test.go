//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/lab"
)

// TestPrivateRegistryCredentials is about the charts' private mirror (every self-managed scenario
// installs from it, logged in as `helm registry login` does). pulumi-kubernetes's Release does
// not send repositoryOpts.username/password to an OCI registry (pulumi/pulumi-kubernetes#1914):
// its Helm takes OCI credentials only from the registry config a login writes. So the component
// refuses repositoryUsername and repositoryPassword with an oci:// chartRepository at preview,
// naming the field and the login that works, instead of passing credentials that are dropped.
func TestPrivateRegistryCredentials(t *testing.T) {
	t.Parallel()
	w := newWorld(t)

	t.Run("the component refuses credentials for an OCI registry at preview", func(t *testing.T) {
		w.stack("repositoryUsername: " + w.Registry.Username + "\nrepositoryPassword: " + w.Registry.Password + "\n")
		stdout, stderr, err := w.run(t, "preview", "--non-interactive")
		if err == nil {
			t.Fatalf("preview succeeded:\n%s", stdout)
		}
		for _, want := range []string{
			"repositoryUsername: the kubernetes provider does not send credentials to an OCI registry",
			"repositoryPassword: the kubernetes provider does not send credentials to an OCI registry",
			"helm registry login " + w.Registry.Host,
		} {
			if !strings.Contains(stdout, want) {
				t.Errorf("preview output does not say %q:\n%s\n%s", want, stdout, stderr)
			}
		}
		w.assertNothingCreated(t)
	})

	// Why: a Release of the mirror's chart with the right credentials in repositoryOpts, on a
	// machine that has not logged in, cannot pull the chart.
	t.Run("the provider drops repositoryOpts credentials for an OCI chart", func(t *testing.T) {
		login := filepath.Join(w.Engine.Getenv("HELM_CONFIG_HOME"), "registry", "config.json")
		if err := os.Rename(login, login+".away"); err != nil {
			t.Fatal(err)
		}
		defer os.Rename(login+".away", login)
		program := `resources:
  k8sProvider:
    type: pulumi:providers:kubernetes
    options:
      version: ` + lab.KubernetesVersion + `
  crds:
    type: kubernetes:helm.sh/v3:Release
    properties:
      name: karpenter-crd
      namespace: kube-system
      chart: ` + w.ChartRepository() + `/karpenter-crd
      version: 1.15.2
      repositoryOpts:
        username: ` + w.Registry.Username + `
        password: ` + w.Registry.Password + `
    options:
      provider: ${k8sProvider}
`
		if _, err := w.Engine.NewProject("registry-credentials", program); err != nil {
			t.Fatal(err)
		}
		if err := w.Engine.NewStack("dev"); err != nil {
			t.Fatal(err)
		}
		stdout, stderr, err := w.run(t, "up", "--yes", "--non-interactive", "--skip-preview")
		if err == nil {
			t.Fatalf("up succeeded: the provider sent the credentials (lift the component's check):\n%s", stdout)
		}
		// Helm asked its credential store (the registry config) and found nothing: the
		// repositoryOpts credentials were never used.
		if !strings.Contains(stdout, `property chart value {`+w.ChartRepository()+`/karpenter-crd} has a problem`) ||
			!strings.Contains(stdout, "basic credential not found") {
			t.Errorf("up output does not show the pull failing for want of credentials:\n%s\n%s", stdout, stderr)
		}
		t.Logf("the provider's error: %s", firstLine(stdout, "error:"))
	})
}

// firstLine is the first line of s that contains substr (trimmed), or "".
func firstLine(s, substr string) string {
	for _, line := range strings.Split(s, "\n") {
		if strings.Contains(line, substr) {
			return strings.TrimSpace(line)
		}
	}
	return ""
}
