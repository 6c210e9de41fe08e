//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkEnginePreview is the engine's view of the component (`make bench`): a real
// `pulumi preview` of the default install (testdata/program.yaml, after one `pulumi up`), run
// by the real CLI and YAML host, with the component plugin over gRPC and the stand-in plugins
// answering for aws and kubernetes. Reported per preview:
//
//	ms/preview       wall time of `pulumi preview`
//	ms/plugin-start  the engine starting the component plugin until the plugin answered its
//	                 Handshake (a wrapper script installed as the plugin logs the exec)
//	ms/construct     the Construct call, as the engine timed it (registering every child)
//	%-of-preview     (plugin-start + construct) / preview
//
// Benchmarks measure; nothing here is asserted beyond the run succeeding.
func BenchmarkEnginePreview(b *testing.B) {
	tools, err := FindTools()
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	execLog := filepath.Join(dir, "plugin-exec.log")
	wrapper := filepath.Join(dir, "wrapper", "pulumi-resource-karpenter")
	if err := os.MkdirAll(filepath.Dir(wrapper), 0o755); err != nil {
		b.Fatal(err)
	}
	script := fmt.Sprintf("#!/bin/sh\ndate +%%s%%N >> '%s'\nexec '%s' \"$@\"\n", execLog, tools.Provider)
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		b.Fatal(err)
	}
	tools.Provider = wrapper

	w, err := NewWorld(context.Background(), dir, tools, standIns)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	program, err := Program("")
	if err != nil {
		b.Fatal(err)
	}
	if err := w.NewStack(program); err != nil {
		b.Fatal(err)
	}
	if _, stderr, err := w.Engine.Run("up", "--yes", "--non-interactive", "--skip-preview"); err != nil {
		b.Fatalf("pulumi up: %v\n%s", err, stderr)
	}

	var wall, start, construct time.Duration
	b.ResetTimer()
	for range b.N {
		for _, f := range []string{execLog, w.Engine.GRPCLog} {
			if err := os.Truncate(f, 0); err != nil && !os.IsNotExist(err) {
				b.Fatal(err)
			}
		}
		t0 := time.Now()
		if _, stderr, err := w.Engine.Run("preview", "--non-interactive"); err != nil {
			b.Fatalf("pulumi preview: %v\n%s", err, stderr)
		}
		wall += time.Since(t0)
		s, c, err := pluginTimes(w.Engine, execLog)
		if err != nil {
			b.Fatal(err)
		}
		start, construct = start+s, construct+c
	}
	b.StopTimer()
	n := float64(b.N)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / n }
	b.ReportMetric(ms(wall), "ms/preview")
	b.ReportMetric(ms(start), "ms/plugin-start")
	b.ReportMetric(ms(construct), "ms/construct")
	b.ReportMetric(100*float64(start+construct)/float64(wall), "%-of-preview")

	if _, stderr, err := w.Engine.Run("destroy", "--yes", "--non-interactive", "--skip-preview"); err != nil {
		b.Logf("pulumi destroy: %v\n%s", err, stderr)
	}
}

// pluginTimes reads one preview's plugin start (exec → Handshake answered) and Construct time
// from the wrapper's exec log and the engine's gRPC log.
func pluginTimes(e *Engine, execLog string) (start, construct time.Duration, err error) {
	raw, err := os.ReadFile(execLog)
	if err != nil {
		return 0, 0, fmt.Errorf("the plugin wrapper did not run: %w", err)
	}
	lines := strings.Fields(string(raw))
	if len(lines) == 0 {
		return 0, 0, fmt.Errorf("%s: no exec recorded", execLog)
	}
	ns, err := strconv.ParseInt(lines[0], 10, 64)
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
