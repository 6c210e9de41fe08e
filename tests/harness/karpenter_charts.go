package harness

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/blang/semver/v4"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"sigs.k8s.io/yaml"
)

// KarpenterModule is the Go module whose zip carries Karpenter's charts and CRDs from v0.35 on.
// The module proxy is the only source of them these machines reach (public.ecr.aws and GitHub
// are not). Before v0.35 the repository was github.com/aws/karpenter (LegacyModule), and before
// v0.32 the core CRDs (Provisioner, Machine) lived in github.com/aws/karpenter-core (CoreModule).
const (
	KarpenterModule = "github.com/aws/karpenter-provider-aws"
	LegacyModule    = "github.com/aws/karpenter"
	CoreModule      = "github.com/aws/karpenter-core"
)

// KarpenterVersions are the v1 versions the harness supports (the proxy serves their zips),
// newest first.
var KarpenterVersions = []string{"1.15.2", "1.14.1", "1.8.6", "1.0.8"}

// Legacy generations the harness installs, one version each.
const (
	// BetaVersion (NodePool/EC2NodeClass v1beta1): the newest v0.3x release the proxy serves
	// and go can verify (v0.37.x is refused; v0.35.5 is served but missing from the checksum
	// database, so `go mod download` rejects it). It has every v1beta1 field the component
	// renders (budgets 0.34, minValues / AL2023 / associatePublicIPAddress 0.35).
	BetaVersion = "0.36.2"
	// ProvisionerVersion (Provisioner v1alpha5 / AWSNodeTemplate v1alpha1): no v0.31 chart is
	// obtainable, so its artifacts are stand-ins (see standIns).
	ProvisionerVersion = "0.31.0"
)

// DefaultChartRepository is where the published charts live; the harness maps it to the module.
const DefaultChartRepository = "oci://public.ecr.aws/karpenter"

// standIn names the artifacts that stand in for a version the module proxy does not serve.
type standIn struct {
	chart string   // module@version whose charts/ holds the chart
	crds  []string // module@version/path of each CRD the version's chart ships in crds/
	// sameSchema: stand-in CRD file -> a file of a later release whose schema must be the
	// same, so the version in between has it too (checked by the harness's tests).
	sameSchema map[string]string
	why        string
}

// standIns: versions whose own module is not served, and what replaces it. Each entry is
// exact where it matters for the harness (the CRD schemas) and documented where it is not.
var standIns = map[string]standIn{
	"0.31.0": {
		// github.com/aws/karpenter@v0.31.x is refused by the proxy (403); v0.29.2 is served.
		chart: LegacyModule + "@v0.29.2",
		crds: []string{
			// The Provisioner and Machine CRDs of v0.31.0 itself (the aws repository copied
			// them from karpenter-core at build time).
			CoreModule + "@v0.31.0/pkg/apis/crds/karpenter.sh_provisioners.yaml",
			CoreModule + "@v0.31.0/pkg/apis/crds/karpenter.sh_machines.yaml",
			// AWSNodeTemplate from v0.29.2: its schema is identical to v0.32.0's (the last
			// release with v1alpha1), so v0.31's, between them, is the same.
			LegacyModule + "@v0.29.2/pkg/apis/crds/karpenter.k8s.aws_awsnodetemplates.yaml",
		},
		sameSchema: map[string]string{
			LegacyModule + "@v0.29.2/pkg/apis/crds/karpenter.k8s.aws_awsnodetemplates.yaml": LegacyModule + "@v0.32.0/pkg/apis/crds/karpenter.k8s.aws_awsnodetemplates.yaml",
		},
		why: "chart of karpenter v0.29.2 (v0.31 not served; same settings.aws.* values and " +
			"karpenter-global-settings ConfigMap), Provisioner/Machine CRDs of karpenter-core v0.31.0, " +
			"AWSNodeTemplate CRD of karpenter v0.29.2 (schema identical to v0.32.0's)",
	},
}

// Karpenter is one version's charts and CRDs: a module directory holding charts/karpenter
// (and, from v0.32, charts/karpenter-crd), and the CRD files the charts ship.
type Karpenter struct {
	Version string // without "v", e.g. 1.14.1
	Dir     string // read-only module directory in GOMODCACHE holding charts/
	Module  string // module@version of Dir
	// StandIn describes the substitute artifacts when the version's own module is not
	// obtainable ("" when the charts and CRDs are the version's own).
	StandIn string
	crds    []string // CRD files; nil: Dir/pkg/apis/crds/*.yaml
}

var (
	karpenterMu    sync.Mutex
	karpenterCache = map[string]*Karpenter{}
	moduleDirs     = map[string]string{}
)

// ChartModule is the module@version holding a version's charts: the stand-in's, the
// karpenter-provider-aws module from v0.35, github.com/aws/karpenter for v0.32–v0.34.
// Earlier versions need a stand-in entry.
func ChartModule(version string) (string, error) {
	version = strings.TrimPrefix(version, "v")
	if s, ok := standIns[version]; ok {
		return s.chart, nil
	}
	v, err := semver.Parse(version)
	if err != nil {
		return "", fmt.Errorf("karpenter version %q: %w", version, err)
	}
	switch {
	case v.GTE(semver.MustParse("0.35.0")):
		return KarpenterModule + "@v" + version, nil
	case v.GTE(semver.MustParse("0.32.0")):
		return LegacyModule + "@v" + version, nil
	}
	return "", fmt.Errorf("the harness has no charts for Karpenter %s: before v0.32 only %s is mapped (to stand-in artifacts)",
		version, strings.Join(sortedStandIns(), ", "))
}

// RequiredModules are every module@version the harness's supported versions and the Auto Mode
// NodePool (AutoModeNodePoolModule) need (what tests/harness/install-deps.sh downloads).
func RequiredModules() []string {
	seen := map[string]bool{}
	var out []string
	add := func(m string) {
		if !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	for _, v := range append(append([]string{}, KarpenterVersions...), BetaVersion, ProvisionerVersion) {
		m, err := ChartModule(v)
		if err != nil {
			panic(err)
		}
		add(m)
		for _, f := range standIns[v].crds {
			mod, _, _ := splitModuleFile(f)
			add(mod)
		}
		for _, f := range standIns[v].sameSchema {
			mod, _, _ := splitModuleFile(f)
			add(mod)
		}
	}
	add(AutoModeNodePoolModule)
	return out
}

func sortedStandIns() []string {
	var out []string
	for v := range standIns {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

// splitModuleFile splits "module@version/path/in/zip".
func splitModuleFile(s string) (module, file string, err error) {
	at := strings.Index(s, "@")
	if at < 0 {
		return "", "", fmt.Errorf("%q: want module@version/path", s)
	}
	slash := strings.Index(s[at:], "/")
	if slash < 0 {
		return "", "", fmt.Errorf("%q: want module@version/path", s)
	}
	return s[:at+slash], s[at+slash+1:], nil
}

// moduleDir downloads a module@version into the Go module cache (a no-op once cached;
// install-deps.sh pre-fetches them) and returns its directory. The caller holds karpenterMu.
func moduleDir(modVersion string) (string, error) {
	if d, ok := moduleDirs[modVersion]; ok {
		return d, nil
	}
	cmd := exec.Command("go", "mod", "download", "-json", modVersion)
	// Outside any module, so the tests' go.mod is neither consulted nor changed.
	cmd.Dir = os.TempDir()
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()
	dir, err := downloadedDir(out)
	if err != nil {
		return "", fmt.Errorf("go mod download %s: %w (exit: %v) %s", modVersion, err, runErr, stderr.String())
	}
	moduleDirs[modVersion] = dir
	return dir, nil
}

// downloadedDir reads the module directory from `go mod download -json` output. From Karpenter
// 1.14.2 on the module's go directive can be newer than the local toolchain (1.15.2 says
// 1.26.11): `go mod download` then reports "requires go >= ..." and no Dir, although it has
// downloaded, verified and extracted the zip. That error alone is tolerated, when the extracted
// directory (derived from Zip) exists; callers still check it holds what they need. Any other
// error (403, unknown revision, checksum mismatch) is returned.
func downloadedDir(out []byte) (string, error) {
	var info struct{ Dir, Error, Zip string }
	if err := json.Unmarshal(out, &info); err != nil {
		return "", fmt.Errorf("decode output %q: %w", out, err)
	}
	if info.Error == "" && info.Dir != "" {
		return info.Dir, nil
	}
	if strings.Contains(info.Error, "requires go >= ") {
		if dir, ok := extractedDir(info.Zip); ok {
			if st, err := os.Stat(dir); err == nil && st.IsDir() {
				return dir, nil
			}
		}
	}
	if info.Error == "" {
		info.Error = "no Dir in the output"
	}
	return "", errors.New(info.Error)
}

// extractedDir maps a module zip in the module cache to the directory it is extracted into:
// $GOMODCACHE/cache/download/<escaped path>/@v/<version>.zip -> $GOMODCACHE/<escaped path>@<version>.
func extractedDir(zip string) (string, bool) {
	zip = filepath.ToSlash(zip)
	i := strings.LastIndex(zip, "/cache/download/")
	if i < 0 || !strings.HasSuffix(zip, ".zip") {
		return "", false
	}
	rest := zip[i+len("/cache/download/"):]
	j := strings.LastIndex(rest, "/@v/")
	if j <= 0 {
		return "", false
	}
	version := strings.TrimSuffix(rest[j+len("/@v/"):], ".zip")
	return filepath.FromSlash(zip[:i] + "/" + rest[:j] + "@" + version), true
}

// LoadKarpenter returns a version's charts and CRDs, downloading the module zips into the Go
// module cache if needed.
func LoadKarpenter(version string) (*Karpenter, error) {
	version = strings.TrimPrefix(version, "v")
	karpenterMu.Lock()
	defer karpenterMu.Unlock()
	if k, ok := karpenterCache[version]; ok {
		return k, nil
	}
	mod, err := ChartModule(version)
	if err != nil {
		return nil, err
	}
	dir, err := moduleDir(mod)
	if err != nil {
		return nil, err
	}
	k := &Karpenter{Version: version, Dir: dir, Module: mod}
	if s, ok := standIns[version]; ok {
		k.StandIn = s.why
		for _, f := range s.crds {
			m, file, err := splitModuleFile(f)
			if err != nil {
				return nil, err
			}
			d, err := moduleDir(m)
			if err != nil {
				return nil, err
			}
			p := filepath.Join(d, filepath.FromSlash(file))
			if _, err := os.Stat(p); err != nil {
				return nil, fmt.Errorf("stand-in CRD for Karpenter %s: %w", version, err)
			}
			k.crds = append(k.crds, p)
		}
	}
	karpenterCache[version] = k
	return k, nil
}

// CRDFiles are the CRDs the version's charts ship: pkg/apis/crds of the chart module, or the
// stand-in's list. Never empty for a usable version.
func (k *Karpenter) CRDFiles() ([]string, error) {
	if k.crds != nil {
		return k.crds, nil
	}
	files, err := filepath.Glob(filepath.Join(k.Dir, "pkg", "apis", "crds", "*.yaml"))
	if err == nil && len(files) == 0 {
		err = fmt.Errorf("%s has no pkg/apis/crds/*.yaml", k.Module)
	}
	sort.Strings(files)
	return files, err
}

// ChartDir maps a rendered chart reference to a chart directory of the module. The mapping:
//
//   - chart "oci://<registry>/<path>/karpenter" or ".../karpenter-crd" (the component's
//     default form, with the repository folded into the reference) -> charts/<last element>;
//   - chart "karpenter" or "karpenter-crd" with repositoryOpts.repo set (a classic Helm
//     repository or a mirror) -> charts/<chart>;
//   - the release's version selects the module version (LoadKarpenter), not the repository.
//
// The registry or repository host itself is not checked here (tests assert it where it
// matters): the harness stands in for every mirror of the official charts.
func (k *Karpenter) ChartDir(chartRef string) (string, error) {
	name := path.Base(strings.TrimSuffix(chartRef, "/"))
	switch name {
	case "karpenter", "karpenter-crd":
		return filepath.Join(k.Dir, "charts", name), nil
	}
	return "", fmt.Errorf("chart %q is not a Karpenter chart (want .../karpenter or .../karpenter-crd)", chartRef)
}

// Chart metadata annotations recording where the harness took a chart from.
const (
	SourceAnnotation  = "harness.pulumi-karpenter/source"
	StandInAnnotation = "harness.pulumi-karpenter/stand-in"
)

// LoadChart loads a chart from the module and makes it what the published OCI artifact of
// this version is: the repository's Chart.yaml lags (v1.14.1's says 1.13.0, v0.36.2's 0.35.4)
// because the release pipeline stamps version, appVersion and the image tag when it
// publishes, and the module zip drops symlinks: charts/karpenter/crds/* and, before v1,
// charts/karpenter-crd/templates/* point at pkg/apis/crds/*.yaml upstream. Both are restored
// from CRDFiles. The image digest in values.yaml belongs to the older tag, so it is cleared
// rather than left pointing at the wrong image. The chart's metadata annotations record the
// source module (and the stand-in, if any).
func (k *Karpenter) LoadChart(chartRef string) (*chart.Chart, error) {
	dir, err := k.ChartDir(chartRef)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, "Chart.yaml")); err != nil {
		return nil, fmt.Errorf("chart %q: %s has no charts/%s (Karpenter %s)", chartRef, k.Module, filepath.Base(dir), k.Version)
	}
	ch, err := loader.Load(dir)
	if err != nil {
		return nil, fmt.Errorf("load chart %s: %w", dir, err)
	}
	ch.Metadata.Version = k.Version
	ch.Metadata.AppVersion = k.Version
	if ch.Metadata.Annotations == nil {
		ch.Metadata.Annotations = map[string]string{}
	}
	ch.Metadata.Annotations[SourceAnnotation] = k.Module + "/charts/" + ch.Name()
	if k.StandIn != "" {
		ch.Metadata.Annotations[StandInAnnotation] = k.StandIn
	}
	if ctrl, ok := ch.Values["controller"].(map[string]any); ok {
		if img, ok := ctrl["image"].(map[string]any); ok {
			// Tags were "v0.29.2" before v0.35 and "0.35.4" after: keep the chart's form.
			tag := k.Version
			if old, _ := img["tag"].(string); strings.HasPrefix(old, "v") {
				tag = "v" + tag
			}
			img["tag"] = tag
			img["digest"] = ""
		}
	}
	// chartutil.Save packages values.yaml from the chart's raw file, not from Values: keep the
	// two the same, so a packaged copy (the registry's) carries the stamped tag too.
	for _, f := range ch.Raw {
		if f.Name == chartutil.ValuesfileName {
			raw, err := yaml.Marshal(ch.Values)
			if err != nil {
				return nil, fmt.Errorf("chart %s: values: %w", chartRef, err)
			}
			f.Data = raw
		}
	}
	restore := func(prefix string) error {
		crds, err := k.CRDFiles()
		if err != nil {
			return err
		}
		for _, f := range crds {
			b, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			ch.Files = append(ch.Files, &chart.File{Name: prefix + filepath.Base(f), Data: b})
		}
		return nil
	}
	switch {
	case ch.Name() == "karpenter" && len(ch.CRDObjects()) == 0:
		err = restore("crds/")
	case ch.Name() == "karpenter-crd" && len(ch.Templates) == 0:
		// Templates are loaded into ch.Templates, not ch.Files.
		var crds []string
		if crds, err = k.CRDFiles(); err == nil {
			for _, f := range crds {
				b, rerr := os.ReadFile(f)
				if rerr != nil {
					return nil, rerr
				}
				ch.Templates = append(ch.Templates, &chart.File{Name: "templates/" + filepath.Base(f), Data: b})
			}
		}
	}
	if err != nil {
		return nil, err
	}
	return ch, nil
}

// StandInSchemaPairs returns, for a version with stand-in CRDs, the pairs of files (stand-in,
// later release) whose CRD schemas must be identical for the stand-in to be exact.
func StandInSchemaPairs(version string) ([][2]string, error) {
	var out [][2]string
	karpenterMu.Lock()
	defer karpenterMu.Unlock()
	for from, to := range standIns[strings.TrimPrefix(version, "v")].sameSchema {
		var pair [2]string
		for i, f := range []string{from, to} {
			m, file, err := splitModuleFile(f)
			if err != nil {
				return nil, err
			}
			d, err := moduleDir(m)
			if err != nil {
				return nil, err
			}
			pair[i] = filepath.Join(d, filepath.FromSlash(file))
		}
		out = append(out, pair)
	}
	return out, nil
}
