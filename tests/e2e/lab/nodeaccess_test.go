package lab

import (
	"strings"
	"testing"
)

// EKS lets a node's role in by the cluster's mode: an EC2 access entry in API mode, an aws-auth
// mapping in the group system:nodes in CONFIG_MAP mode, either in API_AND_CONFIG_MAP mode.
func TestNodeAccessRefusal(t *testing.T) {
	const role = "arn:aws:iam::123456789012:role/karpenter-node-1234567"
	mapped := "- rolearn: " + role + "\n  username: system:node:{{EC2PrivateDNSName}}\n  groups:\n    - system:bootstrappers\n    - system:nodes\n"
	notNode := "- rolearn: " + role + "\n  username: admin\n  groups:\n    - system:masters\n"
	for _, tc := range []struct {
		mode     string
		hasEntry bool
		mapRoles string
		refused  string // "" when let in
	}{
		{"API", true, "", ""},
		{"API", false, mapped, "(API mode: no EC2_LINUX or EC2_WINDOWS access entry)"},
		{"CONFIG_MAP", false, mapped, ""},
		{"", false, mapped, ""},
		{"CONFIG_MAP", true, "", "(CONFIG_MAP mode: not in kube-system/aws-auth's mapRoles with the group system:nodes)"},
		{"CONFIG_MAP", false, notNode, "(CONFIG_MAP mode: not in"},
		{"CONFIG_MAP", false, "not: [a list", "(CONFIG_MAP mode: not in"},
		{"API_AND_CONFIG_MAP", true, "", ""},
		{"API_AND_CONFIG_MAP", false, mapped, ""},
		{"API_AND_CONFIG_MAP", false, "", "(API_AND_CONFIG_MAP mode: neither an EC2 access entry nor an aws-auth mapping)"},
	} {
		got := nodeAccessRefusal("demo", tc.mode, role, tc.hasEntry, tc.mapRoles)
		if (tc.refused == "") != (got == "") || !strings.Contains(got, tc.refused) {
			t.Errorf("mode %q, entry %v, mapRoles %q: %q, want %q", tc.mode, tc.hasEntry, tc.mapRoles, got, tc.refused)
		}
	}
}
