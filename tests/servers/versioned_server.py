"""A small MCP server over stdio in two versions whose tool lists differ in every way a tool list
can change (`fuzz.judging.tool_changes`): run version 1, then version 2, on one corpus.

`--version 1|2`, or the environment's `VERSIONED_SERVER_VERSION` (default 1). The command line is
part of a target's identity (`fuzz.corpus.targets`) and the environment is not, so the tests pick
the version by the environment: both versions are then the same target, as a new release is.

From version 1 to version 2:

- `retired` is removed (and version 1 has a bug in it: it accepts any arguments, so a run of
  version 1 keeps a reproduction of it, which a run of version 2 reports as gone);
- `old_name` is renamed `new_name` (the same inputSchema);
- `added` is added;
- `search`: `q` string or null -> string; `limit` number up to 100 -> integer up to 50; `mode`
  loses the enum value "slow" and gains "fuzzy"; `page` becomes required, `lang` optional;
  `legacy` is removed; `index` is added, required; `debug` is added, optional; each of `tags`'
  items needs 3 characters, not 1; `filter.field` gets a pattern; `size` may go down to -10, not 0;
  no other property is accepted any more (additionalProperties false);
- `report`'s outputSchema changes (`count` integer -> string); `stats` gets one; `summary` loses
  its own;
- `stats`'s destructiveHint goes from false to true (an annotation);
- `long_job`'s `execution.taskSupport` goes from optional to forbidden (breaking for a client that
  called it as a task);
- `echo` is the same in both.

Every other answer is compliant: arguments are checked against the inputSchema (a tool execution
error when they fail it), unknown tools get a tool execution error, structured results conform.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import jsonschema
import stdio_loop

VERSION = sys.argv[sys.argv.index("--version") + 1] if "--version" in sys.argv else os.environ.get("VERSIONED_SERVER_VERSION", "1")
NOTHING = {"type": "object", "properties": {}, "additionalProperties": False}
TEXT = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
RENAMED = {"type": "object", "properties": {"slug": {"type": "string", "maxLength": 12}}, "required": ["slug"]}

SEARCH_V1 = {
    "type": "object",
    "properties": {
        "q": {"type": ["string", "null"]},
        "limit": {"type": "number", "maximum": 100},
        "mode": {"enum": ["fast", "slow", "exact"]},
        "page": {"type": "integer"},
        "lang": {"type": "string"},
        "legacy": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "string", "minLength": 1}},
        "filter": {"type": "object", "properties": {"field": {"type": "string"}}},
        "size": {"type": "integer", "minimum": 0},
    },
    "required": ["q", "lang"],
}
SEARCH_V2 = {
    "type": "object",
    "properties": {
        "q": {"type": "string"},
        "limit": {"type": "integer", "maximum": 50},
        "mode": {"enum": ["fast", "exact", "fuzzy"]},
        "page": {"type": "integer"},
        "lang": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string", "minLength": 3}},
        "filter": {"type": "object", "properties": {"field": {"type": "string", "pattern": "^[a-z]"}}},
        "size": {"type": "integer", "minimum": -10},
        "index": {"type": "integer"},
        "debug": {"type": "boolean"},
    },
    "required": ["q", "page", "index"],
    "additionalProperties": False,
}
COUNT_V1 = {"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]}
COUNT_V2 = {"type": "object", "properties": {"count": {"type": "string"}}, "required": ["count"]}


def tools(version: str) -> list[dict[str, Any]]:
    first = version == "1"
    listed: list[dict[str, Any]] = [
        {"name": "echo", "description": "say it back", "inputSchema": TEXT, "annotations": {"readOnlyHint": True}},
        {"name": "search", "description": "search", "inputSchema": SEARCH_V1 if first else SEARCH_V2, "annotations": {"readOnlyHint": True}},
        {"name": "report", "description": "count", "inputSchema": NOTHING, "outputSchema": COUNT_V1 if first else COUNT_V2},
        {
            "name": "stats",
            "description": "statistics",
            "inputSchema": NOTHING,
            "annotations": {"readOnlyHint": False, "destructiveHint": not first},
            **({} if first else {"outputSchema": COUNT_V2}),
        },
        {"name": "summary", "description": "a summary", "inputSchema": NOTHING, **({"outputSchema": COUNT_V1} if first else {})},
        {"name": "long_job", "description": "takes long", "inputSchema": NOTHING, "execution": {"taskSupport": "optional" if first else "forbidden"}},
        {"name": "old_name" if first else "new_name", "description": "a renamed tool", "inputSchema": RENAMED},
    ]
    if first:
        listed.append({"name": "retired", "description": "going away", "inputSchema": TEXT})
    else:
        listed.append({"name": "added", "description": "new in version 2", "inputSchema": NOTHING})
    return listed


TOOLS = tools(VERSION)
VALIDATORS = {tool["name"]: jsonschema.Draft202012Validator(tool["inputSchema"]) for tool in TOOLS}
OUTPUTS = {tool["name"]: tool["outputSchema"] for tool in TOOLS if "outputSchema" in tool}


def result(text: str, *, error: bool = False, structured: dict[str, Any] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"content": [{"type": "text", "text": text}]}
    if error:
        body["isError"] = True
    if structured is not None:
        body["structuredContent"] = structured
    return {"result": body}


def answer(message: dict[str, Any]) -> dict[str, Any]:
    plain = stdio_loop.plain_server(message, {"name": "versioned", "version": f"{VERSION}.0.0"}, TOOLS)
    if plain is not None:
        return plain
    params = message["params"]
    name, arguments = params["name"], params.get("arguments", {})
    if name not in VALIDATORS:
        return result(f"Unknown tool: {name}. Re-run tools/list and retry.", error=True)
    if name != "retired":  # the bug: `retired` takes anything
        problems = list(VALIDATORS[name].iter_errors(arguments))
        if problems:
            return result(f"Invalid input for {name}: {problems[0].message}", error=True)
    if name in OUTPUTS:
        count: Any = 1 if OUTPUTS[name] is COUNT_V1 else "one"
        return result(f"count: {count}", structured={"count": count})
    return result(f"{name} done")


if __name__ == "__main__":
    stdio_loop.serve(answer)
