// Command sdkgen-nodejs-python-go writes sdk/nodejs, sdk/python and sdk/go from schema.json
// with the codegen of github.com/pulumi/pulumi/pkg/v3, called exactly as the plugins
// pulumi-language-{nodejs,python,go} call it for `pulumi package gen-sdk`.
package main

import (
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	nodejsgen "github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	pythongen "github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"

	"github.com/pulumi-karpenter/pulumi-karpenter/tools/sdkgen"
)

func main() {
	// The tool names are the plugins' so that file headers match gen-sdk's output.
	sdkgen.Main(map[string]sdkgen.Language{
		"nodejs": {
			Generate: func(pkg *schema.Package, loader schema.ReferenceLoader) (map[string][]byte, error) {
				return nodejsgen.GeneratePackage("pulumi-language-nodejs", pkg, nil, nil, false, loader)
			},
			Readme: true,
		},
		"python": {
			Generate: func(pkg *schema.Package, loader schema.ReferenceLoader) (map[string][]byte, error) {
				return pythongen.GeneratePackage("pulumi-language-python", pkg, nil, loader)
			},
			Readme: true,
		},
		"go": {
			Generate: func(pkg *schema.Package, _ schema.ReferenceLoader) (map[string][]byte, error) {
				return gogen.GeneratePackage("pulumi-language-go", pkg, nil)
			},
		},
	})
}
