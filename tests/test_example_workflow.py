"""The example nightly workflow (examples/github-actions/nightly.yml): its steps run with bash as
the runner runs them, the action's own steps included (this checkout's action.yml), against the
bundled demo server (only the server's install, SERVER, what the action installs and the example
count are substituted), and the reports they write validate and parse."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import jsonschema
import junitparser
import pytest
import xmlschema
import yaml

from fuzz.corpus.baseline import FORMAT as BASELINE_FORMAT
from tests.workflow_steps import INSTALLED, Runner, checkout_env

ROOT = Path(__file__).parent.parent
WORKFLOW = ROOT / "examples" / "github-actions" / "nightly.yml"
SCHEMAS = Path(__file__).parent / "report_schemas"
ACTION = "mcp-toolfuzz/mcp-toolfuzz"
_SKIPPED = ("Install your server",)
"""The steps a test does not run: the demo needs nothing installed."""
_DEMO_BUDGET = {"max-examples": "100"}
"""The workflow's 500 examples are a nightly's depth: the demo's 20 findings are all found at 100
(the CLI's default), in a fifth of the time; what the test checks is the steps and their reports."""


def _steps() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    workflow = yaml.safe_load(WORKFLOW.read_text())
    (job,) = workflow["jobs"].values()
    return job, job["steps"]


def test_the_workflow_runs_the_action_with_every_ci_report_and_uploads_them() -> None:
    _, steps = _steps()
    uses = [step.get("uses", "").split("@")[0] for step in steps]
    assert {"actions/cache", ACTION, "github/codeql-action/upload-sarif", "actions/upload-artifact"} <= set(uses)
    fuzz = next(step for step in steps if step.get("name") == "Fuzz")
    assert fuzz["uses"].startswith(ACTION + "@")
    formats = {entry.split(":")[0] for entry in fuzz["with"]["reports"].split()}
    assert formats == {"json", "markdown", "junit", "sarif", "html"}, "every CI report, and the HTML with the trend"
    assert fuzz["with"]["max-time"] and "--baseline" in fuzz["with"]["args"] and "--corpus" in fuzz["with"]["args"]


@pytest.mark.slow
def test_the_workflow_steps_run_against_the_demo_and_their_reports_validate(tmp_path: Path) -> None:
    job, steps = _steps()
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    summary = tmp_path / "step-summary.md"
    (workspace / ".toolfuzz-baseline.json").write_text(json.dumps({"format": BASELINE_FORMAT, "findings": []}))
    runner = Runner(workspace, checkout_env(), summary, tmp_path / "runner", actions={ACTION: ROOT}, input_overrides={**INSTALLED, **_DEMO_BUDGET})
    env = {**job["env"], "SERVER": f"{sys.executable} -m fuzz.demo_server"}
    ran, contexts = runner.run_workflow_steps(steps, env=env, skip=_SKIPPED)
    for step in ran:
        assert "Traceback" not in step.stderr, step.stderr
    assert [(step.name, step.returncode) for step in ran] == [("Fuzz", 1), ("Regression tests from the reproductions", 0)], ran
    outputs = contexts["steps"]["fuzz"]["outputs"]
    assert outputs["exit-code"] == "1"
    reports = workspace / "mcp-toolfuzz-reports"
    assert outputs["junit-report"] == "mcp-toolfuzz-reports/mcp-toolfuzz.xml"
    xmlschema.XMLSchema(SCHEMAS / "JUnit.xsd").validate(reports / "mcp-toolfuzz.xml")
    suites = list(junitparser.JUnitXml.fromfile(str(reports / "mcp-toolfuzz.xml")))
    assert sum(suite.failures for suite in suites) == len(json.loads((reports / "mcp-toolfuzz.json").read_text())["findings"])
    schema = json.loads((SCHEMAS / "sarif-schema-2.1.0.json").read_text())
    jsonschema.validators.validator_for(schema)(schema).validate(json.loads((workspace / outputs["sarif-report"]).read_text()))
    assert summary.read_text().startswith("# mcp-toolfuzz: 6 problems (20 findings on 8 tools)\n\n**first night recorded: 20 new, 0 fixed, 0 flaky")
    assert len((workspace / "toolfuzz-corpus" / "nights.jsonl").read_text().splitlines()) == 1
    assert 'class="trend problems"' in (reports / "mcp-toolfuzz.html").read_text()
    assert all(
        finding["stability"] == {"reproduced": 10, "attempts": 10, "stable": True}
        for finding in json.loads((reports / "mcp-toolfuzz.json").read_text())["findings"]
    )
    # (Reproductions may sit in a subdirectory per target: every .json file but Hypothesis's own.)
    reproductions = [path for path in (workspace / "toolfuzz-corpus").rglob("*.json") if ".hypothesis" not in path.parts]
    assert len(reproductions) == 20
    assert (workspace / "test_toolfuzz_regressions.py").stat().st_size > 0
