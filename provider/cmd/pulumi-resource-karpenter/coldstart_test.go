package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/types/known/emptypb"
)

// BenchmarkPluginColdStart measures what the engine waits for when it loads the plugin: from
// exec to the first answered GetSchema, and the plugin's peak RSS. It runs the binary named by
// KARPENTER_PLUGIN (`make bench` builds the stripped release binary); without it there is
// nothing to measure.
func BenchmarkPluginColdStart(b *testing.B) {
	plugin := os.Getenv("KARPENTER_PLUGIN")
	if plugin == "" {
		b.Skip("KARPENTER_PLUGIN names the plugin binary to measure (make bench sets it)")
	}
	engine := startEngine(b)
	var total time.Duration
	var peakKB int64
	for b.Loop() {
		elapsed, rss := coldStart(b, plugin, engine)
		total += elapsed
		peakKB = max(peakKB, rss)
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/first-GetSchema")
	b.ReportMetric(float64(peakKB)/1024, "MB-peak-RSS")
}

// coldStart execs the plugin as the engine does (engine address as its argument; it prints
// its port), calls GetSchema, and stops it.
func coldStart(b *testing.B, plugin, engine string) (time.Duration, int64) {
	start := time.Now()
	cmd := exec.Command(plugin, engine)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	port, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatal(err)
	}
	conn, err := grpc.NewClient("127.0.0.1:"+strings.TrimSpace(port), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		b.Fatal(err)
	}
	schema, err := pulumirpc.NewResourceProviderClient(conn).GetSchema(context.Background(), &pulumirpc.GetSchemaRequest{})
	elapsed := time.Since(start)
	if err != nil || !strings.Contains(schema.GetSchema(), "karpenter:index:Karpenter") {
		b.Fatalf("GetSchema: %v", err)
	}
	_ = conn.Close()
	_ = cmd.Process.Signal(syscall.SIGTERM)
	_ = cmd.Wait()
	rusage, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return elapsed, rusage.Maxrss
}

// startEngine serves the engine RPCs a plugin calls at start (logging).
func startEngine(b *testing.B) string {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	s := grpc.NewServer()
	pulumirpc.RegisterEngineServer(s, &engine{})
	go func() { _ = s.Serve(lis) }()
	b.Cleanup(s.Stop)
	return fmt.Sprint(lis.Addr())
}

type engine struct {
	pulumirpc.UnimplementedEngineServer
}

func (engine) Log(context.Context, *pulumirpc.LogRequest) (*emptypb.Empty, error) {
	return &emptypb.Empty{}, nil
}
