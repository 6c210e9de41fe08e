// The Java program of the SDK tests: lab/programs/program-sdk.yaml written with the Java SDK (the
// io.github.pulumikarpenter:karpenter artifact of the Maven Central bundle `make release-dry-run`
// builds, resolved from that bundle as a repository), run as an Automation API inline program.
// There is no Java language host here: the Automation API serves the program from this process.
//
// Usage: java e2e.App <preview|up|check|update|destroy>; the environment is the engine's
// (PULUMI_HOME, the local backend, the passphrase, PATH with the CLI) plus E2E_CHART_REPOSITORY.
// Prints one JSON line on stdout: {"step", "outputs"?}. A typo'd enum does not compile in Java
// (the test compiles Typo.java to show it), so there is no "bad" step.
package e2e;

import com.google.gson.Gson;
import com.pulumi.Context;
import com.pulumi.automation.AutomationException;
import com.pulumi.automation.DestroyOptions;
import com.pulumi.automation.LocalWorkspace;
import com.pulumi.automation.LocalWorkspaceOptions;
import com.pulumi.automation.OutputValue;
import com.pulumi.automation.PreviewOptions;
import com.pulumi.automation.RefreshOptions;
import com.pulumi.automation.UpOptions;
import com.pulumi.automation.WorkspaceStack;
import com.pulumi.core.Output;
import com.pulumi.core.annotations.Export;
import com.pulumi.core.annotations.Import;
import com.pulumi.resources.ComponentResourceOptions;
import com.pulumi.resources.CustomResource;
import com.pulumi.resources.CustomResourceOptions;
import com.pulumi.resources.ProviderResource;
import com.pulumi.resources.ResourceArgs;
import io.github.pulumikarpenter.karpenter.Karpenter;
import io.github.pulumikarpenter.karpenter.KarpenterArgs;
import io.github.pulumikarpenter.karpenter.NodeClass;
import io.github.pulumikarpenter.karpenter.NodeClassArgs;
import io.github.pulumikarpenter.karpenter.NodePool;
import io.github.pulumikarpenter.karpenter.NodePoolArgs;
import io.github.pulumikarpenter.karpenter.enums.ConsolidationPolicy;
import io.github.pulumikarpenter.karpenter.enums.RequirementOperator;
import io.github.pulumikarpenter.karpenter.enums.TaintEffect;
import io.github.pulumikarpenter.karpenter.inputs.BlockDeviceArgs;
import io.github.pulumikarpenter.karpenter.inputs.BlockDeviceMappingArgs;
import io.github.pulumikarpenter.karpenter.inputs.BudgetArgs;
import io.github.pulumikarpenter.karpenter.inputs.DiscoveryArgs;
import io.github.pulumikarpenter.karpenter.inputs.DisruptionArgs;
import io.github.pulumikarpenter.karpenter.inputs.KubeletConfigurationArgs;
import io.github.pulumikarpenter.karpenter.inputs.MetadataOptionsArgs;
import io.github.pulumikarpenter.karpenter.inputs.NodeClassSpecArgs;
import io.github.pulumikarpenter.karpenter.inputs.NodePoolSpecArgs;
import io.github.pulumikarpenter.karpenter.inputs.RequirementArgs;
import io.github.pulumikarpenter.karpenter.inputs.SubnetSelectorTermArgs;
import io.github.pulumikarpenter.karpenter.inputs.TaintArgs;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

public final class App {
    /** Inputs of the aws stand-in's resources, declared without the aws SDK. */
    static final class Args extends ResourceArgs {
        @Import(name = "region") private Output<String> region;
        @Import(name = "namePrefix") private Output<String> namePrefix;
        @Import(name = "assumeRolePolicy") private Output<String> assumeRolePolicy;
        @Import(name = "url") private Output<String> url;
        @Import(name = "clientIdLists") private Output<List<String>> clientIdLists;
        @Import(name = "name") private Output<String> name;
        @Import(name = "roleArn") private Output<String> roleArn;
        @Import(name = "vpcConfig") private Output<Map<String, Object>> vpcConfig;
        @Import(name = "accessConfig") private Output<Map<String, Object>> accessConfig;

        static Args region(String region) {
            var a = new Args();
            a.region = Output.of(region);
            return a;
        }

        static Args role(String namePrefix, String assumeRolePolicy) {
            var a = new Args();
            a.namePrefix = Output.of(namePrefix);
            a.assumeRolePolicy = Output.of(assumeRolePolicy);
            return a;
        }

        static Args oidc(Output<String> url, List<String> clientIdLists) {
            var a = new Args();
            a.url = url;
            a.clientIdLists = Output.of(clientIdLists);
            return a;
        }

        static Args cluster(Output<String> roleArn, List<String> subnetIds) {
            var a = new Args();
            a.name = Output.of("e2e-sdk-cluster");
            a.roleArn = roleArn;
            a.vpcConfig = Output.of(Map.of("subnetIds", subnetIds));
            a.accessConfig = Output.of(Map.of("authenticationMode", "API"));
            return a;
        }
    }

    /** An explicit provider of a package whose SDK the program does not need. */
    static final class Provider extends ProviderResource {
        Provider(String pkg, String name, Args args, String version) {
            super(pkg, name, args, CustomResourceOptions.builder().version(version).build());
        }
    }

    /** The same type tokens and inputs as YAML's aws:iam:Role, aws:eks:Cluster and aws:iam:OpenIdConnectProvider. */
    static final class Role extends CustomResource {
        @Export(name = "name", refs = {String.class}, tree = "[0]") private Output<String> name;
        @Export(name = "arn", refs = {String.class}, tree = "[0]") private Output<String> arn;

        Role(String name, Args args, CustomResourceOptions opts) {
            super("aws:iam/role:Role", name, args, opts);
        }

        Output<String> name() {
            return name;
        }

        Output<String> arn() {
            return arn;
        }
    }

    static final class Cluster extends CustomResource {
        @Export(name = "name", refs = {String.class}, tree = "[0]") private Output<String> name;
        @Export(name = "arn", refs = {String.class}, tree = "[0]") private Output<String> arn;
        @Export(name = "endpoint", refs = {String.class}, tree = "[0]") private Output<String> endpoint;
        @Export(name = "identities", refs = {List.class, Map.class, String.class, Object.class}, tree = "[0,[1,2,3]]")
        private Output<List<Map<String, Object>>> identities;

        Cluster(String name, Args args, CustomResourceOptions opts) {
            super("aws:eks/cluster:Cluster", name, args, opts);
        }

        Output<String> name() {
            return name;
        }

        Output<String> arn() {
            return arn;
        }

        Output<String> endpoint() {
            return endpoint;
        }

        @SuppressWarnings("unchecked")
        Output<String> issuer() {
            return identities.applyValue(ids -> (String) ((List<Map<String, Object>>) ids.get(0).get("oidcs")).get(0).get("issuer"));
        }
    }

    static final class OidcProvider extends CustomResource {
        @Export(name = "arn", refs = {String.class}, tree = "[0]") private Output<String> arn;
        @Export(name = "url", refs = {String.class}, tree = "[0]") private Output<String> url;

        OidcProvider(String name, Args args, CustomResourceOptions opts) {
            super("aws:iam/openIdConnectProvider:OpenIdConnectProvider", name, args, opts);
        }

        Output<String> arn() {
            return arn;
        }

        Output<String> url() {
            return url;
        }
    }

    /** The same string as YAML's fn::toJSON (keys sorted, no spaces). */
    static String trust(String service) {
        return "{\"Statement\":[{\"Action\":\"sts:AssumeRole\",\"Effect\":\"Allow\",\"Principal\":{\"Service\":\""
                + service + "\"}}],\"Version\":\"2012-10-17\"}";
    }

    /** The update changes one pool: 720h -> 360h. */
    static Consumer<Context> program(String batchExpireAfter) {
        return ctx -> {
            var awsProvider = new Provider("aws", "awsProvider", Args.region("us-west-2"), "6.83.2");
            var k8sProvider = new Provider("kubernetes", "k8sProvider", new Args(), "4.30.0");
            var onAws = CustomResourceOptions.builder().provider(awsProvider).build();
            // The cluster (the aws stand-in's EKS) in the world's VPC, and its OIDC provider.
            var subnetIds = List.of(System.getenv("E2E_SUBNET_IDS").split(","));
            var clusterRole = new Role("clusterRole", Args.role("e2e-cluster-", trust("eks.amazonaws.com")), onAws);
            var cluster = new Cluster("cluster", Args.cluster(clusterRole.arn(), subnetIds), onAws);
            var oidc = new OidcProvider("oidcProvider", Args.oidc(cluster.issuer(), List.of("sts.amazonaws.com")), onAws);

            var k = new Karpenter("karpenter", KarpenterArgs.builder()
                    .clusterName(cluster.name())
                    .oidcProviderArn(oidc.arn())
                    .chartRepository(System.getenv("E2E_CHART_REPOSITORY"))
                    .defaultNodePool(false)
                    .discovery(DiscoveryArgs.builder().subnetIds(subnetIds).securityGroupIds(System.getenv("E2E_SECURITY_GROUP_ID")).build())
                    .tags(Map.of("team", "platform", "cost-center", "4200"))
                    .nodeClasses(NodeClassSpecArgs.builder()
                            .name("general")
                            .amiAlias("al2023@latest")
                            // Wired to the cluster the program makes: unknown at the first preview but the name.
                            .subnetSelectorTerms(SubnetSelectorTermArgs.builder()
                                    .tags(cluster.name().applyValue(name -> Map.of("karpenter.sh/discovery", name))).build())
                            .tags(cluster.arn().applyValue(arn -> Map.of("tier", "general", "cluster", arn)))
                            .userData(cluster.endpoint().applyValue(e -> "#!/bin/bash\necho " + e + " > /etc/cluster-endpoint\n"))
                            .metadataOptions(MetadataOptionsArgs.builder().httpTokens("required").httpPutResponseHopLimit(2).build())
                            .kubelet(KubeletConfigurationArgs.builder().maxPods(110).evictionHard(Map.of("memory.available", "5%")).build())
                            .blockDeviceMappings(BlockDeviceMappingArgs.builder()
                                    .deviceName("/dev/xvda")
                                    .ebs(BlockDeviceArgs.builder().volumeSize("100Gi").volumeType("gp3").encrypted(true).build())
                                    .build())
                            .build())
                    .nodePools(
                            NodePoolSpecArgs.builder()
                                    .name("general")
                                    .nodeClassRef("general")
                                    .weight(10)
                                    .labels(Map.of("team", "platform"))
                                    .annotations(oidc.url().applyValue(url -> Map.of("example.com/oidc-issuer", url)))
                                    .requirements(
                                            RequirementArgs.builder().key("karpenter.sh/capacity-type").operator(RequirementOperator.In)
                                                    .values("spot", "on-demand").build(),
                                            RequirementArgs.builder().key("karpenter.k8s.aws/instance-cpu").operator(RequirementOperator.Gt)
                                                    .values("3").build())
                                    .taints(TaintArgs.builder().key("dedicated").value("general").effect(TaintEffect.NoSchedule).build())
                                    .limits(Map.of("cpu", "1000", "memory", "1000Gi"))
                                    .disruption(DisruptionArgs.builder()
                                            .consolidationPolicy(ConsolidationPolicy.WhenEmptyOrUnderutilized)
                                            .consolidateAfter("1m")
                                            .budgets(
                                                    BudgetArgs.builder().nodes("10%").build(),
                                                    BudgetArgs.builder().nodes("0").schedule("0 9 * * mon-fri").duration("8h")
                                                            .reasons("Drifted").build())
                                            .build())
                                    .build(),
                            NodePoolSpecArgs.builder()
                                    .name("batch")
                                    .nodeClassRef("general")
                                    .expireAfter(batchExpireAfter)
                                    .requirements(RequirementArgs.builder().key("kubernetes.io/arch").operator(RequirementOperator.In)
                                            .values("arm64").build())
                                    .build())
                    .build(), ComponentResourceOptions.builder().providers(awsProvider, k8sProvider).build());

            // Another team's class and pool, with a node role of their own (unknown at the first preview).
            var teamRole = new Role("teamRole", Args.role("e2e-team-a-", trust("ec2.amazonaws.com")), onAws);
            var teamClass = new NodeClass("teamClass", NodeClassArgs.builder()
                    .clusterName(cluster.name())
                    .spec(NodeClassSpecArgs.builder().name("team-a").role(teamRole.name()).tags(Map.of("team", "a")).build())
                    .build(), ComponentResourceOptions.builder().providers(k8sProvider).dependsOn(k).build());
            var teamPool = new NodePool("teamPool", NodePoolArgs.builder()
                    .spec(NodePoolSpecArgs.builder()
                            .name("team-a-spot")
                            .nodeClassRef("team-a")
                            .requirements(RequirementArgs.builder().key("karpenter.sh/capacity-type").operator(RequirementOperator.In)
                                    .values("spot").build())
                            .taints(TaintArgs.builder().key("team").value("a").effect(TaintEffect.NoSchedule).build())
                            .limits(Map.of("cpu", "100"))
                            .build())
                    .build(), ComponentResourceOptions.builder().providers(k8sProvider).dependsOn(teamClass).build());

            ctx.export("clusterName", cluster.name());
            ctx.export("version", k.version());
            ctx.export("controllerRoleArn", k.controllerRoleArn());
            ctx.export("nodeRoleName", k.nodeRoleName());
            ctx.export("interruptionQueueName", k.interruptionQueueName());
            // As JSON strings: com.pulumi:pulumi 1.16.0's Automation API reads a stack's outputs as a
            // Map<String, String>, so `up()` itself fails on a list output ("Expected a string but was
            // BEGIN_ARRAY"); typedOutputs reads them back into List<String>.
            ctx.export("nodePoolNames", k.nodePoolNames().applyValue(App::json));
            ctx.export("nodeClassNames", k.nodeClassNames().applyValue(App::json));
            ctx.export("teamRoleName", teamRole.name());
            ctx.export("teamNodeClassName", teamClass.nodeClassName());
            ctx.export("teamNodePoolName", teamPool.nodePoolName());
            // Read in Java's types inside the program: List<String> and String.
            ctx.export("languageCheck", Output.tuple(k.nodePoolNames(), k.version()).applyValue(t -> {
                List<String> pools = t.t1;
                String version = t.t2;
                return pools.size() + " pools " + String.join(",", pools) + ", version " + version.split("\\.").length + " parts";
            }));
        };
    }

    static WorkspaceStack stack(String batchExpireAfter) throws AutomationException {
        return LocalWorkspace.createOrSelectStack("karpenter-e2e", "dev", program(batchExpireAfter),
                LocalWorkspaceOptions.builder().secretsProvider("passphrase").build());
    }

    static String json(List<String> list) {
        return new Gson().toJson(list);
    }

    /** Each output's value must have the type the SDK declares. */
    static Map<String, Object> typedOutputs(Map<String, OutputValue> outputs) {
        var out = new LinkedHashMap<String, Object>();
        for (var key : List.of("clusterName", "version", "controllerRoleArn", "nodeRoleName", "interruptionQueueName",
                "nodePoolNames", "nodeClassNames", "teamRoleName", "teamNodeClassName", "teamNodePoolName", "languageCheck")) {
            var v = outputs.containsKey(key) ? outputs.get(key).value() : null;
            boolean list = key.equals("nodePoolNames") || key.equals("nodeClassNames");
            if (list && v instanceof String s) {
                v = new Gson().fromJson(s, List.class); // exported as JSON (see program)
            }
            boolean ok = list ? v instanceof List<?> l && l.stream().allMatch(x -> x instanceof String) : v instanceof String;
            if (!ok) {
                throw new IllegalStateException("output " + key + ": " + v + " is not a " + (list ? "List<String>" : "String"));
            }
            out.put(key, v);
        }
        return out;
    }

    public static void main(String[] argv) {
        try {
            run(argv);
        } catch (Throwable e) {
            // The Automation API's gRPC server threads would keep the JVM alive after the
            // exception, until the harness's timeout: exit with it instead.
            e.printStackTrace();
            System.exit(1);
        }
    }

    private static void run(String[] argv) throws Exception {
        var step = argv[0];
        var result = new LinkedHashMap<String, Object>();
        result.put("step", step);
        switch (step) {
            case "preview" -> stack("720h").preview();
            case "refresh" -> stack("720h").refresh(RefreshOptions.builder().build());
            case "check" -> stack("720h").preview(PreviewOptions.builder().expectNoChanges(true).build());
            case "up" -> result.put("outputs", typedOutputs(stack("720h").up(UpOptions.builder().build()).outputs()));
            case "update" -> result.put("outputs", typedOutputs(stack("360h").up(UpOptions.builder().build()).outputs()));
            case "destroy" -> {
                var s = stack("720h");
                s.destroy(DestroyOptions.builder().build());
                s.workspace().removeStack("dev");
            }
            default -> throw new IllegalArgumentException("unknown step " + step);
        }
        System.out.println(new Gson().toJson(result));
        System.exit(0); // the Automation API's gRPC server threads would keep the JVM alive
    }
}
