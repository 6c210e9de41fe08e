package children

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

func TestMergeMapRolesReplacesItsOwnEntryOnly(t *testing.T) {
	existing := "- rolearn: arn:aws:iam::1:role/a\n  username: a\n  groups: [x]\n- rolearn: arn:aws:iam::1:role/node\n  username: old\n  groups: [y]\n"
	merged, err := mergeMapRoles(existing, "arn:aws:iam::1:role/node", []string{"system:bootstrappers", "system:nodes"})
	require.NoError(t, err)
	var roles []map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(merged), &roles))
	require.Len(t, roles, 2, "the node role appears once")
	assert.Equal(t, "a", roles[0]["username"])
	assert.Equal(t, "system:node:{{EC2PrivateDNSName}}", roles[1]["username"])
	_, err = mergeMapRoles("not: [a list", "arn", nil)
	assert.ErrorContains(t, err, "nodeAccess: kube-system/aws-auth mapRoles is not a YAML list")
}
