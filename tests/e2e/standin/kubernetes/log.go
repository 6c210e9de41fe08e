package main

import (
	"fmt"
	"log"
	"os"
	"strings"
	"sync"
	"time"

	"k8s.io/klog/v2"
)

// stderr is shown by the engine at debug level (`pulumi up --debug`, or its log on failure).
// Every line names the stand-in: its own, the standard logger's (Helm) and klog's (client-go
// warnings), which are routed through it.
var stderrLog = log.New(os.Stderr, StandIn+": ", log.LstdFlags|log.Lmicroseconds|log.Lmsgprefix)

func logf(format string, args ...any) { stderrLog.Printf(format, args...) }

func init() {
	log.SetOutput(lineWriter{})
	log.SetFlags(0)
	klog.LogToStderr(false)
	klog.SetOutput(lineWriter{})
}

// lineWriter logs each line written to it through stderrLog.
type lineWriter struct{}

func (lineWriter) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		stderrLog.Print(line)
	}
	return len(p), nil
}

// opLogEnv names the operation log shared with the aws stand-in (scenario tests read it to
// check the order of operations, e.g. custom resources deleted before the controller release).
const opLogEnv = "STANDIN_LOG"

var opLogMu sync.Mutex

// logTimeFormat is RFC 3339 with nanoseconds, always 9 digits (as the aws stand-in writes
// them), so lines sort as text too.
const logTimeFormat = "2006-01-02T15:04:05.000000000Z07:00"

// recordOp appends `<RFC3339Nano> kubernetes <op> <type> <urn-name> <id>` to $STANDIN_LOG once
// an operation has completed against the cluster. op is the RPC, as in the aws stand-in's
// lines: Create, Update, Delete or Read (a Read that found nothing has id "-"); previews,
// Check and Diff call nothing and are not recorded. The file is opened with O_APPEND for each
// line and the line written with one write, so lines of concurrent calls and of the other
// stand-in never interleave.
func recordOp(op, typ, name, id string) {
	path := os.Getenv(opLogEnv)
	if path == "" {
		return
	}
	if id == "" {
		id = "-"
	}
	line := fmt.Sprintf("%s kubernetes %s %s %s %s\n", time.Now().UTC().Format(logTimeFormat), op, typ, field(name), field(id))
	opLogMu.Lock()
	defer opLogMu.Unlock()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		logf("operation log %s: %v", path, err)
		return
	}
	defer f.Close()
	if _, err := f.WriteString(line); err != nil {
		logf("operation log %s: %v", path, err)
	}
}

// field keeps a log field one token (names and ids never hold spaces; be safe anyway).
func field(s string) string { return strings.ReplaceAll(s, " ", "_") }
