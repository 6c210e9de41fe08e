//go:build examplerunner

// Runs the Registry page's Go program (docs/_index.md) as an Automation API inline program, as
// runner.js does the TypeScript ones: the module proxy serves no Go language host
// (pulumi-language-go) to run it as a Pulumi project. tests/e2e/examples_test.go writes the page's
// program to main.go with two changes, each checked to happen exactly once — `func main() {`
// becomes `func pageMain() {` and `pulumi.Run(` becomes `captureRun(` — so that this file's main
// runs the page's program function as the stack's. It builds them with examples/go's go.mod (the
// SDKs the page imports) and the release's Go SDK. The build tag keeps this file out of the tests
// module; the test builds it with -tags examplerunner.
//
// Usage: ./program <preview|up|refresh|destroy>, with the engine's environment (PULUMI_HOME, the
// local backend, the passphrase, PATH with the CLI), RUNNER_PROJECT (the project) and RUNNER_CONFIG
// (a JSON object of config keys and values). Stack config aws:region = us-west-2 is added, which
// the program reads. The engine's output goes to stderr; stdout's last line is {"step", "outputs"?}.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optdestroy"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optpreview"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optrefresh"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optup"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// program is the function the page's main hands to pulumi.Run.
var program pulumi.RunFunc

func captureRun(f pulumi.RunFunc, _ ...pulumi.RunOption) { program = f }

func main() {
	if len(os.Args) != 2 {
		fail(fmt.Errorf("usage: %s <preview|up|refresh|destroy>", os.Args[0]))
	}
	pageMain()
	if program == nil {
		fail(fmt.Errorf("the program's main did not call pulumi.Run"))
	}
	ctx := context.Background()
	s, err := auto.UpsertStackInlineSource(ctx, "dev", os.Getenv("RUNNER_PROJECT"), program, auto.SecretsProvider("passphrase"))
	if err != nil {
		fail(err)
	}
	config := map[string]string{}
	if c := os.Getenv("RUNNER_CONFIG"); c != "" {
		if err := json.Unmarshal([]byte(c), &config); err != nil {
			fail(fmt.Errorf("RUNNER_CONFIG: %w", err))
		}
	}
	config["aws:region"] = "us-west-2"
	for k, v := range config {
		if err := s.SetConfig(ctx, k, auto.ConfigValue{Value: v}); err != nil {
			fail(err)
		}
	}
	result := map[string]any{"step": os.Args[1]}
	switch os.Args[1] {
	case "preview":
		_, err = s.Preview(ctx, optpreview.ProgressStreams(os.Stderr))
	case "refresh":
		_, err = s.Refresh(ctx, optrefresh.ProgressStreams(os.Stderr))
	case "up":
		var r auto.UpResult
		if r, err = s.Up(ctx, optup.ProgressStreams(os.Stderr)); err == nil {
			outputs := map[string]any{}
			for k, v := range r.Outputs {
				outputs[k] = v.Value
			}
			result["outputs"] = outputs
		}
	case "destroy":
		if _, err = s.Destroy(ctx, optdestroy.ProgressStreams(os.Stderr)); err == nil {
			err = s.Workspace().RemoveStack(ctx, "dev")
		}
	default:
		err = fmt.Errorf("unknown step %s", os.Args[1])
	}
	if err != nil {
		fail(err)
	}
	data, err := json.Marshal(result)
	if err != nil {
		fail(err)
	}
	fmt.Println(string(data))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
