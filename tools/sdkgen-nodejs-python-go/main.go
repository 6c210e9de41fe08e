// Command sdkgen-nodejs-python-go writes sdk/nodejs, sdk/python and sdk/go from schema.json
// with the codegen of github.com/pulumi/pulumi/pkg/v3, called exactly as the plugins
// pulumi-language-{nodejs,python,go} call it for `pulumi package gen-sdk`.
package main

import (
	"path"

	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	nodejsgen "github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	pythongen "github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"golang.org/x/mod/modfile"

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
		"go": {Generate: generateGo},
	})
}

func generateGo(pkg *schema.Package, _ schema.ReferenceLoader) (map[string][]byte, error) {
	files, err := gogen.GeneratePackage("pulumi-language-go", pkg, nil)
	if err != nil {
		return nil, err
	}
	if _, ok := files["go.mod"]; !ok {
		if files["go.mod"], err = goMod(pkg); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// goMod makes sdk/go its own module even when the schema does not opt into "supportPack"
// (without it, codegen writes no go.mod and the SDK would belong to whatever module encloses
// it: here the provider's, with all its dependencies). It writes what codegen itself writes
// for a supportPack package, so opting in later changes nothing.
func goMod(pkg *schema.Package) ([]byte, error) {
	info, _ := pkg.Language["go"].(gogen.GoPackageInfo)
	modulePath := info.ModulePath
	if modulePath == "" && info.ImportBasePath != "" {
		modulePath = path.Dir(info.ImportBasePath) // the module is one up from the package
	}
	if modulePath == "" {
		modulePath = gogen.ExtractModulePath(pkg.Reference())
	}
	var f modfile.File
	if err := f.AddModuleStmt(modulePath); err != nil {
		return nil, err
	}
	if err := f.AddGoStmt("1.25"); err != nil {
		return nil, err
	}
	if err := f.AddRequire("github.com/pulumi/pulumi/sdk/v3", "v3.30.0"); err != nil {
		return nil, err
	}
	return f.Format()
}
