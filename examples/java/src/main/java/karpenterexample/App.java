package karpenterexample;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import com.pulumi.Context;
import com.pulumi.Pulumi;
import com.pulumi.aws.AwsFunctions;
import com.pulumi.aws.Provider;
import com.pulumi.aws.ProviderArgs;
import com.pulumi.aws.ec2.Eip;
import com.pulumi.aws.ec2.EipArgs;
import com.pulumi.aws.ec2.InternetGateway;
import com.pulumi.aws.ec2.InternetGatewayArgs;
import com.pulumi.aws.ec2.NatGateway;
import com.pulumi.aws.ec2.NatGatewayArgs;
import com.pulumi.aws.ec2.RouteTable;
import com.pulumi.aws.ec2.RouteTableArgs;
import com.pulumi.aws.ec2.RouteTableAssociation;
import com.pulumi.aws.ec2.RouteTableAssociationArgs;
import com.pulumi.aws.ec2.Subnet;
import com.pulumi.aws.ec2.SubnetArgs;
import com.pulumi.aws.ec2.Tag;
import com.pulumi.aws.ec2.TagArgs;
import com.pulumi.aws.ec2.Vpc;
import com.pulumi.aws.ec2.VpcArgs;
import com.pulumi.aws.ec2.inputs.RouteTableRouteArgs;
import com.pulumi.aws.eks.Cluster;
import com.pulumi.aws.eks.ClusterArgs;
import com.pulumi.aws.eks.NodeGroup;
import com.pulumi.aws.eks.NodeGroupArgs;
import com.pulumi.aws.eks.inputs.ClusterAccessConfigArgs;
import com.pulumi.aws.eks.inputs.ClusterVpcConfigArgs;
import com.pulumi.aws.eks.inputs.NodeGroupScalingConfigArgs;
import com.pulumi.aws.iam.OpenIdConnectProvider;
import com.pulumi.aws.iam.OpenIdConnectProviderArgs;
import com.pulumi.aws.iam.Role;
import com.pulumi.aws.iam.RoleArgs;
import com.pulumi.aws.iam.RolePolicyAttachment;
import com.pulumi.aws.iam.RolePolicyAttachmentArgs;
import com.pulumi.aws.inputs.GetAvailabilityZonesArgs;
import com.pulumi.core.Output;
import com.pulumi.deployment.InvokeOptions;
import com.pulumi.resources.ComponentResourceOptions;
import com.pulumi.resources.CustomResourceOptions;

import io.github.pulumikarpenter.karpenter.Karpenter;
import io.github.pulumikarpenter.karpenter.KarpenterArgs;
import io.github.pulumikarpenter.karpenter.enums.AuthenticationMode;
import io.github.pulumikarpenter.karpenter.enums.RequirementOperator;
import io.github.pulumikarpenter.karpenter.enums.TaintEffect;
import io.github.pulumikarpenter.karpenter.inputs.NodePoolSpecArgs;
import io.github.pulumikarpenter.karpenter.inputs.RequirementArgs;
import io.github.pulumikarpenter.karpenter.inputs.TaintArgs;

/**
 * A VPC and an EKS cluster, with Karpenter installed by the karpenter component: a default
 * on-demand NodePool and a tainted spot NodePool. Maven Central, as this repository's checks reach
 * it, serves no current Java SDK of pulumi-eks (only com.pulumi:eks 0.37.1) and none of
 * pulumi-awsx, so the network and cluster are plain pulumi-aws resources here (pulumi-aws 6.83.0
 * and pulumi-kubernetes 4.0.0, the newest Java SDKs it serves them).
 */
public class App {
    public static void main(String[] args) {
        Pulumi.run(App::stack);
    }

    static void stack(Context ctx) {
        // Named up front: Karpenter discovers subnets and security groups by this tag value.
        var clusterName = "karpenter-" + ctx.stackName();
        var discovery = Map.of("karpenter.sh/discovery", clusterName);

        // One explicit AWS provider for everything, the karpenter component included: its children
        // then use the provider the network and the cluster use, never a default one built from
        // the stack's aws:* config (see the README's Usage). An explicit provider takes its
        // settings from its arguments only: add the profile or assume role your stack needs.
        var region = ctx.config("aws").require("region");
        var awsProvider = new Provider("aws", ProviderArgs.builder().region(region).build());
        var aws = CustomResourceOptions.builder().provider(awsProvider).build();

        var vpc = new Vpc("vpc", VpcArgs.builder()
            .cidrBlock("10.0.0.0/16").enableDnsHostnames(true).enableDnsSupport(true).build(), aws);
        var azs = AwsFunctions.getAvailabilityZones(GetAvailabilityZonesArgs.builder().state("available").build(),
            InvokeOptions.builder().provider(awsProvider).build());
        var igw = new InternetGateway("igw", InternetGatewayArgs.builder().vpcId(vpc.id()).build(), aws);
        var publicRoutes = new RouteTable("public", RouteTableArgs.builder().vpcId(vpc.id())
            .routes(RouteTableRouteArgs.builder().cidrBlock("0.0.0.0/0").gatewayId(igw.id()).build()).build(), aws);

        List<Subnet> publicSubnets = new ArrayList<>();
        List<Subnet> privateSubnets = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            final int az = i;
            var zone = azs.applyValue(r -> r.names().get(az));
            var pub = new Subnet("public-" + i, SubnetArgs.builder().vpcId(vpc.id()).availabilityZone(zone)
                .cidrBlock("10.0." + i + ".0/24").mapPublicIpOnLaunch(true)
                .tags(Map.of("kubernetes.io/role/elb", "1")).build(), aws);
            new RouteTableAssociation("public-" + i, RouteTableAssociationArgs.builder()
                .subnetId(pub.id()).routeTableId(publicRoutes.id()).build(), aws);
            publicSubnets.add(pub);
            // Where Karpenter launches nodes.
            privateSubnets.add(new Subnet("private-" + i, SubnetArgs.builder().vpcId(vpc.id()).availabilityZone(zone)
                .cidrBlock("10.0." + (100 + i) + ".0/24")
                .tags(Map.of("kubernetes.io/role/internal-elb", "1", "karpenter.sh/discovery", clusterName)).build(), aws));
        }
        var nat = new NatGateway("nat", NatGatewayArgs.builder()
            .allocationId(new Eip("nat", EipArgs.builder().domain("vpc").build(), aws).id())
            .subnetId(publicSubnets.get(0).id()).build(), aws);
        var privateRoutes = new RouteTable("private", RouteTableArgs.builder().vpcId(vpc.id())
            .routes(RouteTableRouteArgs.builder().cidrBlock("0.0.0.0/0").natGatewayId(nat.id()).build()).build(), aws);
        for (int i = 0; i < privateSubnets.size(); i++) {
            new RouteTableAssociation("private-" + i, RouteTableAssociationArgs.builder()
                .subnetId(privateSubnets.get(i).id()).routeTableId(privateRoutes.id()).build(), aws);
        }

        var privateSubnetIds = Output.all(privateSubnets.stream().map(Subnet::id).collect(Collectors.toList()));

        var clusterRole = role(aws, "cluster", "eks.amazonaws.com", "AmazonEKSClusterPolicy");
        var cluster = new Cluster("cluster", ClusterArgs.builder()
            .name(clusterName)
            .roleArn(clusterRole.arn())
            .vpcConfig(ClusterVpcConfigArgs.builder()
                .subnetIds(privateSubnetIds).build())
            // Access entries, no aws-auth ConfigMap: how Karpenter's nodes are let in.
            .accessConfig(ClusterAccessConfigArgs.builder()
                .authenticationMode("API").bootstrapClusterCreatorAdminPermissions(true).build())
            .build(), aws);

        // Managed nodes use the cluster security group: tag it so Karpenter's nodes get it too.
        new Tag("cluster-sg-discovery", TagArgs.builder()
            .resourceId(cluster.vpcConfig().applyValue(c -> c.clusterSecurityGroupId().orElseThrow()))
            .key("karpenter.sh/discovery").value(clusterName).build(), aws);

        // The controller's role is assumed through IRSA.
        var oidc = new OpenIdConnectProvider("cluster", OpenIdConnectProviderArgs.builder()
            .url(cluster.identities().applyValue(ids -> ids.get(0).oidcs().get(0).issuer().orElseThrow()))
            .clientIdLists("sts.amazonaws.com").build(), aws);

        // Two nodes that run the Karpenter controller itself.
        var nodeRole = role(aws, "nodes", "ec2.amazonaws.com",
            "AmazonEKSWorkerNodePolicy", "AmazonEKS_CNI_Policy", "AmazonEC2ContainerRegistryReadOnly");
        new NodeGroup("system", NodeGroupArgs.builder()
            .clusterName(cluster.name()).nodeRoleArn(nodeRole.arn())
            .subnetIds(privateSubnetIds)
            .instanceTypes("t3.medium")
            .scalingConfig(NodeGroupScalingConfigArgs.builder().desiredSize(2).minSize(2).maxSize(2).build())
            .build(), aws);

        var k8sProvider = new com.pulumi.kubernetes.Provider("cluster", com.pulumi.kubernetes.ProviderArgs.builder()
            .kubeconfig(kubeconfig(cluster, region)).build(), CustomResourceOptions.builder().parent(cluster).build());

        var k = new Karpenter("karpenter", KarpenterArgs.builder()
            .clusterName(cluster.name())
            .oidcProviderArn(oidc.arn())
            .clusterAuthenticationMode(AuthenticationMode.Api)
            .nodePools(
                NodePoolSpecArgs.builder().name("default").requirements(capacityType("on-demand")).build(),
                // Only pods that tolerate spot=true:NoSchedule land on spot capacity.
                NodePoolSpecArgs.builder().name("spot").requirements(capacityType("spot"))
                    .taints(TaintArgs.builder().key("spot").value("true").effect(TaintEffect.NoSchedule).build())
                    .build())
            .build(),
            ComponentResourceOptions.builder().parent(cluster).providers(awsProvider, k8sProvider).build());

        ctx.export("controllerRoleArn", k.controllerRoleArn());
        ctx.export("nodeRoleArn", k.nodeRoleArn());
        ctx.export("interruptionQueueName", k.interruptionQueueName());
    }

    static RequirementArgs capacityType(String type) {
        return RequirementArgs.builder()
            .key("karpenter.sh/capacity-type").operator(RequirementOperator.In).values(type).build();
    }

    /** A role the given AWS service may assume, with AWS managed policies attached. */
    static Role role(CustomResourceOptions opts, String name, String service, String... policies) {
        var role = new Role(name, RoleArgs.builder().assumeRolePolicy(String.format(
            "{\"Version\":\"2012-10-17\",\"Statement\":[{\"Effect\":\"Allow\",\"Action\":\"sts:AssumeRole\","
                + "\"Principal\":{\"Service\":\"%s\"}}]}", service)).build(), opts);
        for (var policy : policies) {
            new RolePolicyAttachment(name + "-" + policy, RolePolicyAttachmentArgs.builder()
                .role(role.name()).policyArn("arn:aws:iam::aws:policy/" + policy).build(), opts);
        }
        return role;
    }

    /** A kubeconfig that authenticates with `aws eks get-token`, as `aws eks update-kubeconfig` writes. */
    static Output<String> kubeconfig(Cluster cluster, String region) {
        return Output.tuple(cluster.name(), cluster.endpoint(), cluster.certificateAuthority())
            .applyValue(t -> String.format("{\"apiVersion\":\"v1\",\"kind\":\"Config\",\"current-context\":\"eks\","
                + "\"clusters\":[{\"name\":\"eks\",\"cluster\":{\"server\":\"%s\",\"certificate-authority-data\":\"%s\"}}],"
                + "\"contexts\":[{\"name\":\"eks\",\"context\":{\"cluster\":\"eks\",\"user\":\"eks\"}}],"
                + "\"users\":[{\"name\":\"eks\",\"user\":{\"exec\":{\"apiVersion\":\"client.authentication.k8s.io/v1beta1\","
                + "\"command\":\"aws\",\"args\":[\"eks\",\"get-token\",\"--cluster-name\",\"%s\",\"--region\",\"%s\"]}}}]}",
                t.t2, t.t3.data().orElseThrow(), t.t1, region));
    }
}
