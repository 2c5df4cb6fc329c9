"""The composite GitHub Action (action.yml): its steps run with bash as the runner runs them
(tests/workflow_steps.py), with a recording stand-in for `mcp-toolfuzz` and `python` to check
the command each input makes, and for real against the bundled demo server."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.workflow_steps import INSTALLED, ActionRun, Runner, checkout_env

ROOT = Path(__file__).parent.parent
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
DEFAULT_REPORTS = [
    "--report", "json:mcp-toolfuzz-reports/mcp-toolfuzz.json",
    "--report", "markdown:mcp-toolfuzz-reports/mcp-toolfuzz.md",
    "--report", "junit:mcp-toolfuzz-reports/mcp-toolfuzz.xml",
    "--report", "sarif:mcp-toolfuzz-reports/mcp-toolfuzz.sarif",
]  # fmt: skip


def test_the_action_is_composite_with_bash_steps_and_its_outputs_come_from_its_steps() -> None:
    assert ACTION["runs"]["using"] == "composite"
    steps = ACTION["runs"]["steps"]
    assert [step["uses"].split("@")[0] for step in steps if "uses" in step] == ["actions/setup-python"]
    assert all(step.get("shell") == "bash" for step in steps if "run" in step)
    assert set(ACTION["outputs"]) == {"exit-code", "json-report", "markdown-report", "junit-report", "sarif-report", "reports-dir"}
    # No input is pasted into a script's text: each reaches it through env.
    assert not any("${{ inputs." in step.get("run", "") for step in steps)


def _stand_ins(directory: Path, *, exit_code: int = 1, write_reports: bool = True) -> Path:
    """A `mcp-toolfuzz` and a `python` that record their arguments (one JSON list a line) in
    `directory/calls`; the fake run writes each --report's file (if asked) and exits `exit_code`."""
    directory.mkdir()
    calls = directory / "calls"
    (directory / "mcp-toolfuzz").write_text(
        f"#!{sys.executable}\n"
        "import json, sys\n"
        f"open({str(calls)!r}, 'a').write(json.dumps(['mcp-toolfuzz', *sys.argv[1:]]) + '\\n')\n"
        "if sys.argv[1:2] != ['run']: sys.exit(0)\n"
        "arguments = sys.argv[1:]\n"
        f"for at, word in enumerate(arguments):\n"
        f"    if {write_reports!r} and word == '--report': open(arguments[at + 1].split(':', 1)[1], 'w').write('# mcp-toolfuzz: stand-in\\n')\n"
        f"sys.exit({exit_code})\n"
    )
    (directory / "python").write_text(f"#!{sys.executable}\nimport json, sys\nopen({str(calls)!r}, 'a').write(json.dumps(['python', *sys.argv[1:]]) + '\\n')\n")
    for stand_in in ("mcp-toolfuzz", "python"):
        (directory / stand_in).chmod(0o755)
    return calls


def _run(tmp_path: Path, inputs: dict[str, str], **stand_in: Any) -> tuple[ActionRun, list[list[str]], Runner]:
    calls = _stand_ins(tmp_path / "bin", **stand_in)
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    env = {**os.environ, "PATH": f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    runner = Runner(workspace, env, tmp_path / "summary.md", tmp_path / "runner")
    result = runner.run_action(ROOT, inputs)
    return result, [json.loads(line) for line in calls.read_text().splitlines()], runner


def _fuzz_call(calls: list[list[str]]) -> list[str]:
    (run,) = [call for call in calls if call[:2] == ["mcp-toolfuzz", "run"]]
    return run[1:]


def test_by_default_the_action_installs_its_own_checkout_and_fuzzes_the_demo_with_every_report(tmp_path: Path) -> None:
    result, calls, _ = _run(tmp_path, {})
    assert calls[0] == ["python", "-m", "pip", "install", "--disable-pip-version-check", "--quiet", str(ROOT)]
    assert _fuzz_call(calls) == ["run", *DEFAULT_REPORTS]  # no --shard, no target: the demo
    assert result.returncode == 1 and result.outputs["exit-code"] == "1"
    assert result.outputs["json-report"] == "mcp-toolfuzz-reports/mcp-toolfuzz.json"
    assert result.outputs["reports-dir"] == "mcp-toolfuzz-reports"


def test_every_input_becomes_its_option(tmp_path: Path) -> None:
    inputs = {
        "target": "python -m my_server --greeting 'two words' \"$HOME\"",
        "settings": "ci/toolfuzz.toml",
        "max-examples": "7",
        "max-time": "60",
        "reports": f"json:out.json  sarif:{tmp_path}/abs/out.sarif",
        "reports-dir": "reports",
        "shard": "2/3",
        "version": "mcp-toolfuzz==0.1.0",
        "args": "--seed 1 --header 'Authorization: Bearer s3cret' --corpus 'a corpus'",
    }
    result, calls, _ = _run(tmp_path, inputs, exit_code=0)
    assert calls[0][-1] == "mcp-toolfuzz==0.1.0"
    assert _fuzz_call(calls) == [
        "run", "--config-file", "ci/toolfuzz.toml", "--max-examples", "7", "--max-time", "60", "--shard", "2/3",
        "--report", "json:reports/out.json", "--report", f"sarif:{tmp_path}/abs/out.sarif",
        "--seed", "1", "--header", "Authorization: Bearer s3cret", "--corpus", "a corpus",
        "--", "python", "-m", "my_server", "--greeting", "two words", os.environ["HOME"],
    ]  # fmt: skip
    fuzz_log = next(step for step in result.steps if step.name == "Fuzz").stdout
    assert "Authorization: ***" in fuzz_log and "s3cret" not in fuzz_log
    assert result.returncode == 0
    assert result.outputs["sarif-report"] == f"{tmp_path}/abs/out.sarif"
    assert result.outputs["markdown-report"] == "" and result.outputs["junit-report"] == ""


def test_a_url_target(tmp_path: Path) -> None:
    _, calls, _ = _run(tmp_path, {"url": "https://staging.example.com/mcp", "reports": ""})
    assert _fuzz_call(calls) == ["run", "--url", "https://staging.example.com/mcp"]


def test_any_report_format_goes_to_the_harness_which_judges_it(tmp_path: Path) -> None:
    result, calls, _ = _run(tmp_path, {"reports": "html:page.html markdown:a.md markdown:b.md x-y:z"})
    assert _fuzz_call(calls) == [
        "run", "--report", "html:mcp-toolfuzz-reports/page.html",
        "--report", "markdown:mcp-toolfuzz-reports/a.md", "--report", "markdown:mcp-toolfuzz-reports/b.md",
        "--report", "x-y:mcp-toolfuzz-reports/z",
    ]  # fmt: skip
    assert result.outputs["markdown-report"] == "mcp-toolfuzz-reports/a.md"


def test_a_report_that_is_not_format_and_path_fails_before_the_run(tmp_path: Path) -> None:
    result, calls, _ = _run(tmp_path, {"reports": "json:report.json report.md"})
    assert [call for call in calls if call[:2] == ["mcp-toolfuzz", "run"]] == []
    assert result.returncode == 2 and "::error" in result.steps[-1].stdout


def test_a_run_that_writes_no_report_still_ends_with_its_exit_code_and_says_so(tmp_path: Path) -> None:
    result, _, runner = _run(tmp_path, {}, exit_code=2, write_reports=False)
    assert [step.name for step in result.steps] == ["Install mcp-toolfuzz", "Fuzz", "Job summary", "Exit with the run's exit code"]
    assert result.returncode == 2 and result.outputs["exit-code"] == "2"
    assert all(result.outputs[f"{kind}-report"] == "" for kind in ("json", "markdown", "junit", "sarif"))
    assert "mcp-toolfuzz exited 2 and wrote no Markdown report" in runner.summary.read_text()


def test_a_markdown_report_over_githubs_limit_is_cut_in_the_summary(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    runner = Runner(workspace, dict(os.environ), tmp_path / "summary.md", tmp_path / "runner")
    big = workspace / "big.md"
    big.write_text("| a line of a long report |\n" * 60_000)
    (summary_step,) = [step for step in ACTION["runs"]["steps"] if step.get("name") == "Job summary"]
    step = {**summary_step, "env": {"MARKDOWN": str(big), "CODE": "1"}}
    result = runner.run_workflow_steps([step], env={})[0][0]
    assert result.returncode == 0, result.stderr
    summary = runner.summary.read_text()
    assert len(summary.encode()) < 1_000_200 and summary.endswith(f"the whole of it is {big}.*\n")
    assert all(line == "| a line of a long report |" for line in summary.splitlines()[:-2])


@pytest.mark.slow
def test_the_action_fuzzes_the_demo_and_reports(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    runner = Runner(workspace, checkout_env(), tmp_path / "summary.md", tmp_path / "runner", input_overrides=INSTALLED)
    result = runner.run_action(ROOT, {"args": "--max-examples 5 --seed 1"})
    for step in result.steps:
        assert "Traceback" not in step.stderr, step.stderr
    assert [(step.name, step.returncode) for step in result.steps] == [
        ("Install mcp-toolfuzz", 0), ("Fuzz", 0), ("Job summary", 0), ("Exit with the run's exit code", 1),
    ]  # fmt: skip
    assert result.returncode == 1 and result.outputs["exit-code"] == "1"
    paths = {kind: result.outputs[f"{kind}-report"] for kind in ("json", "markdown", "junit", "sarif")}
    assert all(path and (workspace / path).is_file() for path in paths.values()), paths
    assert (workspace / result.outputs["reports-dir"]).is_dir()
    report = json.loads((workspace / paths["json"]).read_text())
    assert report["findings"], report
    summary = runner.summary.read_text()
    assert summary == (workspace / paths["markdown"]).read_text()
    assert summary.startswith("# mcp-toolfuzz: ") and "findings on" in summary
