"""What the server changed, told by the CLI: version 1 then version 2 of a server on one corpus
(`tests/servers/versioned_server.py`), every change in the terminal, JSON, Markdown and HTML
reports, `--fail-on-breaking`, a reproduction of a removed tool reported gone, and a corrupt kept
list a warning."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from fuzz.corpus import tool_lists
from tests.conftest import SERVERS, made_once, mcp_toolfuzz
from tests.test_html_report import by_id, parsed, rows

SERVER = (sys.executable, str(SERVERS / "versioned_server.py"))
RUN = ("run", "--max-examples", "5", "--phases", "boundary", "--allow-destructive", "--no-progress", "--seed", "1", "--processes", "1")
REPORTS = ("--report", "json:v2.json", "--report", "markdown:v2.md", "--report", "html:v2.html")

EXPECTED = {
    ("long_job", "task-support-changed", True),
    ("old_name", "tool-renamed", True),
    ("report", "output-schema-changed", True),
    ("retired", "tool-removed", True),
    ("search", "additional-properties-closed", True),
    ("search", "pattern-added", True),
    ("search", "required-parameter-added", True),
    ("search", "parameter-removed", True),
    ("search", "range-narrowed", True),  # limit's maximum, and tags' items' minLength
    ("search", "type-narrowed", True),  # limit: number -> integer, q: string or null -> string
    ("search", "enum-value-removed", True),
    ("search", "became-required", True),
    ("stats", "output-schema-added", True),
    ("summary", "output-schema-removed", True),
    ("added", "tool-added", False),
    ("search", "parameter-added", False),
    ("search", "became-optional", False),
    ("search", "enum-value-added", False),
    ("search", "range-widened", False),
    ("stats", "annotation-changed", False),
}
"""Every change from version 1 to version 2 (the server's docstring), and whether it breaks clients."""


def version(number: int) -> dict[str, str]:
    return {"VERSIONED_SERVER_VERSION": str(number)}


def _make(directory: Path) -> None:
    first = mcp_toolfuzz(*RUN, "--", *SERVER, cwd=directory, env=version(1))
    (directory / "v1.out").write_text(f"{first.returncode}\n{first.stdout}{first.stderr}")
    shutil.copytree(directory / "corpus", directory / "corpus-v1")
    second = mcp_toolfuzz(*RUN, *REPORTS, "--", *SERVER, cwd=directory, env=version(2))
    (directory / "v2.out").write_text(f"{second.returncode}\n{second.stdout}{second.stderr}")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return made_once(tmp_path_factory, "versioned-runs", _make)


def exit_and_output(path: Path) -> tuple[int, str]:
    code, output = path.read_text().split("\n", 1)
    return int(code), output


def changes(runs: Path) -> list[dict[str, Any]]:
    changed: list[dict[str, Any]] = json.loads((runs / "v2.json").read_text())["toolChanges"]
    return changed


def test_the_first_run_records_the_list_and_reports_no_change(runs: Path) -> None:
    code, output = exit_and_output(runs / "v1.out")
    assert code == 1, output  # `retired` accepts anything: its reproduction is kept
    assert "tool list: recorded, the first kept for this target" in output
    assert "Tool list:" not in output
    [kept] = (runs / "corpus-v1").glob(f"*/{tool_lists.FILE_NAME}")
    stored = tool_lists.load(kept)
    assert stored is not None and {tool["name"] for tool in stored.tools} >= {"retired", "old_name"}
    assert stored.server_info["version"] == "1.0.0"


def test_every_change_is_in_the_json_report_each_breaking_one_marked(runs: Path) -> None:
    found = changes(runs)
    assert {(change["tool"], change["kind"], change["breaking"]) for change in found} == EXPECTED
    assert len(found) == len(EXPECTED) + 2  # two of each of range-narrowed and type-narrowed
    document = json.loads((runs / "v2.json").read_text())
    assert document["toolListSince"] and document["toolListRecorded"] is True and document["failOnBreaking"] is False
    assert document["delta"].endswith(f" {len(found)} schema changes since {document['nights'][0]['date']}"), "the night's one-line delta counts them"
    assert document["nights"][-1]["toolChanges"] == len(found) and document["nights"][-1]["breakingChanges"] == sum(c["breaking"] for c in found)


def test_every_change_is_in_the_terminal_breaking_ones_first(runs: Path) -> None:
    code, output = exit_and_output(runs / "v2.out")
    assert code == 0, output  # version 2 is compliant: without --fail-on-breaking the changes fail nothing
    found = changes(runs)
    breaking = sum(change["breaking"] for change in found)
    assert f"Tool list: {len(found)} changes since " in output and f"({breaking} breaking)" in output
    lines = [f"  {'BREAKING' if change['breaking'] else 'compatible':<10} {change['tool']}: {change['detail']}" for change in found]
    places = [output.index(line + "\n") for line in lines]
    assert max(place for place, change in zip(places, found, strict=True) if change["breaking"]) < min(
        place for place, change in zip(places, found, strict=True) if not change["breaking"]
    )


def test_every_change_is_in_the_markdown_and_html_reports(runs: Path) -> None:
    found = changes(runs)
    markdown = (runs / "v2.md").read_text()
    assert "## Tool list" in markdown
    table = [line for line in markdown.splitlines() if line.startswith("| **breaking** |") or line.startswith("| compatible |")]
    assert len(table) == len(found)
    assert [line.startswith("| **breaking**") for line in table] == sorted((change["breaking"] for change in found), reverse=True)
    for change in found:
        mark = "**breaking**" if change["breaking"] else "compatible"
        assert any(line.startswith(f"| {mark} | `{change['tool']}` |") and f"`{change['kind']}`" in line for line in table), change
    html = rows(by_id(parsed((runs / "v2.html").read_text()), "tool-list").find(".//table"))  # type: ignore[arg-type]
    expected = [["BREAKING" if change["breaking"] else "compatible", change["tool"], change["detail"], change["kind"]] for change in found]
    assert sorted(html) == sorted(expected)
    assert [row[0] for row in html] == sorted((row[0] for row in html), key=lambda mark: mark != "BREAKING")


def test_a_reproduction_of_a_removed_tool_is_said_gone_not_replayed_into_an_error(runs: Path) -> None:
    replayed = json.loads((runs / "v2.json").read_text())["replayed"]
    assert [(entry["tool"], entry["status"]) for entry in replayed] == [("retired", "TOOL GONE")]
    assert "no longer listed" in replayed[0]["detail"]
    _, output = exit_and_output(runs / "v2.out")
    assert "corpus  TOOL GONE" in output and "1 of tools no longer listed (not replayed)" in output


def test_fail_on_breaking_fails_the_run_on_a_breaking_change_and_not_on_none(runs: Path, tmp_path: Path) -> None:
    shutil.copytree(runs / "corpus-v1", tmp_path / "corpus")
    failing = mcp_toolfuzz(*RUN, "--fail-on-breaking", "--", *SERVER, cwd=tmp_path, env=version(2))
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert "breaking) (--fail-on-breaking: the run fails)" in failing.stdout
    again = mcp_toolfuzz(*RUN, "--fail-on-breaking", "--", *SERVER, cwd=tmp_path, env=version(2))
    assert again.returncode == 0, again.stdout + again.stderr
    assert "tool list: unchanged since " in again.stdout


def test_a_corrupt_kept_list_is_a_warning_and_is_replaced(runs: Path, tmp_path: Path) -> None:
    shutil.copytree(runs / "corpus-v1", tmp_path / "corpus")
    [kept] = (tmp_path / "corpus").glob(f"*/{tool_lists.FILE_NAME}")
    kept.write_text("{not json")
    run = mcp_toolfuzz(*RUN, "--fail-on-breaking", "--", *SERVER, cwd=tmp_path, env=version(2))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Traceback" not in run.stderr
    assert "warning the kept tool list is unusable, so no change is reported and this run's replaces it: " in run.stdout
    stored = tool_lists.load(kept)
    assert stored is not None and stored.server_info["version"] == "2.0.0"


def test_no_corpus_keeps_no_list(tmp_path: Path) -> None:
    run = mcp_toolfuzz(*RUN, "--no-corpus", "--", *SERVER, cwd=tmp_path, env=version(2))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "tool list" not in run.stdout.lower()
    assert not (tmp_path / "corpus").exists()
