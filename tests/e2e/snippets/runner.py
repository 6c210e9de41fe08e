"""Runs the README's Python snippet as an Automation API inline program (there is no Python
language host here: the Automation API serves the program from this process and hands the CLI its
address). tests/e2e/snippets_test.go writes the snippet, as README.md has it, to snippet.py; the
program runs that file as __main__, so its pulumi.export calls are the stack's outputs. The one
thing added: stack config aws:region = us-west-2, which the snippet reads (pulumi.Config("aws")).
tests/e2e/examples_test.go runs the example programs with it too, each as its own project
(RUNNER_PROJECT, default readme-python) with the config its program requires (RUNNER_CONFIG, a
JSON object of keys and values: a team stack's platformStack).

Usage: python runner.py <preview|preview-no-changes|up|refresh|destroy>, with the engine's environment (PULUMI_HOME, the
local backend, the passphrase, PATH with the CLI). The engine's output goes to stderr; stdout's
last line is {"step", "outputs"?, "changes"?}.
"""

import json
import os
import runpy
import sys

from pulumi import automation as auto

SNIPPET = os.path.join(os.path.dirname(os.path.abspath(__file__)), "snippet.py")


def program() -> None:
    runpy.run_path(SNIPPET, run_name="__main__")


def stack() -> auto.Stack:
    s = auto.create_or_select_stack(stack_name="dev", project_name=os.environ.get("RUNNER_PROJECT", "readme-python"),
                                    program=program, opts=auto.LocalWorkspaceOptions(secrets_provider="passphrase"))
    s.set_config("aws:region", auto.ConfigValue(value="us-west-2"))
    for key, value in json.loads(os.environ.get("RUNNER_CONFIG", "{}")).items():
        s.set_config(key, auto.ConfigValue(value=value))
    return s


def log(s: str) -> None:
    print(s, file=sys.stderr, flush=True)


def main(step: str) -> dict:
    s = stack()
    if step == "preview":
        return {"changes": s.preview(on_output=log).change_summary}
    if step == "preview-no-changes":  # `pulumi preview --expect-no-changes`
        return {"changes": s.preview(on_output=log, expect_no_changes=True).change_summary}
    if step == "refresh":
        return {"changes": s.refresh(on_output=log).summary.resource_changes}
    if step == "up":
        r = s.up(on_output=log)
        return {"outputs": {k: v.value for k, v in r.outputs.items()}, "changes": r.summary.resource_changes}
    if step == "destroy":
        r = s.destroy(on_output=log)
        s.workspace.remove_stack("dev")
        return {"changes": r.summary.resource_changes}
    raise ValueError(f"unknown step {step}")


if __name__ == "__main__":
    result = main(sys.argv[1])
    print(json.dumps({"step": sys.argv[1], **result}, default=str))
