// Runs the README's TypeScript snippet as an Automation API inline program (there is no Node.js
// language host here: the Automation API serves the program from this process and hands the CLI
// its address). tests/e2e/snippets_test.go writes the snippet, as README.md has it, to index.ts
// and compiles it (tsc, strict) to bin/index.js; the program requires that module, so its
// top-level code registers the resources, and its exports are the stack's outputs. The one thing
// added: stack config aws:region = us-west-2, which the snippet reads (new pulumi.Config("aws")).
//
// Usage: node runner.js <preview|preview-no-changes|up|refresh|destroy>, with the engine's environment (PULUMI_HOME, the
// local backend, the passphrase, PATH with the CLI). The engine's output goes to stderr; stdout's
// last line is {"step", "outputs"?, "changes"?}.
const { LocalWorkspace } = require("@pulumi/pulumi/automation");

const log = (s) => process.stderr.write(s);

async function stack() {
    const s = await LocalWorkspace.createOrSelectStack(
        { projectName: "readme-typescript", stackName: "dev", program: async () => ({ ...require("./bin/index.js") }) },
        { secretsProvider: "passphrase" },
    );
    await s.setConfig("aws:region", { value: "us-west-2" });
    return s;
}

async function main(step) {
    const s = await stack();
    switch (step) {
        case "preview":
            return { changes: (await s.preview({ onOutput: log })).changeSummary };
        case "preview-no-changes": // `pulumi preview --expect-no-changes`
            return { changes: (await s.preview({ onOutput: log, expectNoChanges: true })).changeSummary };
        case "refresh":
            return { changes: (await s.refresh({ onOutput: log })).summary.resourceChanges };
        case "up": {
            const r = await s.up({ onOutput: log });
            const outputs = Object.fromEntries(Object.entries(r.outputs).map(([k, v]) => [k, v.value]));
            return { outputs, changes: r.summary.resourceChanges };
        }
        case "destroy": {
            const r = await s.destroy({ onOutput: log });
            await s.workspace.removeStack("dev");
            return { changes: r.summary.resourceChanges };
        }
    }
    throw new Error(`unknown step ${step}`);
}

const step = process.argv[2];
main(step).then(
    (r) => console.log(JSON.stringify({ step, ...r })),
    (e) => { console.error(e); process.exit(1); },
);
