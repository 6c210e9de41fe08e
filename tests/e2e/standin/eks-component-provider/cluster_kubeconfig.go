package main

import (
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/standin/worldkubeconfig"
)

// The cluster's kubeconfig. pulumi-eks writes (generateKubeconfig) one cluster "kubernetes" (the
// cluster's endpoint and CA data), one context "aws" and one user "aws" whose credentials are an
// exec of `aws eks get-token --cluster-name <name>`. Nothing here can issue EKS tokens (no AWS CLI,
// no EKS), so the user is the world's own kubeconfig's user ($STANDIN_EKS_KUBECONFIG, the API
// server the aws stand-in reports as the cluster's endpoint); the rest is pulumi-eks's.

// worldUser is the user of the current context of the kubeconfig at path.
func worldUser(path string) (map[string]any, error) {
	return worldkubeconfig.User(path, standIn+", which builds the cluster's kubeconfig,")
}

// kubeconfigDocument is pulumi-eks's kubeconfig with the given user.
func kubeconfigDocument(endpoint, caData string, user map[string]any) map[string]any {
	return map[string]any{
		"apiVersion": "v1",
		"clusters": []any{map[string]any{
			"cluster": map[string]any{"server": endpoint, "certificate-authority-data": caData},
			"name":    "kubernetes",
		}},
		"contexts":        []any{map[string]any{"context": map[string]any{"cluster": "kubernetes", "user": "aws"}, "name": "aws"}},
		"current-context": "aws",
		"kind":            "Config",
		"users":           []any{map[string]any{"name": "aws", "user": user}},
	}
}

// kubeconfigOf is the cluster's kubeconfig, once its endpoint and CA are known.
func kubeconfigOf(c *cluster, worldKubeconfig string) (pulumi.MapOutput, error) {
	user, err := worldUser(worldKubeconfig)
	if err != nil {
		return pulumi.MapOutput{}, err
	}
	return pulumi.All(c.Endpoint, c.CertificateAuthority).ApplyT(func(v []any) map[string]any {
		ca := v[1].(map[string]string)
		return kubeconfigDocument(v[0].(string), ca["data"], user)
	}).(pulumi.MapOutput), nil
}
