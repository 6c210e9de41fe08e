// Runs examples/java's program (karpenterexample.App::stack, unchanged) as an Automation API inline
// program, as runner.go does the Registry page's Go program: there is no Java language host here,
// so the Automation API serves the program from this process. tests/e2e/examples_java_test.go
// compiles this file in the example's package (App.stack is package-private) beside
// examples/java's App.java, with examples/java's pom.xml (the SDKs the example imports) and the
// release's Maven Central bundle as the repository io.github.pulumikarpenter:karpenter comes from.
//
// Usage: java karpenterexample.ExampleRunner <preview|up|refresh|destroy>, with the engine's
// environment (PULUMI_HOME, the local backend, the passphrase, PATH with the CLI), RUNNER_PROJECT
// (the project) and RUNNER_CONFIG (a JSON object of config keys and string values). Stack config
// aws:region = us-west-2 is added, which the program reads. The engine's output goes to stderr;
// stdout's last line is {"step", "outputs"?}.
package karpenterexample;

import java.util.LinkedHashMap;
import java.util.Map;

import com.google.gson.Gson;
import com.google.gson.reflect.TypeToken;
import com.pulumi.automation.ConfigValue;
import com.pulumi.automation.DestroyOptions;
import com.pulumi.automation.LocalWorkspace;
import com.pulumi.automation.LocalWorkspaceOptions;
import com.pulumi.automation.PreviewOptions;
import com.pulumi.automation.RefreshOptions;
import com.pulumi.automation.UpOptions;
import com.pulumi.automation.WorkspaceStack;

public final class ExampleRunner {
    private ExampleRunner() {
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
        System.exit(0); // the same threads, after a step that succeeded
    }

    private static void run(String[] argv) throws Exception {
        if (argv.length != 1) {
            throw new IllegalArgumentException("usage: ExampleRunner <preview|up|refresh|destroy>");
        }
        var step = argv[0];
        WorkspaceStack stack = LocalWorkspace.createOrSelectStack(System.getenv("RUNNER_PROJECT"), "dev", App::stack,
            LocalWorkspaceOptions.builder().secretsProvider("passphrase").build());
        Map<String, String> config = new LinkedHashMap<>();
        var given = System.getenv("RUNNER_CONFIG");
        if (given != null && !given.isEmpty()) {
            config.putAll(new Gson().<Map<String, String>>fromJson(given, new TypeToken<Map<String, String>>() { }.getType()));
        }
        config.put("aws:region", "us-west-2");
        for (var e : config.entrySet()) {
            stack.setConfig(e.getKey(), new ConfigValue(e.getValue()));
        }
        var result = new LinkedHashMap<String, Object>();
        result.put("step", step);
        switch (step) {
            case "preview":
                try {
                    stack.preview(PreviewOptions.builder().onStandardOutput(System.err::println).build());
                } catch (Exception e) {
                    // pulumi-java's Automation API tails the CLI's event log while the CLI writes it
                    // and can read a line before its end (EventLogWatcher: MalformedJsonException),
                    // as tests/e2e/sdk_test.go's javaEventLogRace says. A preview changes nothing: it
                    // runs again once; a second failure stands.
                    if (!eventLogRace(e)) {
                        throw e;
                    }
                    System.err.println("ExampleRunner: the event log race of pulumi-java's Automation API (" + e + "); previewing again");
                    stack.preview(PreviewOptions.builder().onStandardOutput(System.err::println).build());
                }
                break;
            case "refresh":
                stack.refresh(RefreshOptions.builder().onStandardOutput(System.err::println).build());
                break;
            case "up":
                var outputs = new LinkedHashMap<String, Object>();
                stack.up(UpOptions.builder().onStandardOutput(System.err::println).build()).outputs()
                    .forEach((k, v) -> outputs.put(k, v.value()));
                result.put("outputs", outputs);
                break;
            case "destroy":
                stack.destroy(DestroyOptions.builder().onStandardOutput(System.err::println).build());
                stack.workspace().removeStack("dev");
                break;
            default:
                throw new IllegalArgumentException("unknown step " + step);
        }
        System.out.println(new Gson().toJson(result));
    }

    private static boolean eventLogRace(Throwable e) {
        var text = new java.io.StringWriter();
        e.printStackTrace(new java.io.PrintWriter(text));
        return text.toString().contains("EventLogWatcher") && text.toString().contains("MalformedJsonException");
    }
}
