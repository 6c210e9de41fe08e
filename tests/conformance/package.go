package conformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
)

// Package is one npm package's declarations: @pulumi/aws or @pulumi/kubernetes at a version.
type Package struct {
	Provider string // "aws", "kubernetes": the type tokens' package
	Version  string
	Root     string // the directory holding package.json and the *.d.ts files

	mu    sync.Mutex
	files map[string]*File
}

// OpenPackage opens an unpacked npm package and checks that it is the version asked for.
func OpenPackage(provider, version, root string) (*Package, error) {
	b, err := os.ReadFile(filepath.Join(root, "package.json"))
	if err != nil {
		return nil, err
	}
	var meta struct{ Name, Version string }
	if err := json.Unmarshal(b, &meta); err != nil {
		return nil, fmt.Errorf("%s/package.json: %w", root, err)
	}
	if meta.Name != "@pulumi/"+provider || meta.Version != version {
		return nil, fmt.Errorf("%s holds %s %s, want @pulumi/%s %s", root, meta.Name, meta.Version, provider, version)
	}
	return &Package{Provider: provider, Version: version, Root: root, files: map[string]*File{}}, nil
}

func (p *Package) String() string { return p.Provider + " " + p.Version }

// File parses (once) a declaration file by its path in the package, e.g. "iam/role.d.ts".
func (p *Package) File(rel string) (*File, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if f, ok := p.files[rel]; ok {
		if f == nil {
			return nil, fmt.Errorf("%s: %s: %w", p, rel, os.ErrNotExist)
		}
		return f, nil
	}
	b, err := os.ReadFile(filepath.Join(p.Root, filepath.FromSlash(rel)))
	if errors.Is(err, os.ErrNotExist) {
		p.files[rel] = nil
		return nil, fmt.Errorf("%s: %s: %w", p, rel, os.ErrNotExist)
	}
	if err != nil {
		return nil, err
	}
	f, err := ParseFile(rel, string(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	p.files[rel] = f
	return f, nil
}

// exists reports whether a file or directory is in the package.
func (p *Package) exists(rel string) bool {
	_, err := os.Stat(filepath.Join(p.Root, filepath.FromSlash(rel)))
	return err == nil
}

// module resolves an import specifier relative to a file: "./role", "..", "../types/input".
// Packages outside this one (@pulumi/pulumi) resolve to "".
func (p *Package) module(from *File, spec string) string {
	if !strings.HasPrefix(spec, ".") {
		return ""
	}
	base := path.Join(path.Dir(from.Path), spec)
	for _, cand := range []string{base + ".d.ts", path.Join(base, "index.d.ts")} {
		if p.exists(cand) {
			return cand
		}
	}
	return ""
}

// errExternal marks a name from another package (@pulumi/pulumi): not checkable here.
var errExternal = errors.New("declared outside the package")

// lookup resolves a dotted type name where sc's declarations see it: the enclosing
// namespaces from the innermost out, then the file's imports.
func (p *Package) lookup(sc *scope, name string) (*Decl, error) {
	parts := strings.Split(name, ".")
	for i := len(sc.ns); i >= 0; i-- {
		decls, ok := sc.file.Decls, true
		for _, n := range sc.ns[:i] {
			d := decls[n]
			if d == nil || d.Kind != DeclNamespace {
				ok = false
				break
			}
			decls = d.NS
		}
		if ok {
			if d := descend(decls, parts); d != nil {
				return d, nil
			}
		}
	}
	if spec, ok := sc.file.nsImports[parts[0]]; ok {
		mod := p.module(sc.file, spec)
		if mod == "" {
			return nil, fmt.Errorf("%s (from %q): %w", name, spec, errExternal)
		}
		return p.exported(mod, parts[1:], 0)
	}
	if ref, ok := sc.file.named[parts[0]]; ok {
		mod := p.module(sc.file, ref.module)
		if mod == "" {
			return nil, fmt.Errorf("%s (from %q): %w", name, ref.module, errExternal)
		}
		return p.exported(mod, append([]string{ref.name}, parts[1:]...), 0)
	}
	return nil, fmt.Errorf("type %s is not declared in %s", name, sc.file.Path)
}

// lookupModule resolves import("spec").Name.
func (p *Package) lookupModule(sc *scope, spec, name string) (*Decl, error) {
	mod := p.module(sc.file, spec)
	if mod == "" {
		return nil, fmt.Errorf("import(%q).%s: %w", spec, name, errExternal)
	}
	return p.exported(mod, strings.Split(name, "."), 0)
}

// exported finds a name a module exports: its own declarations, then its re-exports.
func (p *Package) exported(mod string, parts []string, depth int) (*Decl, error) {
	if depth > 20 {
		return nil, fmt.Errorf("re-exports of %s nest too deep", mod)
	}
	f, err := p.File(mod)
	if err != nil {
		return nil, err
	}
	if len(parts) == 0 {
		return &Decl{Kind: DeclNamespace, Name: mod, NS: f.Decls}, nil
	}
	if d := descend(f.Decls, parts); d != nil {
		return d, nil
	}
	if ref, ok := f.exportNamed[parts[0]]; ok {
		if m := p.module(f, ref.module); m != "" {
			rest := parts[1:]
			if ref.name != "*" {
				rest = append([]string{ref.name}, rest...)
			}
			return p.exported(m, rest, depth+1)
		}
	}
	for _, spec := range f.exportStar {
		if m := p.module(f, spec); m != "" {
			if d, err := p.exported(m, parts, depth+1); err == nil {
				return d, nil
			}
		}
	}
	return nil, fmt.Errorf("%s does not export %s", mod, strings.Join(parts, "."))
}

func descend(decls map[string]*Decl, parts []string) *Decl {
	d := decls[parts[0]]
	for _, n := range parts[1:] {
		if d == nil || d.Kind != DeclNamespace {
			return nil
		}
		d = d.NS[n]
	}
	return d
}
