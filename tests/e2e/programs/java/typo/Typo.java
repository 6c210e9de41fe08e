// Compiled on its own by the SDK test, which expects javac to refuse it: a user's typo'd enum
// value and a wrong type, caught by the SDK's types before anything runs. Not part of the program.
import io.github.pulumikarpenter.karpenter.enums.RequirementOperator;
import io.github.pulumikarpenter.karpenter.inputs.NodePoolSpecArgs;
import io.github.pulumikarpenter.karpenter.inputs.RequirementArgs;

class Typo {
    NodePoolSpecArgs pool = NodePoolSpecArgs.builder()
            .name("general")
            .weight("5")
            .requirements(RequirementArgs.builder().key("karpenter.sh/capacity-type").operator(RequirementOperator.Inn).build())
            .build();
}
