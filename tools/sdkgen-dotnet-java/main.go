// Command sdkgen-dotnet-java writes sdk/dotnet and sdk/java from schema.json, calling the
// codegen libraries as pulumi-language-dotnet and pulumi-language-java do for
// `pulumi package gen-sdk`.
//
// Both share this module because they need an older github.com/pulumi/pulumi/pkg/v3 than
// the other languages: codegen/dotnet left pkg after v3.228.0 (for pulumi-dotnet, which the
// module proxy does not serve), and pulumi-java's codegen v1.16.0 does not compile against
// pkg's later API.
package main

import (
	"bytes"
	_ "embed"
	"fmt"
	"io"
	"net/http"

	javagen "github.com/pulumi/pulumi-java/pkg/codegen/java"
	dotnetgen "github.com/pulumi/pulumi/pkg/v3/codegen/dotnet"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"

	"github.com/pulumi-karpenter/pulumi-karpenter/tools/sdkgen"
)

// logo is the NuGet package icon. The .NET codegen downloads the schema's logoUrl (or, when
// unset, Pulumi's logo from GitHub) into sdk/dotnet/logo.png; generation must work offline and
// give the same bytes everywhere, so that download is answered with this file instead: a copy of
// docs/logo.png, the file logoUrl names (provider's TestLogoURLIsTheRepositorysLogo checks it).
//
//go:embed logo.png
var logo []byte

// defaultLogoURL is the logo codegen/dotnet (pkg v3.228.0) fetches when the schema has none.
const defaultLogoURL = "https://raw.githubusercontent.com/pulumi/pulumi/" +
	"dbc96206bec722b7791a22ff50e895ab7c0abdc0/sdk/dotnet/pulumi_logo_64x64.png"

// logoTransport answers requests for the logo URL and refuses any other network access.
type logoTransport struct{ url string }

func (t logoTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.String() != t.url {
		return nil, fmt.Errorf("SDK generation is offline: refusing to fetch %s", req.URL)
	}
	return &http.Response{
		StatusCode: http.StatusOK,
		Header:     http.Header{"Content-Type": {"image/png"}},
		Body:       io.NopCloser(bytes.NewReader(logo)),
		Request:    req,
	}, nil
}

func main() {
	sdkgen.Main(map[string]sdkgen.Language{
		"dotnet": {
			Generate: func(pkg *schema.Package, _ schema.ReferenceLoader) (map[string][]byte, error) {
				url := pkg.LogoURL
				if url == "" {
					url = defaultLogoURL
				}
				http.DefaultTransport = logoTransport{url: url}
				return dotnetgen.GeneratePackage("pulumi-language-dotnet", pkg, nil, nil)
			},
		},
		"java": {
			// pulumi-language-java merges types whose tokens differ only in case before binding.
			Prepare: func(spec schema.PackageSpec) (schema.PackageSpec, error) {
				deduped, diags, err := javagen.DeduplicateTypes(&spec)
				if err != nil {
					return spec, err
				}
				if diags.HasErrors() {
					return spec, diags
				}
				return *deduped, nil
			},
			Generate: func(pkg *schema.Package, _ schema.ReferenceLoader) (map[string][]byte, error) {
				return javagen.GeneratePackage("pulumi-language-java", pkg, nil, nil, false, false)
			},
		},
	})
}
