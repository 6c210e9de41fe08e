// Command pulumi-resource-karpenter serves the karpenter Pulumi package. Besides serving the
// engine, it prints the schema (`schema`), its version (`--version`) and, without any cloud
// credentials, the resources the component would create (`render --args FILE`).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider"
)

func main() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "--version", "version":
			fmt.Println(provider.Version)
			return
		case "schema":
			exit(printSchema())
			return
		case "render":
			exit(render(os.Args[2:]))
			return
		}
	}
	exit(provider.Serve(context.Background()))
}

func printSchema() error {
	schema, err := provider.Schema(context.Background())
	if err != nil {
		return err
	}
	_, err = os.Stdout.Write(schema)
	return err
}

func render(args []string) error {
	flags := flag.NewFlagSet("render", flag.ContinueOnError)
	file := flags.String("args", "", "JSON or YAML file holding the component's inputs (and optional name, project, stack)")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if *file == "" {
		return fmt.Errorf("usage: pulumi-resource-karpenter render --args FILE")
	}
	data, err := os.ReadFile(*file)
	if err != nil {
		return err
	}
	out, err := provider.Renderer().JSON(context.Background(), data)
	if err != nil {
		return err
	}
	_, err = os.Stdout.Write(out)
	return err
}

func exit(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}
