package plan

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputs"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/argstest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Engine-free refusal tests: the args are render's JSON (without "type"; "name" is the
// component's name), decoded as the engine would send them known, and planned.

// plan plans args.
func plan(t *testing.T, args string) (*Plan, error) {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(args), &m))
	name, _ := m["name"].(string)
	if name == "" {
		name = "karpenter"
	}
	delete(m, "name")
	b, err := json.Marshal(m)
	require.NoError(t, err)
	return New(name, argstest.Decode[inputs.KarpenterArgs](t, string(b)), Known{}, nil)
}

// planOK plans args, which must succeed.
func planOK(t *testing.T, args string) *Plan {
	t.Helper()
	p, err := plan(t, args)
	require.NoError(t, err, "planning %s", args)
	return p
}

// planError plans args, which must be refused, and returns the refusal.
func planError(t *testing.T, args string) string {
	t.Helper()
	_, err := plan(t, args)
	require.Error(t, err, "planning %s", args)
	return err.Error()
}

// planVersion plans the default args for a Karpenter version, with extra's inputs set.
func planVersion(t *testing.T, version string, extra ...string) *Plan {
	t.Helper()
	args := argstest.WithDefaults(t, `{"version":"`+version+`"}`)
	if len(extra) > 0 {
		args = argstest.Merge(t, args, extra[0])
	}
	return planOK(t, args)
}

// Every bad plain input is refused naming the field, before anything exists.
func TestBadPlainInputIsRefusedNamingTheField(t *testing.T) {
	pool := func(fields string) string {
		return `{"nodePools":[{"name":"p"` + fields + `}]}`
	}
	class := func(fields string) string {
		return `{"nodeClasses":[{"name":"c"` + fields + `}]}`
	}
	for _, tc := range []struct {
		name, args string
		want       []string
	}{
		{"unknown version", `{"version":"0.5.0"}`, []string{"version:", "not supported", ">=0.19.0 <1.16.0"}},
		{"bad version", `{"version":"latest"}`, []string{"version:", "not a semantic version"}},
		{"missing oidc provider", `{"oidcProviderArn":null}`, []string{"oidcProviderArn: required"}},
		{"statements with own role", `{"controllerRoleArn":"arn:aws:iam::123456789012:role/r","controllerPolicyStatements":[{"actions":["s3:GetObject"],"resources":["*"]}]}`, []string{"controllerPolicyStatements: cannot be used with controllerRoleArn"}},
		{"statement without resources", `{"controllerPolicyStatements":[{"actions":["s3:GetObject"]}]}`, []string{"controllerPolicyStatements[0]: set exactly one of resources and notResources"}},
		{"statement bad effect", `{"controllerPolicyStatements":[{"effect":"Maybe","actions":["s3:GetObject"],"resources":["*"]}]}`, []string{"controllerPolicyStatements[0].effect:", "Allow, Deny"}},
		{"bad namespace", `{"namespace":"Kube_System"}`, []string{"namespace:"}},
		{"bad service account", `{"serviceAccountName":"Karpenter!"}`, []string{"serviceAccountName:"}},
		{"bad auth mode", `{"clusterAuthenticationMode":"IAM"}`, []string{"clusterAuthenticationMode:", "API, API_AND_CONFIG_MAP, CONFIG_MAP"}},
		{"empty chart repository", `{"chartRepository":""}`, []string{"chartRepository:"}},
		{"long component name", `{"name":"` + strings.Repeat("k", 40) + `"}`, []string{"name:", "too long", "at most 35 characters"}},

		{"invalid operator", pool(`,"requirements":[{"key":"kubernetes.io/arch","operator":"Equals","values":["amd64"]}]`), []string{"nodePools[0].requirements[0].operator:", "In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte"}},
		{"In without values", pool(`,"requirements":[{"key":"kubernetes.io/arch","operator":"In"}]`), []string{"nodePools[0].requirements[0].values: operator In needs at least one value"}},
		{"Gt with a word", pool(`,"requirements":[{"key":"karpenter.k8s.aws/instance-generation","operator":"Gt","values":["two"]}]`), []string{"nodePools[0].requirements[0].values[0]:", "non-negative integer"}},
		{"Exists with values", pool(`,"requirements":[{"key":"karpenter.k8s.aws/instance-gpu-count","operator":"Exists","values":["1"]}]`), []string{"takes no values"}},
		{"minValues over values", pool(`,"requirements":[{"key":"kubernetes.io/arch","operator":"In","values":["amd64"],"minValues":2}]`), []string{"requirements[0].minValues:"}},
		{"restricted requirement domain", pool(`,"requirements":[{"key":"karpenter.k8s.aws/made-up","operator":"Exists"}]`), []string{"requirements[0].key:", "restricted"}},
		{"restricted label", pool(`,"labels":{"karpenter.sh/nodepool":"x"}`), []string{`nodePools[0].labels["karpenter.sh/nodepool"]`, "restricted"}},
		{"hostname label", pool(`,"labels":{"kubernetes.io/hostname":"x"}`), []string{"restricted"}},
		{"budget schedule without duration", pool(`,"disruption":{"budgets":[{"nodes":"0","schedule":"0 9 * * *"}]}`), []string{"nodePools[0].disruption.budgets[0]: schedule and duration must be set together"}},
		{"budget bad cron", pool(`,"disruption":{"budgets":[{"nodes":"0","schedule":"0 25 * * *","duration":"1h"}]}`), []string{"budgets[0].schedule:", "field 2"}},
		{"budget bad nodes", pool(`,"disruption":{"budgets":[{"nodes":"110%"}]}`), []string{"budgets[0].nodes:"}},
		{"budget bad duration", pool(`,"disruption":{"budgets":[{"nodes":"1","schedule":"@daily","duration":"30s"}]}`), []string{"budgets[0].duration:"}},
		{"budget bad reason", pool(`,"disruption":{"budgets":[{"nodes":"1","reasons":["Expired"]}]}`), []string{"budgets[0].reasons[0]:", "Underutilized, Empty, Drifted"}},
		{"bad consolidation policy", pool(`,"disruption":{"consolidationPolicy":"Sometimes"}`), []string{"disruption.consolidationPolicy:"}},
		{"bad duration", pool(`,"expireAfter":"30 days"`), []string{"nodePools[0].expireAfter:"}},
		{"bad limit quantity", pool(`,"limits":{"cpu":"lots"}`), []string{`nodePools[0].limits["cpu"]:`, "quantity"}},
		{"bad taint effect", pool(`,"taints":[{"key":"k","effect":"NoWay"}]`), []string{"nodePools[0].taints[0].effect:", "NoSchedule, PreferNoSchedule, NoExecute"}},
		{"bad weight", pool(`,"weight":0`), []string{"nodePools[0].weight:"}},
		{"bad pool name", pool(`,"name":"Spot_Pool"`), []string{"nodePools[0].name:"}},
		{"duplicate pool", `{"nodePools":[{"name":"a"},{"name":"a"}]}`, []string{"nodePools[1].name: duplicate"}},
		{"unknown class ref", `{"nodeClasses":[{"name":"c"}],"nodePools":[{"name":"p","nodeClassRef":"missing"}]}`, []string{`nodePools[0].nodeClassRef: "missing" names no node class`}},
		{"ambiguous class ref", `{"nodeClasses":[{"name":"a"},{"name":"b"}],"nodePools":[{"name":"p"}]}`, []string{"nodePools[0].nodeClassRef: required"}},
		{"default pool with several classes", `{"nodeClasses":[{"name":"a"},{"name":"b"}]}`, []string{`defaultNodePool: the default pool needs a node class named "default" when there are several ("a", "b")`}},
		{"role and instance profile", class(`,"role":"r","instanceProfile":"p"`), []string{"nodeClasses[0]: role and instanceProfile are mutually exclusive"}},
		{"unknown alias family", class(`,"amiAlias":"ubuntu@latest"`), []string{"nodeClasses[0].amiAlias:", `unknown AMI alias family "ubuntu"`}},
		{"windows alias version", class(`,"amiAlias":"windows2022@v1"`), []string{"nodeClasses[0].amiAlias:", "@latest"}},
		{"alias with other terms", class(`,"amiSelectorTerms":[{"alias":"al2023@latest"},{"id":"ami-123"}]`), []string{"alias must be the only term"}},
		{"terms without family", class(`,"amiSelectorTerms":[{"id":"ami-0123"}]`), []string{"nodeClasses[0].amiFamily: required"}},
		{"bad ami id", class(`,"amiFamily":"AL2023","amiSelectorTerms":[{"id":"img-1"}]`), []string{"amiSelectorTerms[0].id:"}},
		{"subnet term with both", class(`,"subnetSelectorTerms":[{"id":"subnet-1","tags":{"a":"b"}}]`), []string{"subnetSelectorTerms[0]: set exactly one of id and tags"}},
		{"empty tag value", class(`,"securityGroupSelectorTerms":[{"tags":{"a":""}}]`), []string{"securityGroupSelectorTerms[0].tags:"}},
		{"reserved tag", class(`,"tags":{"karpenter.sh/nodepool":"x"}`), []string{"nodeClasses[0].tags:", "reserved"}},
		{"two root volumes", class(`,"blockDeviceMappings":[{"rootVolume":true,"ebs":{"volumeSize":"20Gi"}},{"rootVolume":true,"ebs":{"volumeSize":"20Gi"}}]`), []string{"at most one mapping may be the root volume"}},
		{"bad volume size", class(`,"blockDeviceMappings":[{"ebs":{"volumeSize":"100GB"}}]`), []string{"blockDeviceMappings[0].ebs.volumeSize:"}},
		{"bad http tokens", class(`,"metadataOptions":{"httpTokens":"sometimes"}`), []string{"metadataOptions.httpTokens:"}},
		{"soft eviction without grace", class(`,"kubelet":{"evictionSoft":{"memory.available":"10%"}}`), []string{"kubelet.evictionSoftGracePeriod: missing"}},
		{"image gc thresholds", class(`,"kubelet":{"imageGCHighThresholdPercent":50,"imageGCLowThresholdPercent":60}`), []string{"imageGCHighThresholdPercent must be greater"}},
		{"duplicate class", `{"nodeClasses":[{"name":"a"},{"name":"a"}]}`, []string{"nodeClasses[1].name: duplicate"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := planError(t, argstest.WithDefaults(t, tc.args))
			for _, want := range tc.want {
				assert.Contains(t, msg, want)
			}
		})
	}
}

func TestAllProblemsAreReportedTogether(t *testing.T) {
	msg := planError(t, argstest.WithDefaults(t, `{"namespace":"Bad","nodePools":[{"name":"p","weight":0,"expireAfter":"soon"}]}`))
	for _, want := range []string{"namespace:", "nodePools[0].weight:", "nodePools[0].expireAfter:"} {
		assert.Contains(t, msg, want)
	}
}

// A requirement on a well-known label takes only the values Karpenter sets there: a misspelt
// capacity type would leave the pool unable to launch any node.
func TestWellKnownRequirementValues(t *testing.T) {
	pool := func(key, values string) string {
		return argstest.WithDefaults(t, `{"nodePools": [{"name": "p", "requirements": [{"key": "`+key+`", "operator": "In", "values": `+values+`}]}]}`)
	}
	assert.Contains(t, planError(t, pool("karpenter.sh/capacity-type", `["spot", "on-demnd"]`)),
		`nodePools[0].requirements[0].values[1]: "on-demnd" is not a value Karpenter sets on karpenter.sh/capacity-type (spot, on-demand, reserved), so the requirement can never match it`)
	assert.Contains(t, planError(t, pool("kubernetes.io/arch", `["x86_64"]`)), `"x86_64" is not a value Karpenter sets on kubernetes.io/arch (amd64, arm64)`)
	planOK(t, pool("karpenter.sh/capacity-type", `["spot", "on-demand", "reserved"]`))
	planOK(t, pool("example.com/team", `["anything"]`))

	old := argstest.WithDefaults(t, `{"version": "1.2.1", "nodePools": [{"name": "p", "requirements": [{"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["reserved"]}]}]}`)
	assert.Contains(t, planError(t, old), "nodePools[0].requirements[0].values[0]: needs the reserved capacity type, which Karpenter 1.2.1 does not have (first in 1.3.0; version is 1.2.1)")
}

// User data Karpenter cannot merge with the AMI family's bootstrap would fail every launch from
// the class while it reports Ready: refused at preview, per family.
func TestUserDataPerAMIFamily(t *testing.T) {
	class := func(alias, userData string) string {
		b, err := json.Marshal(userData)
		require.NoError(t, err)
		return argstest.WithDefaults(t, `{"nodeClasses": [{"name": "default", "amiAlias": "`+alias+`", "userData": `+string(b)+`}]}`)
	}
	assert.Contains(t, planError(t, class("bottlerocket@latest", "[settings.kubernetes\nmax-pods = 110\n")),
		"nodeClasses[0].userData: Bottlerocket user data is TOML settings, which Karpenter merges its own into, and this is not TOML")
	planOK(t, class("bottlerocket@latest", "[settings.kubernetes]\nmax-pods = 110\n"))

	archive := "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"B\"\n\n--B\nContent-Type: text/x-shellscript\n\necho hi\n--B--\n"
	planOK(t, class("al2023@latest", archive))
	planOK(t, class("al2023@latest", "#!/bin/bash\necho hi\n"))
	planOK(t, class("al2023@latest", "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      maxPods: 110\n"))
	assert.Contains(t, planError(t, class("al2023@latest", "MIME-Version: 1.0\nContent-Type: text/plain\n\necho hi\n")),
		"nodeClasses[0].userData: starts like a MIME multi-part archive but is not one (Content-Type text/plain is not multipart), so Karpenter cannot merge it with the AL2023 bootstrap")
	assert.Contains(t, planError(t, class("al2@latest", "Content-Type: multipart/mixed; boundary=\"B\"\n\n--B\nContent-Type: text/x-shellscript\n\necho hi\n")),
		"nodeClasses[0].userData: starts like a MIME multi-part archive but is not one", "an archive must end")
	planOK(t, class("windows2022@latest", "<powershell>Write-Host hi</powershell>"))
}
