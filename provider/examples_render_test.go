package provider_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/rendertest"
	"github.com/stretchr/testify/require"
)

// TestExamplesRender renders every args file under examples/render (the README's and
// docs/migrating.md's examples): each must render without an error.
func TestExamplesRender(t *testing.T) {
	files, err := filepath.Glob("../examples/render/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files, "no args files under examples/render")
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			r := rendertest.Args(t, string(data))
			require.NotEmpty(t, r.Resources, "%s renders no resources", file)
		})
	}
}
