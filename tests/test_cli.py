"""The command line as a user meets it: the demo, reports, and bad input (one line, exit 2)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import SERVERS, mcp_toolfuzz, mcp_toolfuzz_process, one_line_exit_2, without_jsonrpc_ids


@pytest.mark.slow
def test_demo_run_reports_its_deliberate_bugs_and_writes_json(tmp_path: Path) -> None:
    """`python -m fuzz` as a process: the rest of the file runs the CLI in the test's process."""
    report = tmp_path / "out" / "report.json"
    run = mcp_toolfuzz_process("run", "--seed", "42", "--max-examples", "25", "--report", f"json:{report}")
    assert run.returncode == 1, run.stderr
    assert "seed 42 (repeat this run with --seed 42)" in run.stdout.splitlines()[0]
    assert "Traceback" not in run.stderr
    document = json.loads(report.read_text())
    assert document["seed"] == 42
    assert document["target"]["transport"] == "stdio"
    assert document["target"]["command"][-2:] == ["-m", "fuzz.demo_server"]
    assert document["protocolVersion"] == "2025-11-25"
    pairs = {(f["rule"], f["tool"]) for f in document["findings"]}
    tools = ("add", "echo", "divide", "set_volume", "lookup", "mirror", "maintenance", "reset")
    assert pairs == (
        {("unknown-tool", tool) for tool in tools}
        | {("malformed-request", tool) for tool in tools}
        | {("tool-failure", "divide"), ("arguments-not-validated", "set_volume")}
        | {("output-schema", "mirror"), ("internal-details-leak", "lookup")}
    )
    assert document["profile"] == "sep-2145"
    assert {s["case"] for t in document["tools"] if t["name"] == "reset" for s in t["skipped"]} == {"valid-arguments", "invalid-arguments"}, (
        "a tool annotated destructiveHint: true gets no argument case by default"
    )
    assert "reset valid-arguments, reset invalid-arguments: the tool may be destructive" in run.stdout
    for finding in document["findings"]:
        assert set(finding) >= {"rule", "level", "tool", "case", "request", "response", "message"}
        assert finding["request"]["method"] == "tools/call"
        assert finding["response"]["id"] == finding["request"]["id"]
        assert finding["rule"] in finding["message"] and "SEP-2145" in finding["message"]
        assert f"[{finding['level']}]" in run.stdout
    assert "Traceback" not in json.dumps([f["message"] for f in document["findings"] if f["rule"] != "internal-details-leak"])
    volume = next(f for f in document["findings"] if f["rule"] == "arguments-not-validated")
    assert volume["request"]["params"]["arguments"] == {"level": 12}
    assert volume["level"] == "SHOULD"


@pytest.mark.slow
def test_hypothesis_storage_goes_to_the_user_cache_and_holds_no_codec_table(tmp_path: Path) -> None:
    """A first run on a machine must not encode every code point (`characters(codec="utf-8")`,
    Hypothesis's default text alphabet: ~200 MiB of peak memory), nor write into the working
    directory."""
    cache = tmp_path / "cache"
    # A process of its own: in this one, Hypothesis may have built its tables already.
    run = mcp_toolfuzz_process("run", "--no-corpus", "--max-examples", "25", env={"MCP_TOOLFUZZ_CACHE": str(cache)})
    assert run.returncode == 1, run.stderr
    stored = [path.relative_to(cache).as_posix() for path in cache.rglob("*") if path.is_file()]
    assert any(name.startswith("unicode_data/") for name in stored), stored
    assert not [name for name in stored if "codec" in name], stored
    assert not (tmp_path / ".hypothesis").exists()


def test_compliant_server_exits_zero(tmp_path: Path) -> None:
    run = mcp_toolfuzz("run", "--max-examples", "5", "--", sys.executable, str(SERVERS / "reference_server.py"))
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr
    assert "no findings" in run.stdout


@pytest.mark.slow
@pytest.mark.parametrize(
    ("command", "expected"),
    [
        (["no-such-server-binary"], "command 'no-such-server-binary' not found"),
        (
            [sys.executable, "-c", "import sys; sys.stderr.write('missing API key\\n'); sys.exit(3)"],
            "exited (code 3) before answering server/discover; its stderr ended with: missing API key",
        ),
        ([sys.executable, "-c", "import time; time.sleep(60)"], "did not answer server/discover nor initialize within 1 s"),
        ([sys.executable, "-c", "print('Listening on port 8080'); import time; time.sleep(60)"], "its stdout carried: Listening on port 8080"),
        (["cat"], "answered initialize with an error"),
    ],
)
def test_a_target_that_cannot_be_fuzzed_is_one_line_and_exit_2(command: list[str], expected: str) -> None:
    # What a target printed is seen only if it came within --startup-timeout: a Python target
    # started twice (two worker processes) on a loaded machine can take longer than 1 s to print.
    startup_timeout = "5" if "stdout carried" in expected else "1"
    line = one_line_exit_2(mcp_toolfuzz("run", "--startup-timeout", startup_timeout, "--", *command))
    assert expected in line


def _listing_server(path: Path, tools: list[dict[str, object]]) -> Path:
    """A minimal stdio server that lists `tools` and refuses every call with a tool error."""
    path.write_text(
        "import json, sys\n"
        f"TOOLS = {json.dumps(tools)!r}\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if 'id' not in m: continue\n"
        "    r = {'protocolVersion': '2025-06-18', 'capabilities': {}, 'serverInfo': {'name': 'x', 'version': '1'}}\n"
        "    if m['method'] == 'tools/list': r = {'tools': json.loads(TOOLS)}\n"
        "    if m['method'] == 'tools/call': r = {'content': [{'type': 'text', 'text': 'no'}], 'isError': True}\n"
        "    print(json.dumps({'jsonrpc': '2.0', 'id': m['id'], 'result': r}), flush=True)\n"
    )
    return path


def test_a_tool_schema_that_is_not_json_schema_is_one_line_and_exit_2(tmp_path: Path) -> None:
    server = _listing_server(tmp_path / "bad_schema.py", [{"name": "broken", "inputSchema": {"type": "objekt"}}])
    line = one_line_exit_2(mcp_toolfuzz("run", "--", sys.executable, str(server)))
    assert "tool 'broken' inputSchema is not valid" in line


def test_an_unsatisfiable_schema_is_reported_once_and_the_other_kinds_still_run(tmp_path: Path) -> None:
    impossible = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 5, "maximum": 1}}, "required": ["n"]}
    server = _listing_server(tmp_path / "impossible.py", [{"name": "impossible", "annotations": {"readOnlyHint": True}, "inputSchema": impossible}])
    report = tmp_path / "r.json"
    run = mcp_toolfuzz("run", "--max-examples", "5", "--no-corpus", "--report", f"json:{report}", "--", sys.executable, str(server))
    assert "Traceback" not in run.stderr
    (tool,) = [t for t in json.loads(report.read_text())["tools"] if t["name"] == "impossible"]
    assert [s["case"] for s in tool["skipped"]] == ["valid-arguments"]
    assert "accepts no value" in tool["skipped"][0]["reason"]
    assert tool["casesSent"]["unknown-tool"] > 0 and tool["casesSent"]["malformed-request"] > 0
    assert run.stdout.count("accepts no value") == 1


@pytest.mark.parametrize(
    "arguments",
    [["run", "--report", "xml:out.xml"], ["run", "--max-examples", "0"], ["run", "--timeout", "-1"], ["run", "--seed", "abc"]],
)
def test_bad_options_exit_2(arguments: list[str]) -> None:
    run = mcp_toolfuzz(*arguments)
    assert run.returncode == 2
    assert "Traceback" not in run.stderr
    assert "error:" in run.stderr


def test_nothing_after_the_separator_is_one_line_and_exit_2() -> None:
    line = one_line_exit_2(mcp_toolfuzz("run", "--"))
    assert "nothing after `--`" in line


def test_ctrl_c_stops_at_once_keeps_findings_and_leaves_no_process(tmp_path: Path) -> None:
    marker = f"marker-{uuid.uuid4().hex}"
    report = tmp_path / "report.json"
    process = subprocess.Popen(
        # (the last tool's long search: the run is still going when the signal comes)
        [
            sys.executable,
            "-m",
            "fuzz",
            "run",
            "--seed",
            "3",
            "--max-examples",
            "200",
            "--tool-max-examples",
            "mirror=100000",
            "--report",
            f"json:{report}",
            "--",
            sys.executable,
            str(SERVERS / "reference_server.py"),
            "--bug",
            "unknown-tool",
            "--label",
            marker,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    for line in process.stdout:
        if line.startswith("  book "):
            break
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert "Traceback" not in out + err
    assert "The run stopped early: interrupted (Ctrl-C)" in out
    document = json.loads(report.read_text())
    assert document["stoppedEarly"] == "interrupted (Ctrl-C)"
    assert ("unknown-tool", "book") in {(f["rule"], f["tool"]) for f in document["findings"]}
    assert sum(sum(tool["casesSent"].values()) for tool in document["tools"]) < 100000, "the run went on to the end"
    assert process.returncode == 1
    assert subprocess.run(["pgrep", "-f", marker], capture_output=True).returncode == 1, "the target was left running"


_INTERRUPTED_IN_A_GC_CALLBACK = textwrap.dedent("""
    import gc, signal, sys
    if sys.argv[1] == "kept":
        from fuzz.faces.console import interrupts_kept
        interrupts_kept()
    handled = []
    signal.signal(signal.SIGINT, lambda *_: handled.append(1))

    def callback(phase, info):
        if phase == "start":
            raise KeyboardInterrupt  # what trio's SIGINT handler raises where the main thread is

    gc.callbacks.insert(0, callback)
    gc.collect()
    gc.callbacks.remove(callback)
    print(len(handled))
""")


@pytest.mark.parametrize("kept", [True, False])
def test_a_ctrl_c_that_lands_in_a_gc_callback_is_delivered_again_not_printed_and_lost(kept: bool) -> None:
    """CPython can only report an exception raised in a garbage-collector callback ("Exception
    ignored in", a traceback on stderr): a Ctrl-C landing in Hypothesis's printed one in the
    run above, once in a CI run. The CLI trips SIGINT again instead (`interrupts_kept`); without
    it, the interrupt is printed and lost."""
    run = subprocess.run([sys.executable, "-c", _INTERRUPTED_IN_A_GC_CALLBACK, "kept" if kept else "not"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    if kept:
        assert (run.stdout.strip(), run.stderr) == ("1", "")
    else:
        assert run.stdout.strip() == "0" and "Exception ignored" in run.stderr


_INTERRUPTED_IN_A_TRIO_RUN = textwrap.dedent("""
    import gc, trio
    from fuzz.faces.console import interrupts_kept
    interrupts_kept()

    def callback(phase, info):
        if phase == "start":
            raise KeyboardInterrupt  # what trio's SIGINT handler raises where the main thread is

    async def main():
        gc.callbacks.insert(0, callback)
        gc.collect()
        gc.callbacks.remove(callback)
        await trio.sleep(30)

    try:
        trio.run(main)
    except KeyboardInterrupt:
        print("interrupted")
""")


def test_a_ctrl_c_delivered_again_interrupts_the_trio_run_it_landed_in() -> None:
    """Tripped again, SIGINT's handler runs at once, inside the hook. In a run, that is trio's
    handler, which raises KeyboardInterrupt where it finds the main thread: unprotected, inside the
    hook, where Python dropped it, and the run went on for minutes after a Ctrl-C (once in CI).
    The hook is protected: trio hands the interrupt to the run instead."""
    run = subprocess.run([sys.executable, "-c", _INTERRUPTED_IN_A_TRIO_RUN], capture_output=True, text=True, timeout=60)
    assert (run.stdout.strip(), run.stderr) == ("interrupted", "")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        (["--rules", "unknown-tool,no-such-rule"], "no rule with id 'no-such-rule'; the rules are: unknown-tool,"),
        (["--tools", "add,nope"], "--tools names 'nope', which the target does not list (it lists: add,"),
        (["--mirror-tool", "add"], "--mirror-tool 'add': the tool declares no outputSchema"),
        (["--mirror-tool", "nope"], "--mirror-tool 'nope': the target does not list such a tool"),
    ],
)
def test_a_selection_that_cannot_be_made_is_one_line_and_exit_2(arguments: list[str], expected: str) -> None:
    line = one_line_exit_2(mcp_toolfuzz("run", *arguments, "--max-examples", "1"))
    assert expected in line


def test_allow_destructive_and_read_only_exclude_each_other() -> None:
    run = mcp_toolfuzz("run", "--allow-destructive", "--read-only")
    assert run.returncode == 2 and "not allowed with argument" in run.stderr


def test_profile_is_named_in_both_reports(tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    run = mcp_toolfuzz("run", "--profile", "2025-11-25", "--max-examples", "3", "--tools", "add", "--report", f"json:{report}")
    assert "profile 2025-11-25" in run.stdout
    document = json.loads(report.read_text())
    assert document["profile"] == "2025-11-25"
    assert {f["rule"] for f in document["findings"]} >= {"malformed-request"}
    assert "unknown-tool" not in {f["rule"] for f in document["findings"]}, "the demo's -32602 for unknown tools is what 2025-11-25 asks"


def _kinds_sent(document: dict[str, object]) -> dict[str | None, set[str]]:
    return {tool["name"]: {kind for kind, count in tool["casesSent"].items() if count} for tool in document["tools"]}  # type: ignore[attr-defined,index]


def test_rules_chosen_send_only_the_case_kinds_they_are_judged_on(tmp_path: Path) -> None:
    """`--rules unknown-tool` sends unknown-tool cases (and sequences), no envelope; a rule judged on
    every answer (`request-answered`) brings every kind back."""
    narrow, wide = tmp_path / "narrow.json", tmp_path / "wide.json"
    common = ("run", "--no-corpus", "--seed", "2", "--max-examples", "3", "--tools", "add,echo", "--phases", "boundary,random")
    mcp_toolfuzz(*common, "--rules", "unknown-tool", "--report", f"json:{narrow}")
    mcp_toolfuzz(*common, "--rules", "unknown-tool,request-answered", "--report", f"json:{wide}")
    assert _kinds_sent(json.loads(narrow.read_text())) == {"add": {"unknown-tool"}, "echo": {"unknown-tool"}}
    wide_kinds = _kinds_sent(json.loads(wide.read_text()))
    assert wide_kinds[None] == {"malformed-request"}, "the envelope is back"
    assert wide_kinds["add"] >= {"valid-arguments", "invalid-arguments", "unknown-tool", "malformed-request"}, wide_kinds


@pytest.mark.slow
def test_the_cli_run_in_the_tests_process_reports_what_a_process_of_its_own_reports(tmp_path: Path) -> None:
    """`conftest.mcp_toolfuzz`, which most tests run the CLI with, against `python -m fuzz`: the same
    seed gives the same report (timings and JSON-RPC ids aside), the same output, the same exit
    code. Its run sees no constant of the test modules, which Hypothesis would mix into its draws.
    Both try their findings again (`--tries 2`) in two processes (`--processes 2`), which
    `mcp_toolfuzz` leaves out unless asked."""

    def reported(run: Callable[..., subprocess.CompletedProcess[str]], name: str) -> tuple[int, str, str, str]:
        report = tmp_path / f"{name}.json"
        done = run(
            "run", "--seed", "8", "--max-examples", "12", "--no-corpus", "--no-progress", "--tries", "2", "--processes", "2", "--report", f"json:{report}"
        )
        document = json.loads(report.read_text())
        document.pop("seconds")
        for tool in document["tools"]:
            tool.pop("secondsSpent")
        summary = [line for line in done.stdout.splitlines() if " · seed 8 · " not in line and "report written" not in line]
        return done.returncode, done.stderr, without_jsonrpc_ids(document), without_jsonrpc_ids(summary)

    assert reported(mcp_toolfuzz, "here") == reported(mcp_toolfuzz_process, "apart")
