"""The official wire types, per spoken revision, from the specification's JSON Schema.

`tools/call` results are validated against the `CallToolResult` of the revision's schema era.
The schemas are in `mcp_schema.json`.
It holds the definitions a result and a JSON-RPC error object need.
They are taken from the specification repository's `schema/<revision>/schema.json`.
The eras follow the `mcp-types` package.
Every revision up to 2025-11-25 is checked against the 2025-11-25 schema.
Each later schema only adds optional members and content kinds.
2026-07-28 is checked against its own.

The check is strict: `isError: "yes"` is not a boolean.
Two readings follow the official SDKs' types rather than the letter of the schema.
An optional member that is `null` counts as absent.
A number with no fractional part is an integer, as JSON Schema's own rule says.
So a result those clients read is not called malformed.
Extra members are allowed, as every revision's schema allows them.
`Result` is open in each, 2026-07-28 included.

Under 2026-07-28 the result must say what it is, in `resultType`.
`"complete"` marks a CallToolResult, and `"input_required"` an InputRequiredResult.
The schema types `resultType` only as a string.
Any other value is an extension's, and wrong here: the harness negotiates no extension.

`tests/schemas/gather/vendor_wire_schema.py` writes `mcp_schema.json` anew.
It reads a checkout of the specification repository.

Why not the `mcp-types` models themselves?
Importing them pulls in pydantic, which costs each worker process much memory for three types.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from importlib.resources import files
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match
from jsonschema.protocols import Validator
from jsonschema.validators import extend

LATEST_KNOWN_VERSION = "2025-11-25"
RESULT_TYPES = ("complete", "input_required")
"""The `resultType` values of the stateless revision's tools/call results."""
WITHOUT_OUTPUT_SCHEMA = ("2024-11-05", "2025-03-26")
"""Revisions whose tools have no `outputSchema` and whose results no `structuredContent`."""
OBJECT_STRUCTURED_CONTENT = ("2025-06-18", "2025-11-25")
"""Revisions whose `structuredContent` is an object.

2026-07-28 allows any JSON value."""
STATELESS_ERA = "2026-07-28"
TASKS_ERA = "2025-11-25"
"""The one revision whose core defines tasks; 2026-07-28 moved them into an extension."""
TASK_RESULTS = ("CreateTaskResult", "GetTaskResult", "CancelTaskResult", "ListTasksResult")
"""The task methods' result types of `TASKS_ERA`, checked against its schema."""


def _properties_null_as_absent(validator: Validator, properties: Mapping[str, Any], instance: Any, schema: Mapping[str, Any]) -> Iterator[ValidationError]:
    """JSON Schema's `properties`, reading an optional null member as absent.

    Such a member is not checked, since the SDKs' types read it as absent."""
    if not validator.is_type(instance, "object"):
        return
    required = schema.get("required", ())
    for name, subschema in properties.items():
        if name in instance and (instance[name] is not None or name in required):
            yield from validator.descend(instance[name], subschema, path=name, schema_path=name)  # type: ignore[attr-defined]


_WireValidator = extend(Draft202012Validator, {"properties": _properties_null_as_absent})  # type: ignore[no-untyped-call]


def _validators() -> dict[tuple[str, str], Validator]:
    eras = json.loads(files(__package__).joinpath("mcp_schema.json").read_text(encoding="utf-8"))["eras"]
    return {
        (era, name): _WireValidator({**schema, "$ref": f"#/$defs/{name}"})
        for era, schema in eras.items()
        for name in ("CallToolResult", "InputRequiredResult", "Error", *TASK_RESULTS)
        if name in schema["$defs"]
    }


_VALIDATORS = _validators()


def call_tool_result_problem(result: Any, protocol_version: str = LATEST_KNOWN_VERSION) -> str | None:
    """Why `result` is not a CallToolResult of `protocol_version`, or None when it is.

    Under 2026-07-28, an InputRequiredResult is accepted too."""
    era = STATELESS_ERA if protocol_version == STATELESS_ERA else LATEST_KNOWN_VERSION
    kind = result.get("resultType", "complete") if isinstance(result, dict) else "complete"
    if era == STATELESS_ERA and isinstance(result, dict):
        if kind not in RESULT_TYPES:
            shown = "no resultType" if "resultType" not in result else f"resultType {kind!r:.60}"
            return f"not a tools/call result ({protocol_version}): {shown}; the revision's are {', '.join(map(repr, RESULT_TYPES))}"
        if kind == "input_required" and "inputRequests" not in result and "requestState" not in result:
            return f"not an InputRequiredResult ({protocol_version}): it has neither inputRequests nor requestState"
    if _plainly_valid(result, era):
        return None
    name = "InputRequiredResult" if era == STATELESS_ERA and kind == "input_required" else "CallToolResult"
    validator = _VALIDATORS[(era, name)]
    if validator.is_valid(result):
        return None
    return f"not {'an' if name[0] in 'AEIOU' else 'a'} {name} ({protocol_version}): {_first_problem(validator, result, 'result')}"


def _plainly_valid(result: Any, era: str) -> bool:
    """Whether `result` is plainly a CallToolResult of `era`, by a quick inspection.

    It checks for the shape most answers have.
    That is text blocks only, a boolean or no `isError`, and an object or no `structuredContent`.
    This is much faster than the validator.
    False says nothing: the validator decides."""
    if type(result) is not dict or type(content := result.get("content")) is not list:
        return False
    for block in content:
        if type(block) is not dict or len(block) != 2 or block.get("type") != "text" or type(block.get("text")) is not str:
            return False
    if (flag := result.get("isError")) is not None and type(flag) is not bool:
        return False
    if era == STATELESS_ERA:
        return result.get("resultType") == "complete" and result.get("_meta") is None
    return all((member := result.get(name)) is None or type(member) is dict for name in ("structuredContent", "_meta"))


def task_result_problem(result: Any, name: str) -> str | None:
    """Why `result` is not the 2025-11-25 task result `name` (one of `TASK_RESULTS`), or None."""
    validator = _VALIDATORS[(TASKS_ERA, name)]
    if validator.is_valid(result):
        return None
    return f"not a {name} ({TASKS_ERA}): {_first_problem(validator, result, 'result')}"


def error_object_problem(error: Any) -> str | None:
    """Why a JSON-RPC `error` member is not an error object, or None when it is.

    An error object has an integer `code` and a string `message`."""
    if type(error) is dict and type(error.get("code")) is int and type(error.get("message")) is str:
        return None
    validator = _VALIDATORS[(LATEST_KNOWN_VERSION, "Error")]
    if validator.is_valid(error):
        return None
    return f"not a JSON-RPC error object: {_first_problem(validator, error, 'error')}"


def _first_problem(validator: Validator, instance: Any, root: str) -> str:
    error = _closest(best_match(validator.iter_errors(instance)))
    where = root + "".join(f"[{part!r}]" for part in error.absolute_path)
    if error.validator == "type":
        return f"{where} is {_json_kind(error.instance)}, expected {_expected_kind(error.validator_value)}"  # type: ignore[arg-type]
    if error.validator == "const":
        return f"{where} is {_shown(error.instance)}, expected {_shown(error.validator_value)}"
    if error.validator == "enum":
        return f"{where} is {_shown(error.instance)}, expected one of {', '.join(map(_shown, error.validator_value))}"  # type: ignore[arg-type]
    if error.validator == "required":
        return f"{where} has no {error.message.removesuffix(' is a required property')}, which is required"
    if error.validator in ("anyOf", "oneOf"):
        return f"{where} matches none of the kinds it may be"
    return f"{where}: {error.message:.160}"


def _closest(error: ValidationError) -> ValidationError:
    """The error to report, found by following the one branch that matches.

    Into an `anyOf`, follow the one branch whose `type` or `method` matches.
    Such `anyOf`s list a content block's kinds, or an input request's.
    So a text block without `text` is reported as that.
    It is not reported as matching none of five kinds."""
    while error.context and error.validator in ("anyOf", "oneOf"):
        branches: dict[Any, list[ValidationError]] = {}
        for sub in error.context:
            branches.setdefault(sub.relative_schema_path[0], []).append(sub)
        plausible = [errors for errors in branches.values() if not any(_discriminates(sub) for sub in errors)]
        if len(plausible) != 1:
            break
        error = best_match(plausible[0])
    return error


def _discriminates(error: ValidationError) -> bool:
    return error.validator in ("const", "enum") and list(error.relative_path) in (["type"], ["method"])


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"


def _expected_kind(expected: str | list[str]) -> str:
    kinds = [expected] if isinstance(expected, str) else expected
    return " or ".join(("an " if kind[0] in "aeiou" else "a ") + kind for kind in kinds)


def _shown(value: Any) -> str:
    return f"{json.dumps(value)[:60]}"
