"""A 2026-07-28 server whose tools ask for input by multi round-trip requests (SEP-2322), compliant
unless seeded with a bug (`--bug RULE`), on stdio or Streamable HTTP (`--http PORT`).

Tools:

- `confirm(item)`: asks for `{"confirm": boolean}` by form elicitation; "deleted ITEM" on an accept
  with `confirm: true`, "kept ITEM" otherwise. Its `requestState` is signed (HMAC) and bound to the
  item: a state that fails verification, or names another item, is refused (-32602).
- `ask_model(prompt)`: asks for a sampled message; returns its text.
- `pick_root()`: asks for the roots; returns the first one's URI, or "no roots".
- `plain(n)`: asks nothing.

A call whose `clientCapabilities` lack what the tool asks for gets -32021 naming it. A retry without
a response it asked for is asked again; `inputResponses` that are not an InputResponses object get
-32602. Results carry `resultType`, and `server/discover` and `tools/list` their caching hints.

Seeded bugs:

- input-request-undeclared: `confirm` asks by elicitation whatever the call declared.
- input-responses-validated: invalid `inputResponses` are taken as a decline ("kept ITEM").
- request-state-verified: the state is unsigned base64 JSON, and its item, not the arguments',
  is the one deleted.
- tool-failure: `confirm`, once accepted with `confirm: true`, fails with a JSON-RPC error: a bug
  past the input request.
- caching-hints: `tools/list` has no `ttlMs` nor `cacheScope`.
- tools-list-order: `tools/list` gives its tools in another order on each call.
- result-type: `tools/list` has no `resultType`.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import hmac
import json
import sys
from typing import Any

from reference_stateless import CACHING, CLIENT_CAPABILITIES_KEY, SERVER_INFO_KEY, SUPPORTED, envelope_error, error, header_mismatch, serve_http

KEY = b"mcp-toolfuzz test key"
MISSING_CAPABILITY = -32021
TOOLS = [
    {
        "name": "confirm",
        "inputSchema": {"type": "object", "properties": {"item": {"type": "string"}}, "required": ["item"]},
        "annotations": {"readOnlyHint": True},
    },
    {
        "name": "ask_model",
        "inputSchema": {"type": "object", "properties": {"prompt": {"type": "string"}}, "required": ["prompt"]},
        "annotations": {"readOnlyHint": True},
    },
    {"name": "pick_root", "inputSchema": {"type": "object", "properties": {}}, "annotations": {"readOnlyHint": True}},
    {
        "name": "plain",
        "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
        "annotations": {"readOnlyHint": True},
    },
]
ASKS = {
    "confirm": (
        "elicitation",
        {
            "method": "elicitation/create",
            "params": {
                "mode": "form",
                "message": "Delete it?",
                "requestedSchema": {"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]},
            },
        },
    ),
    "ask_model": ("sampling", {"method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 10}}),
    "pick_root": ("roots", {"method": "roots/list", "params": {}}),
}
RESPONSE_KEYS = {"elicitation/create": {"action"}, "sampling/createMessage": {"role", "content", "model"}, "roots/list": {"roots"}}
calls = 0


def text(value: str) -> dict[str, Any]:
    return {"result": {"content": [{"type": "text", "text": value}], "isError": False}}


def state_for(tool: str, arguments: dict[str, Any], bug: str | None) -> str:
    body = json.dumps({"tool": tool, "arguments": arguments}, sort_keys=True).encode()
    if bug == "request-state-verified":
        return base64.b64encode(body).decode()
    return base64.b64encode(body).decode() + "." + hmac.new(KEY, body, hashlib.sha256).hexdigest()


def verified(state: Any, bug: str | None) -> dict[str, Any] | None:
    """The state's payload, or None when it fails verification."""
    if not isinstance(state, str):
        return None
    encoded, _, signature = state.partition(".")
    try:
        body = base64.b64decode(encoded, validate=True)
        payload = json.loads(body)
    except ValueError:
        return None
    if bug != "request-state-verified" and not hmac.compare_digest(signature, hmac.new(KEY, body, hashlib.sha256).hexdigest()):
        return None
    return payload if isinstance(payload, dict) else None


def covered(capability: str, declared: dict[str, Any]) -> bool:
    """Whether `declared` covers `capability`: form elicitation needs `elicitation` as `{}` (form
    only, implicitly) or with `form`."""
    present = declared.get(capability)
    if capability == "elicitation":
        return isinstance(present, dict) and (not present or "form" in present)
    return present is not None


def valid_responses(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    for response in value.values():
        if not isinstance(response, dict):
            return False
        action = response.get("action")
        if "action" in response and action not in ("accept", "decline", "cancel"):
            return False
        content = response.get("content")
        if (
            "action" in response
            and content is not None
            and (not isinstance(content, dict) or not all(isinstance(v, (str, int, float, bool, list)) for v in content.values()))
        ):
            return False
    return True


def call(params: dict[str, Any], bug: str | None) -> dict[str, Any]:
    name, arguments = params.get("name"), params.get("arguments", {})
    if not isinstance(name, str) or not isinstance(arguments, dict):
        return error(-32602, "Invalid params: name must be a string and arguments an object")
    if name not in {tool["name"] for tool in TOOLS}:
        return {"result": {"content": [{"type": "text", "text": f"Unknown tool: {name}"}], "isError": True}}
    if name == "plain":
        if not isinstance(arguments.get("n"), int) or isinstance(arguments.get("n"), bool):
            return {"result": {"content": [{"type": "text", "text": "n must be an integer"}], "isError": True}}
        return text(f"plain {arguments['n']}")
    required = {"confirm": "item", "ask_model": "prompt"}.get(name)
    if required is not None and not isinstance(arguments.get(required), str):
        return {"result": {"content": [{"type": "text", "text": f"{required} must be a string"}], "isError": True}}
    capability, request = ASKS[name]
    declared = params["_meta"][CLIENT_CAPABILITIES_KEY]
    if not covered(capability, declared) and not (bug == "input-request-undeclared" and name == "confirm"):
        return error(MISSING_CAPABILITY, f"{name} needs the client's {capability}", {"requiredCapabilities": {capability: {}}})
    ask = {"result": {"resultType": "input_required", "inputRequests": {"ask": request}, "requestState": state_for(name, arguments, bug)}}
    if "requestState" not in params and "inputResponses" not in params:
        return ask
    payload = verified(params.get("requestState"), bug)
    if payload is None or payload.get("tool") != name or (bug != "request-state-verified" and payload.get("arguments") != arguments):
        return error(-32602, "Invalid params: requestState failed verification")
    responses = params.get("inputResponses")
    if not valid_responses(responses):
        if bug == "input-responses-validated":
            return text(f"kept {arguments.get(required or '', '')}")
        return error(-32602, "Invalid params: inputResponses is not an InputResponses object")
    response = responses.get("ask")
    if not isinstance(response, dict) or not RESPONSE_KEYS[request["method"]] <= set(response):
        return ask
    if name == "ask_model":
        content = response.get("content")
        return text(content.get("text", "") if isinstance(content, dict) else "")
    if name == "pick_root":
        roots = response.get("roots")
        return text(roots[0].get("uri", "?") if isinstance(roots, list) and roots and isinstance(roots[0], dict) else "no roots")
    item = payload["arguments"]["item"] if bug == "request-state-verified" else arguments["item"]
    content = response.get("content")
    if response["action"] == "accept" and isinstance(content, dict) and content.get("confirm") is True:
        if bug == "tool-failure":
            return error(-32603, f"Internal error: could not delete {item}")
        return text(f"deleted {item}")
    return text(f"kept {item}")


def answer(message: dict[str, Any], bug: str | None) -> dict[str, Any] | None:
    global calls
    method, params = message["method"], message.get("params")
    if method not in ("server/discover", "tools/list", "tools/call"):
        return error(-32601, f"no method {method}")
    refusal = envelope_error(params, None)
    if refusal is not None:
        return refusal
    assert isinstance(params, dict)
    if method == "server/discover":
        result: dict[str, Any] = {
            "supportedVersions": SUPPORTED,
            "capabilities": {"tools": {"listChanged": False}},
            **CACHING,
            "_meta": {SERVER_INFO_KEY: {"name": "mrtr-server", "version": "1.0"}},
        }
    elif method == "tools/list":
        calls += 1
        tools = TOOLS[calls % len(TOOLS) :] + TOOLS[: calls % len(TOOLS)] if bug == "tools-list-order" else TOOLS
        result = {"tools": tools, **({} if bug == "caching-hints" else CACHING)}
        if bug == "result-type":
            return {"result": result}
    else:
        reply = call(params, bug)
        if "error" in reply:
            return reply
        result = reply["result"]
    return {"result": {"resultType": "complete", **result}}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bug")
    parser.add_argument("--http", type=int)
    options = parser.parse_args()
    if options.http is not None:
        serve_http(options.http, lambda message, headers: header_mismatch(headers, message, None) or answer(message, options.bug), lambda line: None)
        return
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            print(json.dumps({"jsonrpc": "2.0", "id": None, **error(-32700, "Parse error")}), flush=True)
            continue
        if not isinstance(message, dict) or "id" not in message or not isinstance(message.get("method"), str):
            continue
        reply = answer(message, options.bug)
        if reply is not None:
            print(json.dumps({"jsonrpc": "2.0", "id": message["id"], **reply}), flush=True)


if __name__ == "__main__":
    main()
