"""Export reproductions as a standalone pytest file that a server's authors can commit.

The file needs Python and pytest only, not mcp-toolfuzz. It starts the server and performs the
recorded handshake. It sends each exact request. It asserts the classification the profile expects
for that kind of case.

A call that asked for input (2026-07-28) is retried as it was, each round with the
`inputResponses` recorded and the `requestState` the server gives now. A sequence's test sends its
steps first. A step or the last request may reuse values. Each is taken
from the answers of that test's own earlier steps, as a replay does (`fuzz.corpus.sequence_replay`).
The test asserts what the profile expects of the kind of case the last request was judged as.
"""

from __future__ import annotations

import json
from typing import Any

from fuzz.corpus.reproductions import Reproduction
from fuzz.judging.profiles import ALIASES, BOTH_REFUSALS, PUBLISHED_ID
from strategies import CaseKind

# What a compliant answer looks like, per case kind and profile, as a checker name in the file.
_EXPECTATIONS: dict[str, dict[CaseKind, str]] = {
    "sep-2145": {
        CaseKind.UNKNOWN_TOOL: "tool_execution_error",
        CaseKind.UNAVAILABLE_TOOL: "tool_execution_error",
        CaseKind.VALID_ARGUMENTS: "result",
        CaseKind.INVALID_ARGUMENTS: "tool_execution_error",
        CaseKind.MALFORMED_REQUEST: "invalid_params_error",
        CaseKind.VALID_OUTPUT: "result",
        CaseKind.INVALID_OUTPUT: "tool_execution_error",
        CaseKind.MALFORMED_META: "invalid_params_error",
        CaseKind.UNSUPPORTED_VERSION: "unsupported_version_error",
        CaseKind.HEADER_MISMATCH: "header_mismatch_error",
        CaseKind.INVALID_INPUT_RESPONSE: "error_or_asked_again",
    },
    PUBLISHED_ID: {
        CaseKind.UNKNOWN_TOOL: "jsonrpc_error",
        CaseKind.UNAVAILABLE_TOOL: "refusal",
        CaseKind.VALID_ARGUMENTS: "result",
        CaseKind.INVALID_ARGUMENTS: "tool_execution_error",
        CaseKind.MALFORMED_REQUEST: "invalid_params_error",
        CaseKind.VALID_OUTPUT: "result",
        CaseKind.INVALID_OUTPUT: "refusal",
        CaseKind.MALFORMED_META: "invalid_params_error",
        CaseKind.UNSUPPORTED_VERSION: "unsupported_version_error",
        CaseKind.HEADER_MISMATCH: "header_mismatch_error",
        CaseKind.INVALID_INPUT_RESPONSE: "error_or_asked_again",
    },
}


def _expectation(reproduction: Reproduction) -> str:
    profile = ALIASES.get(reproduction.profile, reproduction.profile)
    kind = reproduction.judged_kind
    if profile == PUBLISHED_ID and kind is CaseKind.INVALID_ARGUMENTS and reproduction.protocol_version in BOTH_REFUSALS:
        return "refusal"
    return _EXPECTATIONS[profile][kind]


_TEMPLATE = '''"""Reproductions exported by mcp-toolfuzz: each test sends one exact request that once broke
a rule of {profiles}, and asserts the answer the rule asks for.

Run: pytest {file_name}
The server is started with $MCP_SERVER_COMMAND when set; else, under mcp-toolfuzz's pytest plugin,
with its `mcp_toolfuzz_command` fixture when that names one (the `mcp_toolfuzz_command` ini option,
or `command` in mcp-toolfuzz.toml); else with SERVER_COMMAND below.
"""

import json
import os
import queue
import shlex
import subprocess
import threading

import pytest

SERVER_COMMAND = {command}
TIMEOUT = {timeout}
STARTUP_TIMEOUT = 20  # seconds for the server to start and answer the handshake
CASES = json.loads({cases})


@pytest.fixture
def server_command(request):
    override = os.environ.get("MCP_SERVER_COMMAND")
    if override:
        return shlex.split(override)
    try:
        configured = request.getfixturevalue("mcp_toolfuzz_command")
    except pytest.FixtureLookupError:  # standalone: mcp-toolfuzz is not installed
        configured = None
    return configured or SERVER_COMMAND


def _found_at(result, path):
    """The value at `path` in a result (a text block read as JSON), or None."""
    here = result
    for step in path:
        if isinstance(step, str) and isinstance(here, dict) and step in here or isinstance(step, int) and isinstance(here, list) and 0 <= step < len(here):
            here = here[step]
        else:
            return None
        if step == "text" and isinstance(here, str):
            try:
                here = json.loads(here) if here[:1] in ("{{", "[") else None
            except ValueError:
                return None
    return here


def _resolved(request, uses, answers):
    """`request` with each reused value taken from the answer of its step (the recorded value
    when that answer holds none where it was found)."""
    request = json.loads(json.dumps(request))
    for use in uses:
        answer = answers[use["step"]] if use["step"] < len(answers) else None
        value = _found_at((answer or {{}}).get("result"), use["path"])
        if isinstance(value, (str, int)) and not isinstance(value, bool):
            request["params"]["arguments"][use["argument"]] = value
    return request


def _retried(request, answer, rounds):
    """The retries of `request` while its answer asks for input (2026-07-28), each carrying the
    recorded `inputResponses` of its round and the `requestState` the server gives now."""
    for index, responses in enumerate(rounds):
        result = (answer or {{}}).get("result")
        if not isinstance(result, dict) or result.get("resultType") != "input_required":
            break
        retry = json.loads(json.dumps(request))
        retry["id"] = 100000 + index
        retry["params"].pop("inputResponses", None)
        retry["params"].pop("requestState", None)
        if responses is not None:
            retry["params"]["inputResponses"] = responses
        if "requestState" in result:
            retry["params"]["requestState"] = result["requestState"]
        yield retry


def _exchange(command, handshake, request, steps=(), uses=(), rounds=()):
    """Start the server, replay the handshake, send a sequence's `steps` (each reused value taken
    from the answers of the steps before it), send `request` and its `rounds`, return the last
    answer (None if none)."""
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    lines = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in process.stdout], daemon=True).start()

    def send(message):
        process.stdin.write(json.dumps(message).encode() + b"\\n")
        process.stdin.flush()

    def answer_to(request_id, timeout=TIMEOUT):
        while True:
            try:
                line = lines.get(timeout=timeout)
            except queue.Empty:
                return None
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict) and message.get("id") == request_id and "method" not in message:
                return message

    try:
        for message in handshake:
            send(message)
            if "id" in message:
                assert answer_to(message["id"], STARTUP_TIMEOUT) is not None, f"no answer to {{message['method']}}"
        answers = []
        for step in steps:
            sent = _resolved(step["request"], step["uses"], answers)
            send(sent)
            answers.append(answer_to(sent["id"]))
        request = _resolved(request, uses, answers)
        send(request)
        answer = answer_to(request["id"])
        for index in range(len(rounds)):
            retry = next(_retried(request, answer, rounds[index:index + 1]), None)
            if retry is None:
                break
            retry["id"] += index
            send(retry)
            answer = answer_to(retry["id"])
        return answer
    finally:
        process.kill()
        process.wait()


def _result(answer):
    assert answer is not None, "no answer"
    assert "result" in answer, f"expected a result, got {{answer}}"
    return answer["result"]


def tool_execution_error(answer, case):
    assert _result(answer).get("isError") is True, f"expected a result with isError: true, got {{answer}}"


def result(answer, case):
    outcome = _result(answer)
    if case["output"] is not None and not outcome.get("isError"):
        assert outcome.get("structuredContent") == case["output"], f"expected structuredContent {{case['output']}}"


def invalid_params_error(answer, case):
    assert answer is not None and "error" in answer, f"expected a JSON-RPC error, got {{answer}}"
    assert answer["error"]["code"] == -32602, f"expected code -32602, got {{answer['error']}}"


def unsupported_version_error(answer, case):
    assert answer is not None and "error" in answer, f"expected a JSON-RPC error, got {{answer}}"
    assert answer["error"]["code"] == -32022, f"expected code -32022, got {{answer['error']}}"


def header_mismatch_error(answer, case):
    assert answer is not None and "error" in answer, f"expected a JSON-RPC error, got {{answer}}"
    assert answer["error"]["code"] == -32020, f"expected code -32020, got {{answer['error']}}"


def error_or_asked_again(answer, case):
    assert answer is not None, "no answer"
    asked = answer.get("result", {{}}).get("resultType") == "input_required"
    assert "error" in answer or asked, f"expected a JSON-RPC error or the input asked again, got {{answer}}"


def jsonrpc_error(answer, case):
    assert answer is not None and "error" in answer, f"expected a JSON-RPC error, got {{answer}}"


def refusal(answer, case):
    assert answer is not None, "no answer"
    assert "error" in answer or answer["result"].get("isError") is True, f"expected a refusal, got {{answer}}"


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_reproduction(case, server_command):
    answer = _exchange(server_command, case["handshake"], case["request"], case.get("steps", ()), case.get("uses", ()), case.get("rounds", ()))
    globals()[case["expect"]](answer, case)
'''


def export_pytest(reproductions: list[Reproduction], *, file_name: str = "test_mcp_toolfuzz_reproductions.py") -> str:
    """The text of a pytest file for `reproductions` (which must share one target command)."""
    if not reproductions:
        raise ValueError("nothing to export")
    command = reproductions[0].target.get("command", [])
    cases: list[dict[str, Any]] = []
    for reproduction in reproductions:
        output = reproduction.request.get("params", {}).get("arguments", {}).get("output") if reproduction.case is CaseKind.VALID_OUTPUT else None
        cases.append(
            {
                "name": (reproduction.source.name if reproduction.source else reproduction.file_name).removesuffix(".json"),
                "rule": reproduction.rule,
                "label": reproduction.label,
                "handshake": list(reproduction.handshake),
                "request": reproduction.request,
                "expect": _expectation(reproduction),
                "output": output,
                **(_sequence(reproduction) if reproduction.is_sequence else {}),
                **({"rounds": [r.request.get("params", {}).get("inputResponses") for r in reproduction.rounds]} if reproduction.rounds else {}),
            }
        )
    return _TEMPLATE.format(
        profiles=", ".join(sorted({r.profile for r in reproductions})),
        file_name=file_name,
        command=repr(list(command)),
        timeout=max(r.timeout for r in reproductions),
        cases=repr(json.dumps(cases, ensure_ascii=False, indent=1)),
    )


def _sequence(reproduction: Reproduction) -> dict[str, Any]:
    """A sequence's steps and uses as a test sends them.

    Requests are numbered from 1000 on, after any id of the handshake, in the order sent. The
    recorded ids are of another session.
    """
    steps: list[dict[str, Any]] = [
        {"request": {**step.request, "id": 1000 + index}, "uses": [use.as_json() for use in step.uses]} for index, step in enumerate(reproduction.steps)
    ]
    return {"steps": steps, "uses": [use.as_json() for use in reproduction.uses], "request": {**reproduction.request, "id": 1000 + len(steps)}}
