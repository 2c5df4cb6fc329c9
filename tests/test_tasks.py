"""Task-augmented tool calls: 2025-11-25 tasks, the 2026-07-28 extension, and the task phase.

A server of our own, in either era, is seeded with one bug at a time (tests/servers/tasks_server.py).
The real SDK servers: the TypeScript SDK 1.32.2's experimental tasks, the Python SDK 1.30.0's, and
FastMCP 4.2.3 with fastmcp-tasks 4.1.4 for the 2026-07-28 extension; the last two are packages the
test extra cannot hold, which tests/sdk_envs.py installs beside it. What each SDK server answers was probed by
hand with a plain JSON-RPC client first; the expectations below are those answers.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from conftest import SERVERS, TYPESCRIPT_SERVER, fuzz, mcp_toolfuzz, rule_tool_pairs, stdlib_server
from sdk_envs import fastmcp_tasks_path, sdk1_path

from fuzz.corpus.replay import replay_files
from fuzz.engine.options import RunPhase
from fuzz.engine.plan import DestructiveMode, Selection
from fuzz.judging.answers import AnswerClass
from fuzz.judging.findings import RunResult
from fuzz.judging.oracle import Criteria, assess
from fuzz.judging.profiles import published
from fuzz.judging.rules import RULES, Revisions
from fuzz.wire.replies import Answered, Exchange
from fuzz.wire.target import StdioTarget
from strategies import Case, CaseKind
from strategies.cases import TASK_METHODS
from strategies.envelopes import call_params
from strategies.meta import CLIENT_CAPABILITIES_KEY, PROTOCOL_VERSION_KEY, TASKS_EXTENSION, sent_as_task

TASK_PHASE = frozenset({RunPhase.TASKS})


def tasks_server(bug: str | None = None, era: str = "2025-11-25") -> StdioTarget:
    return StdioTarget(tuple(stdlib_server("tasks_server.py", "--era", era, *(("--bug", bug) if bug else ()))))


def test_a_compliant_task_server_has_no_finding_and_each_required_tool_s_body_is_reached() -> None:
    result = fuzz(tasks_server(), max_examples=10)
    assert result.findings == ()
    assert result.tasks == "2025-11-25"
    by_tool = {summary.tool: summary for summary in result.tools}
    assert by_tool["slow"].answers[CaseKind.VALID_ARGUMENTS].get("success", 0) > 0, by_tool["slow"].answers
    assert by_tool["slow"].answers[CaseKind.CALL_WITHOUT_TASK] == {"protocol-error": by_tool["slow"].cases_sent[CaseKind.CALL_WITHOUT_TASK]}
    assert CaseKind.TASK_FOR_FORBIDDEN in by_tool["plain"].cases_sent
    assert CaseKind.CALL_WITHOUT_TASK not in by_tool["maybe"].cases_sent


def _caught(bug: str, rule: str, tools: set[str], era: str = "2025-11-25") -> None:
    pairs = rule_tool_pairs(fuzz(tasks_server(bug, era), max_examples=10))
    assert {(rule, tool) for tool in tools} <= pairs, pairs
    assert {found for found, _ in pairs} <= {rule, "tool-failure", "invalid-arguments"}, pairs


def test_task_required_bug_is_caught() -> None:
    _caught("required-runs", "task-required", {"slow"})


def test_task_forbidden_bug_is_caught() -> None:
    _caught("forbidden-runs", "task-forbidden", {"plain"})


def test_task_related_meta_bug_is_caught() -> None:
    _caught("result-without-meta", "task-related-meta", {"maybe", "slow", "maybe_fails", "slow_fails"})


def test_task_failed_on_tool_error_bug_is_caught() -> None:
    _caught("completed-on-error", "task-failed-on-tool-error", {"maybe_fails", "slow_fails"})


def test_task_lifecycle_bug_is_caught() -> None:
    _caught("poll-error", "task-lifecycle", {"maybe", "slow"})


def test_task_completed_on_tool_error_bug_is_caught() -> None:
    _caught("failed-on-error", "task-completed-on-tool-error", {"maybe_fails", "slow_fails"}, era="2026-07-28")


@pytest.mark.parametrize(
    ("bug", "rule", "tools"),
    [
        ("failed-result-meta-only", "response-well-formed", {"maybe_fails", "slow_fails"}),
        ("task-args-error", "invalid-arguments", {"maybe", "slow"}),
        ("required-accepts-false", "arguments-not-validated", {"slow"}),
    ],
)
def test_a_task_s_final_answer_is_judged_by_the_rules_of_a_plain_call(bug: str, rule: str, tools: set[str]) -> None:
    _caught(bug, rule, tools)


def _caught_by_the_task_phase(bug: str, rule: str) -> RunResult:
    result = fuzz(tasks_server(bug), phases=TASK_PHASE)
    assert {finding.rule.id for finding in result.findings} == {rule}, [finding.message for finding in result.findings]
    assert all(finding.tool == TASK_METHODS and finding.case is CaseKind.TASK_METHOD for finding in result.findings)
    return result


def test_task_unknown_id_bug_is_caught() -> None:
    _caught_by_the_task_phase("unknown-id", "task-unknown-id")


def test_task_cancel_terminal_bug_is_caught() -> None:
    result = fuzz(tasks_server("cancel-ended"), phases=TASK_PHASE)
    assert {finding.rule.id for finding in result.findings} == {"task-cancel-terminal", "task-terminal-kept"}


def test_task_terminal_kept_bug_is_caught() -> None:
    (finding,) = _caught_by_the_task_phase("uncancel", "task-terminal-kept").findings
    assert finding.request["method"] == "tasks/get" and finding.response is not None
    task_id = finding.request["params"]["taskId"]
    cancels = [step for step in finding.steps if step.request["method"] == "tasks/cancel" and step.request["params"]["taskId"] == task_id]
    assert cancels and cancels[-1].response is not None and cancels[-1].response["result"]["status"] == "cancelled"
    assert finding.uses and finding.uses[0].argument == "taskId"


def test_task_listed_bug_is_caught() -> None:
    _caught_by_the_task_phase("list-empty", "task-listed")


def test_a_server_that_dies_once_a_cancelled_task_s_work_ends_is_target_alive() -> None:
    _caught_by_the_task_phase("dies-after-cancel", "target-alive")


def test_a_task_phase_finding_replays_its_steps_with_the_ids_of_its_own_calls(tmp_path: Path) -> None:
    result = fuzz(tasks_server("uncancel"), phases=TASK_PHASE, corpus=tmp_path / "corpus")
    (finding,) = result.findings
    assert finding.reproduction is not None
    (still,) = replay_files([Path(finding.reproduction)], timeout=5.0)
    assert still.status.value == "STILL FAILING", still.detail
    (fixed,) = replay_files([Path(finding.reproduction)], timeout=5.0, override=tasks_server())
    assert fixed.status.value == "FIXED", fixed.detail


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
def test_a_compliant_task_server_of_either_era_has_no_finding(era: str) -> None:
    result = fuzz(tasks_server(era=era), max_examples=10, phases=frozenset({RunPhase.BOUNDARY, RunPhase.RANDOM, RunPhase.TASKS}))
    tasks = next(summary for summary in result.tools if summary.tool == TASK_METHODS)
    assert tasks.answers[CaseKind.TASK_METHOD].get("success", 0) >= 3, tasks.answers
    assert result.findings == (), [finding.message for finding in result.findings]
    assert result.tasks == era
    slow = next(summary for summary in result.tools if summary.tool == "slow")
    assert slow.answers[CaseKind.VALID_ARGUMENTS].get("success", 0) > 0, slow.answers


def test_a_task_finding_shows_the_lifecycle_and_replays_still_failing(tmp_path: Path) -> None:
    result = fuzz(tasks_server("result-without-meta"), max_examples=5, corpus=tmp_path / "corpus")
    finding = next(f for f in result.findings if f.rule.id == "task-related-meta" and f.tool == "slow")
    assert sent_as_task(finding.request)
    assert "tasks/result" in finding.message and finding.response is not None
    assert finding.reproduction is not None
    (still,) = replay_files([Path(finding.reproduction)], timeout=5.0)
    assert still.status.value == "STILL FAILING", still.detail
    (fixed,) = replay_files([Path(finding.reproduction)], timeout=5.0, override=tasks_server())
    assert fixed.status.value == "FIXED", fixed.detail


def _typescript_tasks() -> StdioTarget:
    node = shutil.which("node")
    if node is None or not (TYPESCRIPT_SERVER / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
        pytest.fail("the TypeScript SDK tests need node and `npm ci --prefix tests/servers/typescript`")
    return StdioTarget((node, str(TYPESCRIPT_SERVER / "server-tasks.mjs")))


@pytest.mark.slow
def test_the_typescript_sdk_s_task_tools_are_reached_and_judged_as_probed_by_hand() -> None:
    """Probed: a required tool called plainly answers isError (MUST be -32601); a forbidden tool
    as a task, invalid arguments and an unknown tool in a task answer -32602; the lifecycle itself
    (CreateTaskResult, tasks/get, tasks/result with its related-task _meta) is compliant."""
    result = fuzz(_typescript_tasks(), max_examples=8, phases=frozenset({RunPhase.BOUNDARY, RunPhase.RANDOM, RunPhase.TASKS}))
    pairs = rule_tool_pairs(result)
    assert not any(tool == TASK_METHODS for _, tool in pairs), pairs
    assert {("task-required", "slow"), ("task-required", "slow_fails"), ("task-forbidden", "plain"), ("invalid-arguments", "slow")} <= pairs, pairs
    assert not {rule for rule, _ in pairs} & {"task-lifecycle", "task-related-meta", "tool-failure"}, pairs
    slow = next(summary for summary in result.tools if summary.tool == "slow")
    assert slow.answers[CaseKind.VALID_ARGUMENTS].get("success", 0) > 0, slow.answers


@pytest.mark.slow
def test_the_python_sdk_1_s_task_tools_are_reached_and_judged_as_probed_by_hand(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Probed (mcp 1.30.0): a required tool called plainly and a forbidden one as a task answer
    isError results; a failed task's tasks/result is its related-task _meta alone; once a task
    cancelled while working ends its work, the server answers nothing more."""
    target = StdioTarget((sys.executable, str(SERVERS / "python_sdk1_tasks.py")), env=(("PYTHONPATH", str(sdk1_path(tmp_path_factory))),))
    result = fuzz(target, max_examples=8, phases=frozenset({RunPhase.BOUNDARY, RunPhase.RANDOM, RunPhase.TASKS}), timeout=2.0)
    pairs = rule_tool_pairs(result)
    assert {("task-required", "slow"), ("task-forbidden", "plain"), ("response-well-formed", "maybe_fails"), ("target-alive", TASK_METHODS)} <= pairs, pairs
    slow = next(summary for summary in result.tools if summary.tool == "slow")
    assert slow.answers[CaseKind.VALID_ARGUMENTS].get("success", 0) > 0, slow.answers


@pytest.mark.slow
def test_fastmcp_s_2026_07_28_tasks_are_reached_and_judged_without_a_false_finding(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Probed: a required tool called without the extension answers -32021 naming it (SEP-2663's
    answer); with it, a task whose terminal tasks/get carries the result, a tool error `completed`;
    an unknown task id -32602. The one task-free finding it earns is its own: `{"n": false}` is
    coerced to 0 (arguments-not-validated)."""
    packages = fastmcp_tasks_path(tmp_path_factory)
    target = StdioTarget((sys.executable, str(SERVERS / "fastmcp_tasks_server.py")), env=(("PYTHONPATH", str(packages)),))
    result = fuzz(target, max_examples=6, protocol_version="2026-07-28", phases=frozenset({RunPhase.BOUNDARY, RunPhase.RANDOM, RunPhase.TASKS}))
    assert result.tasks == "2026-07-28"
    rules = {finding.rule.id for finding in result.findings}
    assert not rules & {rule.id for rule in RULES if rule.revisions in (Revisions.TASKS, Revisions.TASKS_EXTENSION)}, rules
    assert not rules & {"tool-failure", "invalid-arguments"}, [finding.message for finding in result.findings]
    slow = next(summary for summary in result.tools if summary.tool == "slow")
    assert slow.answers[CaseKind.VALID_ARGUMENTS].get("success", 0) > 0, slow.answers
    tasks = next(summary for summary in result.tools if summary.tool == TASK_METHODS)
    assert tasks.answers[CaseKind.TASK_METHOD].get("success", 0) >= 4, tasks.answers


@pytest.mark.slow
def test_a_required_tool_on_a_server_that_takes_no_tasks_is_skipped_saying_why(tmp_path_factory: pytest.TempPathFactory) -> None:
    """FastMCP under 2025-11-25 lists `slow` as taskSupport required but declares no tasks
    capability (probed: its plain calls get -32021). No call may run the tool: its argument cases
    are skipped, saying so, and nothing is judged vacuously or falsely of it."""
    packages = fastmcp_tasks_path(tmp_path_factory)
    target = StdioTarget((sys.executable, str(SERVERS / "fastmcp_tasks_server.py")), env=(("PYTHONPATH", str(packages)),))
    chosen = Selection(tools=frozenset({"slow", "maybe"}), destructive=DestructiveMode.ALLOW)
    result = fuzz(target, max_examples=4, protocol_version="2025-11-25", selection=chosen)
    assert result.tasks == "none"
    slow = next(summary for summary in result.tools if summary.tool == "slow")
    assert {skip.case for skip in slow.skips} == {CaseKind.VALID_ARGUMENTS, CaseKind.INVALID_ARGUMENTS}
    assert all("taskSupport required" in skip.reason for skip in slow.skips)
    assert not {finding.rule.id for finding in slow.findings} & {"tool-failure", "invalid-arguments", "arguments-not-validated"}
    maybe = next(summary for summary in result.tools if summary.tool == "maybe")
    assert maybe.answers[CaseKind.VALID_ARGUMENTS].get("success", 0) > 0


def _stateless_call(meta_capabilities: dict[str, object]) -> Case:
    meta = {PROTOCOL_VERSION_KEY: "2026-07-28", CLIENT_CAPABILITIES_KEY: meta_capabilities}
    return Case(CaseKind.VALID_ARGUMENTS, "deploy", {**call_params("deploy", {"n": 1}), "_meta": meta}, "valid arguments", own_meta=True)


def _answered(case: Case, error: dict[str, object]) -> Exchange:
    return Exchange(case.message(1), Answered({"jsonrpc": "2.0", "id": 1, "error": error}, 0.01))


@pytest.mark.parametrize("profile", ["sep-2145", "published"])
def test_minus_32021_naming_the_undeclared_tasks_extension_is_the_right_answer_under_2026_07_28(profile: str) -> None:
    criteria = Criteria(profile=published("2026-07-28") if profile == "published" else Criteria().profile, protocol_version="2026-07-28")
    required = {"code": -32021, "message": "Missing required client capability", "data": {"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}}}
    plain = _stateless_call({})
    observation, violation = assess(plain, _answered(plain, required), None, criteria)
    assert observation.answer is AnswerClass.PROTOCOL_ERROR and violation is None
    declared = _stateless_call({"extensions": {TASKS_EXTENSION: {}}})
    assert assess(declared, _answered(declared, required), None, criteria)[1] is not None, "the extension was declared: -32021 is wrong"
    no_data = _stateless_call({})
    assert assess(no_data, _answered(no_data, {"code": -32021, "message": "Missing required client capability"}), None, criteria)[1] is not None


def test_a_case_sent_as_a_task_carries_the_revision_s_marker_and_is_rebuilt_from_its_request() -> None:
    case = Case(CaseKind.VALID_ARGUMENTS, "slow", call_params("slow", {"n": 1}), "valid arguments", as_task=True)
    handshake = case.message(3)
    assert handshake["params"]["task"] == {"ttl": 60000} and sent_as_task(handshake)
    stateless = case.message(4, meta={PROTOCOL_VERSION_KEY: "2026-07-28", CLIENT_CAPABILITIES_KEY: {}})
    assert stateless["params"]["_meta"][CLIENT_CAPABILITIES_KEY] == {"extensions": {TASKS_EXTENSION: {}}} and "task" not in stateless["params"]
    again = Case.from_request(CaseKind.VALID_ARGUMENTS, "slow", handshake, "valid arguments")
    assert again.as_task and again.message(3) == handshake
    assert not Case.from_request(CaseKind.VALID_ARGUMENTS, "slow", Case(CaseKind.VALID_ARGUMENTS, "slow", call_params("slow", {}), "v").message(1), "v").as_task


def test_export_skips_a_reproduction_whose_answer_came_through_a_task_and_says_so(tmp_path: Path) -> None:
    fuzz(tasks_server("result-without-meta"), max_examples=3, corpus=tmp_path / "corpus", phases=frozenset({RunPhase.BOUNDARY}))
    assert list((tmp_path / "corpus").glob("*/task-related-meta--*.json"))
    run = mcp_toolfuzz("export", str(tmp_path / "corpus"), "--pytest", "-o", str(tmp_path / "test_out.py"), timeout=60)
    lines = run.stderr.strip().splitlines()
    assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
    assert all("came through a task" in line for line in lines[:-1]) and len(lines) > 1, run.stderr
    assert lines[-1].startswith("mcp-toolfuzz: no reproduction to export"), run.stderr
    assert not (tmp_path / "test_out.py").exists()
