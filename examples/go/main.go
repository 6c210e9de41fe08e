// A VPC and an EKS cluster (pulumi-eks v3, pulumi-aws v6: the newest Go SDKs this repository's
// checks can fetch), with Karpenter installed by the karpenter component: a default on-demand
// NodePool and a tainted spot NodePool.
package main

import (
	"fmt"

	"github.com/pulumi/pulumi-aws/sdk/v6/go/aws"
	"github.com/pulumi/pulumi-awsx/sdk/v2/go/awsx/ec2"
	"github.com/pulumi/pulumi-eks/sdk/v3/go/eks"
	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"

	"github.com/pulumi-karpenter/pulumi-karpenter/sdk/go/karpenter"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		// Named up front: Karpenter discovers subnets and security groups by this tag value.
		clusterName := fmt.Sprintf("karpenter-%s", ctx.Stack())
		discovery := pulumi.StringMap{"karpenter.sh/discovery": pulumi.String(clusterName)}

		// One explicit AWS provider for everything, the karpenter component included: its children
		// then use the provider the VPC and the cluster use, never a default one built from the
		// stack's aws:* config (see the README's Usage). An explicit provider takes its settings
		// from its arguments only: add the profile or assume role your stack needs.
		awsProvider, err := aws.NewProvider(ctx, "aws", &aws.ProviderArgs{
			Region: pulumi.String(config.Require(ctx, "aws:region")),
		})
		if err != nil {
			return err
		}
		awsProviders := pulumi.ProviderMap(map[string]pulumi.ProviderResource{"aws": awsProvider})

		vpc, err := ec2.NewVpc(ctx, "vpc", &ec2.VpcArgs{
			SubnetSpecs: []ec2.SubnetSpecArgs{
				{Type: ec2.SubnetTypePublic},
				{Type: ec2.SubnetTypePrivate, Tags: discovery}, // where Karpenter launches nodes
			},
			NatGateways: &ec2.NatGatewayConfigurationArgs{Strategy: ec2.NatGatewayStrategySingle},
		}, awsProviders)
		if err != nil {
			return err
		}

		apiMode := eks.AuthenticationModeApi // access entries, no aws-auth ConfigMap
		cluster, err := eks.NewCluster(ctx, "cluster", &eks.ClusterArgs{
			Name:                  pulumi.String(clusterName),
			VpcId:                 vpc.VpcId,
			PublicSubnetIds:       vpc.PublicSubnetIds,
			PrivateSubnetIds:      vpc.PrivateSubnetIds,
			AuthenticationMode:    &apiMode,
			CreateOidcProvider:    pulumi.Bool(true), // the controller's role is assumed through IRSA
			NodeSecurityGroupTags: discovery,
			InstanceType:          pulumi.String("t3.medium"),
			DesiredCapacity:       pulumi.Int(2), // runs the Karpenter controller itself
			MinSize:               pulumi.Int(2),
			MaxSize:               pulumi.Int(2),
		}, awsProviders)
		if err != nil {
			return err
		}

		// pulumi-eks v3's Go SDK exposes the kubeconfig rather than a provider resource.
		// Not the cluster's child: a child of it that takes its outputs hangs a Go preview.
		k8sProvider, err := kubernetes.NewProvider(ctx, "cluster", &kubernetes.ProviderArgs{
			Kubeconfig: cluster.KubeconfigJson,
		})
		if err != nil {
			return err
		}

		capacityType := func(t string) karpenter.RequirementArray {
			return karpenter.RequirementArray{karpenter.RequirementArgs{
				Key:      pulumi.String("karpenter.sh/capacity-type"),
				Operator: karpenter.RequirementOperatorIn,
				Values:   pulumi.StringArray{pulumi.String(t)},
			}}
		}
		k, err := karpenter.NewKarpenter(ctx, "karpenter", &karpenter.KarpenterArgs{
			ClusterName:               cluster.EksCluster.Name(),
			OidcProviderArn:           cluster.OidcProviderArn,
			ClusterAuthenticationMode: karpenter.AuthenticationModeApi,
			NodePools: karpenter.NodePoolSpecArray{
				karpenter.NodePoolSpecArgs{
					Name:         pulumi.String("default"),
					Requirements: capacityType("on-demand"),
				},
				// Only pods that tolerate spot=true:NoSchedule land on spot capacity.
				karpenter.NodePoolSpecArgs{
					Name:         pulumi.String("spot"),
					Requirements: capacityType("spot"),
					Taints: karpenter.TaintArray{karpenter.TaintArgs{
						Key:    pulumi.String("spot"),
						Value:  pulumi.String("true"),
						Effect: karpenter.TaintEffectNoSchedule,
					}},
				},
			},
			// Not parented to the cluster: pulumi/pulumi#13958 reports the Go SDK hanging on a component
			// that is a multi-language component's child and takes its outputs.
		}, pulumi.ProviderMap(map[string]pulumi.ProviderResource{
			"aws": awsProvider, "kubernetes": k8sProvider,
		}))
		if err != nil {
			return err
		}

		ctx.Export("controllerRoleArn", k.ControllerRoleArn)
		ctx.Export("nodeRoleArn", k.NodeRoleArn)
		ctx.Export("interruptionQueueName", k.InterruptionQueueName)
		return nil
	})
}
