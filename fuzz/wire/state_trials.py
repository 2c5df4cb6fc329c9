"""A call's `requestState` tampered with (2026-07-28, SEP-2322): the trials of the rounds phase and
of its replay.

The revision makes the state attacker input, which a server MUST verify when it influences what
the tool does. `state_trial` retries calls of a tool with the state each was given, and once with
a tampered one (`Tamper`), and keeps every exchange; `fuzz.judging.request_state` judges them.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from enum import Enum
from typing import Any

from fuzz.wire._session import Session
from fuzz.wire.replies import Exchange
from fuzz.wire.rounds import input_required, retry_params
from fuzz.wire.target import Target
from strategies import Tool
from strategies.cases import other_plain_arguments
from strategies.envelopes import call_params
from strategies.inputs import Inputs
from strategies.meta import with_capabilities


class Tamper(Enum):
    """How a retry's `requestState` is made other than the server gave it."""

    EDITED = "its decoded JSON payload edited and encoded again"
    FLIPPED = "one character changed"
    TRUNCATED = "cut to its first half"
    OTHER_CALL = "taken from the same tool's call with other arguments"


def tampered(state: str, tamper: Tamper) -> str | None:
    """`state` tampered with by `tamper`; None when it cannot be (EDITED: no segment of it decodes
    to JSON with a string to edit; OTHER_CALL is made by the trial, not here)."""
    if tamper is Tamper.FLIPPED:
        middle = len(state) // 2
        return state[:middle] + ("A" if state[middle : middle + 1] != "A" else "B") + state[middle + 1 :] if state else "A"
    if tamper is Tamper.TRUNCATED:
        return state[: len(state) // 2]
    if tamper is Tamper.EDITED:
        segments = state.split(".")
        for index, segment in enumerate(segments):
            edited = _edited_segment(segment)
            if edited is not None:
                return ".".join([*segments[:index], edited, *segments[index + 1 :]])
    return None


def _edited_segment(segment: str) -> str | None:
    """`segment`, a base64 (or base64url) encoding of a JSON document, with its first string edited."""
    for decode, encode in ((base64.urlsafe_b64decode, base64.urlsafe_b64encode), (base64.b64decode, base64.b64encode)):
        try:
            document = json.loads(decode(segment + "=" * (-len(segment) % 4)))
        except (ValueError, binascii.Error):
            continue
        edited = _first_string_edited(document)
        if edited is None:
            return None
        text = encode(json.dumps(edited, separators=(",", ":")).encode()).decode()
        return text if segment.endswith("=") else text.rstrip("=")
    return None


def _first_string_edited(document: Any) -> Any:
    if isinstance(document, str):
        return document + "-tampered"
    items = document.items() if isinstance(document, dict) else enumerate(document) if isinstance(document, list) else ()
    for key, value in items:
        edited = _first_string_edited(value)
        if edited is not None:
            copy = dict(document) if isinstance(document, dict) else list(document)
            copy[key] = edited
            return copy
    return None


@dataclass(frozen=True, slots=True)
class StateTrial:
    """A tool's call retried with the state it was given, and with a tampered one.

    `genuine` and `again` are retries of two calls of the same arguments, each with its own state:
    two answers that differ say the tool is not deterministic, and nothing can be judged. `other` is
    the genuine retry of the call with other arguments, for `Tamper.OTHER_CALL`."""

    tamper: Tamper
    exchanges: tuple[Exchange, ...]
    """Every request of the trial, in order; the last is the tampered retry."""
    genuine: Exchange
    again: Exchange
    other: Exchange | None = None

    @property
    def tampered(self) -> Exchange:
        return self.exchanges[-1]


async def state_trial(session: Session, params: dict[str, Any], other: dict[str, Any] | None, tamper: Tamper, *, timeout: float) -> StateTrial | None:
    """Try `tamper` on the `requestState` of the call of `params` (a `tools/call`'s, with its
    `_meta`); `other` are the params of the same tool with other arguments, for OTHER_CALL.

    None when a call got no `input_required` with a state, or the state cannot be tampered so.
    Each call declares every capability and accepts every input request with plain content."""
    sent: list[Exchange] = []
    plan = Inputs()

    async def asked(call_params: dict[str, Any]) -> dict[str, Any] | None:
        call = await session.request("tools/call", call_params, timeout=timeout)
        sent.append(call)
        result = input_required(call)
        return result if result is not None and isinstance(result.get("requestState"), str) else None

    async def retry(call_params: dict[str, Any], result: dict[str, Any], state: str) -> Exchange:
        exchange = await session.request("tools/call", {**retry_params(call_params, result, plan, 0, False), "requestState": state}, timeout=timeout)
        sent.append(exchange)
        return exchange

    firsts = [await asked(params), await asked(params)]
    if None in firsts:
        return None
    genuine, again = [await retry(params, result, result["requestState"]) for result in firsts if result is not None]
    other_genuine = None
    if tamper is Tamper.OTHER_CALL:
        if other is None:
            return None
        asked_other = [await asked(other), await asked(other)]
        if None in asked_other:
            return None
        assert asked_other[0] is not None and asked_other[1] is not None
        other_genuine = await retry(other, asked_other[0], asked_other[0]["requestState"])
        state: str | None = asked_other[1]["requestState"]
        result = firsts[0]
    else:
        result = await asked(params)
        state = tampered(result["requestState"], tamper) if result is not None else None
    if result is None or state is None:
        return None
    await retry(params, result, state)
    return StateTrial(tamper, tuple(sent), genuine, again, other_genuine)


def state_params(target: Target, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A call's params as a trial sends them: declaring every capability, in the revision's envelope."""
    params: dict[str, Any] = call_params(tool, arguments)
    meta = target.request_meta
    return params if meta is None else {**params, "_meta": with_capabilities(meta, Inputs().capabilities())}


async def trial_for(target: Target, tool: Tool, arguments: dict[str, Any], tamper: Tamper, timeout: float) -> StateTrial | None:
    """The `tamper` trial of `tool` called with `arguments` (and, for OTHER_CALL, with
    `strategies.cases.other_plain_arguments`); None when it cannot be made."""
    other = other_plain_arguments(tool, arguments)
    other_params = state_params(target, tool.name, other) if other is not None else None
    return await state_trial(target.session, state_params(target, tool.name, arguments), other_params, tamper, timeout=timeout)
