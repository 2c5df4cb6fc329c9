"""The example sharded workflow (examples/github-actions/sharded.yml): its `fuzz` job's steps run
once per shard of its matrix, each on a runner (a workspace) of its own as GitHub gives each
matrix job, the action's steps included (this checkout's action.yml), against the bundled demo
server; the artifacts they upload carried into the `merge` job's workspace by stand-ins for the
artifact actions (`Artifacts`); the merge job's steps run; and what they write compared with one
unsharded run of the demo with the same seed and options. Only the server's install, SERVER,
SEED (GitHub's run id), what the action installs and its example count are substituted. Also what
the workflow needs of the test runner (tests/workflow_steps.py) beyond the nightly's: the matrix
context and continue-on-error."""

from __future__ import annotations

import fnmatch
import json
import os
import shlex
import shutil
import string
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import junitparser
import pytest
import xmlschema
import yaml

from fuzz.corpus.baseline import FORMAT as BASELINE_FORMAT
from tests.conftest import without_jsonrpc_ids
from tests.workflow_steps import INSTALLED, Runner, StandIn, StepRun, checkout_env

ROOT = Path(__file__).parent.parent
WORKFLOW = ROOT / "examples" / "github-actions" / "sharded.yml"
SCHEMAS = Path(__file__).parent / "report_schemas"
ACTION = "mcp-toolfuzz/mcp-toolfuzz"
SERVER = f"{sys.executable} -m fuzz.demo_server"
SEED = "20250612"
"""GitHub's run id in the workflow: any number, the same for every shard and for the unsharded run."""
MAX_EXAMPLES = "10"
"""The workflow's 500 examples per tool and case kind, made small for the test (an input override,
given to the unsharded run too)."""
BASELINE = ".toolfuzz-baseline.json"
REPORTS = Path("toolfuzz-reports")
"""Where the Merge step writes the merged run (its script names each report there)."""
_SKIPPED = ("Install your server",)
"""The steps a test does not run: the demo needs nothing installed."""
_GLOB = frozenset("*?[")


def _workflow() -> dict[str, Any]:
    workflow: dict[str, Any] = yaml.safe_load(WORKFLOW.read_text())
    return workflow


def _step(steps: list[dict[str, Any]], name: str) -> dict[str, Any]:
    (step,) = [step for step in steps if step.get("name") == name]
    return step


def _uses(steps: list[dict[str, Any]], action: str) -> list[dict[str, Any]]:
    return [step for step in steps if step.get("uses", "").split("@")[0] == action]


class Artifacts:
    """A workflow run's artifacts, kept in `store`: stand-ins for actions/upload-artifact@v4 and
    actions/download-artifact@v4, which carry files from one job's runner to another's.

    Upload (`name`, `path`): each line of `path` is a file, a directory (its files, at any depth)
    or a glob (`**` any number of directories), relative to the workspace; a file or directory
    whose name starts with `.` below it is left out (`include-hidden-files` is false by default).
    Each file is stored under its path relative to the artifact's root: the least common ancestor
    of the lines' search paths (a line's search path is its part before the first glob
    character), or, for a single search path, that path (its directory if it is one file). A
    shard's lines (a report, the database directory, the corpus's JSON files) are three search
    paths in the workspace, so its artifact holds them under their workspace paths. Nothing found:
    no artifact (upload-artifact's default `if-no-files-found: warn`).

    Download (`pattern`, `path`): every artifact whose name matches the pattern, each into a
    directory of `path` named after it (`merge-multiple` is false by default).

    Any other input (`!` exclusions among them) fails loudly."""

    def __init__(self, store: Path) -> None:
        self.store = store
        self.store.mkdir()

    @property
    def stand_ins(self) -> dict[str, StandIn]:
        return {"actions/upload-artifact": self.upload, "actions/download-artifact": self.download}

    def upload(self, runner: Runner, inputs: dict[str, str]) -> int:
        _only(inputs, {"name", "path"}, "actions/upload-artifact")
        lines = [line.strip() for line in inputs["path"].splitlines() if line.strip()]
        search_paths: list[Path] = []
        files: set[Path] = set()
        for line in lines:
            if line.startswith("!"):
                raise NotImplementedError(f"upload-artifact: the stand-in does not model exclusions ({line})")
            parts = Path(line).parts
            fixed = next((at for at, part in enumerate(parts) if _GLOB & set(part)), len(parts))
            search_path = runner.workspace.joinpath(*parts[:fixed])
            if any(part.startswith(".") for part in parts[:fixed]):
                raise NotImplementedError(f"upload-artifact: the stand-in does not model a hidden search path ({line})")
            search_paths.append(search_path)
            found = runner.workspace.glob(line) if fixed < len(parts) else search_path.rglob("*") if search_path.is_dir() else [search_path]
            files |= {file for file in found if file.is_file() and not any(part.startswith(".") for part in file.relative_to(search_path).parts)}
        if not files:
            return 0
        outermost = sorted({path for path in search_paths if not any(other in path.parents for other in search_paths)})
        root = Path(os.path.commonpath(outermost)) if len(outermost) > 1 else _single_root(outermost[0], files)
        artifact = self.store / inputs["name"]
        assert not artifact.exists(), f"upload-artifact@v4 refuses a second artifact named {inputs['name']}"
        for file in files:
            (artifact / file.relative_to(root)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(file, artifact / file.relative_to(root))
        return 0

    def download(self, runner: Runner, inputs: dict[str, str]) -> int:
        _only(inputs, {"pattern", "path"}, "actions/download-artifact")
        for artifact in sorted(self.store.iterdir()):
            if fnmatch.fnmatchcase(artifact.name, inputs["pattern"]):
                shutil.copytree(artifact, runner.workspace / inputs["path"] / artifact.name, dirs_exist_ok=True)
        return 0


def _single_root(search_path: Path, files: set[Path]) -> Path:
    """The root of an artifact with one search path: that path, or its directory for one file."""
    return search_path.parent if files == {search_path} else search_path


def _only(inputs: dict[str, str], modelled: set[str], action: str) -> None:
    unknown = inputs.keys() - modelled
    if unknown:
        raise NotImplementedError(f"{action}: the stand-in does not model {sorted(unknown)}")


def _checkout(directory: Path) -> Path:
    """A job's workspace after actions/checkout: the repository's (empty) baseline, and its
    settings file naming the random search alone. Its findings are shrunk, and so kept in the
    example database, which every shard's artifact then carries; the boundary phase finds every
    bug of the demo first, already minimal, and keeps nothing there."""
    workspace = directory / "workspace"
    workspace.mkdir(parents=True)
    (workspace / BASELINE).write_text(json.dumps({"format": BASELINE_FORMAT, "findings": []}))
    (workspace / "mcp-toolfuzz.toml").write_text('phases = "random"\n')
    return workspace


@dataclass
class Job:
    runner: Runner
    ran: list[StepRun]
    contexts: dict[str, Any]


def _run_job(directory: Path, job: dict[str, Any], artifacts: Artifacts, *, env: dict[str, str] | None = None, matrix: dict[str, Any] | None = None) -> Job:
    """`job`'s steps on a runner of its own in `directory`, its `env:` given `env`'s values."""
    directory.mkdir()
    runner = Runner(
        _checkout(directory),
        checkout_env(),
        directory / "step-summary.md",
        directory / "runner",
        actions={ACTION: ROOT},
        input_overrides={**INSTALLED, "max-examples": MAX_EXAMPLES},
        stand_ins=artifacts.stand_ins,
    )
    ran, contexts = runner.run_workflow_steps(job["steps"], env={**job.get("env", {}), **(env or {})}, skip=_SKIPPED, matrix=matrix)
    for step in ran:
        assert "Traceback" not in step.stderr, step.stderr
    return Job(runner, ran, contexts)


def _unsharded_run(directory: Path, fuzz: dict[str, Any]) -> dict[str, Any]:
    """One run of the whole demo with the Fuzz step's options, its shard aside, by the command line."""
    workspace = _checkout(directory)
    inputs = fuzz["with"]
    # The inputs this command repeats, and those it replaces (the target, the shard, the reports):
    # an input added to the workflow fails here until the unsharded run gets it too.
    assert set(inputs) <= {"target", "python-version", "shard", "max-examples", "max-time", "reports", "args"}, inputs
    args = shlex.split(string.Template(inputs["args"]).substitute(SEED=SEED))
    command = [sys.executable, "-m", "fuzz", "run", "--max-examples", MAX_EXAMPLES, "--max-time", str(inputs["max-time"]), *args]
    result = subprocess.run(
        [*command, "--report", "json:whole.json", "--", *shlex.split(SERVER)],
        cwd=workspace, env=checkout_env(), capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    document: dict[str, Any] = json.loads((workspace / "whole.json").read_text())
    assert result.returncode == document["exitCode"], result.stderr
    return document


def _findings(document: dict[str, Any]) -> str:
    return without_jsonrpc_ids([{key: finding[key] for key in ("rule", "tool", "case", "request")} for finding in document["findings"]])


def _files(directory: Path) -> set[Path]:
    return {path.relative_to(directory) for path in directory.rglob("*") if path.is_file()}


def test_the_workflow_is_a_matrix_of_shards_and_a_merge_that_always_runs() -> None:
    workflow = _workflow()
    fuzz, merge = workflow["jobs"]["fuzz"], workflow["jobs"]["merge"]
    shards = fuzz["strategy"]["matrix"]["shard"]
    assert shards == [1, 2, 3] and fuzz["strategy"]["fail-fast"] is False
    step = _step(fuzz["steps"], "Fuzz")
    assert step["uses"].startswith(ACTION + "@") and step["continue-on-error"] is True
    assert step["with"]["shard"] == f"${{{{ matrix.shard }}}}/{len(shards)}"
    assert step["with"]["reports"] == "json:shard.json"
    args = step["with"]["args"].split()
    assert {"--seed", "--corpus", "--baseline"} <= set(args) and args[args.index("--database") + 1] == "toolfuzz-db"
    assert merge["needs"] in ("fuzz", ["fuzz"]) and merge["if"] == "always()"
    # The database: restored (only) by the shards, saved (only) by the merge, under one key. The
    # history of the nights: restored and saved by the merge, which appends the merged run's record.
    caches = {
        name: {(step["uses"].split("@")[0], step["with"]["path"]) for step in job["steps"] if step.get("uses", "").startswith("actions/cache")}
        for name, job in workflow["jobs"].items()
    }
    tool_list = "toolfuzz-corpus/*/.tool-list"  # shard 1 compares the server's tool list with the last night's, and keeps it
    assert caches["fuzz"] == {("actions/cache/restore", "toolfuzz-db"), ("actions/cache/restore", tool_list), ("actions/cache/save", tool_list)}
    assert all(step["if"].endswith("matrix.shard == 1") for step in fuzz["steps"] if step.get("with", {}).get("path") == tool_list)
    assert caches["merge"] == {("actions/cache/save", "toolfuzz-db"), ("actions/cache/restore", "toolfuzz-history"), ("actions/cache/save", "toolfuzz-history")}
    for path, restoring, saving in (("toolfuzz-db", fuzz, merge), ("toolfuzz-history", merge, merge), (tool_list, fuzz, fuzz)):
        (restore,) = [step for step in _uses(restoring["steps"], "actions/cache/restore") if step["with"]["path"] == path]
        (save,) = [step for step in _uses(saving["steps"], "actions/cache/save") if step["with"]["path"] == path]
        assert restore["with"]["key"] == save["with"]["key"] and save["with"]["key"].startswith(restore["with"]["restore-keys"])
    assert "--history toolfuzz-history/nights.jsonl" in _step(merge["steps"], "Merge")["run"]
    # What each shard uploads is what the merge downloads.
    (upload,) = _uses(fuzz["steps"], "actions/upload-artifact")
    (download,) = _uses(merge["steps"], "actions/download-artifact")
    assert all(fnmatch.fnmatchcase(upload["with"]["name"].replace("${{ matrix.shard }}", str(shard)), download["with"]["pattern"]) for shard in shards)
    assert "mcp-toolfuzz merge" in _step(merge["steps"], "Merge")["run"]
    (sarif,) = _uses(merge["steps"], "github/codeql-action/upload-sarif")
    assert sarif["with"]["category"] == "mcp-toolfuzz" and not _uses(fuzz["steps"], "github/codeql-action/upload-sarif")


@pytest.mark.slow
def test_the_shards_merged_are_the_unsharded_run(tmp_path: Path) -> None:
    workflow = _workflow()
    fuzz, merge = workflow["jobs"]["fuzz"], workflow["jobs"]["merge"]
    shards = fuzz["strategy"]["matrix"]["shard"]
    artifacts = Artifacts(tmp_path / "artifacts")
    substituted = {"SERVER": SERVER, "SEED": SEED}
    assert substituted.keys() <= fuzz["env"].keys()
    # The matrix's jobs run at once, each on its own runner; the unsharded run beside them.
    with ThreadPoolExecutor(max_workers=len(shards) + 1) as pool:
        whole_run = pool.submit(_unsharded_run, tmp_path / "unsharded", _step(fuzz["steps"], "Fuzz"))
        jobs = list(pool.map(lambda shard: _run_job(tmp_path / f"shard-{shard}", fuzz, artifacts, env=substituted, matrix={"shard": shard}), shards))
        whole = whole_run.result()

    (upload,) = _uses(fuzz["steps"], "actions/upload-artifact")
    for shard, job in zip(shards, jobs, strict=True):
        # The Fuzz step failed (the shard's findings), and the job went on to upload them.
        assert [(step.name, step.returncode, step.continue_on_error) for step in job.ran] == [("Fuzz", 1, True), (upload["name"], 0, False)], job.ran
        assert job.contexts["steps"]["fuzz"]["outputs"]["exit-code"] == "1"
        report = json.loads((job.runner.workspace / job.contexts["steps"]["fuzz"]["outputs"]["json-report"]).read_text())
        assert (report["shard"]["number"], report["shard"]["count"]) == (shard, len(shards))
        assert report["shard"]["owned"], f"shard {shard} fuzzed nothing"

    job = _run_job(tmp_path / "merge", merge, artifacts)
    workspace = job.runner.workspace
    assert [(step.name, step.returncode) for step in job.ran] == [
        ("Install mcp-toolfuzz", 0), ("Download the shards' artifacts", 0), ("Join the shards' databases", 0),
        ("Merge", whole["exitCode"]), ("Job summary", 0), ("Upload the merged reports", 0),
    ], job.ran  # fmt: skip
    assert whole["exitCode"] == 1
    merged = json.loads((workspace / REPORTS / "mcp-toolfuzz.json").read_text())
    assert merged["shard"] is None and merged["stoppedEarly"] is None and merged["exitCode"] == whole["exitCode"]
    assert merged["delta"].startswith("first night recorded: ") and len(merged["nights"]) == 1
    assert len((workspace / "toolfuzz-history" / "nights.jsonl").read_text().splitlines()) == 1
    assert _findings(merged) == _findings(whole) and whole["findings"]

    junit = workspace / REPORTS / "mcp-toolfuzz.xml"
    xmlschema.XMLSchema(SCHEMAS / "JUnit.xsd").validate(junit)
    assert sum(suite.failures for suite in junitparser.JUnitXml.fromfile(str(junit))) == len(merged["findings"])
    schema = json.loads((SCHEMAS / "sarif-schema-2.1.0.json").read_text())
    sarif = json.loads((workspace / REPORTS / "mcp-toolfuzz.sarif").read_text())
    jsonschema.validators.validator_for(schema)(schema).validate(sarif)
    assert len(sarif["runs"]) == 1
    assert job.runner.summary.read_text() == (workspace / REPORTS / "mcp-toolfuzz.md").read_text()
    assert {path.name for path in (artifacts.store / "toolfuzz").iterdir()} == {f"mcp-toolfuzz.{ext}" for ext in ("json", "xml", "sarif", "md", "html")}

    # Every shard's database, carried by its artifact, is in the joined one the cache saves.
    (download,) = _uses(merge["steps"], "actions/download-artifact")
    joined = _files(workspace / "toolfuzz-db")
    for shard, shard_job in zip(shards, jobs, strict=True):
        database = _files(shard_job.runner.workspace / "toolfuzz-db")
        assert database, f"shard {shard} kept no example"
        downloaded = workspace / download["with"]["path"] / upload["with"]["name"].replace("${{ matrix.shard }}", str(shard))
        assert _files(downloaded / "toolfuzz-db") == database
        assert database <= joined


def test_the_runner_goes_on_after_a_step_that_continues_on_error_and_refuses_what_it_does_not_model(tmp_path: Path) -> None:
    runner = Runner(tmp_path, dict(os.environ), tmp_path / "summary.md", tmp_path / "runner")
    steps: list[dict[str, Any]] = [
        {"name": "shard", "run": 'echo "${{ matrix.shard }}/3" >shard; exit 1', "continue-on-error": True},
        {"name": "after it", "run": "true"},
        {"name": "fails", "run": "exit 3"},
        {"name": "skipped", "run": "true"},
        {"name": "on failure", "if": "failure()", "run": "true"},
    ]
    ran, _ = runner.run_workflow_steps(steps, env={}, matrix={"shard": 2})
    assert [(step.name, step.returncode, step.continue_on_error) for step in ran] == [
        ("shard", 1, True), ("after it", 0, False), ("fails", 3, False), ("on failure", 0, False),
    ]  # fmt: skip
    assert (tmp_path / "shard").read_text() == "2/3\n"
    refused: list[tuple[dict[str, Any], str]] = [
        ({"run": "echo ${{ matrix.shard }}"}, "no 'matrix' context"),
        ({"run": "true", "continue-on-error": "${{ matrix.experimental }}"}, "continue-on-error true or false"),
        ({"run": "true", "timeout-minutes": 5}, "timeout-minutes"),
    ]
    for step, error in refused:
        with pytest.raises((KeyError, NotImplementedError), match=error):
            runner.run_workflow_steps([step], env={})
