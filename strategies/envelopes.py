"""`tools/call` requests, well-formed and malformed, without their JSON-RPC id.

A request is malformed when it fails the `CallToolRequest` schema. Its `params` may be missing
or not an object. Its `name` may be missing or not a string. Its `arguments` may be present but
not an object. Such a request must get a JSON-RPC error (`-32602`, invalid params).

The schema allows unknown extra members of `params`. So they are never drawn here as
"malformed".
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from hypothesis import strategies as st

from strategies._pools import pooled
from strategies.characters import json_text
from strategies.drawing import mapped
from strategies.labelled import Labelled


class Absent(Enum):
    """Marks a member left out of a message (distinct from JSON null)."""

    MEMBER = "absent"


ABSENT = Absent.MEMBER


def call_params(name: Any, arguments: Any = ABSENT) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name}
    if arguments is not ABSENT:
        params["arguments"] = arguments
    return params


def call_message(params: Any) -> dict[str, Any]:
    """A `tools/call` request without its id; `params` may be ABSENT."""
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": "tools/call"}
    if params is not ABSENT:
        message["params"] = params
    return message


_small_json: st.SearchStrategy[Any] = pooled(
    st.recursive(
        st.none() | st.booleans() | st.integers() | json_text(max_size=10),
        lambda children: st.lists(children, max_size=3) | st.dictionaries(json_text(max_size=6), children, max_size=3),
        max_leaves=6,
    ),
    "small JSON",
)
_junk_arrays: st.SearchStrategy[list[Any]] = pooled(st.lists(_small_json, max_size=3), "junk arrays")
_junk_objects: st.SearchStrategy[dict[str, Any]] = pooled(st.dictionaries(json_text(max_size=6), _small_json, max_size=2), "junk objects")
"""An array and an object of small JSON, for where a request's parts must be something else.

They stand in a request's `params`, `arguments` or name. They are pooled whole, not only their
elements, so a case draws them in two choices, not one for each part.
"""
non_string_values = st.one_of(
    mapped(st.none(), lambda v: Labelled(v, "null")),
    mapped(st.integers(), lambda v: Labelled(v, "a number")),
    mapped(st.booleans(), lambda v: Labelled(v, "a boolean")),
    mapped(_junk_objects, lambda v: Labelled(v, "an object")),
    mapped(_junk_arrays, lambda v: Labelled(v, "an array")),
)
non_object_values = st.one_of(
    mapped(_junk_arrays, lambda v: Labelled(v, "an array")),
    mapped(json_text(max_size=10), lambda v: Labelled(v, "a string")),
    mapped(st.integers(), lambda v: Labelled(v, "a number")),
    mapped(st.none(), lambda v: Labelled(v, "null")),
    mapped(st.booleans(), lambda v: Labelled(v, "a boolean")),
)


def canonical_malformed_envelopes() -> list[Labelled[Any]]:
    """The simplest example of each way to break the CallToolRequest schema without a tool.

    The ways are: `params` missing or not an object, and `name` missing or not a string. These
    concern no tool, so the engine sends them once per run, not once per tool.
    """
    return [
        Labelled(ABSENT, "params missing"),
        Labelled([], "params is an array"),
        *(Labelled(params, f"params is {params!r}") for params in _SCALAR_PARAMS),
        Labelled({"arguments": {}}, "name missing"),
        *(Labelled(call_params(name, {}), f"name is {label}") for name, label in _ODD_VALUES),
    ]


def canonical_malformed_arguments(tool_name: str) -> list[Labelled[Any]]:
    """The simplest call to `tool_name` with `arguments` of each non-object JSON type."""
    return [
        *(Labelled(call_params(tool_name, arguments), f"arguments is {label}") for arguments, label in _ODD_VALUES if not isinstance(arguments, dict)),
        Labelled(call_params(tool_name, ""), "arguments is a string"),
    ]


_SCALAR_PARAMS: tuple[Any, ...] = ("string", 0, None, True)
_ODD_VALUES: tuple[tuple[Any, str], ...] = ((None, "null"), (0, "a number"), (False, "a boolean"), ({}, "an object"), ([], "an array"))


def malformed_envelopes() -> st.SearchStrategy[Labelled[Any]]:
    """`params` values, or ABSENT, that break the CallToolRequest schema, labelled with how.

    They break it whatever tool they might name. Shrinks towards a request with no `params` at
    all.
    """
    return st.one_of(
        st.just(Labelled(ABSENT, "params missing")),
        mapped(_junk_arrays, lambda params: Labelled(params, "params is an array")),
        st.sampled_from(_SCALAR_PARAMS).map(lambda params: Labelled(params, f"params is {params!r}")),
        mapped(
            _junk_objects,
            lambda extra: Labelled({**{k: v for k, v in extra.items() if k != "name"}, "arguments": {}}, "name missing"),
        ),
        mapped(non_string_values, lambda name: Labelled(call_params(name.value, {}), f"name is {name.label}")),
    )


def malformed_arguments(tool_name: str) -> st.SearchStrategy[Labelled[Any]]:
    """Calls to `tool_name` whose `arguments` is not an object.

    `tool_name` is a listed tool, so that only the envelope is wrong. Shrinks towards
    `"arguments": []`.
    """
    return mapped(non_object_values, lambda arguments: Labelled(call_params(tool_name, arguments.value), f"arguments is {arguments.label}"))
