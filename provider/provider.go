// Package provider implements the karpenter:index:Karpenter component, and the
// karpenter:index:NodePool and karpenter:index:NodeClass components for pools and classes
// declared outside it: the infer wiring on top of the layers catalog ← inputs ← plan ← children
// (see their package docs), the default-provider checks, and `render` wired to this provider
// (renderer.go; package render runs it under an in-process engine with mocks).
package provider

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputs"

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
		WithComponents(infer.ComponentF(NewKarpenter), infer.ComponentF(NewNodePool), infer.ComponentF(NewNodeClass)).
		Build()
	if err != nil {
		return p.Provider{}, err
	}
	return withKnownInputs(prov), nil
}

// withKnownInputs hands the component the raw construct inputs through the context (known.go;
// why the context: inputs/doc.go, "Values not known at Construct"). Before that, the inputs are
// checked for keys no type declares, and output values inside plain fields are resolved
// (inputs.ResolvePlainOutputs).
func withKnownInputs(prov p.Provider) p.Provider {
	construct := prov.Construct
	prov.Construct = func(ctx context.Context, req p.ConstructRequest) (p.ConstructResponse, error) {
		if args, ok := componentArgs[string(req.Urn.Type())]; ok {
			if err := inputs.CheckUnknownProperties(req.Inputs, args); err != nil {
				return p.ConstructResponse{}, err
			}
			inputs, later, err := inputs.ResolvePlainOutputs(req.Inputs, args, req.DryRun)
			if err != nil {
				return p.ConstructResponse{}, err
			}
			req.Inputs = inputs
			ctx = withConstructInputs(ctx, req.Inputs, later)
		}
		if err := checkDefaultProviders(ctx, req); err != nil {
			return p.ConstructResponse{}, err
		}
		resp, err := construct(ctx, req)
		return resp, unwrapGateError(err)
	}
	return prov
}

// unwrapGateError shows a validation failure of a resolved input as the component wrote it.
// The SDK reports it from the first output that awaited the validation gate, wrapped as
// `... awaiting input property "x": resolving options: <message>`.
func unwrapGateError(err error) error {
	const marker = "resolving options: "
	if err == nil {
		return nil
	}
	if i := strings.LastIndex(err.Error(), marker); i >= 0 {
		return errors.New(err.Error()[i+len(marker):])
	}
	return err
}

// componentArgs are the input types of each component, for inputs.CheckUnknownProperties.
var componentArgs = map[string]reflect.Type{
	componentToken: reflect.TypeFor[inputs.KarpenterArgs](),
	nodePoolToken:  reflect.TypeFor[inputs.NodePoolArgs](),
	nodeClassToken: reflect.TypeFor[inputs.NodeClassArgs](),
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
