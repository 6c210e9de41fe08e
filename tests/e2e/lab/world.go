package lab

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/harness"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/internal/repo"
)

// The versions the component registers its children at (provider/children/resources.go), which the
// plugins are installed as: the aws stand-in, and the real pulumi-kubernetes provider, which is
// KubernetesProviderVersion (the only provider version the Go module proxy serves) installed
// under the label KubernetesVersion.
const (
	AWSVersion                = "6.83.2"
	KubernetesVersion         = "4.30.0"
	KubernetesProviderVersion = "4.25.0"
)

// Region is the region of every world (stack config aws:region); moto's account is 123456789012.
const Region = "us-west-2"

// ClusterKubernetesVersion is the Kubernetes version of the EKS clusters the programs create
// when they name none: the world's API server's (harness.KubernetesVersion, v1.33.3).
const ClusterKubernetesVersion = "1.33"

// Dummy credentials: moto accepts any; the stand-in aws plugin requires some to be set.
const (
	dummyAccessKey = "testing"
	dummySecretKey = "testing"
)

// KubernetesVersionWarning is what the engine says, in every preview and update of a program with
// the component, about the kubernetes provider: it runs KubernetesProviderVersion where the
// component asks for KubernetesVersion or later.
const KubernetesVersionWarning = "resource plugin kubernetes is expected to have version >=" + KubernetesVersion +
	", but has " + KubernetesProviderVersion

// StandIns are the stand-in provider plugins, built from tests/e2e/standin: aws (the pulumi-aws
// provider cannot be built here; the kubernetes side is the real provider), and beside it the
// README snippets' eks and awsx component stand-ins (EKS, AWSX: world_snippets.go).
type StandIns struct {
	AWS string // pulumi-resource-aws, installed as aws 6.83.2
}

// BuildStandIns builds the stand-in plugins into dir (the Go build cache makes a rebuild a link
// step: a few seconds).
func BuildStandIns(ctx context.Context, dir string) (StandIns, error) {
	tests, err := repo.TestsDir()
	if err != nil {
		return StandIns{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return StandIns{}, err
	}
	// The aws stand-in; beside it the component stand-ins of the README snippets and the examples
	// (world_snippets.go), and the AWS CLI stand-in in a directory of its own (put on a PATH).
	for pkg, binary := range map[string]string{"aws-provider-on-moto": "pulumi-resource-aws",
		"eks-component-provider": "pulumi-resource-eks", "awsx-component-provider": "pulumi-resource-awsx",
		"aws-cli": filepath.Join("aws-cli-standin", "aws")} {
		cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags", "-s -w", "-o", filepath.Join(dir, binary), "./e2e/standin/"+pkg)
		cmd.Dir = tests
		cmd.Env = append(os.Environ(), "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			return StandIns{}, fmt.Errorf("building the stand-in plugin %s: %w\n%s", pkg, err, out)
		}
	}
	return StandIns{AWS: filepath.Join(dir, "pulumi-resource-aws")}, nil
}

// Moto is a moto_server on a free loopback port, emulating IAM, SQS, EventBridge, EC2 and STS.
type Moto struct {
	URL  string // http://127.0.0.1:<port>
	Log  string // its stdout and stderr
	proc *harness.Process
}

// StartMoto starts bin (the pinned venv's moto_server) on loopback with the AWS managed policies
// loaded (MOTO_IAM_LOAD_MANAGED_POLICIES: without it AmazonEKSWorkerNodePolicy & co. do not
// exist), logging to dir/.../moto.log, and waits until it answers. Stop it with Stop. env is
// added to its environment (moto/motoserver.py's settings).
func StartMoto(ctx context.Context, bin, dir string, env ...string) (*Moto, error) {
	return harness.RetryPortClash(dir, func(dir string) (*Moto, error) { return startMotoOnce(ctx, bin, dir, env) })
}

func startMotoOnce(ctx context.Context, bin, dir string, extraEnv []string) (*Moto, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	// Only what moto needs: no AWS_* of the caller, no proxies.
	env := append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "MOTO_IAM_LOAD_MANAGED_POLICIES=true"}, extraEnv...)
	// moto/motoserver.py is moto_server with the EKS optimized-AMI SSM parameters preloaded; the venv's
	// python, beside moto_server, runs it with moto_server's arguments.
	tests, err := repo.TestsDir()
	if err != nil {
		return nil, err
	}
	proc, err := harness.StartProcess(dir, "moto", filepath.Join(filepath.Dir(bin), "python"), env,
		filepath.Join(tests, "e2e", "lab", "moto", "motoserver.py"), "-H", "127.0.0.1", "-p", fmt.Sprint(port))
	if err != nil {
		return nil, fmt.Errorf("%w (run `make e2e-deps`, or set MOTO_SERVER)", err)
	}
	m := &Moto{URL: fmt.Sprintf("http://127.0.0.1:%d", port), Log: proc.Log, proc: proc}
	deadline := time.Now().Add(60 * time.Second)
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{Proxy: nil}}
	for !isMoto(client, m.URL) {
		if proc.Exited() {
			// Another process took the port between its pick and moto's bind: "address already
			// in use" in the log, which RetryPortClash retries on.
			return nil, fmt.Errorf("moto_server exited before answering on %s:\n%s", m.URL, proc.Tail(40))
		}
		if time.Now().After(deadline) {
			m.Stop()
			return nil, fmt.Errorf("moto_server did not answer on %s within 60s:\n%s", m.URL, proc.Tail(40))
		}
		select {
		case <-ctx.Done():
			m.Stop()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return m, nil
}

// isMoto says whether moto answers on url. Any answer is not enough: the port was free when
// chosen, but etcd or kube-apiserver of a world starting in parallel may bind it first (moto
// then exits and is retried on another port), and etcd answers every path with a 404. Only moto
// serves /moto-api/data.json as a JSON object.
func isMoto(client *http.Client, url string) bool {
	resp, err := client.Get(url + "/moto-api/data.json")
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	var data map[string]any
	return resp.StatusCode == http.StatusOK && json.NewDecoder(resp.Body).Decode(&data) == nil
}

// Stop stops moto. Safe to call twice, and on a nil Moto.
func (m *Moto) Stop() {
	if m != nil && m.proc != nil {
		m.proc.Stop()
	}
}

// Errors is what moto logged of its own failures: each Python traceback (an unhandled exception
// in moto answers HTTP 500 with no detail), "" when there is none. The scenarios print it when they
// fail, so a 500 in a client's error message can be read back to moto's line.
func (m *Moto) Errors() string {
	if m == nil {
		return ""
	}
	log, err := os.ReadFile(m.Log)
	if err != nil {
		return ""
	}
	var out []string
	in := false
	for _, line := range strings.Split(string(log), "\n") {
		switch {
		case strings.HasPrefix(line, "Traceback (most recent call last):"):
			in = true
		case in && line != "" && line[0] != ' ':
			// The exception's own line ends the traceback.
			out = append(out, line, "")
			in = false
			continue
		}
		if in {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

// randomHex is n random upper-case hex digits (the ID in an EKS cluster's OIDC issuer).
func randomHex(n int) string {
	b := make([]byte, (n+1)/2)
	_, _ = rand.Read(b)
	return strings.ToUpper(hex.EncodeToString(b))[:n]
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// World is everything one scenario runs against, on loopback: a moto server; a cluster that
// behaves like one (etcd, kube-apiserver, kube-controller-manager and kube-scheduler, kwok standing
// in for the kubelets of its three system nodes); a private OCI registry holding the real
// Karpenter charts; and an isolated Pulumi engine with the component plugin, the aws stand-in and
// the real pulumi-kubernetes provider installed, whose commands reach exactly those.
type World struct {
	Engine       *Engine
	Moto         *Moto
	ControlPlane *harness.ControlPlane
	Cluster      *harness.Cluster // client of the API server (Helm's release records, dynamic client)
	Registry     *harness.Registry
	Kubeconfig   string     // path of the API server's kubeconfig (KUBECONFIG of every command)
	OpLog        string     // STANDIN_LOG: the aws stand-in's operation log
	StateDir     string     // STANDIN_STATE_DIR: the aws stand-in's EKS record
	AWS          aws.Config // an AWS SDK config for moto (dummy credentials, Region)
	// VPC is the cluster's network, in moto before any program runs (seedVPC): the programs'
	// EKS cluster is made in its subnets.
	VPC *VPC
	// Webhooks removes the admission webhook configurations no pod can serve (see webhooks.go).
	Webhooks *WebhookRemover
	// NoSpotHistory: StartLoop leaves the account without its Spot service-linked role, for a
	// scenario whose component creates it (createSpotServiceLinkedRole).
	NoSpotHistory bool

	dir    string
	cancel context.CancelFunc
}

// ChartRepository is where the world's Karpenter charts are: the component's chartRepository
// input for every self-managed install (a private mirror of oci://public.ecr.aws/karpenter).
func (w *World) ChartRepository() string { return w.Registry.ChartRepository() }

// systemNodes are the world's system node group: three nodes, one per zone of Region (m5.xlarge:
// room for the controller's two replicas and a third during a rolling update, each requesting 1
// CPU and 1 GiB). In a real cluster a managed node group or Fargate; Karpenter never launches them.
func systemNodes() []harness.Node {
	var nodes []harness.Node
	for _, zone := range []string{"a", "b", "c"} {
		nodes = append(nodes, harness.Node{
			Name: "system-" + Region + zone, Zone: Region + zone, Region: Region,
			InstanceType: "m5.xlarge", CPU: "3920m", Memory: "15Gi", Pods: 58,
			Labels: map[string]string{"eks.amazonaws.com/nodegroup": "system", "eks.amazonaws.com/capacityType": "ON_DEMAND"},
		})
	}
	return nodes
}

// startCluster starts the world's cluster under dir: the control plane, its controllers and
// kwok, the system nodes, and a probe that a pod is scheduled, runs and is deleted. The API
// server issues its service-account tokens as an EKS cluster's OIDC issuer does (a new one of
// EKS's form per world), so the IRSA chain runs on its tokens (identity.go).
func startCluster(ctx context.Context, dir string) (*harness.ControlPlane, error) {
	cp, err := harness.StartWithIssuer(ctx, dir, fmt.Sprintf("https://oidc.eks.%s.amazonaws.com/id/%s", Region, randomHex(32)))
	if err != nil {
		return nil, err
	}
	err = cp.StartControllers(ctx)
	if err == nil {
		err = cp.AddNodes(ctx, systemNodes())
	}
	if err == nil {
		err = cp.ProbeScheduling(ctx)
	}
	if err != nil {
		cp.Stop()
		return nil, err
	}
	return cp, nil
}

// NewWorld starts moto, the cluster and the registry (in parallel; the registry gets the charts
// of every Karpenter version the tests use) under dir and creates an engine under dir/engine with
// the component plugin (tools.Provider, at the version it reports), the aws stand-in as aws 6.83.2
// and the real pulumi-kubernetes provider as kubernetes 4.30.0. The engine's environment is a
// platform engineer's machine: it trusts the registry's CA and is logged in to it (`helm registry
// login`). Close stops everything; on error what was started is stopped already.
func NewWorld(ctx context.Context, dir string, tools Tools, standIns StandIns) (w *World, err error) {
	w = &World{dir: dir, OpLog: filepath.Join(dir, "standin-ops.log"), StateDir: filepath.Join(dir, "standin-state"),
		Kubeconfig: filepath.Join(dir, "kubeconfig")}
	defer func() {
		if err != nil {
			w.Close()
			w = nil
		}
	}()
	var wg sync.WaitGroup
	var motoErr, cpErr, regErr error
	wg.Add(3)
	go func() {
		defer wg.Done()
		w.Moto, motoErr = StartMoto(ctx, tools.MotoServer, filepath.Join(dir, "moto"))
	}()
	go func() {
		defer wg.Done()
		w.ControlPlane, cpErr = startCluster(ctx, filepath.Join(dir, "cluster"))
	}()
	go func() {
		defer wg.Done()
		if w.Registry, regErr = harness.StartRegistry(ctx, filepath.Join(dir, "registry")); regErr == nil {
			regErr = w.Registry.Push(chartVersions()...)
		}
	}()
	wg.Wait()
	if err := errors.Join(motoErr, cpErr, regErr); err != nil {
		return w, err
	}
	if w.Cluster, err = harness.NewCluster(w.ControlPlane); err != nil {
		return w, err
	}
	var wctx context.Context
	wctx, w.cancel = context.WithCancel(context.Background())
	w.Webhooks = startWebhookRemover(wctx, w.ControlPlane.Config)
	kc, err := w.ControlPlane.Kubeconfig()
	if err != nil {
		return w, err
	}
	if err := os.WriteFile(w.Kubeconfig, kc, 0o600); err != nil {
		return w, err
	}
	if err := os.MkdirAll(w.StateDir, 0o755); err != nil {
		return w, err
	}
	w.AWS = aws.Config{
		Region:       Region,
		Credentials:  credentials.NewStaticCredentialsProvider(dummyAccessKey, dummySecretKey, ""),
		BaseEndpoint: aws.String(w.Moto.URL),
	}
	if w.VPC, err = seedVPC(ctx, w.AWS); err != nil {
		return w, err
	}
	ca, err := os.ReadFile(filepath.Join(w.ControlPlane.Dir, "certs", "apiserver.crt"))
	if err != nil {
		return w, err
	}

	if w.Engine, err = NewEngine(filepath.Join(dir, "engine"), tools); err != nil {
		return w, err
	}
	e := w.Engine
	helm := filepath.Join(dir, "helm")
	for _, kv := range [][2]string{
		// The aws stand-in: moto on loopback, dummy credentials, its EKS record.
		{"AWS_ENDPOINT_URL", w.Moto.URL},
		{"AWS_ACCESS_KEY_ID", dummyAccessKey},
		{"AWS_SECRET_ACCESS_KEY", dummySecretKey},
		{"AWS_REGION", Region},
		{"STANDIN_STATE_DIR", w.StateDir},
		{"STANDIN_LOG", w.OpLog},
		// The EKS clusters the programs create are this world's control plane: their endpoint
		// and CA are the API server's, their Kubernetes version its.
		{"STANDIN_EKS_ENDPOINT", w.ControlPlane.URL},
		{"STANDIN_EKS_CA_DATA", base64.StdEncoding.EncodeToString(ca)},
		{"STANDIN_EKS_DEFAULT_VERSION", ClusterKubernetesVersion},
		// The kubernetes provider: the cluster's API server (an explicit provider given no
		// kubeconfig reads $KUBECONFIG, as pulumi-kubernetes does) ...
		{"KUBECONFIG", w.Kubeconfig},
		// ... and Helm's own directories (repository cache, registry login), this world's.
		{"HELM_CONFIG_HOME", filepath.Join(helm, "config")},
		{"HELM_CACHE_HOME", filepath.Join(helm, "cache")},
		{"HELM_DATA_HOME", filepath.Join(helm, "data")},
		// The machine trusts the private registry's CA (as it would a corporate CA in its trust
		// store): Go reads the roots from SSL_CERT_FILE. Nothing else here speaks TLS to a
		// server that needs the system roots.
		{"SSL_CERT_FILE", w.Registry.CAFile},
		{"CACHE_DIR", repo.CacheDir()},
	} {
		e.SetEnv(kv[0], kv[1])
	}
	// `helm registry login <registry>`, as a user does once before using a private registry:
	// the kubernetes provider's Helm reads the credentials from Helm's registry config.
	if err := w.Registry.Login(filepath.Join(helm, "config", "registry", "config.json")); err != nil {
		return w, fmt.Errorf("helm registry login %s: %w", w.Registry.Host, err)
	}
	version, err := PluginVersion(tools.Provider)
	if err != nil {
		return w, err
	}
	for _, p := range []struct{ name, version, file string }{
		{"karpenter", version, tools.Provider},
		{"aws", AWSVersion, standIns.AWS},
		// The real provider, 4.25.0, under the version the component requests.
		{"kubernetes", KubernetesVersion, tools.KubernetesProvider},
	} {
		if err := e.InstallPlugin("resource", p.name, p.version, p.file); err != nil {
			return w, err
		}
	}
	return w, nil
}

// Parts says what a world runs for real and what stands in, one line each, for the tests' log and
// `make demo` (CONTRIBUTING.md's End-to-end tests says the same).
func Parts(tools Tools) []string {
	return []string{
		fmt.Sprintf("real: Pulumi CLI %s and engine, YAML language host %s, the component plugin over gRPC", tools.PulumiVersion, tools.YAMLVersion),
		fmt.Sprintf("real: pulumi-kubernetes %s, installed as %s (the version the component requests)", KubernetesProviderVersion, KubernetesVersion),
		fmt.Sprintf("real: etcd, kube-apiserver, kube-controller-manager, kube-scheduler %s", harness.KubernetesVersion),
		fmt.Sprintf("real: the Karpenter charts from a private OCI registry (distribution %s, TLS, helm registry login)", harness.RegistryVersion),
		fmt.Sprintf("real: the Karpenter controllers %s (core v1.15.0) and %s (its code on the first's dependencies), beside their pods, in TestKarpenter*, make demo", KarpenterVersion, KarpenterPreviousVersion),
		fmt.Sprintf("stand-in: kwok %s for the kubelets (no container runs); the registrar for the kubelets of Karpenter's instances", harness.KwokVersion),
		fmt.Sprintf("stand-in: pulumi-resource-aws %s (tests/e2e/standin/aws-provider-on-moto) against moto %s; EKS access entries, add-ons, pod identity in its record", AWSVersion, tools.MotoVersion),
		"stand-in: moto's EC2 launch and IAM listing gaps filled for the controller (fixups.go), EC2's catalog answers kept across worlds (catalogcache.go); the EKS cluster the program makes is moto's and the stand-in's record, its control plane the world's API server",
		"real: the controller's identities — its service account's token and the chart's RBAC; IRSA's web identity token, issued by the API server as the cluster's OIDC issuer, or EKS Pod Identity's; the SDK's credential providers",
		"stand-in: STS's and EKS Auth's checks of those tokens and of the role's trust policy (the recorder, with the IAM simulator), moto's STS giving the credentials; the node's Pod Identity agent",
	}
}

// chartVersions are the Karpenter versions whose charts every world's registry holds: each
// version the scenarios and `make demo` install.
func chartVersions() []string {
	return append(append([]string{}, harness.KarpenterVersions...), harness.BetaVersion, harness.ProvisionerVersion)
}

// Close stops the webhook remover, the cluster, the registry and moto. Safe on a partly started
// world.
func (w *World) Close() {
	if w == nil {
		return
	}
	if w.cancel != nil {
		w.cancel()
	}
	if w.ControlPlane != nil {
		w.ControlPlane.Stop()
	}
	w.Registry.Stop()
	w.Moto.Stop()
}
