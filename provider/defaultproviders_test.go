package provider_test

import (
	"strings"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/children"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/argstest"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/rendertest"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/render"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Provider references as the engine sends them in a ConstructRequest: "urn::id".

// constructWith runs the component through the gRPC Construct path with the given providers
// and stack config, and returns what was registered, the warnings the engine received and
// the construct error.
func constructWith(t *testing.T, providers, config map[string]string) (map[string]*render.Registration, []*pulumirpc.LogRequest, error) {
	t.Helper()
	args, err := rendertest.ParseArgs([]byte(argstest.DefaultArgs))
	require.NoError(t, err)
	args.Providers, args.Config = providers, config
	h, err := rendertest.StartHost(t.Context(), &render.Mocks{}, args.Project, args.Stack)
	require.NoError(t, err)
	defer h.Close()
	_, registered, err := h.Construct(t.Context(), args)
	return registered, h.Warnings(), err
}

func TestNoProvidersWarns(t *testing.T) {
	_, warnings, err := constructWith(t, nil, nil)
	require.NoError(t, err)
	require.Len(t, warnings, 2)
	component := "urn:pulumi:stack::project::karpenter:index:Karpenter::karpenter"
	for _, w := range warnings {
		assert.Equal(t, component, w.GetUrn(), "the warning is on the component")
	}
	assert.Contains(t, warnings[0].GetMessage(), "no aws provider was passed to this component")
	assert.Contains(t, warnings[0].GetMessage(), "default pulumi-aws "+children.AWSVersion+" provider")
	assert.Contains(t, warnings[0].GetMessage(), "Programs on pulumi-aws v7")
	assert.Contains(t, warnings[1].GetMessage(), "no kubernetes provider was passed to this component")
	assert.Contains(t, warnings[1].GetMessage(), "ambient kubeconfig")
}

func TestOneMissingProviderWarnsForIt(t *testing.T) {
	_, warnings, _ := constructWith(t, map[string]string{"aws": rendertest.AWSProvider}, nil)
	require.Len(t, warnings, 1)
	assert.Contains(t, warnings[0].GetMessage(), "no kubernetes provider")

	_, warnings, _ = constructWith(t, map[string]string{"kubernetes": rendertest.KubernetesProvider}, nil)
	require.Len(t, warnings, 1)
	assert.Contains(t, warnings[0].GetMessage(), "no aws provider")
}

func TestProvidersPassedDoNotWarn(t *testing.T) {
	registered, warnings, err := constructWith(t, map[string]string{"aws": rendertest.AWSProvider, "kubernetes": rendertest.KubernetesProvider}, nil)
	require.NoError(t, err)
	assert.Empty(t, warnings)
	assert.NotEmpty(t, registered)
}

// With default providers disabled the engine refuses one itself, with its own clear error:
// nothing to warn about.
func TestDisabledDefaultProvidersDoNotWarn(t *testing.T) {
	for _, disabled := range []string{`["aws","kubernetes"]`, `["*"]`} {
		_, warnings, _ := constructWith(t, nil, map[string]string{"pulumi:disable-default-providers": disabled})
		assert.Empty(t, warnings, disabled)
	}
	_, warnings, _ := constructWith(t, nil, map[string]string{"pulumi:disable-default-providers": `["kubernetes"]`})
	require.Len(t, warnings, 1)
	assert.Contains(t, warnings[0].GetMessage(), "no aws provider")
}

// A default pulumi-aws 6.83.2 provider built from pulumi-aws v7 config would reject the key or
// act as another identity: the component fails first, before registering anything.
func TestV7AWSConfigWithoutAWSProviderFails(t *testing.T) {
	config := map[string]string{
		"aws:region":      "us-west-2",
		"aws:assumeRoles": `[{"roleArn":"arn:aws:iam::210987654321:role/deployer"}]`,
		"aws:userAgents":  `["ci"]`,
	}
	registered, _, err := constructWith(t, map[string]string{"kubernetes": rendertest.KubernetesProvider}, config)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "aws:assumeRoles, aws:userAgents")
	assert.Contains(t, err.Error(), "unknown to pulumi-aws "+children.AWSVersion)
	assert.Contains(t, err.Error(), "providers: {aws:")
	assert.Empty(t, registered, "nothing is registered")
}

func TestV7AWSConfigWithAWSProviderIsFine(t *testing.T) {
	config := map[string]string{"aws:assumeRoles": `[{"roleArn":"arn:aws:iam::210987654321:role/deployer"}]`}
	registered, warnings, err := constructWith(t, map[string]string{"aws": rendertest.AWSProvider, "kubernetes": rendertest.KubernetesProvider}, config)
	require.NoError(t, err)
	assert.Empty(t, warnings)
	assert.NotEmpty(t, registered)
}

// Keys both majors know, and v6's own assumeRole, are left to the provider.
func TestSharedAWSConfigWithoutAWSProviderWarnsOnly(t *testing.T) {
	config := map[string]string{"aws:region": "us-west-2", "aws:assumeRole": `{"roleArn":"arn:aws:iam::210987654321:role/deployer"}`}
	_, warnings, err := constructWith(t, nil, config)
	require.NoError(t, err)
	require.Len(t, warnings, 2)
	assert.True(t, strings.HasPrefix(warnings[0].GetMessage(), "no aws provider"))
}

// The standalone NodePool creates only a custom resource: no aws provider is needed, so none is
// warned about (a kubernetes one still is).
func TestStandaloneWarnsOnlyForKubernetes(t *testing.T) {
	args, err := rendertest.ParseArgs([]byte(`{"type": "karpenter:index:NodePool", "name": "team-a", "spec": {"name": "team-a", "nodeClassRef": "default"}}`))
	require.NoError(t, err)
	h, err := rendertest.StartHost(t.Context(), &render.Mocks{}, args.Project, args.Stack)
	require.NoError(t, err)
	defer h.Close()
	_, _, err = h.Construct(t.Context(), args)
	require.NoError(t, err)
	warnings := h.Warnings()
	require.Len(t, warnings, 1)
	assert.Contains(t, warnings[0].GetMessage(), "no kubernetes provider was passed")
}
