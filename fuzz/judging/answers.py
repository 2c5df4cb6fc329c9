"""What kind of answer came back: the classification every rule starts from.

Classification reads only the JSON-RPC envelope.
It also reads the `CallToolResult` shape of the negotiated protocol version.
The text inside a tool execution error is never read as a protocol error.
Some SDKs write "MCP error -32602: ..." inside an `isError` result.
That is a compliant answer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any

from fuzz.text import quote
from fuzz.wire.jsonrpc import JSONRPC_VERSION
from fuzz.wire.replies import (
    Answered,
    Exchange,
    NoAnswer,
    NotDelivered,
    TargetExited,
    UnreadableAnswer,
)
from fuzz.wire.shapes import (
    LATEST_KNOWN_VERSION,
    call_tool_result_problem,
    error_object_problem,
)


class AnswerClass(Enum):
    SUCCESS = "a successful tool result"
    TOOL_EXECUTION_ERROR = "a tool execution error (a result with isError: true)"
    INPUT_REQUIRED = "a result asking for more input (resultType input_required)"
    TASK_UNENDED = "a task that did not end within --timeout, or whose polls got no task"
    PROTOCOL_ERROR = "a JSON-RPC error"
    INVALID_RESULT = "a result that is not a CallToolResult"
    MALFORMED_ANSWER = "an answer that is not a JSON-RPC 2.0 response"
    NO_ANSWER = "no answer"
    NOT_DELIVERED = "an HTTP exchange that ended without a JSON-RPC answer"
    TARGET_EXITED = "the target exiting"


@dataclass(frozen=True, slots=True)
class Observation:
    answer: AnswerClass
    detail: str
    """What exactly came back, in words: `JSON-RPC error -32603 "Internal error"`."""
    error_code: int | None = None
    result: dict[str, Any] | None = None
    """The CallToolResult, for the two result classes."""
    error_message: str | None = None
    """A protocol error's message and data, as text."""
    error_data: Any = None
    status: int | None = None
    """The HTTP status of the response that carried the answer; None over stdio."""

    @property
    def error_texts(self) -> tuple[str, ...]:
        """The text a client would show of an error: a tool execution error's text blocks."""
        if self.answer is not AnswerClass.TOOL_EXECUTION_ERROR or self.result is None:
            return ()
        return tuple(block["text"] for block in self.result.get("content", []) if block.get("type") == "text")


def observe(exchange: Exchange, protocol_version: str = LATEST_KNOWN_VERSION) -> Observation:
    """What kind of answer the call of `exchange` got: its task's final one, when it made a task."""
    task = exchange.last.task
    if task is not None and task.answer is None:
        last = task.statuses[-1] if task.statuses else "no status"
        return Observation(AnswerClass.TASK_UNENDED, f"a task that had not ended when the harness stopped polling (last status {last!r})")
    reply = exchange.final.reply
    if isinstance(reply, TargetExited):
        return Observation(AnswerClass.TARGET_EXITED, f"the target exited with code {reply.returncode}")
    if isinstance(reply, NoAnswer):
        return Observation(AnswerClass.NO_ANSWER, f"no answer within {reply.timeout:g} s")
    if isinstance(reply, NotDelivered):
        return Observation(AnswerClass.NOT_DELIVERED, reply.detail)
    if isinstance(reply, UnreadableAnswer):
        return Observation(AnswerClass.MALFORMED_ANSWER, f"an answer that cannot be read: {reply.reason}")
    assert isinstance(reply, Answered)
    observation = _observe_message(reply.message, protocol_version)
    return observation if reply.status is None else replace(observation, status=reply.status)


def _observe_message(message: dict[str, Any], protocol_version: str) -> Observation:
    if message.get("jsonrpc") != JSONRPC_VERSION:
        return Observation(AnswerClass.MALFORMED_ANSWER, f'jsonrpc is {message.get("jsonrpc")!r:.40}, not "2.0"')
    if ("result" in message) == ("error" in message):
        return Observation(AnswerClass.MALFORMED_ANSWER, "the answer must carry exactly one of result and error")
    if "error" in message:
        problem = error_object_problem(message["error"])
        if problem is not None:
            return Observation(AnswerClass.MALFORMED_ANSWER, problem)
        error = message["error"]
        data = error.get("data")
        text = error["message"] + ("" if data is None else "\n" + (data if isinstance(data, str) else json.dumps(data)))
        return Observation(
            AnswerClass.PROTOCOL_ERROR,
            f"JSON-RPC error {error['code']} {quote(error['message'])}",
            error_code=error["code"],
            error_message=text,
            error_data=data,
        )
    result = message["result"]
    problem = call_tool_result_problem(result, protocol_version)
    if problem is not None and not _only_structured_content_is_wrong(result, protocol_version):
        return Observation(AnswerClass.INVALID_RESULT, problem)
    if result.get("resultType") == "input_required":
        return Observation(AnswerClass.INPUT_REQUIRED, "a result asking for more input (resultType input_required)", result=result)
    if result.get("isError") is True:
        return Observation(AnswerClass.TOOL_EXECUTION_ERROR, f"a tool execution error {quote(_first_text(result))}", result=result)
    return Observation(AnswerClass.SUCCESS, f"a successful result {quote(_first_text(result))}", result=result)


def _only_structured_content_is_wrong(result: Any, protocol_version: str) -> bool:
    """Whether a result's one fault is a non-object `structuredContent`.

    Such a result is an output validation failure, as SEP-2145 lists it.
    The output rules judge it; it is not a malformed answer."""
    if not isinstance(result, dict) or isinstance(result.get("structuredContent", {}), dict):
        return False
    rest = {key: value for key, value in result.items() if key != "structuredContent"}
    return call_tool_result_problem(rest, protocol_version) is None


def _first_text(result: dict[str, Any]) -> str:
    for block in result.get("content", []):
        text = block.get("text") if isinstance(block, dict) else None
        if isinstance(text, str):
            return text
    return ""
