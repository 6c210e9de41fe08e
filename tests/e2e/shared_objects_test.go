//go:build e2e

package e2e

import (
	"strings"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/lab"
)

// sharedObjectsProgram is the README's YAML program (without its name and runtime, which the lab writes) as it was before the second day was proven:
// pulumi-eks's defaults (a CONFIG_MAP cluster, whose kube-system/aws-auth pulumi-eks writes as a
// ConfigMap of its own) and pulumi-eks's node security group given to discovery (a group whose tags
// pulumi-eks manages). On its second day pulumi-eks took both back: a refresh then a preview planned
// to replace aws-auth without the node role and to remove the discovery tag.
const sharedObjectsProgram = `resources:
  awsProvider:
    type: pulumi:providers:aws
    properties:
      region: ${aws:region}
  cluster:
    type: eks:Cluster
    properties:
      createOidcProvider: true
    options:
      providers:
        - ${awsProvider}
  k8sProvider:
    type: pulumi:providers:kubernetes
    properties:
      kubeconfig: ${cluster.kubeconfigJson}
  karpenter:
    type: karpenter:Karpenter
    properties:
      clusterName: ${cluster.eksCluster.name}
      oidcProviderArn: ${cluster.oidcProviderArn}
      discovery:
        subnetIds: ${cluster.core.subnetIds}
        securityGroupIds:
          - ${cluster.nodeSecurityGroupId}
    options:
      parent: ${cluster}
      providers:
        - ${awsProvider}
        - ${k8sProvider}
`

// TestSharedObjectsRefused: that program is refused. Its preview says which checks wait for the
// cluster (the update creates it); its `up` creates pulumi-eks's cluster, then the component reads
// it and refuses before creating any child, naming pulumi-eks as the owner of aws-auth and of the
// security group's tags, and the inputs to use instead; destroy leaves nothing.
func TestSharedObjectsRefused(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	tools, err := lab.FindTools()
	if err != nil {
		t.Fatal(err)
	}
	ecr, err := w.PrepareSnippets(standIns, tools)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ecr.Stop)
	if err := w.NewStack(sharedObjectsProgram); err != nil {
		t.Fatal(err)
	}
	w.must(t, "config", "set", "aws:region", lab.Region)

	t.Run("the preview says what up checks", func(t *testing.T) {
		stdout, stderr, err := w.run(t, "preview", "--non-interactive")
		if err != nil {
			t.Fatalf("preview: %v\n%s", err, tail(stdout+stderr, 40))
		}
		for _, want := range []string{
			`that node access needs no aws-auth mapping, since eks:index:Cluster "cluster" writes kube-system/aws-auth whole`,
			`that discovery.securityGroupIds[0], from eks:index:Cluster "cluster", is not a security group whose tags cluster manages`,
		} {
			if !strings.Contains(stdout+stderr, want) {
				t.Errorf("the preview does not say %q:\n%s", want, tail(stdout+stderr, 40))
			}
		}
	})
	t.Run("up refuses before any child", func(t *testing.T) {
		stdout, stderr, err := w.run(t, "up", "--yes", "--non-interactive", "--skip-preview")
		out := stdout + stderr
		if err == nil {
			t.Fatalf("up passed:\n%s", tail(out, 40))
		}
		for _, want := range []string{
			`nodeAccess: awsAuth (the component follows the cluster's CONFIG_MAP mode), but kube-system/aws-auth belongs to eks:index:Cluster "cluster"`,
			`authenticationMode: "API" or "API_AND_CONFIG_MAP" on cluster`,
			`discovery.securityGroupIds[0]: this security group comes from eks:index:Cluster "cluster", which manages its tags`,
			`set cluster's nodeSecurityGroupTags`,
		} {
			if !strings.Contains(out, want) {
				t.Errorf("up's refusal does not say %q:\n%s", want, tail(out, 60))
			}
		}
		ops, err := w.Ops()
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range ops {
			if op.Op == "Create" && strings.HasPrefix(op.Name, "karpenter-") {
				t.Errorf("the component created %s %s before refusing", op.Type, op.Name)
			}
		}
	})
	t.Run("destroy", func(t *testing.T) {
		w.must(t, "destroy", "--yes", "--non-interactive", "--skip-preview")
		w.assertNothingLeft(t)
	})
}
