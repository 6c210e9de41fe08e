package provider_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/children"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/argstest"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/rendertest"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/render"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/render/format"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/stretchr/testify/require"
)

// The benchmarks measure what the component adds to a deployment: the Construct of the
// default install against the in-process engine, compared with a plain program registering
// the same children with the same inputs (its lower bound), and how Construct grows with node
// pools. `make bench` runs them and prints the table; `make test` does not assert on them.

// BenchmarkConstructDefault times the default install's Construct. Each iteration also runs
// the inline program (untimed) right after it, so the reported construct/inline ratio compares
// runs made under the same machine conditions — on a busy 2-core machine the separate
// benchmarks drift by more than the difference being measured.
func BenchmarkConstructDefault(b *testing.B) {
	args, rendered, host := benchSetup(b, argstest.DefaultArgs)
	var constructTime, inlineTime time.Duration
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		_, _, err := host.Construct(context.Background(), args)
		constructTime += time.Since(start)
		require.NoError(b, err)
		b.StopTimer()
		start = time.Now()
		require.NoError(b, registerInline(context.Background(), host, rendered))
		inlineTime += time.Since(start)
		b.StartTimer()
	}
	b.ReportMetric(float64(constructTime)/float64(inlineTime), "x-inline")
	b.ReportMetric(float64(longestChain(rendered.Resources)), "chain-steps")
	b.ReportMetric(float64(len(rendered.Resources)), "children")
}

func BenchmarkInlineDefault(b *testing.B) {
	_, rendered, host := benchSetup(b, argstest.DefaultArgs)
	b.ResetTimer()
	for b.Loop() {
		require.NoError(b, registerInline(context.Background(), host, rendered))
	}
}

func BenchmarkConstructNodePools(b *testing.B) {
	for _, n := range []int{1, 10, 100} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			benchmarkConstruct(b, poolsArgs(n))
		})
	}
}

func benchmarkConstruct(b *testing.B, argsJSON string) {
	args, _, host := benchSetup(b, argsJSON)
	b.ResetTimer()
	for b.Loop() {
		_, _, err := host.Construct(context.Background(), args)
		require.NoError(b, err)
	}
}

// benchSetup parses args, renders them once (what the inline program declares) and starts the
// in-process engine the iterations share; it stops with the benchmark.
func benchSetup(b *testing.B, argsJSON string) (render.Args, *format.Rendered, *render.Host) {
	args, err := rendertest.ParseArgs([]byte(argsJSON))
	require.NoError(b, err)
	rendered, err := rendertest.Render(context.Background(), args)
	require.NoError(b, err)
	host, err := rendertest.StartHost(context.Background(), &render.Mocks{}, args.Project, args.Stack)
	require.NoError(b, err)
	b.Cleanup(host.Close)
	return args, rendered, host
}

// poolsArgs is the default install with n node pools sharing one class.
func poolsArgs(n int) string {
	pools := ""
	for i := range n {
		if i > 0 {
			pools += ","
		}
		pools += fmt.Sprintf(`{"name":"pool-%d","requirements":[{"key":"karpenter.sh/capacity-type","operator":"In","values":["spot"]}],"limits":{"cpu":"100"}}`, i)
	}
	return `{"clusterName":"demo","oidcProviderArn":"arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/EXAMPLE","nodePools":[` + pools + `]}`
}

// registerInline is a plain Pulumi Go program declaring the rendered children directly: same
// types, names, inputs and dependencies, no component.
func registerInline(ctx context.Context, host *render.Host, r *format.Rendered) error {
	pctx, err := pulumi.NewContext(ctx, pulumi.RunInfo{
		Project: "project", Stack: "stack", MonitorAddr: host.MonitorAddr, EngineAddr: host.EngineAddr, Parallel: 16,
	})
	if err != nil {
		return err
	}
	return pulumi.RunWithContext(pctx, func(ctx *pulumi.Context) error {
		declared := map[string]pulumi.Resource{}
		for _, res := range r.Resources {
			var deps []pulumi.Resource
			for _, d := range res.DependsOn {
				deps = append(deps, declared[d])
			}
			var c children.Child
			opts := append(children.VersionOf(res.Type), pulumi.DependsOn(deps))
			if err := ctx.RegisterResource(res.Type, res.Name, pulumi.ToMap(res.Inputs), &c, opts...); err != nil {
				return err
			}
			declared[res.Name] = &c
		}
		return nil
	})
}

// longestChain is the number of resources on the longest dependency path: the create-time
// critical path, each step waiting for the one before.
func longestChain(resources []format.Resource) int {
	depth := map[string]int{}
	longest := 0
	for _, r := range resources { // registration order: dependencies come first
		d := 1
		for _, dep := range r.DependsOn {
			d = max(d, depth[dep]+1)
		}
		depth[r.Name] = d
		longest = max(longest, d)
	}
	return longest
}

// The create-time critical path stays short: IAM, queue, rules and the CRD release in
// parallel; then attachments and targets; then the controller; then the node classes; then the
// pools (each waits for its class, so a destroy deletes it first: customresources.go).
func TestCriticalPathIsAtMostFiveSteps(t *testing.T) {
	for _, args := range []string{argstest.DefaultArgs, poolsArgs(3), argstest.WithDefaults(t, `{"controllerIdentity":"both","discovery":{"subnetIds":["subnet-1"]},"createSpotServiceLinkedRole":true}`)} {
		r := rendertest.Args(t, args)
		if chain := longestChain(r.Resources); chain > 5 {
			t.Errorf("longest dependency chain is %d steps, want at most 5 (args %s)", chain, args)
		}
	}
}
