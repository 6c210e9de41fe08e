package harness

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/registry"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/internal/repo"
)

// RegistryVersion is the OCI registry that serves the Karpenter charts (tests/toolpins/registry):
// CNCF Distribution, the reference implementation of the OCI distribution spec.
const RegistryVersion = "v3.1.2"

// RegistryPath is the cached registry binary; REGISTRY overrides it.
func RegistryPath() string {
	if p := os.Getenv("REGISTRY"); p != "" {
		return p
	}
	return filepath.Join(repo.CacheDir(), "bin", "registry-"+RegistryVersion, "registry")
}

// Registry is a private OCI registry on loopback holding the real Karpenter charts, as a
// mirror of oci://public.ecr.aws/karpenter in a user's account would: HTTPS with a certificate
// of the registry's own CA (which the machine that runs `pulumi up` trusts: CAFile), and basic
// authentication (which `helm registry login` records in Helm's registry config: Login).
type Registry struct {
	Host     string // 127.0.0.1:<port>
	Username string
	Password string
	CAFile   string // PEM of the CA that signed the serving certificate
	Dir      string
	proc     *Process
	client   *http.Client // trusts CAFile
}

// ChartRepository is the registry's Karpenter repository as the component's chartRepository
// input takes it: oci://<host>/karpenter (the charts are <that>/karpenter and <that>/karpenter-crd).
func (r *Registry) ChartRepository() string { return "oci://" + r.Host + "/karpenter" }

// StartRegistry starts the registry under dir on a free loopback port, with a new CA and serving
// certificate and one user, and waits until it answers. Stop it with Stop.
func StartRegistry(ctx context.Context, dir string) (*Registry, error) {
	if _, err := os.Stat(RegistryPath()); err != nil {
		return nil, fmt.Errorf("%s is missing (run tests/e2e/install-e2e-deps.sh or `make e2e-deps`): %w", RegistryPath(), err)
	}
	return RetryPortClash(dir, func(dir string) (*Registry, error) { return startRegistry(ctx, dir) })
}

func startRegistry(ctx context.Context, dir string) (*Registry, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	ports, err := freePorts(1)
	if err != nil {
		return nil, err
	}
	r := &Registry{Host: "127.0.0.1:" + strconv.Itoa(ports[0]), Username: "mirror", Dir: dir,
		CAFile: filepath.Join(dir, "ca.crt")}
	pw := make([]byte, 12)
	if _, err := rand.Read(pw); err != nil {
		return nil, err
	}
	r.Password = fmt.Sprintf("%x", pw)
	ca, err := writeServingCertificate(dir, r.CAFile)
	if err != nil {
		return nil, err
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(r.Password), bcrypt.MinCost)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "htpasswd"), []byte(r.Username+":"+string(hash)+"\n"), 0o600); err != nil {
		return nil, err
	}
	config := fmt.Sprintf(`version: 0.1
log:
  level: warn
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: %[1]s/data
  delete:
    enabled: true
http:
  addr: %[2]s
  tls:
    certificate: %[1]s/tls.crt
    key: %[1]s/tls.key
auth:
  htpasswd:
    realm: karpenter-mirror
    path: %[1]s/htpasswd
`, dir, r.Host)
	configFile := filepath.Join(dir, "config.yml")
	if err := os.WriteFile(configFile, []byte(config), 0o600); err != nil {
		return nil, err
	}
	// Only what it needs; OTEL_TRACES_EXPORTER=none: no OpenTelemetry exporter dialling out.
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "OTEL_TRACES_EXPORTER=none"}
	if r.proc, err = StartProcess(dir, "registry", RegistryPath(), env, "serve", configFile); err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	r.client = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		Proxy: nil, TLSClientConfig: &tls.Config{RootCAs: pool},
	}}
	// Answering at all is not enough: another process may have taken the port. The registry
	// answers /v2/ with 401 and its own realm.
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := r.client.Get("https://" + r.Host + "/v2/")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusUnauthorized && strings.Contains(resp.Header.Get("WWW-Authenticate"), "karpenter-mirror") {
				return r, nil
			}
		}
		if r.proc.Exited() || time.Now().After(deadline) {
			r.Stop()
			return nil, fmt.Errorf("the registry did not answer on %s (%v); log tail:\n%s", r.Host, err, r.proc.Tail(30))
		}
		select {
		case <-ctx.Done():
			r.Stop()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Stop stops the registry. Safe on a nil or partly started registry.
func (r *Registry) Stop() {
	if r != nil && r.proc != nil {
		r.proc.Stop()
	}
}

// helmClient is Helm's own OCI registry client (what `helm push` and `helm registry login` use),
// trusting the registry's CA, with credentials in credentialsFile.
func (r *Registry) helmClient(credentialsFile string, opts ...registry.ClientOption) (*registry.Client, error) {
	return registry.NewClient(append([]registry.ClientOption{
		registry.ClientOptHTTPClient(r.client),
		registry.ClientOptCredentialsFile(credentialsFile),
		registry.ClientOptWriter(io.Discard),
	}, opts...)...)
}

// Push publishes Karpenter versions' charts (karpenter, and from v0.32 karpenter-crd) as the
// release pipeline publishes them to public ECR: each chart packaged at its version and pushed
// to <ChartRepository>/<chart>:<version>. The charts are what LoadChart makes of the module zips
// (the published version stamps, the CRDs restored; stand-ins named in the chart's annotations).
func (r *Registry) Push(versions ...string) error {
	client, err := r.helmClient(filepath.Join(r.Dir, "pusher-config.json"), registry.ClientOptBasicAuth(r.Username, r.Password))
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(r.Dir, "charts-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	for _, v := range versions {
		k, err := LoadKarpenter(v)
		if err != nil {
			return err
		}
		for _, name := range []string{"karpenter", "karpenter-crd"} {
			if _, err := os.Stat(filepath.Join(k.Dir, "charts", name, "Chart.yaml")); err != nil {
				continue // no karpenter-crd chart before v0.32
			}
			ch, err := k.LoadChart(name)
			if err != nil {
				return err
			}
			file, err := chartutil.Save(ch, tmp)
			if err != nil {
				return fmt.Errorf("package %s %s: %w", name, v, err)
			}
			data, err := os.ReadFile(file)
			if err != nil {
				return err
			}
			ref := strings.TrimPrefix(r.ChartRepository(), "oci://") + "/" + name + ":" + ch.Metadata.Version
			if _, err := client.Push(data, ref, registry.PushOptStrictMode(true)); err != nil {
				return fmt.Errorf("push %s: %w", ref, err)
			}
		}
	}
	return nil
}

// Login does what `helm registry login <host> -u <user> -p <password>` does on the machine that
// runs `pulumi up`: it checks the credentials against the registry and records them in Helm's
// registry config file credentialsFile ($HELM_CONFIG_HOME/registry/config.json), where the
// kubernetes provider's Helm reads them.
func (r *Registry) Login(credentialsFile string) error {
	if err := os.MkdirAll(filepath.Dir(credentialsFile), 0o700); err != nil {
		return err
	}
	client, err := r.helmClient(credentialsFile)
	if err != nil {
		return err
	}
	return client.Login(r.Host, registry.LoginOptBasicAuth(r.Username, r.Password))
}

// Tags are the versions the registry holds of one chart of ChartRepository.
func (r *Registry) Tags(chart string) ([]string, error) {
	client, err := r.helmClient(filepath.Join(r.Dir, "pusher-config.json"), registry.ClientOptBasicAuth(r.Username, r.Password))
	if err != nil {
		return nil, err
	}
	return client.Tags(strings.TrimPrefix(r.ChartRepository(), "oci://") + "/" + chart)
}

// writeServingCertificate writes a new CA (caFile) and a certificate it signs for 127.0.0.1
// (dir/tls.crt, dir/tls.key), and returns the CA.
func writeServingCertificate(dir, caFile string) (*x509.Certificate, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "pulumi-karpenter test registry CA"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		IsCA:                  true,
		KeyUsage:              x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	leafTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leafTmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	for _, f := range []struct {
		path string
		typ  string
		der  []byte
	}{
		{caFile, "CERTIFICATE", caDER},
		{filepath.Join(dir, "tls.crt"), "CERTIFICATE", leafDER},
		{filepath.Join(dir, "tls.key"), "EC PRIVATE KEY", keyDER},
	} {
		var b bytes.Buffer
		if err := pem.Encode(&b, &pem.Block{Type: f.typ, Bytes: f.der}); err != nil {
			return nil, err
		}
		if err := os.WriteFile(f.path, b.Bytes(), 0o600); err != nil {
			return nil, err
		}
	}
	return ca, nil
}
