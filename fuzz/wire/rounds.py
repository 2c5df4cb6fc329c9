"""Multi round-trip calls (2026-07-28, SEP-2322): following an `input_required` answer to the end.

A tool that needs input answers `resultType: "input_required"`, with `inputRequests` and an opaque
`requestState`. The client retries the same call under a new id, with its `inputResponses` and the
state echoed exactly (or no state, when none came). `follow_rounds` does that up to `MAX_ROUNDS`
times, answering by the case's drawn plan (`strategies.inputs.Inputs`), and keeps each retry as a
round of the call's exchange (`Exchange.rounds`); the last round's answer is the call's
(`Exchange.final`).

The bound keeps a server that asks forever from holding a case: the revision lets a server ask
again, so a call still asking after `MAX_ROUNDS` retries ends there, its answer `input_required`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from fuzz.wire._session import Session
from fuzz.wire.replies import Exchange
from strategies.inputs import Inputs, invalid_for, responses

MAX_ROUNDS = 4
"""Retries of one call at most."""

RETRY_MEMBERS = ("inputResponses", "requestState")
"""The members of a retry's params that the first call has not."""


def input_required(exchange: Exchange) -> dict[str, Any] | None:
    """The `InputRequiredResult` `exchange` was answered with, or None."""
    answer = exchange.answer
    result = answer.get("result") if answer is not None else None
    return result if isinstance(result, dict) and result.get("resultType") == "input_required" else None


def input_requests(result: dict[str, Any]) -> dict[str, Any]:
    """An `InputRequiredResult`'s `inputRequests`; empty when it has none, or not an object."""
    requests = result.get("inputRequests")
    return requests if isinstance(requests, dict) else {}


def retry_params(params: dict[str, Any], result: dict[str, Any], plan: Inputs, answered: int, first: bool) -> dict[str, Any]:
    """The params of the retry answering `result` by `plan`: the call's own, with `inputResponses`
    (when it asked for any, or when the plan answers invalidly) and `requestState` (exactly as it
    came, when it came)."""
    retry = {key: value for key, value in params.items() if key not in RETRY_MEMBERS}
    requests = input_requests(result)
    if plan.invalid is not None and first:
        retry["inputResponses"] = invalid_for(requests, plan.invalid.value)
    elif requests:
        retry["inputResponses"] = responses(requests, plan, answered)
    if "requestState" in result:
        retry["requestState"] = result["requestState"]
    return retry


async def follow_rounds(
    session: Session, call: Exchange, plan: Inputs | None, *, timeout: float, then: Callable[[Exchange], Awaitable[Exchange]] | None = None
) -> Exchange:
    """`call`, with the rounds its `input_required` answers led to; `call` itself when it got none,
    or answers no input (`plan` None).

    `then` follows each retry further (the task it made). A retry that gets anything but
    `input_required` ends the rounds: that is the call's answer.
    """
    params = call.request.get("params")
    if plan is None or not isinstance(params, dict):
        return call
    rounds: list[Exchange] = []
    answered = 0
    current = call
    while len(rounds) < MAX_ROUNDS and (result := input_required(current)) is not None:
        retry = await session.request("tools/call", retry_params(params, result, plan, answered, not rounds), timeout=timeout)
        answered += len(input_requests(result))
        current = retry if then is None else await then(retry)
        rounds.append(current)
    return replace(call, rounds=tuple(rounds)) if rounds else call
