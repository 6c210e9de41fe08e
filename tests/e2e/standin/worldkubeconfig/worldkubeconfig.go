// Package worldkubeconfig reads the credentials of the lab world's kubeconfig
// ($STANDIN_EKS_KUBECONFIG: the API server the aws stand-in reports as every EKS cluster's
// endpoint), which the stand-ins that answer for EKS credentials hand out: the eks stand-in's
// cluster kubeconfig (its user) and the AWS CLI stand-in's `aws eks get-token` (an
// ExecCredential).
package worldkubeconfig

import (
	"fmt"
	"os"

	"sigs.k8s.io/yaml"
)

// User is the user of the current context of the kubeconfig at path, as the kubeconfig has it
// (token, client-certificate-data, ...). who names the stand-in in the error when path is empty.
func User(path, who string) (map[string]any, error) {
	if path == "" {
		return nil, fmt.Errorf("STANDIN_EKS_KUBECONFIG is not set: the %s answers with the credentials of the world's kubeconfig", who)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("STANDIN_EKS_KUBECONFIG: %w", err)
	}
	var kc struct {
		CurrentContext string `json:"current-context"`
		Contexts       []struct {
			Name    string `json:"name"`
			Context struct {
				User string `json:"user"`
			} `json:"context"`
		} `json:"contexts"`
		Users []struct {
			Name string         `json:"name"`
			User map[string]any `json:"user"`
		} `json:"users"`
	}
	if err := yaml.Unmarshal(data, &kc); err != nil {
		return nil, fmt.Errorf("STANDIN_EKS_KUBECONFIG %s: %w", path, err)
	}
	for _, c := range kc.Contexts {
		if c.Name != kc.CurrentContext {
			continue
		}
		for _, u := range kc.Users {
			if u.Name == c.Context.User && len(u.User) > 0 {
				return u.User, nil
			}
		}
	}
	return nil, fmt.Errorf("STANDIN_EKS_KUBECONFIG %s: no user for its current context %q", path, kc.CurrentContext)
}
