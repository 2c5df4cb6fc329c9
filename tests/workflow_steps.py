"""GitHub Actions steps run with bash as the runner runs them, for the tests of the example
workflows (tests/test_example_workflow.py, tests/test_sharded_workflow.py) and of the composite
action (tests/test_action.py).

What is modelled is what those files use, and anything else fails loudly rather than being
guessed at:

- `run:` steps, each a script file run by `bash -e` (a workflow step without `shell:`) or by
  `bash --noprofile --norc -eo pipefail` (`shell: bash`, which a composite step must name), in
  the workspace, with the workflow's and the step's `env:`; `GITHUB_OUTPUT` a fresh file per
  step, read back into `steps.<id>.outputs`; `GITHUB_STEP_SUMMARY` one file for the whole job;
- `${{ }}` expressions that name a value (`inputs.reports-dir`, `github.action_path`,
  `steps.fuzz.outputs.exit-code`, `env.SERVER`, `matrix.shard`: the matrix context is the
  caller's, one job of the matrix per call); `if:` conditions `success()` (the default),
  `failure()` and `always()`;
- `continue-on-error: true` on a workflow step: its failure (recorded in `StepRun`) fails
  neither the job nor the `success()` of the steps after it;
- `uses:` of a composite action found locally (`./`, or an `owner/name` mapped to a checkout):
  its inputs (declared ones only, defaults filled in), its steps, its outputs;
- `uses:` of an action the caller models with a stand-in (`Runner.stand_ins`, e.g. the artifact
  upload and download that carry files from one job's runner to another's), run in its place
  with its inputs evaluated. Any other `uses:` step (checkout, setup-python, cache, SARIF upload)
  is skipped.

A step key other than those (`timeout-minutes`, `working-directory`, ...) fails loudly. What a
workflow says above its steps (`strategy`, `needs`, a job's `if:`) is the caller's to read: each
call runs one job's steps on one runner.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).parent.parent

INSTALLED = {"version": "mcp-toolfuzz"}
"""The input that makes the action install mcp-toolfuzz by name, which pip finds installed already
(this checkout, editable or by the test command), with PIP_NO_INDEX set (`checkout_env`) so that
it looks no further: a test installs nothing."""


def checkout_env() -> dict[str, str]:
    """A runner's environment with this checkout's mcp-toolfuzz on PATH (the test venv's, the
    source tree first on sys.path) and an offline pip."""
    return {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(ROOT),
        "PIP_NO_INDEX": "1",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }


_EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
_NAME = re.compile(r"[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*")
WORKFLOW_BASH = ("bash", "-e")
"""A workflow `run:` step without `shell:` on Linux."""
NAMED_BASH = ("bash", "--noprofile", "--norc", "-eo", "pipefail")
"""A step with `shell: bash` (every composite action step)."""


def evaluate(expression: str, contexts: dict[str, Any]) -> str:
    """The value an expression that names one has, as text; a missing step output is empty, as on
    GitHub. An undeclared input, a context the runner was not given (`matrix` outside a matrix
    job) or an expression with operators or functions raises."""
    if not _NAME.fullmatch(expression):
        raise NotImplementedError(f"the test runner evaluates names only, not ${{{{ {expression} }}}}")
    context, *path = expression.split(".")
    if context not in contexts:
        raise KeyError(f"${{{{ {expression} }}}}: no {context!r} context here (the runner has {sorted(contexts)})")
    value: Any = contexts[context]
    for part in path:
        if not isinstance(value, dict) or part not in value:
            if context == "steps":
                return ""
            raise KeyError(f"${{{{ {expression} }}}} names nothing ({part!r} is not there)")
        value = value[part]
    return "" if value is None else str(value)


def expand(text: Any, contexts: dict[str, Any]) -> str:
    """A YAML value as the step gets it: text with its expressions evaluated (`true`, not `True`)."""
    if isinstance(text, bool):
        return "true" if text else "false"
    return _EXPRESSION.sub(lambda match: evaluate(match[1], contexts), str(text))


WORKFLOW_STEP_KEYS = frozenset({"name", "id", "if", "uses", "with", "run", "shell", "env", "continue-on-error"})
COMPOSITE_STEP_KEYS = WORKFLOW_STEP_KEYS - {"continue-on-error"}
"""The step keys the runner models: any other would be ignored, so it fails loudly instead."""


def _check_keys(step: dict[str, Any], known: frozenset[str]) -> None:
    unknown = step.keys() - known
    if unknown:
        raise NotImplementedError(f"{step.get('name', step.get('uses', '(unnamed step)'))}: the test runner does not model {sorted(unknown)}")


def _continues_on_error(step: dict[str, Any]) -> bool:
    value = step.get("continue-on-error", False)
    if not isinstance(value, bool):
        raise NotImplementedError(f"the test runner takes continue-on-error true or false, not {value!r}")
    return value


def _condition_holds(step: dict[str, Any], failed: bool) -> bool:
    condition = str(step.get("if", "success()")).strip().removeprefix("${{").removesuffix("}}").strip()
    if condition == "success()":
        return not failed
    if condition == "failure()":
        return failed
    if condition == "always()":
        return True
    raise NotImplementedError(f"the test runner does not evaluate if: {condition}")


def read_outputs(path: Path) -> dict[str, str]:
    """A GITHUB_OUTPUT file: `name=value` lines and `name<<DELIMITER` blocks."""
    outputs: dict[str, str] = {}
    lines = iter(path.read_text(encoding="utf-8").splitlines())
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            block = []
            for body in lines:
                if body == delimiter:
                    break
                block.append(body)
            outputs[name] = "\n".join(block)
        elif line:
            name, value = line.split("=", 1)
            outputs[name] = value
    return outputs


@dataclass
class StepRun:
    name: str
    returncode: int
    stdout: str
    stderr: str
    continue_on_error: bool = False
    """The step had `continue-on-error: true`: a non-zero `returncode` (its outcome, a failure)
    failed neither the job nor the `success()` of later steps (its conclusion, a success)."""


StandIn = Callable[["Runner", dict[str, str]], int]
"""A `uses:` step a test models itself: given the runner of the job and the step's inputs
(expressions evaluated), it does the step's work and gives its exit code."""


@dataclass
class ActionRun:
    """A composite action's run: its steps (those that ran), its outputs, whether it failed."""

    steps: list[StepRun]
    outputs: dict[str, str]
    returncode: int


@dataclass
class Runner:
    """Runs steps in `workspace` with `env` (the process environment the runner would have),
    the job summary written to `summary`, the step scripts and output files kept in `temp` (the
    runner's RUNNER_TEMP)."""

    workspace: Path
    env: dict[str, str]
    summary: Path
    temp: Path
    actions: dict[str, Path] = field(default_factory=dict)
    """`uses:` values (without `@ref`) of composite actions, and the directory of each."""
    input_overrides: dict[str, str] = field(default_factory=dict)
    """Inputs every local action gets whatever its caller says (e.g. what to install)."""
    stand_ins: dict[str, StandIn] = field(default_factory=dict)
    """`uses:` values (without `@ref`) of actions that a stand-in runs in the step's place."""
    timeout: float = 600
    _scripts: int = field(default=0, init=False, repr=False)

    def run_workflow_steps(
        self,
        steps: list[dict[str, Any]],
        *,
        env: dict[str, str],
        skip: tuple[str, ...] = (),
        matrix: dict[str, Any] | None = None,
    ) -> tuple[list[StepRun], dict[str, Any]]:
        """A job's steps in order (those named in `skip` left out), as the job of `matrix` (a
        matrix job's values, e.g. {"shard": 1}; None outside a matrix): what ran, and the
        contexts (with every step's outputs) after the job."""
        contexts: dict[str, Any] = {"env": env, "steps": {}, "github": {"workspace": str(self.workspace)}}
        if matrix is not None:
            contexts["matrix"] = matrix
        ran: list[StepRun] = []
        failed = False
        for step in steps:
            _check_keys(step, WORKFLOW_STEP_KEYS)
            continue_on_error = _continues_on_error(step)
            uses = step["uses"].split("@")[0] if "uses" in step else None
            action = self._local_action(step["uses"]) if "uses" in step else None
            stand_in = self.stand_ins.get(uses) if uses is not None else None
            if step.get("name") in skip or (uses is not None and action is None and stand_in is None) or not _condition_holds(step, failed):
                continue
            inputs = {name: expand(value, contexts) for name, value in (step.get("with") or {}).items()}
            outputs: dict[str, str] = {}
            if action is not None:
                result = self.run_action(action, inputs, env=env)
                logs = [(inner.stdout, inner.stderr) for inner in result.steps]
                run = StepRun(step.get("name", step["uses"]), result.returncode, "".join(out for out, _ in logs), "".join(err for _, err in logs))
                outputs = result.outputs
            elif stand_in is not None:
                run = StepRun(step.get("name", step["uses"]), stand_in(self, inputs), "", "")
            else:
                run, outputs = self._run_script(step, contexts, env=env, bash=WORKFLOW_BASH if "shell" not in step else NAMED_BASH)
            run.continue_on_error = continue_on_error
            if "id" in step:
                contexts["steps"][step["id"]] = {"outputs": outputs}
            ran.append(run)
            failed = failed or (run.returncode != 0 and not run.continue_on_error)
        return ran, contexts

    def run_action(self, directory: Path, inputs: dict[str, str], *, env: dict[str, str] | None = None) -> ActionRun:
        """The composite action in `directory` with `inputs` (plus `input_overrides`)."""
        action = yaml.safe_load((directory / "action.yml").read_text(encoding="utf-8"))
        assert action["runs"]["using"] == "composite"
        declared = action.get("inputs") or {}
        given = {**inputs, **self.input_overrides}
        unknown = given.keys() - declared.keys()
        assert not unknown, f"inputs the action does not declare: {sorted(unknown)}"
        values = {name: given.get(name, str(spec.get("default", ""))) for name, spec in declared.items()}
        contexts: dict[str, Any] = {
            "inputs": values,
            "github": {"action_path": str(directory), "workspace": str(self.workspace)},
            "steps": {},
            "env": env or {},
        }
        ran: list[StepRun] = []
        failed = False
        step_env = {**(env or {}), "GITHUB_ACTION_PATH": str(directory)}
        for step in action["runs"]["steps"]:
            _check_keys(step, COMPOSITE_STEP_KEYS)
            if "uses" in step or not _condition_holds(step, failed):
                continue
            assert step.get("shell") == "bash", f"{step.get('name')}: a composite step's shell must be named (bash)"
            run, outputs = self._run_script(step, contexts, env=step_env, bash=NAMED_BASH)
            if "id" in step:
                contexts["steps"][step["id"]] = {"outputs": outputs}
            ran.append(run)
            failed = failed or run.returncode != 0
        outputs = {name: expand(spec["value"], contexts) for name, spec in (action.get("outputs") or {}).items()}
        returncode = next((run.returncode for run in ran if run.returncode != 0), 0)
        return ActionRun(ran, outputs, returncode)

    def _local_action(self, uses: str) -> Path | None:
        name = uses.split("@")[0]
        if name in self.actions:
            return self.actions[name]
        if name.startswith("./"):
            return self.workspace / name
        return None

    def _run_script(self, step: dict[str, Any], contexts: dict[str, Any], *, env: dict[str, str], bash: tuple[str, ...]) -> tuple[StepRun, dict[str, str]]:
        self._scripts += 1
        script, output = self.temp / f"step-{self._scripts}.sh", self.temp / f"step-{self._scripts}.output"
        self.temp.mkdir(parents=True, exist_ok=True)
        script.write_text(expand(step["run"], contexts), encoding="utf-8")
        output.touch()
        step_env = {key: expand(value, contexts) for key, value in (step.get("env") or {}).items()}
        runner_env = {"GITHUB_OUTPUT": str(output), "GITHUB_STEP_SUMMARY": str(self.summary), "RUNNER_TEMP": str(self.temp)}
        result = subprocess.run(
            [*bash, str(script)],
            cwd=self.workspace,
            env={**self.env, **env, **step_env, **runner_env},
            capture_output=True,
            text=True,
            timeout=self.timeout,
        )
        return StepRun(step.get("name", "(unnamed step)"), result.returncode, result.stdout, result.stderr), read_outputs(output)
