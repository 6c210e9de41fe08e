package provider

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/render"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every bad input fails the render (which constructs the component exactly as the engine
// would) with a message naming the field, and nothing is registered.
func TestBadInputIsRejectedNamingTheField(t *testing.T) {
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
		{"bad oidc arn", `{"oidcProviderArn":"arn:aws:iam::123:oidc-provider/x"}`, []string{"oidcProviderArn:", "oidc-provider/"}},
		{"bad cluster name", `{"clusterName":"-demo"}`, []string{"clusterName:", "not a valid EKS cluster name"}},
		{"long cluster name", `{"clusterName":"` + strings.Repeat("c", 101) + `"}`, []string{"clusterName:"}},
		{"bad endpoint", `{"clusterEndpoint":"http://cluster"}`, []string{"clusterEndpoint:", "https URL"}},
		{"bad node role arn", `{"nodeRoleArn":"arn:aws:iam::123456789012:user/x"}`, []string{"nodeRoleArn:", "role/"}},
		{"bad controller role arn", `{"controllerRoleArn":"KarpenterController"}`, []string{"controllerRoleArn:"}},
		{"bad policy arn", `{"nodeRoleAdditionalPolicyArns":{"x":"arn:aws:iam::aws:role/y"}}`, []string{"nodeRoleAdditionalPolicyArns.x:"}},
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
			msg := renderError(t, withDefaults(t, tc.args))
			for _, want := range tc.want {
				assert.Contains(t, msg, want)
			}
		})
	}
}

// A bad value must keep every child from being created, including those registered before
// the value resolved.
func TestBadInputCreatesNothing(t *testing.T) {
	for _, args := range []string{
		`{"clusterName":"bad name","oidcProviderArn":"arn:aws:iam::123456789012:oidc-provider/x"}`,
		`{"clusterName":"demo","oidcProviderArn":"arn:aws:iam::123456789012:oidc-provider/x","nodePools":[{"name":"p","weight":1000}]}`,
		// Karpenter 1.15: a newer minor without the opt-in, a 1.15 field on 1.14, the chart's
		// forbidden combinations (checked once values resolve, behind the gate).
		`{"clusterName":"demo","oidcProviderArn":"arn:aws:iam::123456789012:oidc-provider/x","version":"1.16.0"}`,
		`{"clusterName":"demo","oidcProviderArn":"arn:aws:iam::123456789012:oidc-provider/x","version":"1.14.1","nodeClasses":[{"name":"c","enclaveOptions":{"enabled":true}}]}`,
		`{"clusterName":"demo","oidcProviderArn":"arn:aws:iam::123456789012:oidc-provider/x","values":{"settings":{"enableDRA":true,"ignoreDRARequests":false}}}`,
		`{"clusterName":"demo","oidcProviderArn":"arn:aws:iam::123456789012:oidc-provider/x","values":{"settings":{"legacyNodeRepair":true,"featureGates":{"terminateFirstRepair":true}}}}`,
		`{"clusterName":"demo","oidcProviderArn":"arn:aws:iam::123456789012:oidc-provider/x","version":"1.14.1","values":{"settings":{"awsFeatureGates":{"rebootForRepair":true}}}}`,
	} {
		parsed, err := ParseRenderArgs([]byte(args))
		assert.NoError(t, err)
		mocks := &render.Mocks{}
		_, err = renderWith(t.Context(), parsed, mocks)
		assert.Error(t, err)
		for key, reg := range mocks.Registered {
			assert.False(t, reg.Custom, "%s was registered despite bad input", key)
		}
	}
}

func TestAllProblemsAreReportedTogether(t *testing.T) {
	msg := renderError(t, withDefaults(t, `{"namespace":"Bad","nodePools":[{"name":"p","weight":0,"expireAfter":"soon"}]}`))
	for _, want := range []string{"namespace:", "nodePools[0].weight:", "nodePools[0].expireAfter:"} {
		assert.Contains(t, msg, want)
	}
}

// A requirement on a well-known label takes only the values Karpenter sets there: a misspelt
// capacity type would leave the pool unable to launch any node.
func TestWellKnownRequirementValues(t *testing.T) {
	pool := func(key, values string) string {
		return withDefaults(t, `{"nodePools": [{"name": "p", "requirements": [{"key": "`+key+`", "operator": "In", "values": `+values+`}]}]}`)
	}
	assert.Contains(t, renderError(t, pool("karpenter.sh/capacity-type", `["spot", "on-demnd"]`)),
		`nodePools[0].requirements[0].values[1]: "on-demnd" is not a value Karpenter sets on karpenter.sh/capacity-type (spot, on-demand, reserved), so the requirement can never match it`)
	assert.Contains(t, renderError(t, pool("kubernetes.io/arch", `["x86_64"]`)), `"x86_64" is not a value Karpenter sets on kubernetes.io/arch (amd64, arm64)`)
	renderArgs(t, pool("karpenter.sh/capacity-type", `["spot", "on-demand", "reserved"]`))
	renderArgs(t, pool("example.com/team", `["anything"]`))

	old := mergeArgs(t, pool("karpenter.sh/capacity-type", `["reserved"]`), `{"version": "1.2.1"}`)
	assert.Contains(t, renderError(t, old), "nodePools[0].requirements[0].values[0]: needs the reserved capacity type, which Karpenter 1.2.1 does not have (first in 1.3.0; version is 1.2.1)")
}

// User data Karpenter cannot merge with the AMI family's bootstrap would fail every launch from
// the class while it reports Ready: refused at preview, per family.
func TestUserDataPerAMIFamily(t *testing.T) {
	class := func(alias, userData string) string {
		b, err := json.Marshal(userData)
		require.NoError(t, err)
		return withDefaults(t, `{"nodeClasses": [{"name": "default", "amiAlias": "`+alias+`", "userData": `+string(b)+`}]}`)
	}
	assert.Contains(t, renderError(t, class("bottlerocket@latest", "[settings.kubernetes\nmax-pods = 110\n")),
		"nodeClasses[0].userData: Bottlerocket user data is TOML settings, which Karpenter merges its own into, and this is not TOML")
	renderArgs(t, class("bottlerocket@latest", "[settings.kubernetes]\nmax-pods = 110\n"))

	archive := "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"B\"\n\n--B\nContent-Type: text/x-shellscript\n\necho hi\n--B--\n"
	renderArgs(t, class("al2023@latest", archive))
	renderArgs(t, class("al2023@latest", "#!/bin/bash\necho hi\n"))
	renderArgs(t, class("al2023@latest", "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      maxPods: 110\n"))
	assert.Contains(t, renderError(t, class("al2023@latest", "MIME-Version: 1.0\nContent-Type: text/plain\n\necho hi\n")),
		"nodeClasses[0].userData: starts like a MIME multi-part archive but is not one (Content-Type text/plain is not multipart), so Karpenter cannot merge it with the AL2023 bootstrap")
	assert.Contains(t, renderError(t, class("al2@latest", "Content-Type: multipart/mixed; boundary=\"B\"\n\n--B\nContent-Type: text/x-shellscript\n\necho hi\n")),
		"nodeClasses[0].userData: starts like a MIME multi-part archive but is not one", "an archive must end")
	renderArgs(t, class("windows2022@latest", "<powershell>Write-Host hi</powershell>"))
}
