//go:build e2e

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGetToken: `aws eks get-token` answers the world kubeconfig's token or client certificate;
// anything else is refused, naming the command.
func TestGetToken(t *testing.T) {
	dir := t.TempDir()
	kubeconfig := func(user string) string {
		path := filepath.Join(dir, "kubeconfig")
		doc := "apiVersion: v1\nkind: Config\ncurrent-context: w\ncontexts:\n- name: w\n  context: {cluster: w, user: admin}\nusers:\n- name: admin\n  user: " + user + "\n"
		if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	status, err := worldCredentials(kubeconfig("{token: s3cret}"))
	if err != nil || status["token"] != "s3cret" {
		t.Errorf("token user: %v %v", status, err)
	}
	// "-----BEGIN CERTIFICATE-----" and a key, base64.
	status, err = worldCredentials(kubeconfig("{client-certificate-data: Q0VSVA==, client-key-data: S0VZ}"))
	if err != nil || status["clientCertificateData"] != "CERT" || status["clientKeyData"] != "KEY" {
		t.Errorf("certificate user: %v %v", status, err)
	}
	if _, err := worldCredentials(""); err == nil || !strings.Contains(err.Error(), "STANDIN_EKS_KUBECONFIG is not set") {
		t.Errorf("without a kubeconfig: %v", err)
	}
	for _, args := range [][]string{
		{"sts", "get-caller-identity"},
		{"eks", "get-token", "--cluster-name", "c"},
		{"eks", "get-token", "--cluster-name", "c", "--region", "us-west-2", "--role-arn", "arn"},
	} {
		if err := run(args); err == nil || !strings.Contains(err.Error(), "refused") {
			t.Errorf("%q: %v, want it refused", args, err)
		}
	}
}
