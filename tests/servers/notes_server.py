"""A stateful MCP server over stdio (standard library only): notes created, read, updated,
deleted, and archived by a tool that is switched on and off with `tools/list_changed`. Its bugs
are ones only a sequence of calls reaches; every single call is compliant with SEP-2145.

- `get_note` of a note that was deleted crashes (JSON-RPC -32603): deleted notes leave a
  tombstone the lookup does not expect. An id never created is a tool execution error.
- `delete_note` of a note already deleted crashes the same way.
- `archive_note`, once `set_archive` has switched it off (and the server has said
  `notifications/tools/list_changed`), answers JSON-RPC -32601 instead of a tool execution error.

Ids are random (`os.urandom`): a sequence that reuses one must have learned it from an
answer, and a replay must learn it again.

`--fixed`: no bug. `--dressed`: also fixed, but a lookup of a missing note answers a *success*
whose text is `Error: ...` (a failure dressed as a success). `--sheets` adds `add_sheet` and
`read_sheet`: reading a sheet that exists and is empty crashes (a bug single cases stumble on
only because an earlier case created the sheet; a sheet never added is a tool execution error).
"""

from __future__ import annotations

import json
import os
import sys

import stdio_loop

TYPE_CHECKING = False
if TYPE_CHECKING:  # (the imports a start would pay for: see stdio_loop)
    from typing import Any

FIXED = "--fixed" in sys.argv or "--dressed" in sys.argv
DRESSED = "--dressed" in sys.argv

NOTES: dict[str, dict[str, Any] | None] = {}
"""By id; None is a deleted note's tombstone."""
ARCHIVED: set[str] = set()
STATE = {"archive": True}

ID = {"type": "string", "minLength": 1, "maxLength": 40}
TOOLS: dict[str, dict[str, Any]] = {
    "create_note": {
        "inputSchema": {
            "type": "object",
            "properties": {"title": {"type": "string", "maxLength": 40}, "body": {"type": "string", "maxLength": 200}},
            "required": ["title"],
            "additionalProperties": False,
        },
        "annotations": {"destructiveHint": False},
    },
    "get_note": {
        "inputSchema": {"type": "object", "properties": {"note_id": ID}, "required": ["note_id"], "additionalProperties": False},
        "annotations": {"readOnlyHint": True},
    },
    "list_notes": {"inputSchema": {"type": "object", "properties": {}, "additionalProperties": False}, "annotations": {"readOnlyHint": True}},
    "update_note": {
        "inputSchema": {
            "type": "object",
            "properties": {"noteId": ID, "body": {"type": "string", "maxLength": 200}},
            "required": ["noteId", "body"],
            "additionalProperties": False,
        },
        "annotations": {"destructiveHint": True},
    },
    "delete_note": {
        "inputSchema": {"type": "object", "properties": {"id": ID}, "required": ["id"], "additionalProperties": False},
        "annotations": {"destructiveHint": True},
    },
    "set_archive": {
        "inputSchema": {"type": "object", "properties": {"enabled": {"type": "boolean"}}, "required": ["enabled"], "additionalProperties": False},
        "annotations": {"destructiveHint": True},
    },
    "archive_note": {
        "inputSchema": {"type": "object", "properties": {"note_id": ID}, "required": ["note_id"], "additionalProperties": False},
        "annotations": {"destructiveHint": True},
    },
}


SHEETS: dict[str, list[str]] = {}
if "--sheets" in sys.argv:
    TOOLS["add_sheet"] = {
        "inputSchema": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 20}}, "required": ["name"], "additionalProperties": False},
        "annotations": {"destructiveHint": False},
    }
    TOOLS["read_sheet"] = {
        "inputSchema": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 20}}, "required": ["name"], "additionalProperties": False},
        "annotations": {"readOnlyHint": True},
    }


class Crash(Exception):
    pass


def listed() -> list[dict[str, Any]]:
    return [{"name": name, "description": name.replace("_", " "), **spec} for name, spec in TOOLS.items() if name != "archive_note" or STATE["archive"]]


def text(value: Any, *, error: bool = False, structured: Any = None) -> dict[str, Any]:
    result: dict[str, Any] = {"content": [{"type": "text", "text": value if isinstance(value, str) else json.dumps(value)}]}
    if structured is not None:
        result["structuredContent"] = structured
    if error:
        result["isError"] = True
    return {"result": result}


def note(note_id: str) -> dict[str, Any]:
    """The note, or Crash for a tombstone (the bug), or KeyError for an id never created."""
    found = NOTES[note_id]
    if found is None:
        if FIXED:
            raise KeyError(note_id)
        raise Crash(f"'NoneType' object is not subscriptable (note {note_id})")
    return found


def missing(note_id: str) -> dict[str, Any]:
    if DRESSED:
        return text(f"Error: note {note_id!r} not found")
    return text(f"No note {note_id!r}. Call list_notes to see the notes.", error=True)


def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    names = {tool["name"] for tool in listed()}
    if name not in names:
        if name == "archive_note" and not FIXED:
            return {"error": {"code": -32601, "message": "Tool archive_note is disabled"}}
        return text(f"Unknown tool {name!r}. Call tools/list to see the tools.", error=True)
    problem = _invalid(name, arguments)
    if problem:
        return text(f"Invalid arguments: {problem}", error=True)
    if name == "create_note":
        created = os.urandom(4).hex()
        NOTES[created] = {"id": created, "title": arguments["title"], "body": arguments.get("body", "")}
        return text(NOTES[created], structured={"id": created, "title": arguments["title"]})
    if name == "list_notes":
        live = [{"id": key, "title": value["title"]} for key, value in NOTES.items() if value is not None]
        return text(live, structured={"notes": live})
    if name == "set_archive":
        if STATE["archive"] != arguments["enabled"]:
            STATE["archive"] = arguments["enabled"]
            stdio_loop.send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        return text(f"archive {'on' if arguments['enabled'] else 'off'}")
    if name == "add_sheet":
        SHEETS.setdefault(arguments["name"], [])
        return text(f"sheet {arguments['name']!r} added", structured={"name": arguments["name"], "rows": 0})
    if name == "read_sheet":
        if arguments["name"] not in SHEETS:
            return text(f"No sheet {arguments['name']!r}. Call add_sheet first.", error=True)
        if not SHEETS[arguments["name"]]:
            raise Crash("list index out of range (empty sheet)")
        return text(SHEETS[arguments["name"]])
    note_id: Any = arguments.get("note_id") or arguments.get("noteId") or arguments.get("id")
    if note_id not in NOTES:
        return missing(note_id)
    try:
        found = note(note_id)
    except KeyError:
        return missing(note_id)
    if name == "get_note":
        return text(found, structured=found)
    if name == "update_note":
        found["body"] = arguments["body"]
        return text(found, structured=found)
    if name == "archive_note":
        ARCHIVED.add(note_id)
        return text(f"archived {note_id}")
    NOTES[note_id] = None
    return text(f"deleted {note_id}")


def _invalid(name: str, arguments: dict[str, Any]) -> str | None:
    schema = TOOLS[name]["inputSchema"]
    properties = schema["properties"]
    for key in schema.get("required", []):
        if key not in arguments:
            return f"{key!r} is required"
    for key, value in arguments.items():
        if key not in properties:
            return f"unexpected argument {key!r}"
        kind = properties[key]["type"]
        if (kind == "string" and not isinstance(value, str)) or (kind == "boolean" and not isinstance(value, bool)):
            return f"{key!r} must be a {kind}"
        limits = properties[key]
        if isinstance(value, str) and not limits.get("minLength", 0) <= len(value) <= limits.get("maxLength", 10**9):
            return f"{key!r} has a length out of bounds"
    return None


def answer(message: dict[str, Any]) -> dict[str, Any]:
    method, params = message.get("method"), message.get("params")
    if method == "initialize":
        return {
            "result": {
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {"listChanged": True}},
                "serverInfo": {"name": "notes-server", "version": "1.0"},
            }
        }
    if method == "tools/list":
        return {"result": {"tools": listed()}}
    if method == "ping":
        return {"result": {}}
    if method != "tools/call":
        return {"error": {"code": -32601, "message": f"Method not found: {method}"}}
    if not stdio_loop.well_formed_call(params):
        return {"error": {"code": -32602, "message": "Invalid params: not a CallToolRequest"}}
    try:
        return call(params["name"], params.get("arguments", {}))
    except Crash as crash:
        return {"error": {"code": -32603, "message": f"Internal error: {crash}"}}


if __name__ == "__main__":
    stdio_loop.serve(answer)
