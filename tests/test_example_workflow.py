"""The example nightly workflow (examples/github-actions/nightly.yml): its shell steps run as
written, against the bundled demo server (only the installs and SERVER are substituted), and
the reports they write validate and parse."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import junitparser
import xmlschema
import yaml

from fuzz.corpus.baseline import FORMAT as BASELINE_FORMAT

ROOT = Path(__file__).parent.parent
WORKFLOW = ROOT / "examples" / "github-actions" / "nightly.yml"
SCHEMAS = Path(__file__).parent / "report_schemas"
_INSTALLS = ("Install mcp-toolfuzz", "Install your server")
"""The steps a test does not run: mcp-toolfuzz is installed already, the demo needs nothing."""


def _steps() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    workflow = yaml.safe_load(WORKFLOW.read_text())
    (job,) = workflow["jobs"].values()
    return job, job["steps"]


def test_the_workflow_runs_the_harness_with_every_ci_report_and_uploads_them() -> None:
    _, steps = _steps()
    uses = [step.get("uses", "").split("@")[0] for step in steps]
    assert {"actions/cache", "github/codeql-action/upload-sarif", "actions/upload-artifact"} <= set(uses)
    fuzz = next(step for step in steps if step.get("name") == "Fuzz")
    assert all(f"--report {kind}:" in fuzz["run"] or f'"{kind}:' in fuzz["run"] for kind in ("junit", "sarif", "json", "markdown"))
    assert "--max-time" in fuzz["run"] and "--baseline" in fuzz["run"]


def test_the_workflow_steps_run_against_the_demo_and_their_reports_validate(tmp_path: Path) -> None:
    job, steps = _steps()
    summary = tmp_path / "step-summary.md"
    (tmp_path / ".toolfuzz-baseline.json").write_text(json.dumps({"format": BASELINE_FORMAT, "findings": []}))
    env = {
        **os.environ,
        **job["env"],
        "SERVER": f"{sys.executable} -m fuzz.demo_server",
        "GITHUB_STEP_SUMMARY": str(summary),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(ROOT),
    }
    failed = False
    ran = []
    for step in steps:
        if "run" not in step or step.get("name") in _INSTALLS:
            continue
        condition = step.get("if", "success()")
        if (condition == "failure()" and not failed) or (condition == "success()" and failed):
            continue
        result = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
        assert "Traceback" not in result.stderr, result.stderr
        assert result.returncode in (0, 1), f"{step['name']}: exit {result.returncode}\n{result.stdout}\n{result.stderr}"
        failed = failed or result.returncode != 0
        ran.append((step["name"], result.returncode))
    assert ran == [("Fuzz", 1), ("Regression tests from the reproductions", 0)], ran
    xmlschema.XMLSchema(SCHEMAS / "JUnit.xsd").validate(tmp_path / "toolfuzz.xml")
    suites = list(junitparser.JUnitXml.fromfile(str(tmp_path / "toolfuzz.xml")))
    assert sum(suite.failures for suite in suites) == len(json.loads((tmp_path / "toolfuzz.json").read_text())["findings"])
    schema = json.loads((SCHEMAS / "sarif-schema-2.1.0.json").read_text())
    jsonschema.validators.validator_for(schema)(schema).validate(json.loads((tmp_path / "toolfuzz.sarif").read_text()))
    assert summary.read_text().startswith("# mcp-toolfuzz: 6 problems (20 findings on 8 tools)")
    assert len(list((tmp_path / "toolfuzz-corpus").glob("*.json"))) == 20
    assert (tmp_path / "test_toolfuzz_regressions.py").stat().st_size > 0
