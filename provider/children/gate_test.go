package children_test

import (
	"strings"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/argstest"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/rendertest"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/render"

	"github.com/stretchr/testify/assert"
)

// Every bad Input value fails the render (which constructs the component exactly as the engine
// would) with a message naming the field, and nothing is registered: these are checked by the
// gate once they resolve (children/gate.go). The plain inputs' refusals are the plan's tests
// (plan/refusals_test.go).
func TestBadInputValueIsRejectedNamingTheField(t *testing.T) {
	for _, tc := range []struct {
		name, args string
		want       []string
	}{
		{"bad oidc arn", `{"oidcProviderArn":"arn:aws:iam::123:oidc-provider/x"}`, []string{"oidcProviderArn:", "oidc-provider/"}},
		{"bad cluster name", `{"clusterName":"-demo"}`, []string{"clusterName:", "not a valid EKS cluster name"}},
		{"long cluster name", `{"clusterName":"` + strings.Repeat("c", 101) + `"}`, []string{"clusterName:"}},
		{"bad endpoint", `{"clusterEndpoint":"http://cluster"}`, []string{"clusterEndpoint:", "https URL"}},
		{"bad node role arn", `{"nodeRoleArn":"arn:aws:iam::123456789012:user/x"}`, []string{"nodeRoleArn:", "role/"}},
		{"bad controller role arn", `{"controllerRoleArn":"KarpenterController"}`, []string{"controllerRoleArn:"}},
		{"bad policy arn", `{"nodeRoleAdditionalPolicyArns":{"x":"arn:aws:iam::aws:role/y"}}`, []string{"nodeRoleAdditionalPolicyArns.x:"}},
		{"reservation bad id", `{"nodeClasses":[{"name":"c","capacityReservationSelectorTerms":[{"id":"odcr-1"}]}]}`, []string{`nodeClasses[0].capacityReservationSelectorTerms[0].id: "odcr-1" is not an id of the form cr-<hex>`}},
		{"placement group bad id", `{"nodeClasses":[{"name":"c","placementGroupSelector":{"id":"pg_1"}}]}`, []string{`nodeClasses[0].placementGroupSelector.id: "pg_1" is not an id of the form pg-<hex>`}},
		{"placement group empty name", `{"nodeClasses":[{"name":"c","placementGroupSelector":{"name":""}}]}`, []string{"nodeClasses[0].placementGroupSelector.name: must not be empty"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := rendertest.Error(t, argstest.WithDefaults(t, tc.args))
			for _, want := range tc.want {
				assert.Contains(t, msg, want)
			}
		})
	}
	autoModeClass := argstest.AutoModeWith(t, `{"nodeClasses":[{"name":"c","podSubnetSelectorTerms":[{"id":"sg-1"}],"podSecurityGroupSelectorTerms":[{"id":"sg-1"}]}]}`)
	assert.Contains(t, rendertest.Error(t, autoModeClass), "nodeClasses[0].podSubnetSelectorTerms[0].id")
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
		parsed, err := rendertest.ParseArgs([]byte(args))
		assert.NoError(t, err)
		mocks := &render.Mocks{}
		_, err = rendertest.RenderWith(t.Context(), parsed, mocks)
		assert.Error(t, err)
		for key, reg := range mocks.Registered {
			assert.False(t, reg.Custom, "%s was registered despite bad input", key)
		}
	}
}
