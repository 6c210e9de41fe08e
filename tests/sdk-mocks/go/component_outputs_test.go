// Package sdktest uses the generated Go SDK the way a program does, against Pulumi's mocks.
// It is its own module so that it builds sdk/go exactly as a user's module would.
package sdktest

import (
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/internals"

	"github.com/pulumi-karpenter/pulumi-karpenter/sdk/go/karpenter"
)

const componentType = "karpenter:index:Karpenter"

// state is what the mock engine returns for the component; with mocks a component's outputs
// are exactly this state.
var state = resource.PropertyMap{
	"controllerRoleArn": resource.NewStringProperty("arn:aws:iam::123456789012:role/karpenter-controller"),
	"nodeRoleName":      resource.NewStringProperty("karpenter-node"),
	"version":           resource.NewStringProperty("1.14.1"),
	"nodePoolNames":     resource.NewArrayProperty([]resource.PropertyValue{resource.NewStringProperty("default")}),
}

type mocks struct {
	inputs map[string]resource.PropertyMap
}

func (m *mocks) NewResource(args pulumi.MockResourceArgs) (string, resource.PropertyMap, error) {
	m.inputs[args.TypeToken] = args.Inputs
	out := args.Inputs.Copy()
	if args.TypeToken == componentType {
		for k, v := range state {
			out[k] = v
		}
	}
	return args.Name + "-id", out, nil
}

func (*mocks) Call(args pulumi.MockCallArgs) (resource.PropertyMap, error) {
	return args.Args, nil
}

func TestKarpenterOutputs(t *testing.T) {
	m := &mocks{inputs: map[string]resource.PropertyMap{}}
	err := pulumi.RunErr(func(ctx *pulumi.Context) error {
		k, err := karpenter.NewKarpenter(ctx, "karpenter", &karpenter.KarpenterArgs{
			ClusterName:     pulumi.String("demo"),
			OidcProviderArn: pulumi.String("arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/ABC"),
			Tags:            pulumi.StringMap{"team": pulumi.String("platform")},
			// Nested object types and enums from the schema.
			NodePools: karpenter.NodePoolSpecArray{karpenter.NodePoolSpecArgs{
				Name: pulumi.String("spot"),
				Requirements: karpenter.RequirementArray{karpenter.RequirementArgs{
					Key:      pulumi.String("karpenter.sh/capacity-type"),
					Operator: karpenter.RequirementOperatorIn,
					Values:   pulumi.StringArray{pulumi.String("spot")},
				}},
				Taints: karpenter.TaintArray{karpenter.TaintArgs{
					Key:    pulumi.String("spot"),
					Effect: karpenter.TaintEffectNoSchedule,
				}},
			}},
		})
		if err != nil {
			return err
		}
		expect(t, ctx, k.ControllerRoleArn, state["controllerRoleArn"].StringValue())
		expect(t, ctx, k.NodeRoleName, state["nodeRoleName"].StringValue())
		expect(t, ctx, k.Version, state["version"].StringValue())
		expect(t, ctx, k.NodePoolNames.Index(pulumi.Int(0)), "default")
		return nil
	}, pulumi.WithMocks("project", "stack", m))
	if err != nil {
		t.Fatal(err)
	}
	// The typed arguments reached the engine under their schema names.
	in := m.inputs[componentType].Mappable()
	if in["clusterName"] != "demo" {
		t.Errorf("clusterName input = %v, want demo", in["clusterName"])
	}
	pool := in["nodePools"].([]any)[0].(map[string]any)
	taint := pool["taints"].([]any)[0].(map[string]any)
	requirement := pool["requirements"].([]any)[0].(map[string]any)
	if taint["effect"] != "NoSchedule" || requirement["operator"] != "In" {
		t.Errorf("nodePools input = %v, want a NoSchedule taint and an In requirement", pool)
	}
}

func expect(t *testing.T, ctx *pulumi.Context, o pulumi.StringOutput, want string) {
	t.Helper()
	res, err := internals.UnsafeAwaitOutput(ctx.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := res.Value.(string); !ok || got != want {
		t.Errorf("output = %#v, want %q", res.Value, want)
	}
}
