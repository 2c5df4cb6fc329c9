"""Write `fuzz/wire/mcp_schema.json` from a checkout of the MCP specification repository.

``python vendor_wire_schema.py <specification-git-dir> > fuzz/wire/mcp_schema.json`` keeps, for
each schema era `fuzz/wire/shapes.py` knows, the definitions a `tools/call` result, a
JSON-RPC error object and (2025-11-25) the task methods' results need (the closure of their `$ref`s), with the prose descriptions left
out: the harness reads the types, not the documentation, and the file stays small.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from typing import Any

ERAS = {
    "2025-11-25": ["CallToolResult", "Error", "CreateTaskResult", "GetTaskResult", "CancelTaskResult", "ListTasksResult"],
    "2026-07-28": ["CallToolResult", "InputRequiredResult", "Error"],
}


def _git(repository: str, *arguments: str) -> str:
    return subprocess.check_output(["git", "-C", repository, *arguments], text=True)


def _without_descriptions(node: Any) -> Any:
    if isinstance(node, list):
        return [_without_descriptions(item) for item in node]
    if isinstance(node, dict):
        return {key: _without_descriptions(value) for key, value in node.items() if not (key == "description" and isinstance(value, str))}
    return node


def _closure(definitions: dict[str, Any], roots: list[str]) -> dict[str, Any]:
    kept: dict[str, Any] = {}
    pending = list(roots)
    while pending:
        name = pending.pop()
        if name not in kept:
            kept[name] = definitions[name]
            pending.extend(re.findall(r'"\$ref": "#/\$defs/([^"]+)"', json.dumps(definitions[name])))
    return dict(sorted(kept.items()))


def main(repository: str) -> None:
    commit = _git(repository, "rev-parse", "HEAD").strip()
    eras = {}
    for version, roots in ERAS.items():
        schema = json.loads(_git(repository, "show", f"HEAD:schema/{version}/schema.json"))
        eras[version] = {"$schema": schema["$schema"], "$defs": _without_descriptions(_closure(schema["$defs"], roots))}
    out = {
        "$comment": (
            "CallToolResult, InputRequiredResult (2026-07-28), Error and the task results (2025-11-25) with the definitions they refer to, "
            f"descriptions left out, from modelcontextprotocol/modelcontextprotocol@{commit[:12]} "
            "schema/2025-11-25/schema.json and schema/2026-07-28/schema.json."
        ),
        "eras": eras,
    }
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python vendor_wire_schema.py <git directory of modelcontextprotocol/modelcontextprotocol>")
    main(sys.argv[1])
