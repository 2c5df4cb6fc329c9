"""What a client declares it can do, and how it answers a server's input requests (2026-07-28).

Under 2026-07-28 a tool that needs something from the client (a user's confirmation, a model's
completion, the roots it may touch) answers `tools/call` with `resultType: "input_required"`: a map
of `inputRequests` (`elicitation/create`, `sampling/createMessage`, `roots/list`) and an opaque
`requestState`. The client retries the call with `inputResponses` and the state echoed
(SEP-2322, multi round-trip requests). A server MUST NOT ask for what the client did not declare
in `_meta.clientCapabilities`; it answers `-32021` instead.

So both halves are drawn per case, as `Inputs`: which capabilities the call declares, and what the
client answers each input request (accept with content built from the request, decline, cancel).
They are fuzzed values like any argument, and shrink: towards every capability declared, then
towards accepting, with the plainest content.

`responses` builds a retry's `inputResponses` from a server's `inputRequests` and the drawn plan,
without Hypothesis: it runs in the engine, after the draw, on what the server asked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from hypothesis import strategies as st

from strategies.drawing import mapped, tupled
from strategies.labelled import Labelled


class Capability(Enum):
    """A client capability a call may declare, with the `clientCapabilities` member it adds."""

    ELICITATION_FORM = "elicitation.form"
    ELICITATION_URL = "elicitation.url"
    SAMPLING = "sampling"
    ROOTS = "roots"

    @property
    def member(self) -> dict[str, Any]:
        if self is Capability.ELICITATION_FORM:
            return {"elicitation": {"form": {}}}
        if self is Capability.ELICITATION_URL:
            return {"elicitation": {"url": {}}}
        return {self.value: {}}

    @property
    def label(self) -> str:
        return self.value.replace(".", " (") + ")" if "." in self.value else self.value


EVERY_CAPABILITY = tuple(Capability)

DECLARATIONS: tuple[tuple[Capability, ...], ...] = (
    EVERY_CAPABILITY,
    (),
    (Capability.ELICITATION_FORM,),
    (Capability.SAMPLING,),
    (Capability.ROOTS,),
    (Capability.ELICITATION_URL,),
)
"""The sets of capabilities a call is drawn to declare, the one it shrinks to first.

Every capability first: a finding past an input request then shrinks to a call that reaches it.
None second: a server that asks regardless of what was declared shows it there."""


class Action(Enum):
    """How the client answers one input request, the simplest first."""

    ACCEPT = "accept"
    DECLINE = "decline"
    CANCEL = "cancel"


@dataclass(frozen=True, slots=True)
class Answer:
    """The client's answer to one input request: its action, and which content of those the
    request allows (`variant`, 0 for the plainest)."""

    action: Action
    variant: int = 0

    def as_json(self) -> dict[str, Any]:
        return {"action": self.action.value, "variant": self.variant}


@dataclass(frozen=True, slots=True)
class Inputs:
    """What a call declares, and how its input requests are answered, round after round.

    The n-th input request the server makes over the call's rounds (in the order of each
    `inputRequests` map) gets `answers[n % len(answers)]`."""

    declares: tuple[Capability, ...] = EVERY_CAPABILITY
    answers: tuple[Answer, ...] = (Answer(Action.ACCEPT),)
    invalid: Labelled[Any] | None = None
    """What the first round sends instead of valid `inputResponses` (one of `INVALID_RESPONSES`),
    for an invalid-input-response case; None for valid answers."""

    def capabilities(self) -> dict[str, Any]:
        """The `clientCapabilities` members the call declares."""
        declared: dict[str, Any] = {}
        for capability in self.declares:
            for name, value in capability.member.items():
                declared[name] = {**declared.get(name, {}), **value}
        return declared

    def label(self) -> str:
        declared = ", ".join(c.label for c in self.declares) or "no capability"
        if self.invalid is not None:
            return f"declaring {declared}; answering input requests invalidly: {self.invalid.label}"
        return f"declaring {declared}; answering {', '.join(_answer_label(a) for a in self.answers)}"

    def as_json(self) -> dict[str, Any]:
        document: dict[str, Any] = {"declares": [c.value for c in self.declares], "answers": [a.as_json() for a in self.answers]}
        if self.invalid is not None:
            document["invalid"] = self.invalid.label
        return document

    @classmethod
    def from_json(cls, document: Mapping[str, Any]) -> Inputs:
        """The plan `as_json` wrote; raises ValueError or KeyError on anything else."""
        declares = tuple(Capability(value) for value in document["declares"])
        answers = tuple(Answer(Action(a["action"]), int(a["variant"])) for a in document["answers"])
        if not answers:
            raise ValueError("an input plan needs at least one answer")
        invalid = None
        if "invalid" in document:
            invalid = next((known for known in INVALID_RESPONSES if known.label == document["invalid"]), None)
            if invalid is None:
                raise ValueError(f"unknown invalid input responses {document['invalid']!r}")
        return cls(declares, answers, invalid)


def _answer_label(answer: Answer) -> str:
    return f"accept (content {answer.variant})" if answer.action is Action.ACCEPT and answer.variant else answer.action.value


MAX_ANSWERS = 4
VARIANTS = 8

answers: st.SearchStrategy[tuple[Answer, ...]] = st.lists(
    mapped(tupled(st.sampled_from(Action), st.integers(0, VARIANTS - 1)), lambda drawn: Answer(*drawn)), min_size=1, max_size=MAX_ANSWERS
).map(tuple)
"""Answers to a call's input requests: shrinks to one plain accept."""

inputs: st.SearchStrategy[Inputs] = mapped(tupled(st.sampled_from(DECLARATIONS), answers), lambda drawn: Inputs(*drawn))
"""What a call declares and answers: shrinks to every capability declared and one plain accept."""


ROOT = {"uri": "file:///tmp/mcp-toolfuzz", "name": "mcp-toolfuzz scratch"}
MODEL = "mcp-toolfuzz"


def responses(requests: Mapping[str, Any], plan: Inputs, start: int) -> dict[str, Any]:
    """The `inputResponses` answering `requests` (an `inputRequests` map) by `plan`.

    `start` counts the input requests answered in earlier rounds. A request of a method the
    revision does not define gets no response: the server asks again or fails, as it must."""
    built: dict[str, Any] = {}
    for offset, (key, request) in enumerate(requests.items()):
        answer = plan.answers[(start + offset) % len(plan.answers)]
        response = _response(request, answer)
        if response is not None:
            built[key] = response
    return built


def _response(request: Any, answer: Answer) -> dict[str, Any] | None:
    method = request.get("method") if isinstance(request, Mapping) else None
    params = request.get("params") if isinstance(request, Mapping) else None
    params = params if isinstance(params, Mapping) else {}
    if method == "elicitation/create":
        if answer.action is not Action.ACCEPT:
            return {"action": answer.action.value}
        if params.get("mode") == "url":
            return {"action": "accept"}
        return {"action": "accept", "content": form_content(params.get("requestedSchema"), answer.variant)}
    if method == "sampling/createMessage":
        texts = ("yes", "", "no", "mcp-toolfuzz: a sampled answer", "0", "\u00e9\u00e8 \U0001f600", "null", "a" * 200)
        return {"role": "assistant", "content": {"type": "text", "text": texts[answer.variant % len(texts)]}, "model": MODEL, "stopReason": "endTurn"}
    if method == "roots/list":
        return {"roots": [] if answer.variant % 2 else [dict(ROOT)]}
    return None


def form_content(schema: Any, variant: int) -> dict[str, Any]:
    """Content for an elicitation form of `schema` (its `requestedSchema`): each property's
    plain value (the `variant // 2`-th), the required ones always and the optional ones on even variants.

    The form's schema is flat by the revision: each property a string, number, integer, boolean,
    or an array of enum strings. A property of anything else gets no value."""
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(properties, Mapping):
        return {}
    required = schema.get("required") if isinstance(schema.get("required"), list) else []
    content: dict[str, Any] = {}
    for name, property_schema in properties.items():
        if name not in required and variant % 2:
            continue
        candidates = form_values(property_schema)
        if candidates:
            content[name] = candidates[variant // 2 % len(candidates)]
    return content


_FORMATTED = {"email": "user@example.com", "uri": "https://example.com/", "date": "2026-01-01", "date-time": "2026-01-01T00:00:00Z"}


def form_values(schema: Any) -> list[Any]:
    """The plain values a form property of `schema` takes, its own (const, default, enum) first."""
    if not isinstance(schema, Mapping):
        return []
    values: list[Any] = [schema["const"]] if "const" in schema else []
    values += [schema["default"]] if "default" in schema else []
    listed = schema.get("enum")
    if isinstance(listed, list):
        values += listed
    choices = schema.get("oneOf") or schema.get("anyOf")
    if isinstance(choices, list):
        values += [choice["const"] for choice in choices if isinstance(choice, Mapping) and "const" in choice]
    kind = schema.get("type")
    if kind == "boolean":
        values += [True, False]
    elif kind in ("integer", "number"):
        low, high = schema.get("minimum"), schema.get("maximum")
        values += [v for v in (low, high) if isinstance(v, (int, float)) and not isinstance(v, bool)] or [1, 0]
    elif kind == "string" and not values:
        least = schema.get("minLength")
        values += [_FORMATTED.get(str(schema.get("format")), "a" * (least if isinstance(least, int) and 0 < least <= 1000 else 1))]
    elif kind == "array":
        items = schema.get("items")
        values += [[value] for value in form_values(items)[:2]] or [[]]
    return values


INVALID_RESPONSES: tuple[Labelled[Any], ...] = (
    Labelled([], "inputResponses is an array"),
    Labelled("accept", "inputResponses is a string"),
    Labelled({"*": {"action": "maybe"}}, 'each response has action "maybe"'),
    Labelled({"*": {"action": "accept", "content": "yes"}}, "each response's content is a string, not an object"),
    Labelled({"*": {"action": "accept", "content": {"value": {"nested": True}}}}, "each response's content holds an object value"),
    Labelled({"*": "accept"}, "each response is a string"),
)
"""What the invalid-input-response cases send instead of valid `inputResponses`: none of it is an
InputResponses object of the revision's schema. `"*"` stands for each key the server asked."""

invalid_responses: st.SearchStrategy[Labelled[Any]] = st.sampled_from(INVALID_RESPONSES)


def invalid_for(requests: Mapping[str, Any], invalid: Any) -> Any:
    """`invalid` (one of `INVALID_RESPONSES`) made to answer `requests`: its `"*"` entry copied
    under each key the server asked."""
    if isinstance(invalid, dict) and "*" in invalid:
        return {key: invalid["*"] for key in requests}
    return invalid
