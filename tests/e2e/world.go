package e2e

import (
	"context"
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
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/harness"
)

// The versions the component registers its children at (provider/versions.go), which the
// stand-in plugins are installed as.
const (
	AWSVersion        = "6.83.2"
	KubernetesVersion = "4.30.0"
)

// Region is the region of every world (stack config aws:region); moto's account is 123456789012.
const Region = "us-west-2"

// Dummy credentials: moto accepts any; the stand-in aws plugin requires some to be set.
const (
	dummyAccessKey = "testing"
	dummySecretKey = "testing"
)

// StandIns are the two stand-in provider plugins, built from tests/e2e/standin.
type StandIns struct {
	AWS        string // pulumi-resource-aws, installed as aws 6.83.2
	Kubernetes string // pulumi-resource-kubernetes, installed as kubernetes 4.30.0
}

// BuildStandIns builds both stand-in plugins into dir with one `go build` (the Go build cache
// makes a rebuild a link step: a few seconds).
func BuildStandIns(ctx context.Context, dir string) (StandIns, error) {
	tests, err := testsDir()
	if err != nil {
		return StandIns{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return StandIns{}, err
	}
	// With several main packages, -o DIR writes each as DIR/<last path element>.
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags", "-s -w", "-o", dir+string(os.PathSeparator),
		"./e2e/standin/aws", "./e2e/standin/kubernetes")
	cmd.Dir = tests
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		return StandIns{}, fmt.Errorf("building the stand-in plugins: %w\n%s", err, out)
	}
	s := StandIns{AWS: filepath.Join(dir, "pulumi-resource-aws"), Kubernetes: filepath.Join(dir, "pulumi-resource-kubernetes")}
	if err := os.Rename(filepath.Join(dir, "aws"), s.AWS); err != nil {
		return StandIns{}, err
	}
	if err := os.Rename(filepath.Join(dir, "kubernetes"), s.Kubernetes); err != nil {
		return StandIns{}, err
	}
	return s, nil
}

// Moto is a moto_server on a free loopback port, emulating IAM, SQS, EventBridge, EC2 and STS.
type Moto struct {
	URL  string // http://127.0.0.1:<port>
	Log  string // its stdout and stderr
	cmd  *exec.Cmd
	done chan struct{}
}

// StartMoto starts bin (the pinned venv's moto_server) on loopback with the AWS managed policies
// loaded (MOTO_IAM_LOAD_MANAGED_POLICIES: without it AmazonEKSWorkerNodePolicy & co. do not
// exist), logging to dir/moto.log, and waits until it answers. Stop it with Stop.
func StartMoto(ctx context.Context, bin, dir string) (*Moto, error) {
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		m, err := startMoto(ctx, bin, dir)
		if err == nil {
			return m, nil
		}
		lastErr = err
		if !strings.Contains(err.Error(), "exited") {
			break
		}
	}
	return nil, lastErr
}

func startMoto(ctx context.Context, bin, dir string) (*Moto, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	m := &Moto{URL: fmt.Sprintf("http://127.0.0.1:%d", port), Log: filepath.Join(dir, "moto.log"), done: make(chan struct{})}
	logFile, err := os.OpenFile(m.Log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	m.cmd = exec.Command(bin, "-H", "127.0.0.1", "-p", fmt.Sprint(port))
	// Only what moto needs: no AWS_* of the caller, no proxies.
	m.cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "MOTO_IAM_LOAD_MANAGED_POLICIES=true"}
	m.cmd.Stdout, m.cmd.Stderr = logFile, logFile
	m.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := m.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w (run `make e2e-deps`, or set MOTO_SERVER)", bin, err)
	}
	go func() { _ = m.cmd.Wait(); close(m.done) }()
	deadline := time.Now().Add(60 * time.Second)
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{Proxy: nil}}
	for {
		if isMoto(client, m.URL) {
			return m, nil
		}
		select {
		case <-m.done:
			log, _ := os.ReadFile(m.Log)
			return nil, fmt.Errorf("moto_server exited before answering on %s:\n%s", m.URL, log)
		case <-ctx.Done():
			m.Stop()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			m.Stop()
			log, _ := os.ReadFile(m.Log)
			return nil, fmt.Errorf("moto_server did not answer on %s within 60s:\n%s", m.URL, log)
		}
	}
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

// Stop terminates moto's process group (SIGTERM, SIGKILL after 10 s). Safe to call twice.
func (m *Moto) Stop() {
	if m == nil || m.cmd == nil || m.cmd.Process == nil {
		return
	}
	pgid := m.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-m.done:
	case <-time.After(10 * time.Second):
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	<-m.done
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// World is everything one scenario runs against: a moto server and a Kubernetes API server
// (etcd + kube-apiserver, tests/harness) on loopback, and an isolated Pulumi engine with the
// component plugin and both stand-in plugins installed, whose commands reach exactly those two.
type World struct {
	Engine       *Engine
	Moto         *Moto
	ControlPlane *harness.ControlPlane
	Cluster      *harness.Cluster // client of the API server (Helm, dynamic client)
	Kubeconfig   string           // path of the API server's kubeconfig (KUBECONFIG of every command)
	OpLog        string           // STANDIN_LOG: the stand-ins' shared operation log
	StateDir     string           // STANDIN_STATE_DIR: the aws stand-in's EKS record
	AWS          aws.Config       // an AWS SDK config for moto (dummy credentials, Region)

	dir string
}

// NewWorld starts moto and an API server (in parallel) under dir and creates an engine under
// dir/engine with the component plugin (tools.Provider, at the version it reports) and the
// stand-ins installed as aws 6.83.2 and kubernetes 4.30.0. Close stops everything; on error
// what was started is stopped already.
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
	var motoErr, cpErr error
	wg.Add(2)
	go func() {
		defer wg.Done()
		w.Moto, motoErr = StartMoto(ctx, tools.MotoServer, filepath.Join(dir, "moto"))
	}()
	go func() {
		defer wg.Done()
		w.ControlPlane, cpErr = harness.Start(ctx, filepath.Join(dir, "apiserver"))
	}()
	wg.Wait()
	if err := errors.Join(motoErr, cpErr); err != nil {
		return w, err
	}
	if w.Cluster, err = harness.NewCluster(w.ControlPlane); err != nil {
		return w, err
	}
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

	if w.Engine, err = NewEngine(filepath.Join(dir, "engine"), tools); err != nil {
		return w, err
	}
	e := w.Engine
	for _, kv := range [][2]string{
		// The aws stand-in: moto on loopback, dummy credentials, its EKS record.
		{"AWS_ENDPOINT_URL", w.Moto.URL},
		{"AWS_ACCESS_KEY_ID", dummyAccessKey},
		{"AWS_SECRET_ACCESS_KEY", dummySecretKey},
		{"AWS_REGION", Region},
		{"STANDIN_STATE_DIR", w.StateDir},
		// The kubernetes stand-in: the harness's API server.
		{"KUBECONFIG", w.Kubeconfig},
		// Both: one operation log, one line per completed operation.
		{"STANDIN_LOG", w.OpLog},
		// The kubernetes stand-in maps chart references to the Karpenter module zips in the Go
		// module cache and reads CACHE_DIR like the harness.
		{"CACHE_DIR", harness.CacheDir()},
	} {
		e.SetEnv(kv[0], kv[1])
	}
	version, err := PluginVersion(tools.Provider)
	if err != nil {
		return w, err
	}
	for _, p := range []struct{ name, version, file string }{
		{"karpenter", version, tools.Provider},
		{"aws", AWSVersion, standIns.AWS},
		{"kubernetes", KubernetesVersion, standIns.Kubernetes},
	} {
		if err := e.InstallPlugin("resource", p.name, p.version, p.file); err != nil {
			return w, err
		}
	}
	return w, nil
}

// Close stops the API server and moto. Safe on a partly started world.
func (w *World) Close() {
	if w == nil {
		return
	}
	if w.ControlPlane != nil {
		w.ControlPlane.Stop()
	}
	w.Moto.Stop()
}
