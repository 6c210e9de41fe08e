package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
)

// KarpenterModule is the Go module whose zip carries Karpenter's charts and CRDs. The module
// proxy is the only source of them these machines reach (public.ecr.aws and GitHub are not).
const KarpenterModule = "github.com/aws/karpenter-provider-aws"

// KarpenterVersions are the versions the harness supports (the proxy serves their zips).
var KarpenterVersions = []string{"1.14.1", "1.8.6", "1.0.8"}

// DefaultChartRepository is where the published charts live; the harness maps it to the module.
const DefaultChartRepository = "oci://public.ecr.aws/karpenter"

// Karpenter is one version's unpacked module: charts/karpenter, charts/karpenter-crd and
// pkg/apis/crds/*.yaml.
type Karpenter struct {
	Version string // without "v", e.g. 1.14.1
	Dir     string // read-only module directory in GOMODCACHE
}

var (
	karpenterMu    sync.Mutex
	karpenterCache = map[string]*Karpenter{}
)

// LoadKarpenter returns the module directory of a Karpenter version, downloading the zip into
// the Go module cache if needed (a no-op once cached; install-deps.sh pre-fetches it).
func LoadKarpenter(version string) (*Karpenter, error) {
	version = strings.TrimPrefix(version, "v")
	karpenterMu.Lock()
	defer karpenterMu.Unlock()
	if k, ok := karpenterCache[version]; ok {
		return k, nil
	}
	cmd := exec.Command("go", "mod", "download", "-json", KarpenterModule+"@v"+version)
	// Outside any module, so the tests' go.mod is neither consulted nor changed.
	cmd.Dir = os.TempDir()
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var info struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &info); jerr != nil || info.Error != "" || info.Dir == "" {
		return nil, fmt.Errorf("go mod download %s@v%s: %v %s %s", KarpenterModule, version, err, info.Error, stderr.String())
	}
	k := &Karpenter{Version: version, Dir: info.Dir}
	karpenterCache[version] = k
	return k, nil
}

// CRDFiles are the CRDs the version ships (pkg/apis/crds), sorted.
func (k *Karpenter) CRDFiles() ([]string, error) {
	files, err := filepath.Glob(filepath.Join(k.Dir, "pkg", "apis", "crds", "*.yaml"))
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

// LoadChart loads a chart from the module and makes it what the published OCI artifact of
// this version is: the repository's Chart.yaml lags (v1.14.1's says 1.13.0) because the
// release pipeline stamps version, appVersion and the image tag when it publishes, and the
// module zip drops charts/karpenter/crds, whose entries upstream are symlinks to
// pkg/apis/crds/*.yaml. The image digest in values.yaml belongs to the older tag, so it is
// cleared rather than left pointing at the wrong image.
func (k *Karpenter) LoadChart(chartRef string) (*chart.Chart, error) {
	dir, err := k.ChartDir(chartRef)
	if err != nil {
		return nil, err
	}
	ch, err := loader.Load(dir)
	if err != nil {
		return nil, fmt.Errorf("load chart %s: %w", dir, err)
	}
	ch.Metadata.Version = k.Version
	ch.Metadata.AppVersion = k.Version
	if ctrl, ok := ch.Values["controller"].(map[string]any); ok {
		if img, ok := ctrl["image"].(map[string]any); ok {
			img["tag"] = k.Version
			img["digest"] = ""
		}
	}
	if ch.Name() == "karpenter" && len(ch.CRDObjects()) == 0 {
		crds, err := k.CRDFiles()
		if err != nil {
			return nil, err
		}
		for _, f := range crds {
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			ch.Files = append(ch.Files, &chart.File{Name: "crds/" + filepath.Base(f), Data: b})
		}
	}
	return ch, nil
}
