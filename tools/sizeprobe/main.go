// Command sizeprobe measures what linking a Pulumi SDK package costs a component provider:
// `make bench` builds it once bare (a pulumi-go-provider component, the baseline) and once per
// build tag below, each importing one SDK package the way a component using it would.
package main

import (
	"context"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi-go-provider/infer"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

type Args struct {
	Name pulumi.StringInput `pulumi:"name"`
}

type Component struct{ pulumi.ResourceState }

func New(ctx *pulumi.Context, name string, args Args, opts ...pulumi.ResourceOption) (*Component, error) {
	c := &Component{}
	if err := ctx.RegisterComponentResource("probe:index:Component", name, c, opts...); err != nil {
		return nil, err
	}
	return c, use(ctx, c)
}

// use is extended by each tagged file: it references a constructor of its package.
var uses []func(*pulumi.Context, pulumi.Resource) error

func use(ctx *pulumi.Context, parent pulumi.Resource) error {
	for _, u := range uses {
		if err := u(ctx, parent); err != nil {
			return err
		}
	}
	return nil
}

func main() {
	prov, err := infer.NewProviderBuilder().WithComponents(infer.ComponentF(New)).Build()
	if err != nil {
		panic(err)
	}
	_ = p.RunProvider(context.Background(), "probe", "0.0.1", prov)
}
