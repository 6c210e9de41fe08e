//go:build e2e

package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/harness"
)

// pluginBin is the stand-in built once for all tests (TestMain): the tests drive the binary
// the engine would run, over gRPC, not the Go types.
var pluginBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "standin-kubernetes-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	pluginBin = filepath.Join(dir, "pulumi-resource-kubernetes")
	build := exec.Command("go", "build", "-o", pluginBin, ".")
	build.Env = append(os.Environ(), "GOWORK=off")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build the stand-in: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// standInProc is a running stand-in and a gRPC client to it.
type standInProc struct {
	rpc    pulumirpc.ResourceProviderClient
	stderr string // path of its stderr
	oplog  string // its $STANDIN_LOG
}

// startStandIn runs the plugin without an engine (attach mode: it prints its port and
// serves), with KUBECONFIG removed from its environment and extra env added.
func startStandIn(t *testing.T, env ...string) *standInProc {
	t.Helper()
	dir := t.TempDir()
	p := &standInProc{stderr: filepath.Join(dir, "stderr.log"), oplog: filepath.Join(dir, "ops.log")}
	cmd := exec.Command(pluginBin)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "KUBECONFIG=") && !strings.HasPrefix(kv, "STANDIN_LOG=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "STANDIN_LOG="+p.oplog)
	cmd.Env = append(cmd.Env, env...)
	errf, err := os.Create(p.stderr)
	if err != nil {
		t.Fatal(err)
	}
	defer errf.Close()
	cmd.Stderr = errf
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", pluginBin, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt) // what the engine sends when it is done
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
		if t.Failed() {
			b, _ := os.ReadFile(p.stderr)
			t.Logf("stand-in stderr:\n%s", b)
		}
	})
	port := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		port <- strings.TrimSpace(line)
	}()
	var addr string
	select {
	case addr = <-port:
	case <-time.After(60 * time.Second):
		t.Fatal("the stand-in printed no port within 60s")
	}
	if addr == "" {
		b, _ := os.ReadFile(p.stderr)
		t.Fatalf("the stand-in exited without a port; stderr:\n%s", b)
	}
	conn, err := grpc.NewClient("127.0.0.1:"+addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	p.rpc = pulumirpc.NewResourceProviderClient(conn)
	return p
}

// controlPlane starts etcd + kube-apiserver (failing, never skipping, when a binary is missing).
func controlPlane(t *testing.T) (*harness.ControlPlane, *harness.Cluster, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cp, err := harness.Start(ctx, t.TempDir())
	if err != nil {
		t.Fatalf("start the control plane: %v", err)
	}
	t.Cleanup(cp.Stop)
	cluster, err := harness.NewCluster(cp)
	if err != nil {
		t.Fatal(err)
	}
	kc, err := cp.Kubeconfig()
	if err != nil {
		t.Fatal(err)
	}
	return cp, cluster, string(kc)
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func (p *standInProc) configure(t *testing.T, kubeconfig string) {
	t.Helper()
	args := resource.PropertyMap{"version": resource.NewStringProperty(Version)}
	if kubeconfig != "" {
		args["kubeconfig"] = resource.MakeSecret(resource.NewStringProperty(kubeconfig))
	}
	if _, err := p.rpc.Configure(ctxT(t), &pulumirpc.ConfigureRequest{Args: mustMarshal(t, args), AcceptSecrets: true}); err != nil {
		t.Fatalf("Configure: %v", err)
	}
}

func urnOf(typ, name string) resource.URN {
	return resource.NewURN("test", "standin", "karpenter:index:Karpenter", tokens.Type(typ), name)
}

func mustMarshal(t *testing.T, pm resource.PropertyMap) *structpb.Struct {
	t.Helper()
	st, err := plugin.MarshalProperties(pm, plugin.MarshalOptions{KeepUnknowns: true, KeepSecrets: true, SkipNulls: true})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func mustUnmarshal(t *testing.T, st *structpb.Struct) resource.PropertyMap {
	t.Helper()
	pm, err := plugin.UnmarshalProperties(st, plugin.MarshalOptions{KeepUnknowns: true, KeepSecrets: true, SkipNulls: true})
	if err != nil {
		t.Fatal(err)
	}
	return pm
}

func props(m map[string]any) resource.PropertyMap { return resource.NewPropertyMapFromMap(m) }

// check runs Check and returns the checked inputs and the failures ("property: reason").
func (p *standInProc) check(t *testing.T, urn resource.URN, olds, news resource.PropertyMap) (resource.PropertyMap, []string) {
	t.Helper()
	resp, err := p.rpc.Check(ctxT(t), &pulumirpc.CheckRequest{
		Urn: string(urn), Olds: mustMarshal(t, olds), News: mustMarshal(t, news), RandomSeed: []byte("seed:" + urn.Name()),
	})
	if err != nil {
		t.Fatalf("Check(%s): %v", urn.Name(), err)
	}
	var failures []string
	for _, f := range resp.GetFailures() {
		failures = append(failures, f.GetProperty()+": "+f.GetReason())
	}
	return mustUnmarshal(t, resp.GetInputs()), failures
}

// checked is check that must pass.
func (p *standInProc) checked(t *testing.T, urn resource.URN, olds, news resource.PropertyMap) resource.PropertyMap {
	t.Helper()
	in, failures := p.check(t, urn, olds, news)
	if len(failures) > 0 {
		t.Fatalf("Check(%s) failed: %v", urn.Name(), failures)
	}
	return in
}

func (p *standInProc) diff(t *testing.T, urn resource.URN, oldInputs, olds, news resource.PropertyMap, ignore ...string) *pulumirpc.DiffResponse {
	t.Helper()
	resp, err := p.rpc.Diff(ctxT(t), &pulumirpc.DiffRequest{
		Urn: string(urn), Id: "x", OldInputs: mustMarshal(t, oldInputs), Olds: mustMarshal(t, olds), News: mustMarshal(t, news), IgnoreChanges: ignore,
	})
	if err != nil {
		t.Fatalf("Diff(%s): %v", urn.Name(), err)
	}
	return resp
}

func (p *standInProc) create(t *testing.T, urn resource.URN, inputs resource.PropertyMap, preview bool) (string, resource.PropertyMap, error) {
	t.Helper()
	resp, err := p.rpc.Create(ctxT(t), &pulumirpc.CreateRequest{Urn: string(urn), Properties: mustMarshal(t, inputs), Preview: preview})
	if err != nil {
		return "", nil, err
	}
	return resp.GetId(), mustUnmarshal(t, resp.GetProperties()), nil
}

func (p *standInProc) mustCreate(t *testing.T, urn resource.URN, inputs resource.PropertyMap) (string, resource.PropertyMap) {
	t.Helper()
	id, outs, err := p.create(t, urn, inputs, false)
	if err != nil {
		t.Fatalf("Create(%s): %v", urn.Name(), err)
	}
	return id, outs
}

func (p *standInProc) update(t *testing.T, urn resource.URN, id string, oldInputs, olds, news resource.PropertyMap, preview bool) (resource.PropertyMap, error) {
	t.Helper()
	resp, err := p.rpc.Update(ctxT(t), &pulumirpc.UpdateRequest{
		Urn: string(urn), Id: id, OldInputs: mustMarshal(t, oldInputs), Olds: mustMarshal(t, olds), News: mustMarshal(t, news), Preview: preview,
	})
	if err != nil {
		return nil, err
	}
	return mustUnmarshal(t, resp.GetProperties()), nil
}

func (p *standInProc) delete(t *testing.T, urn resource.URN, id string, inputs, outs resource.PropertyMap, timeoutSec float64) error {
	t.Helper()
	_, err := p.rpc.Delete(ctxT(t), &pulumirpc.DeleteRequest{
		Urn: string(urn), Id: id, OldInputs: mustMarshal(t, inputs), Properties: mustMarshal(t, outs), Timeout: timeoutSec,
	})
	return err
}

func (p *standInProc) read(t *testing.T, urn resource.URN, id string) (string, resource.PropertyMap) {
	t.Helper()
	resp, err := p.rpc.Read(ctxT(t), &pulumirpc.ReadRequest{Urn: string(urn), Id: id})
	if err != nil {
		t.Fatalf("Read(%s %s): %v", urn.Name(), id, err)
	}
	return resp.GetId(), mustUnmarshal(t, resp.GetProperties())
}

// ops returns the operation log lines without timestamps ("kubernetes <op> <type> <name> <id>"),
// checking each line's timestamp.
func (p *standInProc) ops(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(p.oplog)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if line == "" {
			continue
		}
		ts, rest, _ := strings.Cut(line, " ")
		if _, err := time.Parse(time.RFC3339Nano, ts); err != nil {
			t.Errorf("operation log line %q: timestamp: %v", line, err)
		}
		if n := len(strings.Fields(rest)); n != 5 {
			t.Errorf("operation log line %q: %d fields after the timestamp, want 5", line, n)
		}
		out = append(out, rest)
	}
	return out
}

// get reads a nested output value as Go data (secrets unwrapped), nil when absent.
func get(pm resource.PropertyMap, path string) any {
	v := resource.NewObjectProperty(pm)
	pp, err := resource.ParsePropertyPath(path)
	if err != nil {
		panic(err)
	}
	got, ok := pp.Get(v)
	if !ok {
		return nil
	}
	if isUnknown(got) {
		return "<unknown>"
	}
	plainMap, _ := plain(resource.PropertyMap{"v": got})
	return plainMap["v"]
}
