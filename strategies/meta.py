"""The per-request envelope of the stateless revision (2026-07-28), well-formed and broken.

The envelope is `params._meta` and, over Streamable HTTP, the headers that mirror it. Under
2026-07-28 there is no `initialize`. Every request names its revision and the client's
capabilities in `params._meta`. `protocolVersion` and `clientCapabilities` are required;
`clientInfo` SHOULD be there.

A request whose envelope is missing or of the wrong shape is malformed (`-32602`). A request
naming a revision the server does not speak gets `-32022`. Over HTTP, a `MCP-Protocol-Version`,
`Mcp-Method` or `Mcp-Name` header that disagrees with the body gets `-32020`.

The strategies here take the well-formed envelope (`meta`) as given. They break one thing of it
at a time, so the label says exactly what is wrong.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from strategies.drawing import mapped
from strategies.envelopes import ABSENT, call_params, non_object_values, non_string_values
from strategies.labelled import Labelled

PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo"
REQUIRED_KEYS = (PROTOCOL_VERSION_KEY, CLIENT_CAPABILITIES_KEY)
TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
"""The tasks extension of 2026-07-28 (SEP-2663), declared in `clientCapabilities.extensions`."""
TASK_TTL_MS = 60_000
"""The lifetime a 2025-11-25 task-augmented call asks for (`params.task.ttl`): long enough to be
polled and fetched, short enough that a server keeps few of a run's tasks."""


def sent_as_task(request: Mapping[str, Any]) -> bool:
    """Whether `request` was sent as a task: it carries `params.task`, or its `_meta` declares the
    tasks extension (the inverse of `in_task`)."""
    params = request.get("params")
    if not isinstance(params, Mapping):
        return False
    if isinstance(params.get("task"), Mapping):
        return True
    meta = params.get("_meta")
    capabilities = meta.get(CLIENT_CAPABILITIES_KEY) if isinstance(meta, Mapping) else None
    extensions = capabilities.get("extensions") if isinstance(capabilities, Mapping) else None
    return isinstance(extensions, Mapping) and TASKS_EXTENSION in extensions


def in_task(params: Any, meta: Mapping[str, Any] | None) -> tuple[Any, Mapping[str, Any] | None]:
    """`params` and `meta` of a call sent as a task.

    Under 2025-11-25 (no `meta`), params carry `task: {"ttl": ...}`. Under 2026-07-28 the
    `_meta` envelope declares the tasks extension, and the server decides whether to make a task.
    Params that are not an object are returned as they are.
    """
    if meta is None:
        return ({**params, "task": {"ttl": TASK_TTL_MS}} if isinstance(params, dict) else params), None
    return params, with_capabilities(meta, {"extensions": {TASKS_EXTENSION: {}}})


def with_capabilities(meta: Mapping[str, Any], declared: Mapping[str, Any]) -> dict[str, Any]:
    """`meta` whose `clientCapabilities` also declare `declared`, merged one level down (an
    extension added beside those already declared)."""
    capabilities = meta.get(CLIENT_CAPABILITIES_KEY)
    merged = dict(capabilities) if isinstance(capabilities, Mapping) else {}
    for name, value in declared.items():
        present = merged.get(name)
        merged[name] = {**present, **value} if isinstance(present, Mapping) and isinstance(value, Mapping) else value
    return {**meta, CLIENT_CAPABILITIES_KEY: merged}


VERSION_HEADER = "MCP-Protocol-Version"
METHOD_HEADER = "Mcp-Method"
NAME_HEADER = "Mcp-Name"

HeaderOverrides = tuple[tuple[str, "str | None"], ...]
"""Header values to send instead of those the request implies.

A value of None leaves the header out.
"""

NEVER_RELEASED_VERSIONS = ("1999-01-01", "2026-07-29", "2099-12-31", "2026-7-28", "draft")
"""Revision strings no MCP release has.

The handshake revisions are not drawn as "unsupported". A dual-era server may route a request
naming one to its handshake side, where the stateless rules do not apply. mcp 2.3.0 over HTTP
does.
"""


def with_meta(params: Any, meta: Any) -> Any:
    """`params` with `_meta` set to `meta`, or removed when `meta` is ABSENT.

    Params that are not an object are returned as they are.
    """
    if not isinstance(params, dict):
        return params
    rest = {key: value for key, value in params.items() if key != "_meta"}
    return rest if meta is ABSENT else {**rest, "_meta": meta}


def _without(meta: Mapping[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in meta.items() if k != key}


def _short(key: str) -> str:
    return key.rpartition("/")[2]


def canonical_malformed_metas(tool_name: str, meta: Mapping[str, Any]) -> list[Labelled[Any]]:
    """The simplest call to `tool_name` with each way its `_meta` can be malformed.

    Each call has `{}` arguments.
    """
    call = call_params(tool_name, {})
    return [
        Labelled(call, "_meta missing"),
        *(Labelled(with_meta(call, value), f"_meta is {label}") for value, label in (("x", "a string"), ([], "an array"), (None, "null"))),
        *(Labelled(with_meta(call, _without(meta, key)), f"_meta without {_short(key)}") for key in REQUIRED_KEYS),
        Labelled(with_meta(call, {**meta, PROTOCOL_VERSION_KEY: 20260728}), "_meta protocolVersion is a number"),
        Labelled(with_meta(call, {**meta, CLIENT_CAPABILITIES_KEY: []}), "_meta clientCapabilities is an array"),
    ]


def malformed_metas(tool_name: str, meta: Mapping[str, Any]) -> st.SearchStrategy[Labelled[Any]]:
    """Calls to `tool_name` whose `_meta` is malformed.

    The `_meta` is missing or not an object. Or it lacks a required key, or has one of the wrong
    type. The calls have `{}` arguments. Give them arguments the tool takes, so that only the
    envelope is wrong. Shrinks towards `_meta` missing.
    """
    call = call_params(tool_name, {})
    base = dict(meta)
    return st.one_of(
        st.just(Labelled(call, "_meta missing")),
        mapped(non_object_values, lambda v: Labelled(with_meta(call, v.value), f"_meta is {v.label}")),
        st.sampled_from(REQUIRED_KEYS).map(lambda key: Labelled(with_meta(call, _without(base, key)), f"_meta without {_short(key)}")),
        mapped(non_string_values, lambda v: Labelled(with_meta(call, {**base, PROTOCOL_VERSION_KEY: v.value}), f"_meta protocolVersion is {v.label}")),
        mapped(non_object_values, lambda v: Labelled(with_meta(call, {**base, CLIENT_CAPABILITIES_KEY: v.value}), f"_meta clientCapabilities is {v.label}")),
    )


def unsupported_versions(supported: Collection[str]) -> st.SearchStrategy[Labelled[str]]:
    """Revision strings that are not in `supported` and that no release has.

    Shrinks towards the first of `NEVER_RELEASED_VERSIONS`.
    """
    known = frozenset(supported)
    return st.one_of(
        st.sampled_from([v for v in NEVER_RELEASED_VERSIONS if v not in known]).map(lambda v: Labelled(v, f"protocolVersion {v!r}")),
        st.dates()
        .map(lambda day: day.isoformat())
        .filter(lambda v: v not in known and not v.startswith(("2024-", "2025-", "2026-")))
        .map(lambda v: Labelled(v, f"protocolVersion {v!r} (a date no release has)")),
    )


def unsupported_version_calls(tool_name: str, meta: Mapping[str, Any], supported: Collection[str]) -> st.SearchStrategy[Labelled[Any]]:
    """Well-formed calls to `tool_name` whose `_meta` names a revision the server lacks.

    That is a revision the server does not speak. The calls have `{}` arguments; give them
    arguments the tool takes.
    """
    call = call_params(tool_name, {})
    base = dict(meta)
    return mapped(unsupported_versions(supported), lambda v: Labelled(with_meta(call, {**base, PROTOCOL_VERSION_KEY: v.value}), v.label))


_HEADER_TEXT = st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1, max_size=20)
"""Printable ASCII without spaces: a header value that arrives as sent."""


def header_mismatches(tool_name: str, version: str) -> st.SearchStrategy[Labelled[HeaderOverrides]]:
    """Overrides that make one header disagree with a well-formed `tools/call`.

    The call is to `tool_name`, under `version`. `Mcp-Method` or `Mcp-Name` is left out, or
    names something else. Or `MCP-Protocol-Version` names another revision. That revision is
    never a handshake one, and the header is never left out. A request without it is a
    handshake-era request to a dual-era server. Shrinks towards `Mcp-Method` left out.
    """

    def one(header: str, value: str | None, label: str) -> Labelled[HeaderOverrides]:
        return Labelled(((header, value),), label)

    return st.one_of(
        st.just(one(METHOD_HEADER, None, f"{METHOD_HEADER} header left out")),
        st.just(one(NAME_HEADER, None, f"{NAME_HEADER} header left out")),
        st.one_of(st.just("tools/list"), _HEADER_TEXT)
        .filter(lambda v: v != "tools/call")
        .map(lambda v: one(METHOD_HEADER, v, f"{METHOD_HEADER} header {v!r}, the body's method 'tools/call'")),
        _HEADER_TEXT.filter(lambda v: v != tool_name and not v.startswith("=?")).map(
            lambda v: one(NAME_HEADER, v, f"{NAME_HEADER} header {v!r}, the body's name {tool_name!r}")
        ),
        st.sampled_from([v for v in NEVER_RELEASED_VERSIONS if v != version]).map(
            lambda v: one(VERSION_HEADER, v, f"{VERSION_HEADER} header {v!r}, the body's _meta {version!r}")
        ),
    )


def canonical_header_mismatches(tool_name: str, version: str) -> list[Labelled[HeaderOverrides]]:
    """The simplest disagreement of each header."""
    other = "tools/list"
    wrong_name = "mcp-toolfuzz-no-such-name" if tool_name != "mcp-toolfuzz-no-such-name" else "mcp-toolfuzz-other-name"
    return [
        Labelled(((METHOD_HEADER, None),), f"{METHOD_HEADER} header left out"),
        Labelled(((METHOD_HEADER, other),), f"{METHOD_HEADER} header {other!r}, the body's method 'tools/call'"),
        Labelled(((NAME_HEADER, None),), f"{NAME_HEADER} header left out"),
        Labelled(((NAME_HEADER, wrong_name),), f"{NAME_HEADER} header {wrong_name!r}, the body's name {tool_name!r}"),
        Labelled(((VERSION_HEADER, NEVER_RELEASED_VERSIONS[1]),), f"{VERSION_HEADER} header {NEVER_RELEASED_VERSIONS[1]!r}, the body's _meta {version!r}"),
    ]


@dataclass(frozen=True, slots=True)
class Stateless:
    """What the strategies need to know of a run under the stateless revision."""

    version: str
    meta: Mapping[str, Any] = field(hash=False, compare=True)
    """The well-formed `_meta` every request carries."""
    supported: tuple[str, ...] = ()
    """The revisions the server said it speaks (`server/discover`'s `supportedVersions`)."""
    over_http: bool = False
    """Whether headers mirror the body, as over Streamable HTTP.

    Then they can be made to disagree with it.
    """
