// Runs the README's TypeScript snippet as an Automation API inline program (there is no Node.js
// language host here: the Automation API serves the program from this process and hands the CLI
// its address). tests/e2e/snippets_test.go writes the snippet, as README.md has it, to index.ts
// and compiles it (tsc, strict) to bin/index.js; the program requires that module, so its
// top-level code registers the resources, and its exports are the stack's outputs (a module that
// exports a function, `export = async () => ...`, is called, as Pulumi's Node.js host calls it, and
// its result is the outputs). The one thing added: stack config aws:region = us-west-2, which the
// snippet reads (new pulumi.Config("aws")). tests/e2e/examples_test.go runs the example programs
// with it too, each as its own project (RUNNER_PROJECT, default readme-typescript) with the config
// its program requires (RUNNER_CONFIG, a JSON object of keys and values: a team stack's
// platformStack).
//
// Usage: node runner.js <preview|preview-no-changes|up|refresh|destroy>, with the engine's environment (PULUMI_HOME, the
// local backend, the passphrase, PATH with the CLI). The engine's output goes to stderr; stdout's
// last line is {"step", "outputs"?, "changes"?}.
const { LocalWorkspace } = require("@pulumi/pulumi/automation");

const log = (s) => process.stderr.write(s);

async function program() {
    const m = require("./bin/index.js");
    return typeof m === "function" ? await m() : { ...m };
}

async function stack() {
    const s = await LocalWorkspace.createOrSelectStack(
        { projectName: process.env.RUNNER_PROJECT || "readme-typescript", stackName: "dev", program },
        { secretsProvider: "passphrase" },
    );
    await s.setConfig("aws:region", { value: "us-west-2" });
    for (const [key, value] of Object.entries(JSON.parse(process.env.RUNNER_CONFIG || "{}"))) {
        await s.setConfig(key, { value });
    }
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
