// The Go program of the SDK tests: lab/programs/program-sdk.yaml written with the Go SDK (the stamped
// sdk/go module `make release-dry-run` builds, required through a replace as a user's go.mod would
// require its tag), run as an Automation API inline program. There is no Go language host here: the
// Automation API serves the program from this process and hands the CLI its address.
//
// Usage: program <preview|up|check|update|destroy|bad>; the environment is the engine's
// (PULUMI_HOME, the local backend, the passphrase, PATH with the CLI) plus E2E_CHART_REPOSITORY.
// Prints one JSON line on stdout: {"step", "outputs"?, "error"?}.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optdestroy"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optpreview"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optrefresh"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optup"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/pulumi-karpenter/pulumi-karpenter/sdk/go/karpenter"
)

// providerResource is an explicit provider of a package whose SDK the program does not need.
type providerResource struct{ pulumi.ProviderResourceState }

// role, eksCluster and oidcProvider are the aws stand-in's resources, declared without the aws SDK:
// the same type tokens and inputs as YAML's aws:iam:Role, aws:eks:Cluster and
// aws:iam:OpenIdConnectProvider.
type role struct {
	pulumi.CustomResourceState
	Name pulumi.StringOutput `pulumi:"name"`
	Arn  pulumi.StringOutput `pulumi:"arn"`
}

type eksCluster struct {
	pulumi.CustomResourceState
	Name       pulumi.StringOutput `pulumi:"name"`
	Arn        pulumi.StringOutput `pulumi:"arn"`
	Endpoint   pulumi.StringOutput `pulumi:"endpoint"`
	Identities pulumi.ArrayOutput  `pulumi:"identities"`
}

type oidcProvider struct {
	pulumi.CustomResourceState
	Arn pulumi.StringOutput `pulumi:"arn"`
	Url pulumi.StringOutput `pulumi:"url"`
}

// trust is the same string as YAML's fn::toJSON (keys sorted, no spaces).
func trust(service string) string {
	return `{"Statement":[{"Action":"sts:AssumeRole","Effect":"Allow","Principal":{"Service":"` + service + `"}}],"Version":"2012-10-17"}`
}

type variant struct {
	batchExpireAfter string // the update changes one pool: 720h -> 360h
	badOperator      bool   // a typo'd enum value: Go's enum types are strings, so it compiles
}

func program(v variant) pulumi.RunFunc {
	return func(ctx *pulumi.Context) error {
		var awsProvider, k8sProvider providerResource
		if err := ctx.RegisterResource("pulumi:providers:aws", "awsProvider",
			pulumi.Map{"region": pulumi.String("us-west-2")}, &awsProvider, pulumi.Version("6.83.2")); err != nil {
			return err
		}
		if err := ctx.RegisterResource("pulumi:providers:kubernetes", "k8sProvider",
			pulumi.Map{}, &k8sProvider, pulumi.Version("4.30.0")); err != nil {
			return err
		}
		// The cluster (the aws stand-in's EKS) in the world's VPC, and its OIDC provider.
		subnetIds := pulumi.ToStringArray(strings.Split(os.Getenv("E2E_SUBNET_IDS"), ","))
		var clusterRole role
		if err := ctx.RegisterResource("aws:iam/role:Role", "clusterRole", pulumi.Map{
			"namePrefix":       pulumi.String("e2e-cluster-"),
			"assumeRolePolicy": pulumi.String(trust("eks.amazonaws.com")),
		}, &clusterRole, pulumi.Provider(&awsProvider)); err != nil {
			return err
		}
		var cluster eksCluster
		if err := ctx.RegisterResource("aws:eks/cluster:Cluster", "cluster", pulumi.Map{
			"name":         pulumi.String("e2e-sdk-cluster"),
			"roleArn":      clusterRole.Arn,
			"vpcConfig":    pulumi.Map{"subnetIds": subnetIds},
			"accessConfig": pulumi.Map{"authenticationMode": pulumi.String("API")},
		}, &cluster, pulumi.Provider(&awsProvider)); err != nil {
			return err
		}
		var oidc oidcProvider
		if err := ctx.RegisterResource("aws:iam/openIdConnectProvider:OpenIdConnectProvider", "oidcProvider", pulumi.Map{
			"url": cluster.Identities.ApplyT(func(ids []any) string {
				return ids[0].(map[string]any)["oidcs"].([]any)[0].(map[string]any)["issuer"].(string)
			}).(pulumi.StringOutput),
			"clientIdLists": pulumi.StringArray{pulumi.String("sts.amazonaws.com")},
		}, &oidc, pulumi.Provider(&awsProvider)); err != nil {
			return err
		}

		operator := karpenter.RequirementOperatorIn
		if v.badOperator {
			operator = karpenter.RequirementOperator("Inn")
		}
		k, err := karpenter.NewKarpenter(ctx, "karpenter", &karpenter.KarpenterArgs{
			ClusterName:     cluster.Name,
			OidcProviderArn: oidc.Arn,
			ChartRepository: pulumi.StringRef(os.Getenv("E2E_CHART_REPOSITORY")),
			DefaultNodePool: pulumi.BoolRef(false),
			Discovery: karpenter.DiscoveryArgs{
				SubnetIds:        subnetIds,
				SecurityGroupIds: pulumi.StringArray{pulumi.String(os.Getenv("E2E_SECURITY_GROUP_ID"))},
			},
			Tags: pulumi.StringMap{"team": pulumi.String("platform"), "cost-center": pulumi.String("4200")},
			NodeClasses: karpenter.NodeClassSpecArray{karpenter.NodeClassSpecArgs{
				Name:     pulumi.String("general"),
				AmiAlias: pulumi.String("al2023@latest"),
				// Wired to the cluster the program makes: unknown at the first preview but the name.
				SubnetSelectorTerms: karpenter.SubnetSelectorTermArray{karpenter.SubnetSelectorTermArgs{
					Tags: pulumi.StringMap{"karpenter.sh/discovery": cluster.Name},
				}},
				Tags:     pulumi.StringMap{"tier": pulumi.String("general"), "cluster": cluster.Arn},
				UserData: pulumi.Sprintf("#!/bin/bash\necho %s > /etc/cluster-endpoint\n", cluster.Endpoint),
				MetadataOptions: karpenter.MetadataOptionsArgs{
					HttpTokens:              pulumi.String("required"),
					HttpPutResponseHopLimit: pulumi.Int(2),
				},
				Kubelet: karpenter.KubeletConfigurationArgs{
					MaxPods:      pulumi.Int(110),
					EvictionHard: pulumi.StringMap{"memory.available": pulumi.String("5%")},
				},
				BlockDeviceMappings: karpenter.BlockDeviceMappingArray{karpenter.BlockDeviceMappingArgs{
					DeviceName: pulumi.String("/dev/xvda"),
					Ebs: karpenter.BlockDeviceArgs{
						VolumeSize: pulumi.String("100Gi"),
						VolumeType: pulumi.String("gp3"),
						Encrypted:  pulumi.Bool(true),
					},
				}},
			}},
			NodePools: karpenter.NodePoolSpecArray{
				karpenter.NodePoolSpecArgs{
					Name:         pulumi.String("general"),
					NodeClassRef: pulumi.String("general"),
					Weight:       pulumi.Int(10),
					Labels:       pulumi.StringMap{"team": pulumi.String("platform")},
					Annotations:  pulumi.StringMap{"example.com/oidc-issuer": oidc.Url},
					Requirements: karpenter.RequirementArray{
						karpenter.RequirementArgs{Key: pulumi.String("karpenter.sh/capacity-type"), Operator: operator,
							Values: pulumi.StringArray{pulumi.String("spot"), pulumi.String("on-demand")}},
						karpenter.RequirementArgs{Key: pulumi.String("karpenter.k8s.aws/instance-cpu"),
							Operator: karpenter.RequirementOperatorGt, Values: pulumi.StringArray{pulumi.String("3")}},
					},
					Taints: karpenter.TaintArray{karpenter.TaintArgs{
						Key: pulumi.String("dedicated"), Value: pulumi.String("general"), Effect: karpenter.TaintEffectNoSchedule,
					}},
					Limits: pulumi.StringMap{"cpu": pulumi.String("1000"), "memory": pulumi.String("1000Gi")},
					Disruption: karpenter.DisruptionArgs{
						ConsolidationPolicy: karpenter.ConsolidationPolicyWhenEmptyOrUnderutilized,
						ConsolidateAfter:    pulumi.String("1m"),
						Budgets: karpenter.BudgetArray{
							karpenter.BudgetArgs{Nodes: pulumi.String("10%")},
							karpenter.BudgetArgs{Nodes: pulumi.String("0"), Schedule: pulumi.String("0 9 * * mon-fri"),
								Duration: pulumi.String("8h"), Reasons: pulumi.StringArray{pulumi.String("Drifted")}},
						},
					},
				},
				karpenter.NodePoolSpecArgs{
					Name:         pulumi.String("batch"),
					NodeClassRef: pulumi.String("general"),
					ExpireAfter:  pulumi.String(v.batchExpireAfter),
					Requirements: karpenter.RequirementArray{karpenter.RequirementArgs{
						Key: pulumi.String("kubernetes.io/arch"), Operator: karpenter.RequirementOperatorIn,
						Values: pulumi.StringArray{pulumi.String("arm64")},
					}},
				},
			},
		}, pulumi.Providers(&awsProvider, &k8sProvider))
		if err != nil {
			return err
		}

		// Another team's class and pool, with a node role of their own (unknown at the first preview).
		var teamRole role
		if err := ctx.RegisterResource("aws:iam/role:Role", "teamRole", pulumi.Map{
			"namePrefix":       pulumi.String("e2e-team-a-"),
			"assumeRolePolicy": pulumi.String(trust("ec2.amazonaws.com")),
		}, &teamRole, pulumi.Provider(&awsProvider)); err != nil {
			return err
		}
		teamClass, err := karpenter.NewNodeClass(ctx, "teamClass", &karpenter.NodeClassArgs{
			ClusterName: cluster.Name,
			Spec: karpenter.NodeClassSpecArgs{
				Name: pulumi.String("team-a"),
				Role: teamRole.Name,
				Tags: pulumi.StringMap{"team": pulumi.String("a")},
			},
		}, pulumi.Providers(&k8sProvider), pulumi.DependsOn([]pulumi.Resource{k}))
		if err != nil {
			return err
		}
		teamPool, err := karpenter.NewNodePool(ctx, "teamPool", &karpenter.NodePoolArgs{
			Spec: karpenter.NodePoolSpecArgs{
				Name:         pulumi.String("team-a-spot"),
				NodeClassRef: pulumi.String("team-a"),
				Requirements: karpenter.RequirementArray{karpenter.RequirementArgs{
					Key: pulumi.String("karpenter.sh/capacity-type"), Operator: karpenter.RequirementOperatorIn,
					Values: pulumi.StringArray{pulumi.String("spot")},
				}},
				Taints: karpenter.TaintArray{karpenter.TaintArgs{
					Key: pulumi.String("team"), Value: pulumi.String("a"), Effect: karpenter.TaintEffectNoSchedule,
				}},
				Limits: pulumi.StringMap{"cpu": pulumi.String("100")},
			},
		}, pulumi.Providers(&k8sProvider), pulumi.DependsOn([]pulumi.Resource{teamClass}))
		if err != nil {
			return err
		}

		ctx.Export("clusterName", cluster.Name)
		ctx.Export("version", k.Version)
		ctx.Export("controllerRoleArn", k.ControllerRoleArn)
		ctx.Export("nodeRoleName", k.NodeRoleName)
		ctx.Export("interruptionQueueName", k.InterruptionQueueName)
		ctx.Export("nodePoolNames", k.NodePoolNames)
		ctx.Export("nodeClassNames", k.NodeClassNames)
		ctx.Export("teamRoleName", teamRole.Name)
		ctx.Export("teamNodeClassName", teamClass.NodeClassName)
		ctx.Export("teamNodePoolName", teamPool.NodePoolName)
		// Read in Go's types inside the program: []string and string.
		ctx.Export("languageCheck", pulumi.All(k.NodePoolNames, k.Version).ApplyT(func(a []any) string {
			pools, version := a[0].([]string), a[1].(string)
			return fmt.Sprintf("%d pools %s, version %d parts", len(pools), strings.Join(pools, ","), len(strings.Split(version, ".")))
		}).(pulumi.StringOutput))
		return nil
	}
}

func stack(ctx context.Context, v variant) (auto.Stack, error) {
	return auto.UpsertStackInlineSource(ctx, "dev", "karpenter-e2e", program(v), auto.SecretsProvider("passphrase"))
}

// typedOutputs: each output's value must have the type the SDK declares (the Automation API
// decodes them from JSON: strings, and lists as []any of strings).
func typedOutputs(outputs auto.OutputMap) (map[string]any, error) {
	want := map[string]string{
		"clusterName": "string", "version": "string", "controllerRoleArn": "string", "nodeRoleName": "string",
		"interruptionQueueName": "string", "nodePoolNames": "[]string", "nodeClassNames": "[]string",
		"teamRoleName": "string", "teamNodeClassName": "string", "teamNodePoolName": "string", "languageCheck": "string",
	}
	out := map[string]any{}
	for key, typ := range want {
		value := outputs[key].Value
		ok := false
		switch typ {
		case "string":
			_, ok = value.(string)
		case "[]string":
			list, isList := value.([]any)
			ok = isList
			for _, x := range list {
				if _, isString := x.(string); !isString {
					ok = false
				}
			}
		}
		if !ok {
			return nil, fmt.Errorf("output %s: %#v is not a %s", key, value, typ)
		}
		out[key] = value
	}
	return out, nil
}

func run(ctx context.Context, step string) (map[string]any, error) {
	v := variant{batchExpireAfter: "720h"}
	logs := optup.ProgressStreams(os.Stderr)
	switch step {
	case "preview", "check":
		s, err := stack(ctx, v)
		if err != nil {
			return nil, err
		}
		opts := []optpreview.Option{optpreview.ProgressStreams(os.Stderr)}
		if step == "check" {
			opts = append(opts, optpreview.ExpectNoChanges())
		}
		_, err = s.Preview(ctx, opts...)
		return map[string]any{}, err
	case "up", "update":
		if step == "update" {
			v.batchExpireAfter = "360h"
		}
		s, err := stack(ctx, v)
		if err != nil {
			return nil, err
		}
		res, err := s.Up(ctx, logs)
		if err != nil {
			return nil, err
		}
		outputs, err := typedOutputs(res.Outputs)
		return map[string]any{"outputs": outputs}, err
	case "refresh":
		s, err := stack(ctx, v)
		if err != nil {
			return nil, err
		}
		_, err = s.Refresh(ctx, optrefresh.ProgressStreams(os.Stderr))
		return map[string]any{}, err
	case "destroy":
		s, err := stack(ctx, v)
		if err != nil {
			return nil, err
		}
		if _, err := s.Destroy(ctx, optdestroy.ProgressStreams(os.Stderr)); err != nil {
			return nil, err
		}
		return map[string]any{}, s.Workspace().RemoveStack(ctx, "dev")
	case "bad":
		v.badOperator = true
		s, err := stack(ctx, v)
		if err != nil {
			return nil, err
		}
		_, err = s.Preview(ctx, optpreview.ProgressStreams(os.Stderr))
		if err == nil {
			return nil, errors.New(`the preview with operator "Inn" succeeded`)
		}
		return map[string]any{"error": err.Error()}, nil
	}
	return nil, fmt.Errorf("unknown step %q", step)
}

func main() {
	step := os.Args[1]
	result, err := run(context.Background(), step)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	result["step"] = step
	out, _ := json.Marshal(result)
	fmt.Println(string(out))
}
