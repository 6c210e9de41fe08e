// Package provider implements the karpenter:index:Karpenter component, and the
// karpenter:index:NodePool and karpenter:index:NodeClass components for pools and classes
// declared outside it: the infer wiring on top of the layers catalog ← inputs ← plan ← children
// (see their package docs), the default-provider checks, and `render` wired to this provider
// (renderer.go; package render runs it under an in-process engine with mocks).
package provider

import (
	"context"
	"encoding/json"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi-go-provider/infer"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"
)

const (
	// Name is the Pulumi package name.
	Name           = "karpenter"
	componentToken = "karpenter:index:Karpenter"
)

// repository is the project's GitHub repository: the schema's homepage and repository.
const repository = "https://github.com/pulumi-karpenter/pulumi-karpenter"

// logoURL is the schema's logoUrl, the package's logo in the Registry and the NuGet package's
// icon: docs/logo.png on the repository's main branch, as the Registry's publishing guide asks
// (a raw GitHub URL of a file in the package's repository). A PNG, not docs/logo.svg (its
// source, rendered at 100x100 with `rsvg-convert -w 100 -h 100 docs/logo.svg -o docs/logo.png`):
// the .NET SDK generator downloads logoUrl into the NuGet package's icon, which NuGet takes only
// as PNG or JPEG.
const logoURL = "https://raw.githubusercontent.com/pulumi-karpenter/pulumi-karpenter/main/docs/logo.png"

// Version is the provider's version, stamped at build time with -ldflags.
var Version = "0.0.0-dev"

// Provider serves the component.
func Provider() (p.Provider, error) {
	prov, err := infer.NewProviderBuilder().
		WithDisplayName("Karpenter").
		WithDescription("Installs Karpenter, the Kubernetes node autoscaler, on an Amazon EKS cluster: IAM, interruption handling, Helm releases and NodePools, correct for each Karpenter version.").
		WithKeywords("kubernetes", "karpenter", "aws", "eks", "autoscaling", "category/cloud", "kind/component").
		WithHomepage(repository).
		WithRepository(repository).
		WithLogoURL(logoURL).
		WithPublisher("pulumi-karpenter").
		WithLicense("Apache-2.0").
		WithPluginDownloadURL("github://api.github.com/pulumi-karpenter/pulumi-karpenter").
		WithLanguageMap(languageMap()).
		// Every token is in the index module: the component types' (this package) and the input
		// types. (package inputs), whose Go package would otherwise name the module.
		WithModuleMap(map[tokens.ModuleName]tokens.ModuleName{"provider": "index", "inputs": "index"}).
		WithComponents(inferredComponents()...).
		Build()
	if err != nil {
		return p.Provider{}, err
	}
	prov.Construct = construct // construct.go: every component, with what the engine sent known
	return prov, nil
}

// languageMap names the package in every language's registry.
func languageMap() map[string]any {
	return map[string]any{
		"nodejs": map[string]any{
			"packageName":          "@pulumi-karpenter/karpenter",
			"respectSchemaVersion": true,
			"dependencies": map[string]string{
				"@pulumi/pulumi": "^3.142.0",
			},
		},
		"python": map[string]any{
			"packageName":          "pulumi_karpenter",
			"respectSchemaVersion": true,
			"pyproject":            map[string]any{"enabled": true},
			// pulumi 3.256's own floor (3.9 ended 2025-10; 3.10 too, 2026-10, but pulumi still installs there).
			"pythonRequires": ">=3.10",
			"requires": map[string]string{
				"pulumi": ">=3.142.0,<4.0.0",
			},
		},
		"go": map[string]any{
			"importBasePath":                 "github.com/pulumi-karpenter/pulumi-karpenter/sdk/go/karpenter",
			"generateResourceContainerTypes": true,
			"respectSchemaVersion":           true,
		},
		"csharp": map[string]any{
			"rootNamespace":        "PulumiKarpenter",
			"respectSchemaVersion": true,
			"packageReferences": map[string]string{
				"Pulumi": "3.*",
			},
		},
		"java": map[string]any{
			"buildFiles":  "gradle",
			"basePackage": "io.github.pulumikarpenter",
			"dependencies": map[string]string{
				"com.pulumi:pulumi": "1.16.0",
			},
		},
	}
}

// Serve runs the provider for the Pulumi engine (the plugin protocol on stdin/stdout and gRPC).
func Serve(ctx context.Context) error {
	prov, err := Provider()
	if err != nil {
		return err
	}
	return p.RunProvider(ctx, Name, Version, prov)
}

// Schema returns the package schema as indented JSON, without a version: the version is
// stamped into SDKs when they are generated and published.
func Schema(ctx context.Context) ([]byte, error) {
	prov, err := Provider()
	if err != nil {
		return nil, err
	}
	spec, err := p.GetSchema(ctx, Name, "", prov)
	if err != nil {
		return nil, err
	}
	out, err := json.MarshalIndent(spec, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}
