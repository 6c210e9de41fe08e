// Package sdkgen is the shared driver of the project's SDK generators. It writes SDKs from
// schema.json the way `pulumi package gen-sdk` does, without the Pulumi CLI or its language
// plugins (which cannot be installed on the project's machines).
//
// gen-sdk binds the schema, hands it to the language plugin, and the plugin calls a codegen
// library; the generator programs (tools/sdkgen-*) call the same libraries directly with the
// same arguments. They are separate Go modules because the codegen libraries need different
// versions of github.com/pulumi/pulumi/pkg/v3; this package compiles against all of them.
package sdkgen

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/blang/semver"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// Generator produces one language's SDK files, keyed by slash-separated path, from a bound
// package. It mirrors the GeneratePackage call of that language's plugin.
type Generator func(pkg *schema.Package, loader schema.ReferenceLoader) (map[string][]byte, error)

// Language describes how to generate one SDK.
type Language struct {
	Generate Generator
	// Prepare, if set, rewrites the spec before binding, as some language plugins do.
	Prepare func(schema.PackageSpec) (schema.PackageSpec, error)
	// Readme marks SDKs whose package metadata expects the project README.md at their root
	// (package.json for npm, pyproject.toml for pip, which refuses to build without it).
	Readme bool
}

// Main parses the command line and generates the named languages:
//
//	sdkgen-X -schema schema.json -out sdk [-version V] [-readme README.md] LANGUAGE...
func Main(languages map[string]Language) {
	schemaPath := flag.String("schema", "schema.json", "package schema to generate from")
	out := flag.String("out", "sdk", "directory that receives one sub-directory per language")
	version := flag.String("version", "", "override the schema's version, like gen-sdk --version")
	readme := flag.String("readme", "", "README.md copied into the SDKs that package one")
	flag.Parse()

	opts := Options{Schema: *schemaPath, Out: *out, Version: *version, Readme: *readme}
	if err := Run(languages, opts, flag.Args()); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", filepath.Base(os.Args[0]), err)
		os.Exit(1)
	}
}

// Options are the inputs shared by every language.
type Options struct {
	Schema  string // path of schema.json
	Out     string // parent of the per-language SDK directories
	Version string // optional semver that replaces the schema's version
	Readme  string // optional README.md copied into SDKs with Language.Readme
}

// Run generates each requested language into Out/<language>.
func Run(languages map[string]Language, opts Options, names []string) error {
	if len(names) == 0 {
		return errors.New("name at least one language")
	}
	spec, err := loadSpec(opts.Schema, opts.Version)
	if err != nil {
		return err
	}
	var readme []byte
	if opts.Readme != "" {
		if readme, err = os.ReadFile(opts.Readme); err != nil {
			return err
		}
	}
	for _, name := range names {
		lang, ok := languages[name]
		if !ok {
			return fmt.Errorf("unsupported language %q", name)
		}
		files, err := generate(lang, spec)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if readme != nil && lang.Readme {
			files["README.md"] = readme
		}
		if err := writeDir(filepath.Join(opts.Out, name), files); err != nil {
			return err
		}
	}
	return nil
}

func generate(lang Language, spec schema.PackageSpec) (map[string][]byte, error) {
	if lang.Prepare != nil {
		var err error
		if spec, err = lang.Prepare(spec); err != nil {
			return nil, err
		}
	}
	// Bind afresh per language, as each plugin does: generators record options on the package.
	pkg, err := bind(spec)
	if err != nil {
		return nil, err
	}
	return lang.Generate(pkg, OfflineLoader{})
}

// loadSpec reads the schema and gives it gen-sdk's round trip: the CLI binds the schema,
// applies --version, and sends the language plugin the bound package marshalled again.
func loadSpec(path, version string) (schema.PackageSpec, error) {
	var spec schema.PackageSpec
	raw, err := os.ReadFile(path)
	if err != nil {
		return spec, err
	}
	if err := json.Unmarshal(raw, &spec); err != nil {
		return spec, fmt.Errorf("%s: %w", path, err)
	}
	pkg, err := bind(spec)
	if err != nil {
		return spec, fmt.Errorf("%s: %w", path, err)
	}
	if version != "" {
		v, err := semver.Parse(version)
		if err != nil {
			return spec, fmt.Errorf("invalid version %q: %w", version, err)
		}
		pkg.Version = &v
	}
	if raw, err = pkg.MarshalJSON(); err != nil {
		return spec, err
	}
	var bound schema.PackageSpec
	err = json.Unmarshal(raw, &bound)
	return bound, err
}

func bind(spec schema.PackageSpec) (*schema.Package, error) {
	pkg, diags, err := schema.BindSpec(spec, OfflineLoader{}, schema.ValidationOptions{
		AllowDanglingReferences: true, // as gen-sdk and the language plugins bind
	})
	if err != nil {
		return nil, err
	}
	if diags.HasErrors() {
		return nil, diags
	}
	return pkg, nil
}

// writeDir replaces dir with exactly files, as gen-sdk does, so that files the schema no
// longer produces disappear.
func writeDir(dir string, files map[string][]byte) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names) // only so that a failure is reproducible
	for _, name := range names {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, files[name], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// OfflineLoader is a schema.ReferenceLoader that refuses every package. The karpenter schema
// is self-contained by design (no $ref to another package), so a request for one is a schema
// bug to fail on, not a reason to download a plugin.
type OfflineLoader struct{}

func refuse(name string) error {
	return fmt.Errorf("schema refers to package %q; SDK generation resolves no external packages", name)
}

func (OfflineLoader) LoadPackage(name string, _ *semver.Version) (*schema.Package, error) {
	return nil, refuse(name)
}

func (OfflineLoader) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return nil, refuse(d.Name)
}

func (OfflineLoader) LoadPackageReference(name string, _ *semver.Version) (schema.PackageReference, error) {
	return nil, refuse(name)
}

func (OfflineLoader) LoadPackageReferenceV2(
	_ context.Context, d *schema.PackageDescriptor,
) (schema.PackageReference, error) {
	return nil, refuse(d.Name)
}
