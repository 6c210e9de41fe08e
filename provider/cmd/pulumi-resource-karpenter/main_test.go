package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The test binary doubles as the plugin: with KARPENTER_RUN_MAIN set it runs main, so the
// tests exercise the real command line (flags, exit codes, stdout and stderr).
func TestMain(m *testing.M) {
	if os.Getenv("KARPENTER_RUN_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "KARPENTER_RUN_MAIN=1")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if exit, ok := err.(*exec.ExitError); ok {
		return out.String(), errOut.String(), exit.ExitCode()
	}
	require.NoError(t, err)
	return out.String(), errOut.String(), 0
}

func writeArgs(t *testing.T, content string) string {
	file := filepath.Join(t.TempDir(), "args.yaml")
	require.NoError(t, os.WriteFile(file, []byte(content), 0o644))
	return file
}

func TestRenderPrintsTheSameBytesEveryTime(t *testing.T) {
	file := writeArgs(t, "clusterName: demo\noidcProviderArn: arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/EXAMPLE\n")
	first, stderr, code := run(t, "render", "--args", file)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, first, `"type": "karpenter:index:Karpenter"`)
	for i := 0; i < 2; i++ {
		again, _, _ := run(t, "render", "--args", file)
		assert.Equal(t, first, again)
	}
}

func TestRenderRejectsBadInputWithExitCode1(t *testing.T) {
	file := writeArgs(t, `{"clusterName":"demo","oidcProviderArn":"arn:aws:iam::123456789012:oidc-provider/x","nodePools":[{"name":"p","requirements":[{"key":"kubernetes.io/arch","operator":"Equals"}]}]}`)
	stdout, stderr, code := run(t, "render", "--args", file)
	assert.Equal(t, 1, code)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "nodePools[0].requirements[0].operator")
}

func TestRenderNeedsAnArgsFile(t *testing.T) {
	_, stderr, code := run(t, "render")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "render --args FILE")
}

func TestVersionAndSchema(t *testing.T) {
	out, _, code := run(t, "--version")
	assert.Equal(t, 0, code)
	assert.NotEmpty(t, out)
	// The schema's content is checked against the committed file in the provider package.
	schema, _, code := run(t, "schema")
	assert.Equal(t, 0, code)
	var parsed struct {
		Name      string         `json:"name"`
		Resources map[string]any `json:"resources"`
	}
	require.NoError(t, json.Unmarshal([]byte(schema), &parsed))
	assert.Equal(t, "karpenter", parsed.Name)
	assert.Contains(t, parsed.Resources, "karpenter:index:Karpenter")
}
