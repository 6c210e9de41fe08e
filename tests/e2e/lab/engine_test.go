//go:build e2e

package lab

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// The tiny YAML program: one component, no providers passed (so the children would get default
// aws/kubernetes providers at the versions the component requests).
const reachProgram = `resources:
  k:
    type: karpenter:Karpenter
    properties:
      clusterName: demo
      oidcProviderArn: arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/EXAMPLE
`

// awsPluginMissing is where a real engine run stops on this machine: the component's first AWS
// call needs the aws provider plugin at the version the component requests (6.83.2), which is
// not obtainable here (and automatic plugin download is off).
const awsPluginMissing = "error: no resource plugin 'pulumi-resource-aws' found in the workspace at version v6.83.2"

// newEngine is an isolated engine with the component plugin installed at the version it reports.
func newEngine(t *testing.T) (*Engine, Tools) {
	t.Helper()
	tools, err := FindTools()
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEngine(t.TempDir(), tools)
	if err != nil {
		t.Fatal(err)
	}
	e.Logf = t.Logf
	version, err := PluginVersion(tools.Provider)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.InstallPlugin("resource", "karpenter", version, tools.Provider); err != nil {
		t.Fatal(err)
	}
	return e, tools
}

// TestEngineReachesConstruct: `pulumi preview` of a YAML program through the real CLI, YAML host
// and engine starts the installed plugin and runs the component's Construct, which registers the
// component and calls the aws provider; the run stops exactly there, on the missing aws plugin,
// and nowhere earlier.
func TestEngineReachesConstruct(t *testing.T) {
	e, _ := newEngine(t)
	if _, err := e.NewProject("reach", reachProgram); err != nil {
		t.Fatal(err)
	}
	if err := e.NewStack("dev"); err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	stdout, stderr, err := e.Run("preview", "--non-interactive")
	t.Logf("pulumi preview: %s\n--- stdout ---\n%s--- stderr ---\n%s", time.Since(start).Round(time.Millisecond), stdout, stderr)
	if err == nil {
		t.Fatal("preview succeeded; it should stop where the aws plugin is needed (a stand-in aws plugin installed?)")
	}

	// The diagnostics: the missing aws plugin on the component's default aws provider, the
	// component's failure that follows from it, and the component's own warnings. No other error.
	diags := parseDiagnostics(stdout)
	const (
		awsProvider = "pulumi:providers:aws (default_6_83_2)"
		stack       = "pulumi:pulumi:Stack (reach-dev)"
		component   = "karpenter:index:Karpenter (k)"
	)
	for res, ds := range diags {
		for _, d := range ds {
			if strings.HasPrefix(d, "error:") && res != awsProvider && res != stack {
				t.Errorf("unexpected error on %s: %s", res, d)
			}
		}
	}
	if got := diags[awsProvider]; !reflect.DeepEqual(got, []string{awsPluginMissing}) {
		t.Errorf("%s: got %q, want exactly %q", awsProvider, got, awsPluginMissing)
	}
	// The component fails only because the engine tears the run down after the provider error: its
	// AWS reads (partition, region, account) were cancelled, or the connection closed first. CLI
	// 3.259.0 always reported that on the stack; 3.274.1 may not report it at all (seen in CI) —
	// either is right, any other cause is not.
	const hasProblem = "error: karpenter:index:Karpenter resource 'k' has a problem: "
	if got := diags[stack]; len(got) > 1 || len(got) == 1 && !strings.HasPrefix(got[0], hasProblem) {
		t.Errorf("%s: got %q, want none, or one error: the component failing on its cancelled AWS calls", stack, got)
	} else if len(got) == 1 {
		for _, line := range strings.Split(strings.TrimPrefix(got[0], hasProblem), "\n") {
			if !cancelled(line) {
				t.Errorf("%s: a cause other than the cancelled run: %q", stack, line)
			}
		}
	}
	var warned []string
	for _, d := range diags[component] {
		if strings.HasPrefix(d, "warning: no aws provider was passed") || strings.HasPrefix(d, "warning: no kubernetes provider was passed") {
			warned = append(warned, d)
		}
	}
	if len(warned) != 2 {
		t.Errorf("%s: want the component's two default-provider warnings (logged inside Construct), got %q", component, diags[component])
	}

	// The engine's gRPC log: what ran, over the wire.
	calls, err := e.GRPCCalls()
	if err != nil {
		t.Fatal(err)
	}
	// The engine started the installed plugin (from PULUMI_HOME, not PATH) ...
	hs := calls.Completed("ResourceProvider/Handshake")
	var handshake struct{ RootDirectory string }
	if len(hs) != 1 || hs[0].Decode(&handshake) != nil ||
		!strings.HasPrefix(handshake.RootDirectory, e.Home+"/plugins/resource-karpenter-v") {
		t.Errorf("want one Handshake with the plugin installed under %s/plugins, got %+v", e.Home, hs)
	}
	// ... and called its Construct with the program's inputs ...
	cs := calls.Completed("ResourceProvider/Construct")
	if len(cs) != 1 {
		t.Fatalf("want one Construct call, got %d", len(cs))
	}
	var construct struct {
		Type, Name string
		DryRun     bool
		Inputs     map[string]any
	}
	if err := cs[0].Decode(&construct); err != nil {
		t.Fatal(err)
	}
	wantInputs := map[string]any{
		"clusterName":     "demo",
		"oidcProviderArn": "arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/EXAMPLE",
	}
	if construct.Type != "karpenter:index:Karpenter" || construct.Name != "k" || !construct.DryRun ||
		!reflect.DeepEqual(construct.Inputs, wantInputs) {
		t.Errorf("Construct request: got %+v", construct)
	}
	if len(cs[0].Errors) != 1 || !cancelled(cs[0].Errors[0]) {
		t.Errorf("Construct should have been cancelled by the engine, got errors %q", cs[0].Errors)
	}
	// ... whose code ran: it registered the component itself on the engine's resource monitor
	// (the program's registration is the remote one; at most once — the Go SDK sends it from a
	// goroutine, and the cluster read's failure may cancel the run before it arrives: seen once
	// in CI, so the warnings above, logged inside Construct, are what proves the code ran) and
	// asked the aws provider for the cluster, partition, region and account, at the version it pins.
	var own int
	for _, c := range calls.Started("ResourceMonitor/RegisterResource") {
		var reg struct {
			Type, Name string
			Remote     bool
		}
		if err := c.Decode(&reg); err != nil {
			t.Fatal(err)
		}
		if reg.Type == "karpenter:index:Karpenter" && reg.Name == "k" && !reg.Remote {
			own++
		}
	}
	if own > 1 {
		t.Errorf("want the component's own registration from inside Construct at most once, got %d", own)
	}
	invoked := map[string]bool{}
	for _, c := range calls.Started("ResourceMonitor/Invoke") {
		var inv struct{ Tok, Version string }
		if err := c.Decode(&inv); err != nil {
			t.Fatal(err)
		}
		if inv.Version != "6.83.2" {
			t.Errorf("invoke %s at version %q, want 6.83.2", inv.Tok, inv.Version)
		}
		invoked[inv.Tok] = true
	}
	// Construct first reads the cluster (its name is known: a plain string), which fails on the
	// missing aws plugin; the partition, region and account it reads later in parallel would fail
	// the same way. Each invoke logged must be one of these, and at least one must have been made.
	scope := []string{"aws:eks/getCluster:getCluster", "aws:index/getPartition:getPartition", "aws:index/getRegion:getRegion",
		"aws:index/getCallerIdentity:getCallerIdentity"}
	if len(invoked) == 0 {
		t.Errorf("Construct invoked none of %v", scope)
	}
	for tok := range invoked {
		if !slices.Contains(scope, tok) {
			t.Errorf("Construct invoked %s, want only %v", tok, scope)
		}
	}
	t.Logf("Construct: %s; gRPC calls logged: %d", cs[0].Duration, len(calls))
}

// parseDiagnostics reads the "Diagnostics:" section of `pulumi preview`/`up` output: for each
// resource header ("  <type> (<name>):"), its diagnostics ("    error: ...", "    warning: ...",
// continuation lines joined with "\n").
func parseDiagnostics(out string) map[string][]string {
	diags := map[string][]string{}
	in := false
	var res string
	for _, line := range strings.Split(out, "\n") {
		switch {
		case line == "Diagnostics:":
			in = true
		case !in:
		case line == "":
		case !strings.HasPrefix(line, " "): // the next section (Resources:, Outputs:, ...)
			in = false
		case strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "   ") && strings.HasSuffix(line, ":"):
			res = strings.TrimSuffix(strings.TrimSpace(line), ":")
		case strings.HasPrefix(line, "    "):
			text := strings.TrimPrefix(line, "    ")
			ds := diags[res]
			if isDiagStart(text) || len(ds) == 0 {
				diags[res] = append(ds, text)
			} else {
				ds[len(ds)-1] += "\n" + text
			}
		}
	}
	return diags
}

// cancelled: an error the engine's teardown causes in a call in flight.
func cancelled(s string) bool {
	return strings.Contains(s, "context canceled") || strings.Contains(s, "code = Canceled") ||
		strings.Contains(s, "the client connection is closing")
}

func isDiagStart(s string) bool {
	for _, p := range []string{"error:", "warning:", "info:", "debug:"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
