package sdktest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.pulumi.core.Output;
import com.pulumi.test.Mocks;
import com.pulumi.test.PulumiTest;
import io.github.pulumikarpenter.karpenter.Karpenter;
import io.github.pulumikarpenter.karpenter.KarpenterArgs;
import io.github.pulumikarpenter.karpenter.enums.RequirementOperator;
import io.github.pulumikarpenter.karpenter.enums.TaintEffect;
import io.github.pulumikarpenter.karpenter.inputs.NodePoolSpecArgs;
import io.github.pulumikarpenter.karpenter.inputs.RequirementArgs;
import io.github.pulumikarpenter.karpenter.inputs.TaintArgs;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Uses the generated Java SDK the way a program does, against Pulumi's mocks. */
class KarpenterTest {
    private static final String COMPONENT = "karpenter:index:Karpenter";

    /** With mocks, a component's outputs are exactly the state the mock returns for it. */
    private static final Map<String, Object> STATE = Map.of(
            "controllerRoleArn", "arn:aws:iam::123456789012:role/karpenter-controller",
            "nodeRoleName", "karpenter-node",
            "version", "1.14.1",
            "nodePoolNames", List.of("default"));

    private final Map<String, Map<String, Object>> inputs = new HashMap<>();

    private final Mocks mocks = args -> {
        inputs.put(args.type, args.inputs);
        var state = new HashMap<>(args.inputs);
        if (COMPONENT.equals(args.type)) {
            state.putAll(STATE);
        }
        return CompletableFuture.completedFuture(Mocks.ResourceResult.of(Optional.of(args.name + "-id"), state));
    };

    @AfterEach
    void cleanup() {
        PulumiTest.cleanup();
    }

    @Test
    void karpenterExposesTypedOutputs() {
        var component = new AtomicReference<Karpenter>();
        PulumiTest.withMocks(mocks).runTest(ctx -> component.set(new Karpenter("karpenter",
                KarpenterArgs.builder()
                        .clusterName("demo")
                        .oidcProviderArn("arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/ABC")
                        .tags(Map.of("team", "platform"))
                        // Nested object types and enums from the schema.
                        .nodePools(NodePoolSpecArgs.builder()
                                .name("spot")
                                .requirements(RequirementArgs.builder()
                                        .key("karpenter.sh/capacity-type")
                                        .operator(RequirementOperator.In)
                                        .values("spot")
                                        .build())
                                .taints(TaintArgs.builder().key("spot").effect(TaintEffect.NoSchedule).build())
                                .build())
                        .build()))).throwOnError();

        Karpenter k = component.get();
        assertEquals(STATE.get("controllerRoleArn"), value(k.controllerRoleArn()));
        assertEquals(STATE.get("nodeRoleName"), value(k.nodeRoleName()));
        assertEquals(STATE.get("version"), value(k.version()));
        assertEquals(STATE.get("nodePoolNames"), value(k.nodePoolNames()));
        // The typed arguments reached the engine under their schema names.
        var in = inputs.get(COMPONENT);
        assertEquals("demo", in.get("clusterName"));
        var pool = (Map<?, ?>) ((List<?>) in.get("nodePools")).get(0);
        assertEquals(List.of(Map.of("key", "spot", "effect", "NoSchedule")), pool.get("taints"));
        assertEquals("In", ((Map<?, ?>) ((List<?>) pool.get("requirements")).get(0)).get("operator"));
    }

    private static <T> T value(Output<T> output) {
        return PulumiTest.extractValue(output);
    }
}
