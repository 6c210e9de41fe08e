package generated_program;

import com.pulumi.Context;
import com.pulumi.Pulumi;
import com.pulumi.aws.Provider;
import com.pulumi.aws.ProviderArgs;
import com.pulumi.resources.ComponentResourceOptions;
import io.github.pulumikarpenter.karpenter.Karpenter;
import io.github.pulumikarpenter.karpenter.KarpenterArgs;

public class App {
    public static void main(String[] args) {
        Pulumi.run(App::stack);
    }

    public static void stack(Context ctx) {
        // An existing EKS cluster: its name, IAM OIDC provider ARN and kubeconfig come from the stack's config.
        var config = ctx.config();

        // Pass both providers: without them the component's children get default ones, built
        // from the stack's aws:* and kubernetes:* config.
        var awsProvider = new Provider("aws", ProviderArgs.builder()
            .region(ctx.config("aws").require("region"))
            .build());
        var k8sProvider = new com.pulumi.kubernetes.Provider("k8s", com.pulumi.kubernetes.ProviderArgs.builder()
            .kubeconfig(config.requireSecret("kubeconfig"))
            .build());

        // IAM, the interruption queue, the karpenter-crd and karpenter releases, and a default NodePool.
        var karpenterInstall = new Karpenter("karpenter", KarpenterArgs.builder()
            .clusterName(config.require("clusterName"))
            .oidcProviderArn(config.require("oidcProviderArn"))
            .build(), ComponentResourceOptions.builder()
                .providers(awsProvider, k8sProvider)
                .build());

        ctx.export("nodeRoleName", karpenterInstall.nodeRoleName());
    }
}
