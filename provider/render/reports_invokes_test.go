package render_test

import (
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/children"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/rendertest"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/render/format"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every invoke a render makes is reported once, with the arguments as sent and the fields read.
func TestRenderReportsInvokes(t *testing.T) {
	parsed, err := rendertest.ParseArgs([]byte(rendertest.RichArgs(t)))
	require.NoError(t, err)
	out, err := rendertest.Render(t.Context(), parsed)
	require.NoError(t, err)
	byToken := map[string]format.Invoke{}
	for _, inv := range out.Invokes {
		byToken[inv.Token] = inv
	}
	assert.Equal(t, []string{"region|name"}, byToken[children.InvokeRegion].Reads)
	assert.Equal(t, []string{"partition", "dnsSuffix"}, byToken[children.InvokePartition].Reads)
	assert.Equal(t, []string{"accountId"}, byToken[children.InvokeCallerIdentity].Reads)
	assert.Equal(t, format.Invoke{Token: children.InvokeInstanceProfile, Args: map[string]any{"name": "prod-eu-gpu-nodes"}, Reads: []string{"roleArn"}},
		byToken[children.InvokeInstanceProfile])
	assert.Len(t, out.Invokes, 4)
}
