// Package harness runs what the Karpenter component renders against a real Kubernetes API
// server (kube-apiserver + etcd on loopback) and the real Karpenter charts and CRDs.
package harness

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/rest"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/internal/repo"
)

// KubernetesVersion is the Kubernetes release whose kube-apiserver (and, for the engine tests'
// cluster, kube-controller-manager and kube-scheduler) the harness builds and runs
// (tests/toolpins/kubernetes).
const KubernetesVersion = "v1.33.3"

// KubeAPIServerPath is the cached kube-apiserver binary; KUBE_APISERVER overrides it.
func KubeAPIServerPath() string { return kubernetesBinary("KUBE_APISERVER", "kube-apiserver") }

// kubernetesBinary is one command tests/harness/install-deps.sh builds from tests/toolpins/kubernetes
// into $CACHE_DIR/bin/kubernetes-<version>/, or the path in env when that is set.
func kubernetesBinary(env, name string) string {
	if p := os.Getenv(env); p != "" {
		return p
	}
	return filepath.Join(repo.CacheDir(), "bin", "kubernetes-"+KubernetesVersion, name)
}

// EtcdPath is Debian's etcd (package etcd-server); ETCD overrides it.
func EtcdPath() string {
	if p := os.Getenv("ETCD"); p != "" {
		return p
	}
	if p, err := exec.LookPath("etcd"); err == nil {
		return p
	}
	return "/usr/bin/etcd"
}

// ControlPlane is a running etcd + kube-apiserver pair.
type ControlPlane struct {
	URL     string // https://127.0.0.1:<port>
	Token   string // bearer token of a system:masters user
	Dir     string // data, certs, logs
	Issuer  string // the issuer (iss) of the service-account tokens it issues
	Config  *rest.Config
	procs   []*Process
	stopped bool
}

// Process is a child process in its own process group (so Stop can kill it and any children),
// logging to a file; done is closed once it has exited and been reaped.
type Process struct {
	Name string
	Log  string // its stdout and stderr
	cmd  *exec.Cmd
	done chan struct{}
	err  error // exit status, valid after done
}

// StartProcess starts bin with args and env (nil: the test process's environment) in its own
// process group, with output to dir/<name>.log. Pdeathsig kills it if the test process dies
// without cleanup.
func StartProcess(dir, name, bin string, env []string, args ...string) (*Process, error) {
	logPath := filepath.Join(dir, name+".log")
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	// The child has its own descriptor; the parent's copy is not needed.
	logf.Close()
	p := &Process{Name: name, cmd: cmd, Log: logPath, done: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	return p, nil
}

// Exited says whether the process has exited (and been reaped).
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Err is the process's exit status once it has exited.
func (p *Process) Err() error {
	<-p.done
	return p.err
}

// Stop kills the process group: SIGTERM, then SIGKILL after 10 s (also after a clean exit:
// anything left in the group goes too). Safe to call more than once.
func (p *Process) Stop() {
	pgid := p.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	<-p.done
}

// Tail is the last lines of the process's log.
func (p *Process) Tail(lines int) string { return tail(p.Log, lines) }

// Start launches etcd and kube-apiserver on free loopback ports with data under dir and waits
// until the API server is ready. Call Stop (always, also on failure) to tear both down.
func Start(ctx context.Context, dir string) (*ControlPlane, error) {
	return StartWithIssuer(ctx, dir, DefaultServiceAccountIssuer)
}

// DefaultServiceAccountIssuer is the issuer of the service-account tokens of a control plane
// started by Start: the API server's in-cluster name, kube-apiserver's usual choice.
const DefaultServiceAccountIssuer = "https://kubernetes.default.svc"

// StartWithIssuer is Start with the service-account tokens issued as issuer (an EKS cluster's
// OIDC issuer URL, say): the iss claim of every token and the issuer its discovery document
// (/.well-known/openid-configuration, keys at /openid/v1/jwks) names.
func StartWithIssuer(ctx context.Context, dir, issuer string) (*ControlPlane, error) {
	return RetryPortClash(dir, func(dir string) (*ControlPlane, error) { return start(ctx, dir, issuer) })
}

// RetryPortClash runs start (up to three times, each in a new subdirectory of dir) while it fails
// with "address already in use": free ports are picked, released, then bound by a child process,
// and another process may take one in between.
func RetryPortClash[T any](dir string, start func(dir string) (T, error)) (T, error) {
	var out T
	var err error
	for attempt := 1; attempt <= 3; attempt++ {
		out, err = start(filepath.Join(dir, fmt.Sprintf("attempt-%d", attempt)))
		if err == nil || !strings.Contains(strings.ToLower(err.Error()), "address already in use") {
			return out, err
		}
	}
	return out, err
}

func start(ctx context.Context, dir, issuer string) (*ControlPlane, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	cp := &ControlPlane{Dir: dir, Issuer: issuer}
	for _, bin := range []string{EtcdPath(), KubeAPIServerPath()} {
		if _, err := os.Stat(bin); err != nil {
			return nil, fmt.Errorf("%s is missing (run tests/harness/install-deps.sh or `make deps`): %w", bin, err)
		}
	}
	ok := false
	defer func() {
		if !ok {
			cp.Stop()
		}
	}()

	etcdURL, err := cp.startEtcd(ctx)
	if err != nil {
		return nil, err
	}
	if err := cp.startAPIServer(ctx, etcdURL); err != nil {
		return nil, err
	}
	ok = true
	return cp, nil
}

func (cp *ControlPlane) startEtcd(ctx context.Context) (string, error) {
	ports, err := freePorts(2)
	if err != nil {
		return "", err
	}
	client := "http://127.0.0.1:" + strconv.Itoa(ports[0])
	peer := "http://127.0.0.1:" + strconv.Itoa(ports[1])
	if err := cp.spawn("etcd", EtcdPath(),
		"--name=harness",
		"--data-dir="+filepath.Join(cp.Dir, "etcd"),
		"--listen-client-urls="+client, "--advertise-client-urls="+client,
		"--listen-peer-urls="+peer, "--initial-advertise-peer-urls="+peer,
		"--initial-cluster=harness="+peer,
		"--log-level=warn", "--logger=zap",
	); err != nil {
		return "", err
	}
	err = cp.waitFor(ctx, 30*time.Second, func() error {
		resp, err := http.Get(client + "/health")
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("etcd /health: %s", resp.Status)
		}
		return nil
	})
	return client, err
}

func (cp *ControlPlane) startAPIServer(ctx context.Context, etcdURL string) error {
	// A static token for a system:masters user is the least machinery that gives the tests
	// full access; the serving certificate is self-signed by kube-apiserver into --cert-dir.
	tok := make([]byte, 16)
	if _, err := rand.Read(tok); err != nil {
		return err
	}
	cp.Token = hex.EncodeToString(tok)
	tokens := filepath.Join(cp.Dir, "tokens.csv")
	if err := os.WriteFile(tokens, []byte(cp.Token+",harness-admin,harness-admin,system:masters\n"), 0o600); err != nil {
		return err
	}
	saKey := filepath.Join(cp.Dir, "sa.key")
	if err := writeRSAKey(saKey); err != nil {
		return err
	}
	ports, err := freePorts(1)
	if err != nil {
		return err
	}
	cp.URL = "https://127.0.0.1:" + strconv.Itoa(ports[0])
	if err := cp.spawn("kube-apiserver", KubeAPIServerPath(),
		"--etcd-servers="+etcdURL,
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
		"--secure-port="+strconv.Itoa(ports[0]),
		"--cert-dir="+filepath.Join(cp.Dir, "certs"),
		"--token-auth-file="+tokens,
		"--authorization-mode=RBAC",
		"--service-account-issuer="+cp.Issuer,
		"--service-account-key-file="+saKey,
		"--service-account-signing-key-file="+saKey,
		"--service-cluster-ip-range=10.96.0.0/16",
		"--allow-privileged=true",
		"--v=0",
	); err != nil {
		return err
	}
	cp.Config = &rest.Config{
		Host:            cp.URL,
		BearerToken:     cp.Token,
		TLSClientConfig: rest.TLSClientConfig{Insecure: true}, // loopback, self-signed
		QPS:             100,
		Burst:           200,
	}
	hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true},
	}}
	return cp.waitFor(ctx, 90*time.Second, func() error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, cp.URL+"/readyz", nil)
		req.Header.Set("Authorization", "Bearer "+cp.Token)
		resp, err := hc.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			body, _ := io.ReadAll(resp.Body)
			return fmt.Errorf("kube-apiserver /readyz: %s: %s", resp.Status, body)
		}
		return nil
	})
}

// spawn starts one of the control plane's processes (StartProcess, logging under Dir); Stop stops it.
func (cp *ControlPlane) spawn(name, bin string, args ...string) error {
	p, err := StartProcess(cp.Dir, name, bin, nil, args...)
	if err != nil {
		return err
	}
	cp.procs = append(cp.procs, p)
	return nil
}

// waitFor polls check until it succeeds, a process exits, or the timeout passes.
func (cp *ControlPlane) waitFor(ctx context.Context, timeout time.Duration, check func() error) error {
	deadline := time.Now().Add(timeout)
	var last error
	for time.Now().Before(deadline) {
		if last = check(); last == nil {
			return nil
		}
		for _, p := range cp.procs {
			if p.Exited() {
				return fmt.Errorf("%s exited early (%v); log tail:\n%s", p.Name, p.err, p.Tail(40))
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
	return fmt.Errorf("not ready after %s: %w; log tail of %s:\n%s", timeout, last, cp.procs[len(cp.procs)-1].Name, cp.procs[len(cp.procs)-1].Tail(40))
}

// Stop stops every process in the reverse order of their start (kwok, the scheduler and the
// controller manager, then the API server, then etcd). Safe to call more than once.
func (cp *ControlPlane) Stop() {
	if cp.stopped {
		return
	}
	cp.stopped = true
	for i := len(cp.procs) - 1; i >= 0; i-- {
		cp.procs[i].Stop()
	}
}

// Logs returns the paths of the processes' logs (for failure messages).
func (cp *ControlPlane) Logs() []string {
	var logs []string
	for _, p := range cp.procs {
		logs = append(logs, p.Log)
	}
	return logs
}

func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

func writeRSAKey(path string) error {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	der := x509.MarshalPKCS1PrivateKey(key)
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: der}), 0o600)
}

func tail(path string, lines int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	n := 0
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '\n' {
			n++
			if n > lines {
				return string(b[i+1:])
			}
		}
	}
	return string(b)
}
