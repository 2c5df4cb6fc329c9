"""Known-good argument values from the user (`--argument TOOL.FIELD=VALUE`).

Some tools can only be reached with such values: a path inside the directory the server was started
with, or an id that exists. Every argument object generated for the tool holds one of them. Invalid
arguments are mutations of such objects. The label says when the mutation landed on a known value.

Spelling: VALUE is read as JSON when it parses as JSON (`3`, `true`, `["a"]`, `"007"`). Otherwise it
is read as a string (`/srv/repo`). Given several times for one field, the values are choices to draw
from. TOOL is a listed tool's name, the longest that matches, since names may hold dots. Or it is
`*`, for every tool that declares FIELD.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from fuzz.errors import ConfigurationError
from fuzz.text import show
from strategies import Tool

KnownArgument = tuple[str, Any]
"""`("TOOL.FIELD", value)` as the command line gave it."""

EVERY_TOOL = "*"


def parse_known_argument(text: str) -> KnownArgument:
    """Parse `TOOL.FIELD=VALUE` into `("TOOL.FIELD", value)`.

    Raises ValueError saying what is wrong.
    """
    key, equals, raw = text.partition("=")
    if not equals or "." not in key.strip(".") or not key.strip():
        raise ValueError(f"{text!r} is not TOOL.FIELD=VALUE (e.g. git_log.repo_path=/srv/repo)")
    try:
        value = json.loads(raw)
    except ValueError:
        value = raw
    return key, value


def resolve_known_arguments(given: Sequence[KnownArgument], tools: Sequence[Tool]) -> dict[str, dict[str, tuple[Any, ...]]]:
    """The known values by tool name and field, each checked against the field's schema.

    Raises a one-line ConfigurationError for a tool that is not listed, or a field it does not
    declare. So does a value the field's schema rejects.
    """
    by_name = {tool.name: tool for tool in tools}
    known: dict[str, dict[str, list[Any]]] = {}
    for key, value in given:
        for tool, field in _targets(key, by_name):
            _check(tool, field, value, key)
            choices = known.setdefault(tool.name, {}).setdefault(field, [])
            if value not in choices:
                choices.append(value)
    return {name: {field: tuple(values) for field, values in fields.items()} for name, fields in known.items()}


def _targets(key: str, by_name: Mapping[str, Tool]) -> list[tuple[Tool, str]]:
    if key.startswith(EVERY_TOOL + "."):
        field = key[len(EVERY_TOOL) + 1 :]
        matching = [(tool, field) for tool in by_name.values() if field in _properties(tool)]
        if not matching:
            raise ConfigurationError(f"--argument {key}: no listed tool declares a field {field!r}")
        return matching
    names = [name for name in by_name if key.startswith(name + ".") and len(key) > len(name) + 1]
    if not names:
        listed = ", ".join(sorted(by_name)) or "none"
        raise ConfigurationError(
            f"--argument {key}: no listed tool is named {key.rsplit('.', 1)[0]!r} (listed: {listed}); "
            "write TOOL.FIELD=VALUE with a listed tool, or *.FIELD=VALUE"
        )
    name = max(names, key=len)
    return [(by_name[name], key[len(name) + 1 :])]


def _properties(tool: Tool) -> Mapping[str, Any]:
    properties = tool.input_schema.get("properties")
    return properties if isinstance(properties, Mapping) else {}


def _check(tool: Tool, field: str, value: Any, key: str) -> None:
    properties = _properties(tool)
    if field not in properties:
        declared = ", ".join(sorted(properties)) or "none"
        raise ConfigurationError(f"--argument {key}: tool {tool.name!r} declares no field {field!r} (its fields: {declared})")
    schema = properties[field]
    if isinstance(schema, (Mapping, bool)) and not tool.input_check.subschema_accepts(schema, value):
        raise ConfigurationError(
            f"--argument {key}={show(value, 60)}: the inputSchema of tool {tool.name!r} rejects this value for "
            f"{field!r} (its schema: {show(schema, 120)}); give a value the schema accepts"
        )
