// Command sdkgen-nodejs-python-go writes sdk/nodejs, sdk/python and sdk/go from schema.json
// with the codegen of github.com/pulumi/pulumi/pkg/v3, called exactly as the plugins
// pulumi-language-{nodejs,python,go} call it for `pulumi package gen-sdk`.
package main

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"

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
				files, err := nodejsgen.GeneratePackage("pulumi-language-nodejs", pkg, nil, nil, false, loader)
				if err != nil {
					return nil, err
				}
				return files, withNodeEngines(files)
			},
			Readme: true,
		},
		"python": {
			Generate: func(pkg *schema.Package, loader schema.ReferenceLoader) (map[string][]byte, error) {
				files, err := pythongen.GeneratePackage("pulumi-language-python", pkg, nil, loader)
				if err != nil {
					return nil, err
				}
				return files, withSPDXLicense(files)
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
	if err := f.AddRequire("github.com/pulumi/pulumi/sdk/v3", "v3.269.0"); err != nil { // as codegen (pkg v3.274.1) writes it
		return nil, err
	}
	return f.Format()
}

// nodeEngines is the Node.js range the npm package declares: @pulumi/pulumi's own (>= 22 from
// 3.256), which every program using the SDK loads. Node.js codegen has no option for it.
const nodeEngines = ">=22"

// withNodeEngines adds `"engines": {"node": nodeEngines}` to package.json, after its license.
func withNodeEngines(files map[string][]byte) error {
	const anchor = "    \"license\": "
	pkg := string(files["package.json"])
	i := strings.Index(pkg, anchor)
	if i < 0 || strings.Contains(pkg, `"engines"`) {
		return fmt.Errorf("package.json: no %q line to add engines after, or engines already set", strings.TrimSpace(anchor))
	}
	end := i + strings.Index(pkg[i:], "\n") + 1
	files["package.json"] = []byte(pkg[:end] + "    \"engines\": {\n        \"node\": \"" + nodeEngines + "\"\n    },\n" + pkg[end:])
	return nil
}

// withSPDXLicense writes pyproject.toml's license as an SPDX expression (PEP 639,
// `license = "Apache-2.0"`) instead of the `[project.license]` table Python codegen writes, which
// setuptools deprecates (its build warns that the table stops working on 2027-02-18); the build
// backend then needs setuptools 77, the first to read license expressions.
func withSPDXLicense(files map[string][]byte) error {
	toml := string(files["pyproject.toml"])
	table := regexp.MustCompile(`(?m)^  \[project\.license\]\n    text = ("[^"]*")\n`)
	m := table.FindStringSubmatch(toml)
	if m == nil {
		return errors.New("pyproject.toml: no [project.license] table with a text to turn into an SPDX expression")
	}
	toml = table.ReplaceAllString(toml, "")
	// The expression joins the [project] keys, which precede its sub-tables.
	keys := regexp.MustCompile(`(?m)^  keywords = .*\n`)
	if !keys.MatchString(toml) {
		return errors.New("pyproject.toml: no [project] keywords line to put the license after")
	}
	toml = keys.ReplaceAllStringFunc(toml, func(line string) string { return line + "  license = " + m[1] + "\n" })
	const backend = `requires = ["setuptools>=61.0"]`
	if !strings.Contains(toml, backend) {
		return fmt.Errorf("pyproject.toml: no %s to raise to setuptools>=77", backend)
	}
	files["pyproject.toml"] = []byte(strings.Replace(toml, backend, `requires = ["setuptools>=77.0"]`, 1))
	return nil
}
