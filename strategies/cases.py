"""Cases: one `tools/call` request each, of one kind, drawn for one listed tool."""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any

from hypothesis import strategies as st

from strategies._names import LONGEST_NAME, unknown_tool_names
from strategies._outputs import non_object_outputs, outputs
from strategies._pools import pooled
from strategies.arguments import VALID_LABEL, invalid_arguments, valid_arguments
from strategies.characters import json_text
from strategies.drawing import mapped, tupled
from strategies.envelopes import (
    ABSENT,
    call_message,
    call_params,
    canonical_malformed_arguments,
    canonical_malformed_envelopes,
    malformed_arguments,
    malformed_envelopes,
)
from strategies.inputs import Inputs, inputs, invalid_responses
from strategies.labelled import Labelled
from strategies.meta import (
    NEVER_RELEASED_VERSIONS,
    PROTOCOL_VERSION_KEY,
    HeaderOverrides,
    Stateless,
    canonical_header_mismatches,
    canonical_malformed_metas,
    header_mismatches,
    in_task,
    malformed_metas,
    sent_as_task,
    unsupported_version_calls,
    with_capabilities,
    with_meta,
)
from strategies.tools import Tool
from strategies.values import Known, coerced_variants, valid_objects


class CaseKind(Enum):
    """What a case tests; the value is its public name in reports."""

    VALID_ARGUMENTS = "valid-arguments"
    INVALID_ARGUMENTS = "invalid-arguments"
    UNKNOWN_TOOL = "unknown-tool"
    MALFORMED_REQUEST = "malformed-request"
    UNAVAILABLE_TOOL = "unavailable-tool"
    """A call, with any arguments, to a tool the server has but must refuse."""
    VALID_OUTPUT = "valid-output"
    """A call to a mirror tool asking it to return conforming structuredContent."""
    INVALID_OUTPUT = "invalid-output"
    """A call to a mirror tool asking it to return structuredContent its outputSchema rejects."""
    MALFORMED_META = "malformed-meta"
    """A call whose `_meta` envelope is missing or malformed (2026-07-28).

    It is a malformed request.
    """
    UNSUPPORTED_VERSION = "unsupported-version"
    """A well-formed call naming a revision the server does not speak (2026-07-28).

    The revision is named in its `_meta`.
    """
    HEADER_MISMATCH = "header-mismatch"
    """A well-formed call whose HTTP headers disagree with its body.

    It exists under 2026-07-28, over Streamable HTTP.
    """
    TOOL_LISTING = "tool-listing"
    """Not a call: the `tools/list` answer itself, judged once per run.

    `fuzz.judging.tool_names` judges it. No strategy draws it. It names what a finding on a
    listed tool's name is about.
    """
    CALL_WITHOUT_TASK = "call-without-task"
    """A call, not as a task, to a tool whose `execution.taskSupport` is `required` (2025-11-25).

    It carries valid arguments, so that a server that runs the tool anyway shows it.
    """
    TASK_FOR_FORBIDDEN = "task-for-forbidden"
    """A call as a task to a tool that does not take tasks, on a server that takes them for
    `tools/call` (2025-11-25). It carries valid arguments, so that a body run shows.
    """
    TASK_METHOD = "task-method"
    """Not a call: a task method's request (`tasks/get`, `tasks/result`, `tasks/cancel`,
    `tasks/list`) or the `ping` after them, sent by the task phase
    (`fuzz.engine.phases._task_methods`). No strategy draws it.
    """
    INVALID_INPUT_RESPONSE = "invalid-input-response"
    """A call with valid arguments whose input requests are answered with `inputResponses` that
    are not an InputResponses object (2026-07-28): a malformed retry, which SHOULD get a JSON-RPC
    error or the input requested again, never a completed call."""
    REQUEST_STATE = "request-state"
    """Not a drawn case: a retry of a call answered `input_required` whose `requestState` was
    tampered with, cut short, or taken from a call of other arguments (2026-07-28), sent by the
    rounds phase (`fuzz.engine.phases._rounds`)."""
    SEQUENCE = "sequence"
    """A call at the end of a sequence of calls (`fuzz.engine.phases._sequences`).

    It is judged as the kind it is on its own: valid or invalid arguments, or an unknown tool.
    No strategy of this module draws it.
    """


TASK_KINDS = (CaseKind.CALL_WITHOUT_TASK, CaseKind.TASK_FOR_FORBIDDEN)
"""The kinds a tool's declared task support adds (2025-11-25)."""

ANSWERING_KINDS = (
    CaseKind.VALID_ARGUMENTS,
    CaseKind.INVALID_ARGUMENTS,
    CaseKind.UNKNOWN_TOOL,
    CaseKind.UNAVAILABLE_TOOL,
    CaseKind.VALID_OUTPUT,
    CaseKind.INVALID_OUTPUT,
)
"""The well-formed calls that, under 2026-07-28, draw what they declare and answer input
requests (`Case.inputs`): what a server does past an input request is judged by their rules."""


class TaskMode(Enum):
    """Whether a strategy's cases are sent as tasks (`Case.as_task`)."""

    NEVER = "never"
    SOMETIMES = "sometimes"
    """Drawn: plain calls and tasks both, shrinking towards a plain call."""
    ALWAYS = "always"


STATELESS_KINDS = (CaseKind.MALFORMED_META, CaseKind.UNSUPPORTED_VERSION, CaseKind.HEADER_MISMATCH)
"""The kinds that exist only under the stateless revision.

The last exists only over HTTP. Their calls carry arguments the tool takes
(`_runnable_arguments`). A server that ignored the envelope then runs the tool, and its answer
shows that the call ran. So these kinds go where argument cases may.
"""


MIRROR_ARGUMENT = "output"
"""The mirror-tool convention's argument.

`{"output": VALUE}` asks the tool to return VALUE as its structuredContent, unchecked. Then
what the server does with it can be observed.
"""


@dataclass(frozen=True, slots=True)
class Case:
    """A `tools/call` request without its id, what kind of case it is, and why.

    The why is its `label`.
    """

    kind: CaseKind
    tool: str
    params: Any
    label: str
    own_meta: bool = False
    """Whether `params` carry their own `_meta`, or lack it on purpose.

    Such params are sent as drawn, never given the revision's envelope.
    """
    headers: HeaderOverrides = ()
    """HTTP header values sent instead of those the request implies."""
    as_task: bool = False
    """Sent as a task: with `params.task` (2025-11-25), or declaring the tasks extension in its
    `_meta` (2026-07-28). The engine follows the task the answer creates to its end."""
    inputs: Inputs | None = None
    """The client capabilities it declares and its answers to input requests (2026-07-28): the
    engine follows an `input_required` answer round after round (`fuzz.wire.rounds`). None: it
    declares none, and an `input_required` answer is the final one."""

    def message(self, request_id: int | str, meta: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The exact JSON-RPC request to send.

        `meta` is the revision's `_meta` envelope. It is added to params that are an object,
        unless the case carries its own.
        """
        params = self.params
        if self.inputs is not None and meta is not None:
            meta = with_capabilities(meta, self.inputs.capabilities())
        if self.as_task:
            params, meta = in_task(params, meta)
        if meta is not None and not self.own_meta and isinstance(params, dict) and "_meta" not in params:
            params = {**params, "_meta": dict(meta)}
        body = call_message(params)
        return {"jsonrpc": body.pop("jsonrpc"), "id": request_id, **body}

    @classmethod
    def from_request(cls, kind: CaseKind, tool: str, request: Mapping[str, Any], label: str, inputs: Inputs | None = None) -> Case:
        """The case that sends `request` again, as a task if it was sent as one, answering its
        input requests by `inputs`."""
        return cls(kind, tool, request.get("params", ABSENT), label, as_task=sent_as_task(request), inputs=inputs)

    @property
    def has_params(self) -> bool:
        return self.params is not ABSENT

    @property
    def mirrored_output(self) -> Any:
        """The structuredContent a mirror case asked for; ABSENT for other kinds."""
        if self.kind in (CaseKind.VALID_OUTPUT, CaseKind.INVALID_OUTPUT):
            return self.params["arguments"][MIRROR_ARGUMENT]
        return ABSENT


def cases(
    tool: Tool,
    kind: CaseKind,
    listed_names: Collection[str],
    *,
    accepted: Sequence[dict[str, Any]] = (),
    known: Known | None = None,
    stateless: Stateless | None = None,
    tasks: TaskMode = TaskMode.NEVER,
) -> st.SearchStrategy[Case]:
    """Requests of `kind` aimed at `tool`.

    - `listed_names` are every listed tool's name, so that an unknown name is never one of them.
    - `accepted` holds arguments the server took. Invalid arguments mutate them most of the
      time.
    - `known` holds known-good values that every argument object holds.
    - `stateless` says the run speaks 2026-07-28. The stateless kinds need it.
    - `tasks` says whether the cases are sent as tasks.

    Under the stateless revision each call also draws what it declares and how it answers input
    requests (`strategies.inputs`).
    """
    drawn = _cases(tool, kind, listed_names, accepted=accepted, known=known, stateless=stateless)
    if stateless is not None and kind in ANSWERING_KINDS:
        drawn = mapped(tupled(drawn, inputs), lambda pair: replace(pair[0], inputs=pair[1]))
    if tasks is TaskMode.ALWAYS:
        return mapped(drawn, as_task)
    if tasks is TaskMode.SOMETIMES:
        return mapped(tupled(drawn, st.booleans()), lambda pair: as_task(pair[0]) if pair[1] else pair[0])
    return drawn


def as_task(case: Case) -> Case:
    """`case`, sent as a task."""
    return replace(case, as_task=True)


def _cases(
    tool: Tool,
    kind: CaseKind,
    listed_names: Collection[str],
    *,
    accepted: Sequence[dict[str, Any]],
    known: Known | None,
    stateless: Stateless | None,
) -> st.SearchStrategy[Case]:

    def case(params: Any, label: str) -> Case:
        return Case(kind=kind, tool=tool.name, params=params, label=label)

    if kind in (CaseKind.TOOL_LISTING, CaseKind.SEQUENCE, CaseKind.TASK_METHOD, CaseKind.REQUEST_STATE):
        raise ValueError(f"{kind.value} is no case to draw: the phase or the listing that judges it makes its requests")
    if kind in STATELESS_KINDS:
        if stateless is None or (kind is CaseKind.HEADER_MISMATCH and not stateless.over_http):
            raise ValueError(f"{kind.value} cases exist only under the stateless revision{' over HTTP' if stateless else ''}")
        runnable = _runnable_arguments(tool, accepted, known)
        if kind is CaseKind.MALFORMED_META:
            return mapped(
                tupled(runnable, malformed_metas(tool.name, stateless.meta)),
                lambda drawn: Case(kind, tool.name, _with_arguments(drawn[1].value, drawn[0]), f"malformed: {drawn[1].label}", own_meta=True),
            )
        if kind is CaseKind.UNSUPPORTED_VERSION:
            return mapped(
                tupled(runnable, unsupported_version_calls(tool.name, stateless.meta, stateless.supported)),
                lambda drawn: Case(kind, tool.name, _with_arguments(drawn[1].value, drawn[0]), f"unsupported revision: {drawn[1].label}", own_meta=True),
            )
        return mapped(
            tupled(runnable, header_mismatches(tool.name, stateless.version)),
            lambda drawn: Case(kind, tool.name, call_params(tool.name, drawn[0]), f"header mismatch: {drawn[1].label}", headers=drawn[1].value),
        )

    if kind is CaseKind.VALID_ARGUMENTS:
        return mapped(valid_objects(tool.input_check, known=known), lambda value: case(call_params(tool.name, value), VALID_LABEL))
    if kind is CaseKind.INVALID_INPUT_RESPONSE:
        if stateless is None:
            raise ValueError(f"{kind.value} cases exist only under the stateless revision")
        return mapped(
            tupled(valid_objects(tool.input_check, known=known), invalid_responses),
            lambda drawn: Case(kind, tool.name, call_params(tool.name, drawn[0]), f"valid arguments; {drawn[1].label}", inputs=Inputs(invalid=drawn[1])),
        )
    if kind in TASK_KINDS:
        label = _TASK_KIND_LABELS[kind]
        return mapped(valid_objects(tool.input_check, known=known), lambda value: case(call_params(tool.name, value), label))
    if kind is CaseKind.INVALID_ARGUMENTS:
        return mapped(invalid_arguments(tool, accepted=accepted, known=known), lambda a: case(call_params(tool.name, a.value), a.label))
    if kind is CaseKind.UNAVAILABLE_TOOL:
        return mapped(
            st.one_of(valid_arguments(tool, known=known), invalid_arguments(tool, known=known)),
            lambda a: case(call_params(tool.name, a.value), f"call to an unavailable tool with {a.label}"),
        )
    if kind in (CaseKind.VALID_OUTPUT, CaseKind.INVALID_OUTPUT):
        return mapped(outputs(tool, valid=kind is CaseKind.VALID_OUTPUT), lambda o: _mirror_case(tool, kind, o))
    if kind is CaseKind.UNKNOWN_TOOL:
        longest = HEADER_NAME_LONGEST if stateless is not None and stateless.over_http else LONGEST_NAME
        return mapped(
            tupled(unknown_tool_names(listed_names, longest=longest), _any_arguments),
            lambda drawn: case(call_params(drawn[0].value, drawn[1]), f"unknown tool: {drawn[0].label}"),
        )
    return mapped(malformed_arguments(tool.name), lambda p: case(p.value, f"malformed: {p.label}"))


_TASK_KIND_LABELS = {
    CaseKind.CALL_WITHOUT_TASK: "call without a task to a tool that requires one, with valid arguments",
    CaseKind.TASK_FOR_FORBIDDEN: "call as a task to a tool that forbids tasks, with valid arguments",
}


HEADER_NAME_LONGEST = 2048
"""The longest unknown name drawn when an `Mcp-Name` header carries it.

Node.js refuses a request whose headers pass 16 KiB, and many proxies refuse past 8 KiB. They
drop the connection or answer 431, before any MCP code runs. A name's header form may be
base64, 4/3 the size, and up to 4 bytes a character.
"""

ENVELOPE = ""
"""The `tool` of a case that concerns no tool: a malformed request envelope."""

SEQUENCES = "(sequences)"
"""The name the sequence phase's summary goes by.

It is no tool's name, since a sequence calls many tools. No valid tool name has parentheses.
"""
TASK_METHODS = "(tasks)"
"""The name the task phase's summary and findings go by: they concern the server's tasks, not a tool."""
ROUNDS = "(rounds)"
"""The name the rounds phase's summary goes by (2026-07-28: the listing's rules, and the tampered
`requestState` of every tool that asks for input), and its listing findings' tool."""
NOT_TOOLS = (ENVELOPE, SEQUENCES, TASK_METHODS, ROUNDS)
"""The names of the summaries that are no tool's: the envelope's and the phases' of their own."""


def envelope_cases() -> st.SearchStrategy[Case]:
    """Malformed requests that name no tool.

    Their params are missing or not an object, or their name is missing or not a string.
    """
    return mapped(malformed_envelopes(), lambda p: Case(CaseKind.MALFORMED_REQUEST, ENVELOPE, p.value, f"malformed: {p.label}"))


def canonical_envelope_cases() -> list[Case]:
    return [Case(CaseKind.MALFORMED_REQUEST, ENVELOPE, p.value, f"malformed: {p.label}") for p in canonical_malformed_envelopes()]


_any_arguments: st.SearchStrategy[Mapping[str, Any]] = pooled(
    st.dictionaries(json_text(max_size=8), st.none() | st.booleans() | st.integers() | json_text(max_size=8), max_size=3), "unknown-tool arguments"
)


def _canonical_stateless(tool: Tool, kind: CaseKind, stateless: Stateless, arguments: dict[str, Any]) -> list[Case]:
    """The simplest envelope cases, each call carrying `arguments`, which the tool takes."""
    if kind is CaseKind.MALFORMED_META:
        return [
            Case(kind, tool.name, _with_arguments(p.value, arguments), f"malformed: {p.label}", own_meta=True)
            for p in canonical_malformed_metas(tool.name, stateless.meta)
        ]
    if kind is CaseKind.UNSUPPORTED_VERSION:
        version = next(v for v in NEVER_RELEASED_VERSIONS if v not in stateless.supported)
        params = with_meta(call_params(tool.name, arguments), {**stateless.meta, PROTOCOL_VERSION_KEY: version})
        return [Case(kind, tool.name, params, f"unsupported revision: protocolVersion {version!r}", own_meta=True)]
    return [
        Case(kind, tool.name, call_params(tool.name, arguments), f"header mismatch: {h.label}", headers=h.value)
        for h in canonical_header_mismatches(tool.name, stateless.version)
    ]


def plain_arguments(tool: Tool) -> dict[str, Any] | None:
    """Plain arguments `tool`'s inputSchema accepts, found without a search.

    They are `{}` if accepted. Else each required property takes the first plain value its
    schema accepts. The plain values are its `const`, `enum`, `default` and `examples`, then the
    plainest value of its type. That is its lower bound for a number, or its least length of
    `a` for a string. None when the whole is still refused; the search then draws valid
    arguments.
    """
    check = tool.input_check
    if check.accepts_strictly({}):
        return {}
    properties = tool.input_schema.get("properties")
    required = tool.input_schema.get("required")
    if not isinstance(properties, dict) or not isinstance(required, list):
        return None
    arguments: dict[str, Any] = {}
    for name in required:
        schema = properties.get(name) if isinstance(name, str) else None
        if not isinstance(schema, dict):
            return None
        value = next((v for v in _plain_values(schema) if check.subschema_accepts(schema, v)), ABSENT)
        if value is ABSENT:
            return None
        arguments[name] = value
    return arguments if check.accepts_strictly(arguments) else None


def other_plain_arguments(tool: Tool, arguments: dict[str, Any]) -> dict[str, Any] | None:
    """`arguments` (which `tool` accepts) with one property's value changed to another plain value
    its schema accepts: a call the tool should treat differently. None when none is found."""
    check = tool.input_check
    properties = tool.input_schema.get("properties")
    if not isinstance(properties, dict):
        return None
    for name, value in arguments.items():
        schema = properties.get(name)
        if not isinstance(schema, dict):
            continue
        extra = [value + "-other", "other"] if isinstance(value, str) else [value + 1] if isinstance(value, int) and not isinstance(value, bool) else []
        for candidate in [*extra, *_plain_values(schema)]:
            if candidate != value and check.subschema_accepts(schema, candidate):
                other = {**arguments, name: candidate}
                if check.accepts_strictly(other):
                    return other
    return None


_PLAIN_OF_TYPE: dict[str, list[Any]] = {
    "integer": [0, 1],
    "number": [0, 1],
    "string": ["", "a"],
    "boolean": [False],
    "array": [[]],
    "object": [{}],
    "null": [None],
}


def _plain_values(schema: Mapping[str, Any]) -> list[Any]:
    """Candidates for a property's plain value, the schema's own first."""
    values: list[Any] = [schema["const"]] if "const" in schema else []
    for keyword in ("enum", "examples"):
        listed = schema.get(keyword)
        values += listed[:1] if isinstance(listed, list) else []
    values += [schema["default"]] if "default" in schema else []
    for bound in ("minimum", "exclusiveMinimum"):
        low = schema.get(bound)
        if isinstance(low, (int, float)) and not isinstance(low, bool):
            values.append(low if bound == "minimum" else math.floor(low) + 1)
    least = schema.get("minLength")
    if isinstance(least, int) and not isinstance(least, bool) and 0 < least <= 1000:
        values.append("a" * least)
    kinds = schema.get("type")
    for kind in kinds if isinstance(kinds, list) else [kinds]:
        values += _PLAIN_OF_TYPE.get(kind, []) if isinstance(kind, str) else []
    return values


def _runnable_arguments(tool: Tool, accepted: Sequence[dict[str, Any]], known: Known | None) -> st.SearchStrategy[dict[str, Any]]:
    """Arguments an envelope case's call carries.

    They are ones the server took (`accepted`). Else they are valid by the tool's inputSchema,
    holding the `known` values. They are never merely `{}`. A server that ignored the envelope
    would refuse `{}` for its arguments. That refusal would hide whether the envelope was
    checked at all.
    """
    if accepted:
        return st.sampled_from(list(accepted))
    return valid_objects(tool.input_check, known=known)


def _with_arguments(params: Any, arguments: dict[str, Any]) -> Any:
    return {**params, "arguments": arguments} if isinstance(params, dict) else params


def _mirror_case(tool: Tool, kind: CaseKind, output: Labelled[Any]) -> Case:
    return Case(kind, tool.name, call_params(tool.name, {MIRROR_ARGUMENT: output.value}), f"mirror asked for {output.label}")


def coercion_cases(tool: Tool, accepted: dict[str, Any]) -> list[Case]:
    """Invalid-arguments cases probed before the search.

    Each is `accepted` with one number or boolean made a string, which a lax server coerces
    back (see `coerced_variants`).
    """
    return [
        Case(CaseKind.INVALID_ARGUMENTS, tool.name, call_params(tool.name, variant.value), variant.label)
        for variant in coerced_variants(tool.input_check, accepted, label_prefix="arguments")
    ]


def canonical_cases(tool: Tool, kind: CaseKind, listed_names: Collection[str], stateless: Stateless | None = None) -> list[Case]:
    """The simplest case of each shape `kind` has, to be sent before the search.

    These are every way to malform a request, the empty and a near-miss name, and every
    non-object output. Valid and invalid arguments have none. Their simplest forms are what
    Hypothesis tries first anyway.
    """
    if kind is CaseKind.INVALID_OUTPUT:
        return [_mirror_case(tool, kind, output) for output in non_object_outputs(tool)]
    if kind is CaseKind.MALFORMED_REQUEST:
        return [Case(kind, tool.name, p.value, f"malformed: {p.label}") for p in canonical_malformed_arguments(tool.name)]
    if kind in STATELESS_KINDS and stateless is not None:
        arguments = plain_arguments(tool)
        return [] if arguments is None else _canonical_stateless(tool, kind, stateless, arguments)
    if kind is CaseKind.UNKNOWN_TOOL:
        candidates = [
            ("", "unknown tool: empty name"),
            (tool.name.upper(), f"unknown tool: near-miss of {tool.name!r}: case changed"),
            (tool.name + "_", f"unknown tool: near-miss of {tool.name!r}: suffix added"),
        ]
        unlisted = [(name, label) for name, label in candidates if name not in listed_names]
        return [Case(kind, tool.name, call_params(name, {}), label) for name, label in unlisted[:2]]
    return []
