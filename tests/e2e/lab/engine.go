package lab

// The engine: the Pulumi CLI and the YAML language host, built from the Go module proxy
// (tests/toolpins/pulumi-cli, tests/toolpins/pulumi-yaml; see tests/e2e/install-e2e-deps.sh), run the
// component plugin (bin/pulumi-resource-karpenter) over gRPC, exactly as `pulumi
// preview`/`up`/`destroy` do for a user.
//
// Each Engine is isolated: its own PULUMI_HOME (plugins, credentials, logs), its own local
// backend (`pulumi login file://...`), and an environment that never reaches the network (no
// update check, no automatic plugin download, no registry lookups, no ambient plugins on PATH,
// no ambient AWS or Kubernetes credentials).

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/internal/repo"
)

// Tools are the binaries an engine run needs.
type Tools struct {
	Pulumi       string // the Pulumi CLI (env PULUMI)
	LanguageYAML string // pulumi-language-yaml (env PULUMI_LANGUAGE_YAML)
	Provider     string // pulumi-resource-karpenter (env PROVIDER_BIN)
	MotoServer   string // moto_server of the pinned venv (env MOTO_SERVER); later steps start it
	// KubernetesProvider is the real pulumi-kubernetes provider (env KUBERNETES_PROVIDER), built
	// as KubernetesProviderVersion from tests/toolpins/pulumi-kubernetes.
	KubernetesProvider string

	PulumiVersion string // the pins, as in tests/toolpins/*/go.mod and tests/e2e/lab/moto/requirements.txt
	YAMLVersion   string
	MotoVersion   string
}

// FindTools locates the binaries: each from its environment variable if set, else where
// tests/e2e/install-e2e-deps.sh puts it ($CACHE_DIR, default ~/.cache/pulumi-karpenter,
// keyed by the pinned versions) and, for the provider, <repo>/bin. A missing binary is an error
// naming it and how to get it (tests fail on it; they never skip).
func FindTools() (Tools, error) {
	tests, err := repo.TestsDir()
	if err != nil {
		return Tools{}, err
	}
	var t Tools
	if t.PulumiVersion, err = goModVersion(filepath.Join(tests, "toolpins", "pulumi-cli", "go.mod"), "github.com/pulumi/pulumi/pkg/v3"); err != nil {
		return Tools{}, err
	}
	if t.YAMLVersion, err = goModVersion(filepath.Join(tests, "toolpins", "pulumi-yaml", "go.mod"), "github.com/pulumi/pulumi-yaml"); err != nil {
		return Tools{}, err
	}
	if t.MotoVersion, err = pinnedPythonVersion(filepath.Join(tests, "e2e", "lab", "moto", "requirements.txt"), "moto"); err != nil {
		return Tools{}, err
	}
	cache := repo.CacheDir()
	const hint = "run `make e2e-deps` (tests/e2e/install-e2e-deps.sh)"
	var missing []string
	locate := func(env, def, hint string) string {
		p := os.Getenv(env)
		if p == "" {
			p = def
		}
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		if fi, err := os.Stat(p); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			missing = append(missing, fmt.Sprintf("%s: %s not found or not executable (set %s, or %s)", env, p, env, hint))
		}
		return p
	}
	t.Pulumi = locate("PULUMI", filepath.Join(cache, "bin", "pulumi-"+t.PulumiVersion, "pulumi"), hint)
	t.LanguageYAML = locate("PULUMI_LANGUAGE_YAML",
		filepath.Join(cache, "bin", "pulumi-language-yaml-"+t.YAMLVersion, "pulumi-language-yaml"), hint)
	t.Provider = locate("PROVIDER_BIN", filepath.Join(filepath.Dir(tests), "bin", "pulumi-resource-karpenter"),
		"run `make build`")
	t.MotoServer = locate("MOTO_SERVER", filepath.Join(cache, "venv-moto-"+t.MotoVersion, "bin", "moto_server"), hint)
	t.KubernetesProvider = locate("KUBERNETES_PROVIDER", filepath.Join(cache, "bin",
		"pulumi-resource-kubernetes-v"+KubernetesProviderVersion, "pulumi-resource-kubernetes"), hint)
	if len(missing) > 0 {
		return t, errors.New(strings.Join(missing, "\n"))
	}
	return t, nil
}

// PluginVersion is the version a plugin binary reports with `--version` (the component plugin's
// is stamped at build time: 0.1.0-dev from `make build`).
func PluginVersion(bin string) (string, error) {
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", bin, err)
	}
	v := strings.TrimSpace(string(out))
	if v == "" {
		return "", fmt.Errorf("%s --version printed nothing", bin)
	}
	return v, nil
}

// Engine is one isolated Pulumi installation: a PULUMI_HOME, a local backend logged in to, and
// the environment every command runs with.
type Engine struct {
	Pulumi  string   // the CLI binary
	Home    string   // PULUMI_HOME: plugins/, credentials.json, logs/ (the CLI's automatic logs, encrypted)
	Backend string   // the local backend's URL (file://<dir>)
	Dir     string   // working directory of Run: the project (NewProject sets it)
	Env     []string // the complete environment of every command (KEY=VALUE; SetEnv edits it)
	// GRPCLog is the file the engine logs every gRPC call to (PULUMI_DEBUG_GRPC): its calls to
	// plugins (Construct, Check, Create, ...) and the calls its resource monitor serves
	// (RegisterResource from the language host and from the component plugin). See GRPCCalls.
	GRPCLog string
	// Timeout bounds each command (default 10 minutes); the process group is killed after it.
	Timeout time.Duration
	// Logf, if set, gets each command line, its duration and exit status (e.g. t.Logf).
	Logf func(format string, args ...any)
	// Echo, if set, also receives each command's stdout as it is written (`make demo` shows the
	// engine's progress live); Run still returns it.
	Echo io.Writer
}

// passphrase is the stacks' secrets passphrase (PULUMI_CONFIG_PASSPHRASE); test-only.
const passphrase = "pulumi-karpenter-e2e"

// NewEngine creates an engine under root (an empty directory the caller owns and removes, e.g.
// t.TempDir()): root/home is PULUMI_HOME, root/backend the local backend, root/grpc.jsonl the
// gRPC log; it logs in to the backend.
//
// The CLI runs the YAML host as a bundled plugin, found next to its own executable (symlinks
// resolved) — install-e2e-deps.sh links it there; NewEngine checks the link is tools.LanguageYAML.
func NewEngine(root string, tools Tools) (*Engine, error) {
	if err := checkBundledYAML(tools); err != nil {
		return nil, err
	}
	e := &Engine{
		Pulumi:  tools.Pulumi,
		Home:    filepath.Join(root, "home"),
		GRPCLog: filepath.Join(root, "grpc.jsonl"),
		Dir:     root,
		Timeout: 10 * time.Minute,
	}
	backendDir := filepath.Join(root, "backend")
	for _, d := range []string{e.Home, backendDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	e.Backend = "file://" + backendDir

	// The inherited environment minus anything that would point the engine or the children's
	// providers elsewhere: other Pulumi settings, AWS credentials and config, kubeconfigs, proxies.
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "PULUMI_"), strings.HasPrefix(k, "AWS_"), k == "KUBECONFIG",
			strings.HasSuffix(strings.ToUpper(k), "_PROXY"):
			continue
		}
		e.Env = append(e.Env, kv)
	}
	for _, kv := range [][2]string{
		{"PULUMI_HOME", e.Home},
		{"PULUMI_CONFIG_PASSPHRASE", passphrase},
		{"PULUMI_DEBUG_GRPC", e.GRPCLog},
		// No network: get.pulumi.com and github.com are not reachable here, and a test must not
		// depend on what they would serve.
		{"PULUMI_SKIP_UPDATE_CHECK", "true"},                    // no "a new version is available" check
		{"PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION", "true"}, // a missing plugin is an error, never a download
		{"PULUMI_DISABLE_REGISTRY_RESOLVE", "true"},             // no Pulumi Registry lookups of package names
		{"PULUMI_IGNORE_AMBIENT_PLUGINS", "true"},               // only plugins installed in Home (and the bundled YAML host), never one on PATH
		{"PULUMI_SKIP_CONFIRMATIONS", "true"},
		{"PULUMI_SUPPRESS_NEO_LINK", "true"},
		{"PULUMI_DIY_BACKEND_NO_LEGACY_WARNING", "true"},
		{"PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK", "true"},
		// Anything that still tried HTTP(S) off this machine would fail at once, visibly, through a
		// proxy that does not exist; loopback (moto, the API server, plugins' gRPC) is direct.
		{"HTTP_PROXY", "http://127.0.0.1:9"},
		{"HTTPS_PROXY", "http://127.0.0.1:9"},
		{"NO_PROXY", "localhost,127.0.0.1,::1"},
		// The component's children must not reach a real account or cluster by accident.
		{"AWS_EC2_METADATA_DISABLED", "true"},
		{"KUBECONFIG", "/dev/null"},
		{"NO_COLOR", "1"},
	} {
		e.SetEnv(kv[0], kv[1])
	}
	if _, stderr, err := e.Run("login", "--non-interactive", e.Backend); err != nil {
		return nil, fmt.Errorf("%w\n%s", err, stderr)
	}
	return e, nil
}

// checkBundledYAML: the CLI would run tools.LanguageYAML as its bundled YAML host.
func checkBundledYAML(tools Tools) error {
	cli, err := filepath.EvalSymlinks(tools.Pulumi)
	if err != nil {
		return err
	}
	want, err := filepath.EvalSymlinks(tools.LanguageYAML)
	if err != nil {
		return err
	}
	next := filepath.Join(filepath.Dir(cli), "pulumi-language-yaml")
	got, err := filepath.EvalSymlinks(next)
	if err != nil || got != want {
		return fmt.Errorf("the CLI %s would not run %s as its YAML language host: %s resolves to %q (%v); "+
			"run `make e2e-deps` (tests/e2e/install-e2e-deps.sh links it)", cli, want, next, got, err)
	}
	return nil
}

// SetEnv sets (or replaces) one variable of the engine's environment.
func (e *Engine) SetEnv(key, value string) {
	prefix := key + "="
	for i, kv := range e.Env {
		if strings.HasPrefix(kv, prefix) {
			e.Env[i] = prefix + value
			return
		}
	}
	e.Env = append(e.Env, prefix+value)
}

// Getenv returns one variable of the engine's environment.
func (e *Engine) Getenv(key string) string {
	prefix := key + "="
	for _, kv := range e.Env {
		if strings.HasPrefix(kv, prefix) {
			return kv[len(prefix):]
		}
	}
	return ""
}

// Run runs `pulumi args...` in e.Dir with e.Env and returns its stdout and stderr. A non-zero
// exit is an error (*exec.ExitError wrapped, naming the command); the output is returned either way.
func (e *Engine) Run(args ...string) (stdout, stderr string, err error) {
	timeout := e.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return e.RunContext(ctx, args...)
}

// RunContext is Run bounded by ctx: when ctx ends, the CLI and every plugin it started (one
// process group) get SIGTERM, then SIGKILL 10 s later.
func (e *Engine) RunContext(ctx context.Context, args ...string) (stdout, stderr string, err error) {
	cmd := exec.CommandContext(ctx, e.Pulumi, args...)
	cmd.Dir = e.Dir
	cmd.Env = e.Env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if e.Echo != nil {
		cmd.Stdout = io.MultiWriter(&out, e.Echo)
	}
	start := time.Now()
	err = RunInGroup(cmd)
	if e.Logf != nil {
		status := "ok"
		if err != nil {
			status = err.Error()
		}
		e.Logf("pulumi %s (in %s): %s after %s", strings.Join(args, " "), e.Dir, status, time.Since(start).Round(time.Millisecond))
	}
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%v)", err, ctx.Err())
		}
		err = fmt.Errorf("pulumi %s: %w", strings.Join(args, " "), err)
	}
	return out.String(), errOut.String(), err
}

// RunInGroup runs cmd (made with exec.CommandContext) as its own process group: when the context
// ends the group gets SIGTERM, then SIGKILL 10 s later; whatever it left behind (plugins the CLI
// normally stops, an Automation API program's CLI) goes with the group when it returns.
func RunInGroup(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	err := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	return err
}

// InstallPlugin installs a plugin binary into Home: `pulumi plugin install KIND NAME VERSION
// --file FILE` (kind: resource, language, ...; version: semver, with or without a leading v).
// Stand-in provider plugins for later steps install the same way, at the versions the component
// requests.
func (e *Engine) InstallPlugin(kind, name, version, file string) error {
	_, stderr, err := e.Run("plugin", "install", kind, name, version, "--file", file)
	if err != nil {
		return fmt.Errorf("%w\n%s", err, stderr)
	}
	return nil
}

// NewProject writes a YAML project (Pulumi.yaml: name, `runtime: yaml`, then program — the
// top-level keys `resources:`, `variables:`, `outputs:`, `config:` of a Pulumi YAML program)
// into e.Dir/name, makes it e.Dir and returns it.
func (e *Engine) NewProject(name, program string) (string, error) {
	dir := filepath.Join(filepath.Dir(e.Home), "projects", name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	doc := fmt.Sprintf("name: %s\nruntime: yaml\n%s", name, program)
	if err := os.WriteFile(filepath.Join(dir, "Pulumi.yaml"), []byte(doc), 0o644); err != nil {
		return "", err
	}
	e.Dir = dir
	return dir, nil
}

// NewStack creates a stack of the project in e.Dir and selects it (passphrase secrets).
func (e *Engine) NewStack(name string) error {
	_, stderr, err := e.Run("stack", "init", name, "--non-interactive", "--secrets-provider", "passphrase")
	if err != nil {
		return fmt.Errorf("%w\n%s", err, stderr)
	}
	return nil
}

// GRPCCall is one entry of the engine's gRPC debug log (PULUMI_DEBUG_GRPC): a call the engine
// made to a plugin or served on its resource monitor.
type GRPCCall struct {
	Method   string          `json:"method"` // e.g. /pulumirpc.ResourceProvider/Construct
	Request  json.RawMessage `json:"request,omitempty"`
	Response json.RawMessage `json:"response,omitempty"`
	Errors   []string        `json:"errors,omitempty"`
	Metadata json.RawMessage `json:"metadata,omitempty"`
	Progress string          `json:"progress,omitempty"` // request_started | response_completed
	// Timestamp is set on response_completed entries only (pulumi v3.259.0 logs a zero time on
	// request_started ones); Duration is the call's, on response_completed entries.
	Timestamp time.Time     `json:"timestamp"`
	Duration  time.Duration `json:"duration,omitempty"`
}

// Decode unmarshals the call's request (the protobuf message as JSON, camelCase fields).
func (c GRPCCall) Decode(v any) error { return json.Unmarshal(c.Request, v) }

// GRPCLog is the engine's gRPC debug log: each call appears as a request_started entry and, once
// it returns, a response_completed entry (a call cut short by the engine's exit has only the first).
type GRPCLog []GRPCCall

// Started are the request_started entries whose method ends with suffix (e.g. "/Construct",
// "ResourceMonitor/Invoke"), in order.
func (l GRPCLog) Started(suffix string) GRPCLog { return l.filter("request_started", suffix) }

// Completed are the response_completed entries whose method ends with suffix, in completion order.
func (l GRPCLog) Completed(suffix string) GRPCLog { return l.filter("response_completed", suffix) }

func (l GRPCLog) filter(progress, suffix string) GRPCLog {
	var out GRPCLog
	for _, c := range l {
		if c.Progress == progress && strings.HasSuffix(c.Method, suffix) {
			out = append(out, c)
		}
	}
	return out
}

// GRPCCalls reads the gRPC debug log so far, in the order written. Every process the engine
// starts inherits PULUMI_DEBUG_GRPC and may append to it; a line that is not one JSON object
// (interleaved writes) is an error naming it.
func (e *Engine) GRPCCalls() (GRPCLog, error) {
	f, err := os.Open(e.GRPCLog)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var calls GRPCLog
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var c GRPCCall
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return calls, fmt.Errorf("%s:%d: %w", e.GRPCLog, n, err)
		}
		calls = append(calls, c)
	}
	return calls, sc.Err()
}

// goModVersion is the version file (a go.mod) requires module at.
func goModVersion(file, module string) (string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	re := regexp.MustCompile(`(?m)^\s*(?:require\s+)?` + regexp.QuoteMeta(module) + `\s+(v\S+)`)
	m := re.FindSubmatch(data)
	if m == nil {
		return "", fmt.Errorf("%s does not require %s", file, module)
	}
	return string(m[1]), nil
}

// pinnedPythonVersion is the exact version a requirements file pins pkg (with or without extras) to.
func pinnedPythonVersion(file, pkg string) (string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(pkg) + `(?:\[[^\]]*\])?==([^\s;#]+)`)
	m := re.FindSubmatch(data)
	if m == nil {
		return "", fmt.Errorf("%s pins no %s version", file, pkg)
	}
	return string(m[1]), nil
}
