"""A raw probe: one finding's request sent again by a plain JSON-RPC client, and the rule judged anew.

Standard library only, and none of the harness's code: the server is started (with the same
sandboxed command), greeted with `initialize` and `notifications/initialized` (not under
2026-07-28, whose requests carry their own `_meta`), asked `tools/list` (for the names and
schemas the judgement needs), then sent the finding's request exactly as the harness recorded it.
The answer with that request's id is judged by the rule's own words (docs/rules.md), written
again here: the probe's verdict does not come from the harness's.
"""

from __future__ import annotations

import contextlib
import json
import queue
import re
import subprocess
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

TIMEOUT = 10.0
"""Seconds to wait for each answer (the harness waits 5: a late answer still counts as none)."""
SLOW_TOOL_TIMEOUT = 30.0
"""For a `request-answered` finding on a well-formed call: a tool may be slow, which is not silence."""
HANDSHAKE_TIMEOUT = 30.0
NAME = re.compile(r"[A-Za-z0-9_.-]{1,128}")
TRACE = re.compile(r"Traceback \(most recent call last\)|^\s+at .+\(.+:\d+:\d+\)|^\s+at \S+:\d+:\d+|File \".+\", line \d+|goroutine \d+ \[", re.MULTILINE)
FAILED_TEXT = re.compile(r"^(Error|Failed|Failure|Exception)(:| - )", re.IGNORECASE)


class Wire:
    """The server's stdin and stdout: messages read on a thread, lines that are not JSON kept."""

    def __init__(self, command: Sequence[str], cwd: Path) -> None:
        self.process = subprocess.Popen(list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd)
        self.messages: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.not_json: list[str] = []
        self.stderr: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            line = raw.decode("utf-8", "replace").strip()
            if not line:
                continue
            try:
                message = json.loads(line)
            except ValueError:
                self.not_json.append(line)
                continue
            self.messages.put(message if isinstance(message, dict) else {"__not_an_object__": message})
        self.messages.put(None)

    def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        for raw in self.process.stderr:
            self.stderr.append(raw.decode("utf-8", "replace").rstrip())

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def answer_to(self, request_id: Any, timeout: float) -> dict[str, Any] | None:
        """The answer with this id; None when none came in time or the server ended."""
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                message = self.messages.get(timeout=left)
            except queue.Empty:
                return None
            if message is None:
                return None
            if "method" in message and "id" in message:  # a request from the server: refused plainly
                self.send({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "Method not found"}})
                continue
            if "method" in message:
                continue
            if message.get("id") == request_id:
                return message
        return None

    def close(self) -> None:
        try:
            if self.process.stdin is not None:
                self.process.stdin.close()
            self.process.wait(timeout=5)
        except (subprocess.TimeoutExpired, BrokenPipeError, OSError):
            self.process.kill()
            self.process.wait()


def check(schema: Any, value: Any, where: str = "arguments") -> list[str]:
    """The ways `value` breaks `schema`, for the keywords this probe knows (a small JSON Schema subset)."""
    if not isinstance(schema, dict):
        return []
    broken: list[str] = []
    kinds = {
        "object": lambda v: isinstance(v, dict),
        "array": lambda v: isinstance(v, list),
        "string": lambda v: isinstance(v, str),
        "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer()),
        "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
        "boolean": lambda v: isinstance(v, bool),
        "null": lambda v: v is None,
    }
    declared = schema.get("type")
    if declared is not None:
        names = declared if isinstance(declared, list) else [declared]
        if not any(kinds.get(name, lambda v: True)(value) for name in names):
            return [f"{where} is not of type {declared}"]
    if "enum" in schema and value not in schema["enum"]:
        broken.append(f"{where} is not one of enum {schema['enum']}")
    if "const" in schema and value != schema["const"]:
        broken.append(f"{where} is not const {schema['const']!r}")
    if isinstance(value, int | float) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            broken.append(f"{where} = {value} < minimum {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            broken.append(f"{where} = {value} > maximum {schema['maximum']}")
        if isinstance(schema.get("exclusiveMinimum"), int | float) and value <= schema["exclusiveMinimum"]:
            broken.append(f"{where} = {value} <= exclusiveMinimum {schema['exclusiveMinimum']}")
        if isinstance(schema.get("exclusiveMaximum"), int | float) and value >= schema["exclusiveMaximum"]:
            broken.append(f"{where} = {value} >= exclusiveMaximum {schema['exclusiveMaximum']}")
    if isinstance(value, str):
        length = len(value.encode("utf-16-le")) // 2
        if "minLength" in schema and length < schema["minLength"]:
            broken.append(f"{where} is shorter than minLength {schema['minLength']}")
        if "maxLength" in schema and length > schema["maxLength"]:
            broken.append(f"{where} is longer than maxLength {schema['maxLength']}")
        if "pattern" in schema:
            try:
                if re.search(schema["pattern"], value) is None:
                    broken.append(f"{where} does not match pattern {schema['pattern']!r}")
            except re.error:
                pass
    if isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            broken.append(f"{where} has fewer than minItems {schema['minItems']}")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            broken.append(f"{where} has more than maxItems {schema['maxItems']}")
        if isinstance(schema.get("items"), dict):
            for index, item in enumerate(value):
                broken += check(schema["items"], item, f"{where}[{index}]")
    if isinstance(value, dict):
        properties = schema.get("properties") or {}
        for name in schema.get("required") or []:
            if name not in value:
                broken.append(f"{where} lacks required {name!r}")
        for name, item in value.items():
            if name in properties:
                broken += check(properties[name], item, f"{where}.{name}")
            elif schema.get("additionalProperties") is False:
                broken.append(f"{where} has {name!r}, and additionalProperties is false")
            elif isinstance(schema.get("additionalProperties"), dict):
                broken += check(schema["additionalProperties"], item, f"{where}.{name}")
    for sub in schema.get("allOf") or []:
        broken += check(sub, value, where)
    if schema.get("anyOf") and all(check(sub, value, where) for sub in schema["anyOf"]):
        broken.append(f"{where} matches no anyOf branch")
    if schema.get("oneOf") and sum(not check(sub, value, where) for sub in schema["oneOf"]) != 1:
        broken.append(f"{where} does not match exactly one oneOf branch")
    return broken


def texts(result: dict[str, Any]) -> list[str]:
    content = result.get("content")
    return [item.get("text", "") for item in content if isinstance(item, dict) and item.get("type") == "text"] if isinstance(content, list) else []


def describe(answer: dict[str, Any] | None) -> str:
    """The answer in a few words: an error's code and message, a result's isError and first text."""
    if answer is None:
        return "no answer"
    if "error" in answer and isinstance(answer["error"], dict):
        return f"JSON-RPC error {answer['error'].get('code')} {json.dumps(str(answer['error'].get('message', '')))[:160]}"
    result = answer.get("result")
    if isinstance(result, dict):
        first = (texts(result) or [""])[0]
        flag = "isError: true" if result.get("isError") is True else "success"
        return f"result, {flag}, {json.dumps(first[:120])}"
    return f"odd answer {json.dumps(answer)[:160]}"


def judge(rule: str, answer: dict[str, Any] | None, request: dict[str, Any], tools: dict[str, Any], wire: Wire, alive: bool) -> tuple[bool | None, str]:
    """(the rule's violation seen again: True, not seen: False, cannot say: None; why)."""
    error = answer.get("error") if answer else None
    result = answer.get("result") if answer else None
    is_tool_error = isinstance(result, dict) and result.get("isError") is True
    is_success = isinstance(result, dict) and not is_tool_error
    params = request.get("params") if isinstance(request.get("params"), dict) else {}
    name = params.get("name")
    arguments = params.get("arguments", {})
    if rule == "target-alive":
        return (not alive, "the server ended" if not alive else "the server is still running")
    if rule == "request-answered":
        return (answer is None and alive, "no answer in time, server running" if answer is None else "answered")
    if answer is None:
        return (None, "no answer")
    if rule in ("unknown-tool", "unavailable-tool"):
        return (not is_tool_error, "not a tool execution error" if not is_tool_error else "a tool execution error")
    if rule in ("invalid-arguments", "tool-failure"):
        return (error is not None, "a JSON-RPC error" if error is not None else "a result")
    if rule == "arguments-not-validated":
        schema = (tools.get(name) or {}).get("inputSchema")
        broken = check(schema, arguments)
        if not broken:
            return (None, "the probe's own schema check finds no violation")
        return (is_success, f"a success, and {broken[0]}" if is_success else "not a success")
    if rule == "malformed-request":
        return (result is not None, "a result" if result is not None else "an error")
    if rule == "malformed-request-code":
        code = error.get("code") if isinstance(error, dict) else None
        return (error is not None and code != -32602, f"error code {code}")
    if rule == "error-message":
        if not is_tool_error:
            return (False, "not a tool execution error")
        content = result.get("content") if isinstance(result, dict) else None
        first = content[0] if isinstance(content, list) and content else None
        good = isinstance(first, dict) and first.get("type") == "text" and bool(str(first.get("text", "")).strip())
        return (not good, f"first content item {json.dumps(first)[:80]}")
    if rule == "internal-details-leak":
        text = "\n".join([str(error.get("message", "")), json.dumps(error.get("data"))] if isinstance(error, dict) else texts(result or {}))
        found = TRACE.search(text)
        return (found is not None, f"stack trace: {found.group(0).strip()[:60]!r}" if found else "no stack trace")
    if rule == "tool-list-leak":
        text = str(error.get("message", "")) if isinstance(error, dict) else " ".join(texts(result or {}))
        named = [tool for tool in tools if re.search(rf"(?<![A-Za-z0-9_]){re.escape(tool)}(?![A-Za-z0-9_])", text)]
        return (len(named) >= 2, f"names {len(named)} listed tools")
    if rule == "error-as-success":
        if not is_success:
            return (False, "not a success")
        blocks = texts(result)
        if blocks and all(block.strip() for block in blocks) and FAILED_TEXT.match(blocks[0].strip()):
            return (True, f"a success whose text begins {blocks[0].strip()[:40]!r}")
        structured = result.get("structuredContent")
        candidates = [structured] if isinstance(structured, dict) else []
        for block in blocks:
            with contextlib.suppress(ValueError):
                candidates.append(json.loads(block))
        for value in candidates:
            if isinstance(value, dict) and (
                value.get("status") == "error" or value.get("success") is False or value.get("ok") is False or ("error" in value and "result" not in value)
            ):
                return (True, f"a success whose JSON says it failed: {json.dumps(value)[:60]}")
        return (False, "a success that does not say it failed")
    if rule == "response-well-formed":
        problems = []
        if answer.get("jsonrpc") != "2.0":
            problems.append("jsonrpc is not 2.0")
        if result is not None:
            content = result.get("content") if isinstance(result, dict) else None
            if not isinstance(result, dict) or not isinstance(content, list):
                problems.append("result has no content array")
            elif any(not isinstance(item, dict) or "type" not in item for item in content):
                problems.append("a content item has no type")
            elif any(item.get("type") == "text" and not isinstance(item.get("text"), str) for item in content):
                problems.append("a text item's text is not a string")
        return (bool(problems), "; ".join(problems) or "a well-formed answer (by the probe's checks)")
    if rule == "output-schema":
        schema = (tools.get(name) or {}).get("outputSchema")
        if not is_success:
            return (False, "not a success")
        structured = result.get("structuredContent")
        if structured is None:
            return (True, "a success without structuredContent")
        broken = check(schema, structured, "structuredContent")
        return (bool(broken), broken[0] if broken else "structuredContent conforms (by the probe's checks)")
    if rule == "task-required":
        code = error.get("code") if isinstance(error, dict) else None
        return (code not in (-32601, -32600), f"error code {code}" if error is not None else "not a JSON-RPC error")
    if rule == "task-forbidden":
        code = error.get("code") if isinstance(error, dict) else None
        return (code != -32601, f"error code {code}" if error is not None else "not a JSON-RPC error")
    if rule == "malformed-meta":
        code = error.get("code") if isinstance(error, dict) else None
        return (code not in (-32602, -32020), f"error code {code}" if error is not None else "a result: the call ran")
    if rule == "unsupported-version":
        code = error.get("code") if isinstance(error, dict) else None
        data = error.get("data") if isinstance(error, dict) else None
        good = code == -32022 and isinstance(data, dict) and isinstance(data.get("supported"), list) and "requested" in data
        return (not good, f"error code {code}" if error is not None else "a result: the call ran")
    if rule == "stdout-not-protocol":
        return (bool(wire.not_json), f"stdout line: {wire.not_json[0][:60]!r}" if wire.not_json else "every stdout line was JSON")
    return (None, f"the probe does not judge {rule}")


def probe_finding(command: Sequence[str], protocol_version: str, problem: dict[str, Any], *, cwd: Path) -> dict[str, Any]:
    """Start the server, greet it, list its tools, send the problem's first request alone; judge."""
    request = problem["example"]["request"]
    wire = Wire(command, cwd)
    try:
        if protocol_version != "2026-07-28":
            wire.send(
                {
                    "jsonrpc": "2.0",
                    "id": "probe-init",
                    "method": "initialize",
                    "params": {"protocolVersion": protocol_version, "capabilities": {}, "clientInfo": {"name": "field-probe", "version": "1.0.0"}},
                }
            )
            if wire.answer_to("probe-init", HANDSHAKE_TIMEOUT) is None:
                return {"verdict": "could not probe", "answer": "no answer to initialize", "stderr": wire.stderr[-5:]}
            wire.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            list_params: dict[str, Any] = {}
        else:  # stateless: server/discover first, as a client of that revision does (mcp-go refuses tools/call before it)
            meta = {
                "io.modelcontextprotocol/protocolVersion": protocol_version,
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "field-probe", "version": "1.0.0"},
            }
            wire.send({"jsonrpc": "2.0", "id": "probe-discover", "method": "server/discover", "params": {"_meta": meta}})
            if wire.answer_to("probe-discover", HANDSHAKE_TIMEOUT) is None:
                return {"verdict": "could not probe", "answer": "no answer to server/discover", "stderr": wire.stderr[-5:]}
            list_params = {"_meta": meta}
        tools: dict[str, Any] = {}
        cursor: Any = None
        for page in range(20):
            params = dict(list_params, **({"cursor": cursor} if cursor else {}))
            wire.send({"jsonrpc": "2.0", "id": f"probe-list-{page}", "method": "tools/list", "params": params})
            listed = wire.answer_to(f"probe-list-{page}", HANDSHAKE_TIMEOUT)
            result = (listed or {}).get("result") or {}
            for tool in result.get("tools", []):
                tools.setdefault(tool.get("name"), tool)
            cursor = result.get("nextCursor")
            if not cursor:
                break
        if problem["rule"] == "tool-name":
            bad = [name for name in tools if not isinstance(name, str) or NAME.fullmatch(name) is None]
            return {"verdict": "confirmed" if bad else "NOT CONFIRMED", "answer": f"tools/list names {json.dumps(bad)[:120]}", "sameAnswer": None}
        wire.send(request)
        slow = problem["rule"] == "request-answered" and problem["case"] != "malformed-request"
        started = time.monotonic()
        answer = wire.answer_to(request.get("id"), SLOW_TOOL_TIMEOUT if slow else TIMEOUT)
        waited = time.monotonic() - started
        time.sleep(0.2)
        alive = wire.process.poll() is None
        if problem["rule"] == "target-alive" and alive and answer is None:
            time.sleep(1.0)
            alive = wire.process.poll() is None
        seen, why = judge(problem["rule"], answer, request, tools, wire, alive)
        if problem["rule"] == "request-answered" and answer is not None:
            why = f"answered after {waited:.0f} s"
        recorded = problem["example"].get("response")
        same = None
        if answer is not None and isinstance(recorded, dict):
            same = {k: v for k, v in answer.items() if k != "id"} == {k: v for k, v in recorded.items() if k != "id"}
        verdict = {True: "confirmed", False: "NOT CONFIRMED", None: "could not judge"}[seen]
        return {"verdict": verdict, "answer": f"{describe(answer)} ({why})", "sameAnswer": same, "raw": answer, "stderr": wire.stderr[-3:]}
    finally:
        wire.close()
