package generated_program;

import java.util.Map;

import com.pulumi.Context;
import com.pulumi.Pulumi;
import com.pulumi.kubernetes.Provider;
import com.pulumi.kubernetes.ProviderArgs;
import com.pulumi.resources.ComponentResourceOptions;
import io.github.pulumikarpenter.karpenter.NodeClass;
import io.github.pulumikarpenter.karpenter.NodeClassArgs;
import io.github.pulumikarpenter.karpenter.NodePool;
import io.github.pulumikarpenter.karpenter.NodePoolArgs;
import io.github.pulumikarpenter.karpenter.inputs.NodeClassSpecArgs;
import io.github.pulumikarpenter.karpenter.inputs.NodePoolSpecArgs;

public class App {
    public static void main(String[] args) {
        Pulumi.run(App::stack);
    }

    public static void stack(Context ctx) {
        // A cluster where Karpenter already runs: its name, the node role's name (the Karpenter
        // component's nodeRoleName output) and its kubeconfig come from the stack's config. Set
        // version on both resources when the cluster runs another Karpenter version than the default.
        var config = ctx.config();
        var k8sProvider = new Provider("k8s", ProviderArgs.builder()
            .kubeconfig(config.requireSecret("kubeconfig"))
            .build());

        var nodeClass = new NodeClass("team-a", NodeClassArgs.builder()
            .clusterName(config.require("clusterName")) // subnets and security groups by its discovery tag
            .spec(NodeClassSpecArgs.builder()
                .name("team-a")
                .role(config.require("nodeRoleName"))
                .build())
            .build(), ComponentResourceOptions.builder()
                .providers(k8sProvider)
                .build());

        var nodePool = new NodePool("team-a", NodePoolArgs.builder()
            .spec(NodePoolSpecArgs.builder()
                .name("team-a")
                .nodeClassRef("team-a")
                .limits(Map.of("cpu", "100"))
                .build())
            .build(), ComponentResourceOptions.builder()
                .providers(k8sProvider)
                .dependsOn(nodeClass)
                .build());

        ctx.export("nodePoolName", nodePool.nodePoolName());
    }
}
