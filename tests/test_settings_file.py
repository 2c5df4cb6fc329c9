"""The settings file (`mcp-toolfuzz.toml`, or `[tool.mcp-toolfuzz]` in pyproject.toml): found from
the working directory up, every run option under its long name, per-tool settings, `${VAR}`,
command-line options winning, and one line with exit 2 for what is wrong in it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import SERVERS, mcp_toolfuzz, mcp_toolfuzz_process, without_jsonrpc_ids

LAX = [sys.executable, str(SERVERS / "lax_server.py")]


def _run(cwd: Path, *arguments: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return mcp_toolfuzz("run", *arguments, timeout=180, cwd=cwd, env={"PYTHONPATH": str(Path(__file__).parent.parent), **(env or {})})


def _pyproject(root: Path, body: str) -> Path:
    path = root / "pyproject.toml"
    path.write_text(f'[project]\nname = "server"\n\n[tool.mcp-toolfuzz]\ncommand = {json.dumps(LAX)}\n{body}')
    return path


@pytest.mark.slow
def test_settings_are_found_upward_and_the_command_line_wins(tmp_path: Path) -> None:
    _pyproject(
        tmp_path,
        'max-examples = 50\nno-corpus = true\nseed = 4\nreport = ["json:from-settings.json"]\n'
        '[tool.mcp-toolfuzz.tools.read_lines]\narguments = { root = "${DATA_ROOT}" }\n',
    )
    work = tmp_path / "src" / "deep"
    work.mkdir(parents=True)
    run = _run(work, env={"DATA_ROOT": "/srv/data"})
    assert run.returncode == 1, run.stdout + run.stderr
    assert f"config  {tmp_path / 'pyproject.toml'} [tool.mcp-toolfuzz]" in run.stdout
    document = json.loads((work / "from-settings.json").read_text())
    assert document["seed"] == 4 and document["options"]["maxExamples"] == 50
    assert {f["tool"] for f in document["findings"]} == {"toggle", "read_lines"}, "the known root reached read_lines"
    again = _run(work, "--max-examples", "16", "--report", "json:from-command-line.json", env={"DATA_ROOT": "/srv/data"})
    assert again.returncode == 1, again.stderr
    options = json.loads((work / "from-command-line.json").read_text())["options"]
    assert options["maxExamples"] == 16
    assert (work / "from-settings.json").stat().st_mtime < (work / "from-command-line.json").stat().st_mtime
    assert "report written to from-settings.json" not in again.stdout, "a repeatable option on the command line replaces the file's"


def test_an_own_file_and_per_tool_skip_and_unavailable(tmp_path: Path) -> None:
    (tmp_path / "mcp-toolfuzz.toml").write_text(
        f'command = {json.dumps(LAX)}\nmax-examples = 16\nno-corpus = true\nreport = ["json:r.json"]\n'
        "[tools.read_lines]\nskip = true\n[tools.toggle]\nunavailable = true\n"
    )
    run = _run(tmp_path)
    document = json.loads((tmp_path / "r.json").read_text())
    assert document["excludedTools"] == ["read_lines"]
    assert document["options"]["unavailable"] == ["toggle"], run.stdout
    assert [tool["name"] for tool in document["tools"]] == [None, "toggle"]


def test_config_file_names_a_file_anywhere(tmp_path: Path) -> None:
    elsewhere = tmp_path / "ci" / "nightly.toml"
    elsewhere.parent.mkdir()
    elsewhere.write_text(f"command = {json.dumps(LAX)}\nmax-examples = 8\nno-corpus = true\n")
    run = _run(tmp_path, "--config-file", str(elsewhere))
    assert f"config  {elsewhere}" in run.stdout and run.returncode in (0, 1), run.stderr


@pytest.mark.slow
@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            "max_examples = 5\n",
            "'max_examples' is not a setting; did you mean 'max-examples'? (the settings: allow-destructive, allow-destructive-tool, argument,",
        ),
        ("colour = 5\n", "'colour' is not a setting (the settings: allow-destructive,"),
        ("no-corpus = 1\n", "no-corpus is a switch: write no-corpus = true or false"),
        ("[tool.mcp-toolfuzz.tools.toggle]\nskipped = true\n", "tools.toggle: 'skipped' is not a setting; did you mean 'skip'?"),
        ('report = ["json:${NOT_SET_ANYWHERE}"]\n', "uses ${NOT_SET_ANYWHERE}, which is not set in the environment"),
        ("max-examples = [\n", "is not valid TOML"),
        ('max-examples = "many"\n', "[tool.mcp-toolfuzz]: argument --max-examples: 'many' is not a whole number"),
    ],
)
def test_a_wrong_setting_is_one_line_and_exit_2(tmp_path: Path, body: str, expected: str) -> None:
    _pyproject(tmp_path, body)
    run = _run(tmp_path)
    assert run.returncode == 2, run.stdout + run.stderr
    assert expected in run.stderr and "Traceback" not in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1, run.stderr


@pytest.mark.slow
def test_a_pyproject_without_the_table_is_not_a_settings_file(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "unrelated"\n')
    run = _run(tmp_path, "--max-examples", "8", "--no-corpus", "--", *LAX)
    assert "config  " not in run.stdout and run.returncode in (0, 1), run.stderr


def _comparable(path: Path) -> str:
    document = json.loads(path.read_text())
    for key in ("seconds",):
        document.pop(key)
    for tool in document["tools"]:
        tool.pop("secondsSpent")
    return without_jsonrpc_ids(document)


@pytest.mark.slow
def test_a_settings_file_and_the_same_command_line_give_the_same_report(tmp_path: Path) -> None:
    """Two CLI processes, as a user runs them: reports that must agree are made in processes of
    their own (`mcp_toolfuzz`'s docstring), not in this one after whatever other tests ran in it."""
    with_file, with_flags = tmp_path / "file", tmp_path / "flags"
    with_file.mkdir()
    with_flags.mkdir()
    _pyproject(
        with_file,
        'seed = 9\nmax-examples = 16\nno-corpus = true\ntries = 0\nprocesses = 1\nreport = ["json:r.json"]\n'
        '[tool.mcp-toolfuzz.tools.read_lines]\narguments = { root = "/srv/data" }\n',
    )
    environment = {"PYTHONPATH": str(Path(__file__).parent.parent)}
    by_file = mcp_toolfuzz_process("run", cwd=with_file, env=environment)
    by_flags = mcp_toolfuzz_process(
        "run", "--seed", "9", "--max-examples", "16", "--no-corpus", "--tries", "0", "--processes", "1", "--report", "json:r.json",
        "--argument", "read_lines.root=/srv/data", "--", *LAX,
        cwd=with_flags, env=environment,
    )  # fmt: skip
    assert by_file.returncode == by_flags.returncode == 1, by_file.stderr + by_flags.stderr
    assert _comparable(with_file / "r.json") == _comparable(with_flags / "r.json")


@pytest.mark.slow
def test_per_tool_allow_destructive_and_example_count(tmp_path: Path) -> None:
    demo = [sys.executable, "-m", "fuzz.demo_server"]
    _pyproject(tmp_path, "")
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.mcp-toolfuzz]\ncommand = {json.dumps(demo)}\nseed = 2\nmax-examples = 40\nno-corpus = true\nreport = ["json:r.json"]\n'
        "[tool.mcp-toolfuzz.tools.reset]\nallow-destructive = true\n[tool.mcp-toolfuzz.tools.echo]\nmax-examples = 8\n"
    )
    run = _run(tmp_path)
    document = json.loads((tmp_path / "r.json").read_text())
    tools = {tool["name"]: tool for tool in document["tools"]}
    assert tools["reset"]["skipped"] == [] and tools["reset"]["casesSent"]["valid-arguments"] > 0, run.stdout
    assert tools["echo"]["casesSent"]["unknown-tool"] < tools["add"]["casesSent"]["unknown-tool"]
    assert document["options"]["toolMaxExamples"] == {"echo": 8} and document["options"]["destructiveAllowed"] == ["reset"]
