//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/lab"
)

// The engine benchmarks (`make bench`): real `pulumi` commands — the CLI and YAML host, the
// component plugin over gRPC, the real kubernetes provider against the world's API server, the aws
// stand-in against moto. Benchmarks measure; nothing is asserted beyond the runs succeeding and
// the two programs compared declaring the same children.
//
// Each command's wall time is also appended to $BENCH_SAMPLES (if set) as a line
// "<benchmark>\t<variant>\t<measure>\t<value>", from which `make bench` prints medians and spreads.

// BenchmarkEngineComponentVsInline deploys the default install (without its NodePool and
// EC2NodeClass, which a YAML program cannot declare inline) twice per round, interleaved
// (the order alternating between rounds): once through the component, once as a program declaring
// the same children inline — generated from the component's own render (InlineProgram): same types,
// names, inputs, dependencies and providers. Both run as the same project and stack (so every AWS
// name is the same), each from an empty stack: `preview` (everything to create), `up
// --skip-preview`, a `preview` with no changes, `refresh` and a `preview` after it (with no
// changes either: it fails the benchmark otherwise), `destroy --skip-preview`. The first round checks
// the two states hold the same children with the same inputs. $BENCH_ROUNDS rounds (default 5).
//
// Reported per variant (medians): ms/<variant>-<measure>; and for the component's preview with no
// changes, the plugin's start (exec → Handshake answered) and the Construct as the engine timed it.
func BenchmarkEngineComponentVsInline(b *testing.B) {
	rounds := envInt(b, "BENCH_ROUNDS", 5)
	tools, err := lab.FindTools()
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	plugin := tools.Provider // the binary itself, for render
	var execLog string
	if tools.Provider, execLog, err = lab.PluginWrapper(dir, tools.Provider); err != nil {
		b.Fatal(err)
	}
	w, err := lab.NewWorld(context.Background(), dir, tools, standIns)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()

	// A cluster that exists, as when Karpenter is added to one: the component reads it at every
	// preview (its readCluster checks), which the inline program does not; the third variant,
	// the component with readCluster false, says what the reads cost.
	oidc, err := w.MakeClusters([]string{"bench"})
	if err != nil {
		b.Fatal(err)
	}
	// No NodePool or EC2NodeClass: a YAML program cannot declare them beside their CRDs' chart
	// (see InlineProgram), so both programs install Karpenter without them (34 children).
	inputs := map[string]any{
		"defaultNodePool": false,
		"clusterName":     "bench",
		"oidcProviderArn": oidc["bench"],
		"chartRepository": w.ChartRepository(),
	}
	component, err := lab.ComponentProgram(inputs)
	if err != nil {
		b.Fatal(err)
	}
	noRead, err := lab.ComponentProgram(map[string]any{"readCluster": false, "clusterEndpoint": w.ControlPlane.URL, "defaultNodePool": false,
		"clusterName": "bench", "oidcProviderArn": oidc["bench"], "chartRepository": w.ChartRepository()})
	if err != nil {
		b.Fatal(err)
	}
	// The render the inline program is made from checks the same cluster: its endpoint (the
	// world's API server, as the stand-in's EKS gives it) goes into the chart values.
	args := map[string]any{"name": "karpenter", "project": lab.ProjectName, "stack": lab.StackName,
		"cluster": map[string]any{"endpoint": w.ControlPlane.URL}}
	maps.Copy(args, inputs)
	argsFile := filepath.Join(dir, "render-args.json")
	if err := os.WriteFile(argsFile, lab.MustJSON(args), 0o644); err != nil {
		b.Fatal(err)
	}
	rendered, err := exec.Command(plugin, "render", "--args", argsFile).Output()
	if err != nil {
		b.Fatalf("render: %v", err)
	}
	inline, err := lab.InlineProgram(rendered)
	if err != nil {
		b.Fatal(err)
	}
	if err := w.NewStack(component); err != nil {
		b.Fatal(err)
	}
	programs := map[string]string{"component": component, "inline": inline, "component-noread": noRead}
	samples := map[string][]float64{}
	states := map[string]map[string]string{} // by variant, from the first round
	b.ResetTimer()
	for round := range rounds {
		order := []string{"component", "inline", "component-noread"}
		if round%2 == 1 {
			slices.Reverse(order)
		}
		for _, variant := range order {
			if _, err := w.Engine.NewProject(lab.ProjectName, programs[variant]); err != nil {
				b.Fatal(err)
			}
			run := func(measure string, args ...string) {
				truncate(b, execLog, w.Engine.GRPCLog)
				t0 := time.Now()
				if stdout, stderr, err := w.Engine.Run(args...); err != nil {
					b.Fatalf("%s: pulumi %s: %v\n%s\n%s", variant, strings.Join(args, " "), err, tail(stdout, 40), stderr)
				}
				sample(b, samples, variant, measure, ms(time.Since(t0)))
			}
			run("preview", "preview", "--non-interactive")
			sampler := lab.StartProcessSampler(50 * time.Millisecond)
			run("up", "up", "--yes", "--non-interactive", "--skip-preview")
			sampleCPU(b, samples, variant, "up", sampler.Stop())
			if round == 0 {
				if states[variant], err = childInputs(w); err != nil {
					b.Fatal(err)
				}
			}
			run("preview-no-changes", "preview", "--non-interactive", "--expect-no-changes")
			// A stack's second day: a refresh reads every child back, then a preview must
			// still have nothing to do.
			run("refresh", "refresh", "--yes", "--non-interactive", "--skip-preview")
			run("preview-after-refresh", "preview", "--non-interactive", "--expect-no-changes")
			if variant == "component" {
				start, construct, err := pluginTimes(w.Engine, execLog)
				if err != nil {
					b.Fatal(err)
				}
				sample(b, samples, variant, "plugin-start", ms(start))
				sample(b, samples, variant, "construct", ms(construct))
			}
			run("destroy", "destroy", "--yes", "--non-interactive", "--skip-preview")
		}
		if round == 0 {
			for _, other := range []string{"inline", "component-noread"} {
				if err := sameChildren(states["component"], states[other]); err != nil {
					b.Fatalf("the %s program does not declare the component's children: %v", other, err)
				}
			}
		}
	}
	b.StopTimer()
	for _, key := range slices.Sorted(maps.Keys(samples)) {
		b.ReportMetric(median(samples[key]), "ms/"+key)
	}
}

// BenchmarkEngineFleet is one stack managing a fleet of clusters (FleetProgram): for each N in
// $BENCH_FLEET (default 1,10,50), on one world, from an empty stack: `preview`, `up
// --skip-preview`, `destroy --skip-preview`, each timed, with the CPU time of every process that
// takes part, by kind (ProcessSampler, every 50 ms); for preview and up also the component
// plugin's peak RSS and the largest number of Constructs it served at once (from the engine's
// gRPC log). BENCH_PROFILE=<dir> also has the engine write its CPU and memory profiles there
// (`pulumi --profiling`), for `go tool pprof`. The largest N runs once more with the engine's
// intermediate checkpoints off (PULUMI_SKIP_CHECKPOINTS=true).
func BenchmarkEngineFleet(b *testing.B) {
	sizes := []int{1, 10, 50}
	if v := os.Getenv("BENCH_FLEET"); v != "" {
		sizes = nil
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 {
				b.Fatalf("BENCH_FLEET=%q: want sizes like 1,10,50", v)
			}
			sizes = append(sizes, n)
		}
	}
	tools, err := lab.FindTools()
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	w, err := lab.NewWorld(context.Background(), dir, tools, standIns)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	// Big fleets take a while: the engine's own limit per command is raised.
	w.Engine.Timeout = 45 * time.Minute
	var names []string
	for i := range slices.Max(sizes) {
		names = append(names, lab.FleetMember(i))
	}
	oidc, err := w.MakeClusters(names)
	if err != nil {
		b.Fatal(err)
	}
	if err := w.NewStack(lab.BenchProviders); err != nil {
		b.Fatal(err)
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) { fleetRun(b, w, n, fmt.Sprintf("N=%d", n), oidc) })
	}
	// The largest fleet again with the engine's intermediate checkpoints off: the profile of its
	// `up` puts most of the engine's CPU in saving the whole state after every step (the
	// self-managed backend's checkpoints), which grows with the square of the resources.
	if n := slices.Max(sizes); n > 1 {
		b.Run(fmt.Sprintf("N=%d,skip-checkpoints", n), func(b *testing.B) {
			w.Engine.SetEnv("PULUMI_SKIP_CHECKPOINTS", "true")
			defer w.Engine.SetEnv("PULUMI_SKIP_CHECKPOINTS", "false")
			fleetRun(b, w, n, fmt.Sprintf("N=%d,skip-checkpoints", n), oidc)
		})
	}
}

// fleetRun deploys a fleet of n clusters from an empty stack and destroys it, measuring each
// command (see BenchmarkEngineFleet) as variant.
func fleetRun(b *testing.B, w *lab.World, n int, variant string, oidc map[string]string) {
	program, err := lab.FleetProgram(n, w.ChartRepository(), strings.TrimPrefix(lab.KarpenterVersion, "v"), w.VPC, oidc)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := w.Engine.NewProject(lab.ProjectName, program); err != nil {
		b.Fatal(err)
	}
	samples := map[string][]float64{}
	for range b.N {
		for _, step := range []struct {
			measure string
			args    []string
		}{
			{"preview", []string{"preview", "--non-interactive"}},
			{"up", []string{"up", "--yes", "--non-interactive", "--skip-preview"}},
			{"destroy", []string{"destroy", "--yes", "--non-interactive", "--skip-preview"}},
		} {
			truncate(b, w.Engine.GRPCLog)
			args := step.args
			if dir := os.Getenv("BENCH_PROFILE"); dir != "" {
				// The engine's own CPU and memory profiles (pprof) of the command.
				args = append(slices.Clone(args), "--profiling", filepath.Join(dir, "engine-"+variant+"-"+step.measure))
			}
			sampler := lab.StartProcessSampler(50 * time.Millisecond)
			t0 := time.Now()
			stdout, stderr, err := w.Engine.Run(args...)
			wall := time.Since(t0)
			usage := sampler.Stop()
			if err != nil {
				b.Fatalf("%s: pulumi %s: %v\n%s\n%s", variant, step.measure, err, tail(stdout, 40), stderr)
			}
			sample(b, samples, variant, step.measure, ms(wall))
			sampleCPU(b, samples, variant, step.measure, usage)
			if step.measure == "destroy" {
				continue
			}
			calls, err := w.Engine.GRPCCalls()
			if err != nil {
				b.Fatal(err)
			}
			constructs := calls.Completed("ResourceProvider/Construct")
			if want := 2 * n; len(constructs) != want {
				b.Fatalf("%s %s: %d Constructs completed, want %d", variant, step.measure, len(constructs), want)
			}
			sample(b, samples, variant, step.measure+"-constructs-in-flight", float64(lab.MaxInFlight(constructs)))
			sample(b, samples, variant, step.measure+"-plugin-peak-rss-mb", float64(usage["component"].PeakRSS)/(1<<20))
		}
	}
	for _, key := range slices.Sorted(maps.Keys(samples)) {
		unit := "ms/"
		if strings.HasSuffix(key, "-mb") || strings.HasSuffix(key, "-in-flight") {
			unit = ""
		}
		b.ReportMetric(median(samples[key]), unit+strings.TrimPrefix(key, variant+"-"))
	}
}

// pluginTimes reads one command's plugin start (exec → Handshake answered) and Construct time
// from the wrapper's exec log and the engine's gRPC log.
func pluginTimes(e *lab.Engine, execLog string) (start, construct time.Duration, err error) {
	raw, err := os.ReadFile(execLog)
	if err != nil {
		return 0, 0, fmt.Errorf("the plugin wrapper did not run: %w", err)
	}
	f := strings.Fields(string(raw))
	if len(f) < 2 {
		return 0, 0, fmt.Errorf("%s: no exec recorded", execLog)
	}
	ns, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", execLog, err)
	}
	exec := time.Unix(0, ns)
	calls, err := e.GRPCCalls()
	if err != nil {
		return 0, 0, err
	}
	var handshake time.Time
	for _, c := range calls.Completed("/Handshake") {
		if strings.Contains(string(c.Request), "resource-karpenter") {
			handshake = c.Timestamp
			break
		}
	}
	constructs := calls.Completed("/Construct")
	if handshake.IsZero() || len(constructs) != 1 {
		return 0, 0, fmt.Errorf("gRPC log: karpenter Handshake found: %v, Constructs completed: %d", !handshake.IsZero(), len(constructs))
	}
	return handshake.Sub(exec), constructs[0].Duration, nil
}

// childInputs are the state's custom resources but providers, by type and name, each with its
// inputs as JSON.
func childInputs(w *lab.World) (map[string]string, error) {
	resources, err := w.StateResources()
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, r := range resources {
		if r.ID == "" || strings.HasPrefix(r.Type, "pulumi:providers:") {
			continue // the stack, components, providers
		}
		out[r.Type+" "+r.Name()] = string(lab.MustJSON(r.Inputs))
	}
	return out, nil
}

// sameChildren says how two states' children differ, or nil.
func sameChildren(component, inline map[string]string) error {
	var diffs []string
	for k, v := range component {
		if w, ok := inline[k]; !ok {
			diffs = append(diffs, k+": not declared inline")
		} else if w != v {
			diffs = append(diffs, fmt.Sprintf("%s: inputs differ:\n  component %s\n  inline    %s", k, v, w))
		}
	}
	for k := range inline {
		if _, ok := component[k]; !ok {
			diffs = append(diffs, k+": declared inline only")
		}
	}
	if len(component) == 0 {
		diffs = append(diffs, "the component's state holds no children")
	}
	slices.Sort(diffs)
	if len(diffs) > 0 {
		return fmt.Errorf("%s", strings.Join(diffs, "\n"))
	}
	return nil
}

// sampleCPU records the CPU time each kind of process spent in a command (ms), and their sum.
func sampleCPU(b *testing.B, samples map[string][]float64, variant, command string, usage map[string]lab.Usage) {
	var total time.Duration
	for _, kind := range lab.ProcessKinds() {
		sample(b, samples, variant, command+"-cpu-ms-"+kind, ms(usage[kind].CPU))
		total += usage[kind].CPU
	}
	sample(b, samples, variant, command+"-cpu-ms", ms(total))
}

// sample records one measurement, in samples and in $BENCH_SAMPLES.
func sample(b *testing.B, samples map[string][]float64, variant, measure string, v float64) {
	key := variant + "-" + measure
	samples[key] = append(samples[key], v)
	if path := os.Getenv("BENCH_SAMPLES"); path != "" {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		name := strings.SplitN(b.Name(), "/", 2)[0]
		if _, err := fmt.Fprintf(f, "%s\t%s\t%s\t%.1f\n", name, variant, measure, v); err != nil {
			b.Fatal(err)
		}
	}
}

func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func truncate(b *testing.B, files ...string) {
	for _, f := range files {
		if err := os.Truncate(f, 0); err != nil && !os.IsNotExist(err) {
			b.Fatal(err)
		}
	}
}

func envInt(b *testing.B, key string, def int) int {
	v := os.Getenv(key)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		b.Fatalf("%s=%q: want a positive number", key, v)
	}
	return n
}
