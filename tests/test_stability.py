"""Findings tried again on fresh targets (`--tries`): stable or flaky, in every report and file.

The server is tests/servers/flaky_server.py: `steady` answers bad arguments with -32602 every time,
`shaky` every third time. With `--counter FILE` the third is counted across every process of the
test, so how many attempts reproduce `shaky` is known (five or six of sixteen), not drawn. Each try is
a fresh target and two attempts on it.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any

import pytest

from fuzz.corpus.reproductions import load as load_reproduction
from tests.conftest import mcp_toolfuzz, stdlib_server

QUICK = ("--phases", "boundary", "--no-progress", "--processes", "1")
"""The boundary phase sends each tool's bad arguments at once: both bugs, in a second."""


def flaky(tmp_path: Path, *arguments: str) -> list[str]:
    return stdlib_server("flaky_server.py", "--counter", str(tmp_path / "count"), *arguments)


def run(tmp_path: Path, *options: str, fixed: str = "") -> tuple[int, dict[str, Any], str]:
    report = tmp_path / "report.json"
    command = ("run", "--seed", "1", *QUICK, "--report", f"json:{report}", *options, "--", *flaky(tmp_path))
    done = mcp_toolfuzz(*command, cwd=tmp_path, env={"FLAKY_FIXED": fixed})
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads(report.read_text(encoding="utf-8")), done.stdout


def labels(report: dict[str, Any]) -> dict[str, dict[str, Any] | None]:
    return {finding["tool"]: finding["stability"] for finding in report["findings"]}


def test_a_bug_every_time_is_stable_and_one_every_third_time_is_flaky(tmp_path: Path) -> None:
    _, report, out = run(tmp_path, "--tries", "8", "--no-corpus")
    found = labels(report)
    assert found["steady"] == {"reproduced": 16, "attempts": 16, "stable": True}
    shaky = found["shaky"]
    assert shaky is not None and shaky["reproduced"] in (5, 6) and shaky["attempts"] == 16 and not shaky["stable"]
    assert f"flaky on shaky ({shaky['reproduced']} of 16); stable on steady (16 of 16) on fresh targets" in out
    assert "flaky: 1 flaky finding (they fail the run: --flaky fail)" in out


def test_no_tries_no_label(tmp_path: Path) -> None:
    _, report, out = run(tmp_path, "--tries", "0", "--no-corpus")
    assert set(labels(report).values()) == {None}
    assert "   tries:" not in out and "  flaky:" not in out


def test_flaky_report_lets_a_flaky_finding_pass_and_flaky_fail_does_not(tmp_path: Path) -> None:
    failed, _, _ = run(tmp_path, "--tries", "6", "--no-corpus", "--tools", "shaky")
    passed, report, out = run(tmp_path, "--tries", "6", "--no-corpus", "--tools", "shaky", "--flaky", "report")
    assert (failed, passed) == (1, 0)
    assert report["exitCode"] == 0 and report["flaky"] == "report" and not labels(report)["shaky"]["stable"]
    assert "flaky: 1 flaky finding (reported only, failing no run: --flaky report)" in out
    stable, _, _ = run(tmp_path, "--tries", "6", "--no-corpus", "--tools", "steady", "--flaky", "report")
    assert stable == 1, "a stable finding fails the run whatever --flaky says"


def test_the_reproduction_keeps_the_label_and_the_next_run_reads_it(tmp_path: Path) -> None:
    _, first, _ = run(tmp_path, "--tries", "5", "--tools", "steady")
    path = Path(first["findings"][0]["reproduction"])
    assert load_reproduction(tmp_path / path).stability is not None
    assert json.loads((tmp_path / path).read_text(encoding="utf-8"))["stability"] == {"reproduced": 10, "attempts": 10, "stable": True}
    _, second, _ = run(tmp_path, "--tries", "5", "--tools", "steady")
    (finding,) = second["findings"]
    assert not finding["firstSeen"] and finding["stability"] == {"reproduced": 10, "attempts": 10, "stable": True}
    (replayed,) = second["replayed"]
    assert replayed["status"] == "STILL FAILING" and replayed["stability"] == {"reproduced": 10, "attempts": 10, "stable": True}


def test_a_fixed_bug_is_stale_in_the_baseline_only_when_no_try_brings_it_back(tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.json"
    run(tmp_path, "--tries", "0", "--baseline", str(baseline), "--baseline-update")
    assert {entry["tool"] for entry in json.loads(baseline.read_text())["findings"]} == {"steady", "shaky"}
    # The next night: steady is fixed, shaky is not; only shaky's tools are fuzzed, so that what the
    # corpus replays (and the tries) decide. Shaky's replay comes out FIXED or STILL FAILING by the count.
    _, report, out = run(tmp_path, "--tries", "6", "--baseline", str(baseline), "--tools", "fine", fixed="steady")
    stale = {entry["tool"] for entry in report["baseline"]["stale"]}
    assert stale == {"steady"}, (stale, report["replayed"])
    by_tool = {entry["tool"]: entry for entry in report["replayed"]}
    assert by_tool["steady"]["status"] == "FIXED" and "none of 12 attempts on fresh targets brought it back" in by_tool["steady"]["detail"]
    assert by_tool["shaky"]["status"] == "STILL FAILING"
    if by_tool["shaky"]["stability"] is not None:  # it replayed FIXED first: the tries brought it back
        assert not by_tool["shaky"]["stability"]["stable"] and by_tool["shaky"]["detail"].startswith("flaky: FIXED at the first replay")
    assert "stale baseline entry (not reproduced by this run): arguments-not-validated" not in out


def test_a_corpus_reproduction_that_replays_fixed_by_luck_is_flaky_and_fails_the_run(tmp_path: Path) -> None:
    run(tmp_path, "--tries", "0", "--tools", "shaky")
    (tmp_path / "count").write_text("1")  # the replay is the count's second bad call: no bug, FIXED
    code, report, _ = run(tmp_path, "--tries", "4", "--tools", "fine")
    (replayed,) = report["replayed"]
    # The replay is bad call 2 (FIXED); the four tries' eight attempts are calls 3 to 10, and 3, 6
    # and 9 get the bug. The label counts the replay that missed it.
    assert replayed["status"] == "STILL FAILING" and replayed["stability"] == {"reproduced": 3, "attempts": 9, "stable": False}, replayed
    assert code == 1 and report["exitCode"] == 1


def test_every_report_format_carries_the_label(tmp_path: Path) -> None:
    outputs = {kind: tmp_path / f"r.{kind}" for kind in ("markdown", "junit", "sarif", "html")}
    reports = [item for kind, path in outputs.items() for item in ("--report", f"{kind}:{path}")]
    _, report, _ = run(tmp_path, "--tries", "8", "--no-corpus", *reports)
    shaky = labels(report)["shaky"]
    assert shaky is not None
    label = f"flaky ({shaky['reproduced']} of 16)"
    markdown = outputs["markdown"].read_text(encoding="utf-8")
    assert f"Tried again on fresh targets: **flaky on `shaky` ({shaky['reproduced']} of 16); stable on `steady` (16 of 16)**." in markdown
    messages = [failure.get("message", "") for failure in ElementTree.parse(outputs["junit"]).iter("failure")]
    assert any(message.endswith(f"({label} on fresh targets)") for message in messages), messages
    (result,) = json.loads(outputs["sarif"].read_text(encoding="utf-8"))["runs"][0]["results"]
    assert result["properties"]["flaky"] is True and "Tried again: flaky on shaky" in result["message"]["text"]
    html = outputs["html"].read_text(encoding="utf-8")
    assert label in html and "stable (16 of 16)" in html


@pytest.mark.parametrize("seed", ["1", "2", "3"])
def test_labels_hold_over_seeds_with_the_random_search(tmp_path: Path, seed: str) -> None:
    """The random search shrinks a flaky failure too; what it keeps is labelled as the boundary's is."""
    report = tmp_path / "r.json"
    done = mcp_toolfuzz(
        "run", "--seed", seed, "--no-progress", "--phases", "random", "--max-examples", "30", "--tries", "8", "--no-corpus",
        "--report", f"json:{report}", "--", *flaky(tmp_path),
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    found = json.loads(report.read_text(encoding="utf-8"))["findings"]
    assert found and all(finding["stability"]["stable"] is (finding["tool"] == "steady") for finding in found), found


def test_a_bug_on_each_fresh_targets_first_call_is_not_mistaken_for_stable(tmp_path: Path) -> None:
    """Each copy of the server fails its first bad call of `shaky`, then one in three: every fresh
    target's first attempt brings the bug back, its second does not."""
    report = tmp_path / "r.json"
    done = mcp_toolfuzz(
        "run", "--seed", "1", *QUICK, "--tools", "shaky", "--tries", "4", "--no-corpus", "--report", f"json:{report}",
        "--", *stdlib_server("flaky_server.py", "--from-the-first"),
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    (finding,) = json.loads(report.read_text(encoding="utf-8"))["findings"]
    assert finding["stability"] == {"reproduced": 4, "attempts": 8, "stable": False}


def test_a_server_that_allows_one_copy_at_a_time_is_tried_one_copy_at_a_time(tmp_path: Path) -> None:
    """`flock --nonblock` refuses a second copy while one runs, as a server on one SQLite file does:
    with `--processes 1` the tries start one copy after another, and every one is made."""
    report = tmp_path / "r.json"
    command = ["flock", "--nonblock", str(tmp_path / "lock"), *flaky(tmp_path)]
    done = mcp_toolfuzz(
        "run", "--seed", "1", *QUICK, "--tools", "steady", "--tries", "3", "--no-corpus", "--report", f"json:{report}", "--", *command,
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    document = json.loads(report.read_text(encoding="utf-8"))
    assert [finding["stability"] for finding in document["findings"]] == [{"reproduced": 6, "attempts": 6, "stable": True}]
    assert document["warnings"] == []


def test_a_slow_tool_is_not_taken_for_a_silent_one(tmp_path: Path) -> None:
    """`slow` answers after 2 s, past --timeout 1: the run sees no answer, the late check on a fresh
    target (three times the timeout) gets one. No request-answered finding; a warning says why."""
    report = tmp_path / "r.json"
    done = mcp_toolfuzz(
        "run", "--seed", "1", *QUICK, "--tools", "slow", "--timeout", "1", "--tries", "1", "--no-corpus", "--report", f"json:{report}",
        "--", *stdlib_server("emoji_hang_server.py"),
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    document = json.loads(report.read_text(encoding="utf-8"))
    assert document["findings"] == []
    (warning,) = document["warnings"]
    assert warning.startswith("slow answered its valid-arguments and invalid-arguments requests after 2.0 s on a fresh target, past --timeout 1")
    assert "give --timeout 3 to judge what it answers" in warning and warning in done.stdout


def test_a_request_never_answered_stays_a_finding(tmp_path: Path) -> None:
    """`hang` never answers n >= 100: the late check waits its three timeouts and keeps the finding."""
    report = tmp_path / "r.json"
    done = mcp_toolfuzz(
        "run", "--seed", "1", "--phases", "random", "--max-examples", "10", "--processes", "1", "--no-progress", "--tools", "hang",
        "--timeout", "0.5", "--tries", "1", "--no-corpus", "--report", f"json:{report}",
        "--", *stdlib_server("misbehaving_server.py"),
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    document = json.loads(report.read_text(encoding="utf-8"))
    assert {(finding["rule"], finding["tool"]) for finding in document["findings"]} == {("request-answered", "hang")}
    assert all(finding["stability"]["stable"] for finding in document["findings"]) and document["warnings"] == []
