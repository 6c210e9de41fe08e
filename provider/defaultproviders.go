package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/children"

	p "github.com/pulumi/pulumi-go-provider"
	pconfig "github.com/pulumi/pulumi/sdk/v3/go/common/resource/config"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"
)

// The children are registered at fixed provider versions (children.AWSVersion, children.KubernetesVersion). When a
// program passes no provider for a package — neither in the component's `providers` option nor
// on a parent component, whose map the engine merges into the construct request — the engine
// gives the children a *default* provider at that version, configured from the stack's
// `<package>:*` config and the ambient credentials or kubeconfig. That is rarely what a program
// that builds its own providers means: IAM lands in whatever account the ambient credentials
// reach, and Helm releases in whatever cluster the kubeconfig points at. So the component warns.
//
// A program on pulumi-aws v7 (which pulumi-eks v4 requires) may also hold v7-only keys in its
// stack config. A default pulumi-aws 6.83.2 provider rejects keys it does not know with an error
// about its own config (`aws:assumeRoles is not a valid configuration key`; pulumi-aws#3360), and
// without them it would act as a different identity; the component fails first, naming the key
// and the fix.

// awsV7OnlyConfigKeys are the `aws:` config keys pulumi-aws 7 knows and 6.83.2 does not: the
// difference of the variables declared in config/vars.d.ts of the npm packages @pulumi/aws@6.83.2
// and @pulumi/aws@7.48.0. (6.83.2's `assumeRole` object became 7's `assumeRoles` list.) Redo the
// diff when children.AWSVersion changes.
var awsV7OnlyConfigKeys = []string{"assumeRoles", "tagPolicyCompliance", "userAgents"}

// checkDefaultProviders warns for each package of uses (the provider packages the component's
// children use) the children would get a default provider for, and fails when that default aws
// provider would be built from pulumi-aws v7 config.
func checkDefaultProviders(ctx context.Context, req p.ConstructRequest, uses []tokens.Package) error {
	if slices.Contains(uses, "aws") && defaultProviderFor(req, "aws") {
		var v7 []string
		for _, name := range awsV7OnlyConfigKeys {
			if _, ok := req.Config[pconfig.MustMakeKey("aws", name)]; ok {
				v7 = append(v7, "aws:"+name)
			}
		}
		if len(v7) > 0 {
			return fmt.Errorf("the stack config sets %s (pulumi-aws v7 config, unknown to pulumi-aws %s) and no aws provider "+
				"was passed to this component: its children would use a default pulumi-aws %s provider built from that config, "+
				"which rejects keys it does not know and, without them, would act as a different identity. "+
				"Pass the program's providers: `providers: {aws: <aws.Provider>, kubernetes: <kubernetes.Provider>}` "+
				"(on this component or a parent component)",
				strings.Join(v7, ", "), children.AWSVersion, children.AWSVersion)
		}
		p.GetLogger(ctx).Warning(fmt.Sprintf("no aws provider was passed to this component (the `providers` option, "+
			"or a parent component's), so its AWS children use a default pulumi-aws %s provider configured from the "+
			"stack's `aws:*` config and the ambient AWS credentials, which may be a different identity, account or region "+
			"from the program's. Programs on pulumi-aws v7, or with their own aws provider, should pass "+
			"`providers: {aws: <aws.Provider>, kubernetes: <kubernetes.Provider>}` explicitly.", children.AWSVersion))
	}
	if slices.Contains(uses, "kubernetes") && defaultProviderFor(req, "kubernetes") {
		p.GetLogger(ctx).Warning(fmt.Sprintf("no kubernetes provider was passed to this component (the `providers` "+
			"option, or a parent component's), so its Helm releases and Karpenter resources use a default "+
			"pulumi-kubernetes %s provider configured from the stack's `kubernetes:*` config or the ambient kubeconfig, "+
			"which may point at another cluster. Pass `providers: {aws: <aws.Provider>, kubernetes: <kubernetes.Provider>}` "+
			"with a provider for this cluster.", children.KubernetesVersion))
	}
	return nil
}

// defaultProviderFor reports whether the children's resources of pkg get a default provider:
// none was passed and the stack does not disable default providers for pkg (then the engine
// fails each child with its own clear error, and there is nothing to warn about).
func defaultProviderFor(req p.ConstructRequest, pkg tokens.Package) bool {
	if _, ok := req.Providers[pkg]; ok {
		return false
	}
	// The engine's encoding: a JSON list of package names, "*" for all (see pulumi's
	// pkg/resource/deploy/default_providers.go).
	var disabled []string
	_ = json.Unmarshal([]byte(req.Config[pconfig.MustMakeKey("pulumi", "disable-default-providers")]), &disabled)
	for _, d := range disabled {
		if d = strings.TrimSpace(d); d == "*" || d == string(pkg) {
			return false
		}
	}
	return true
}
