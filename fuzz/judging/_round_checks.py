"""The rules of a multi round-trip call's way to its answer (2026-07-28, SEP-2322).

The call's final answer (`Exchange.final`, the last round's) is judged by every other rule as a
plain call's answer would be. What is judged here is each `input_required` answer on the way: its
shape (an answer that is no InputRequiredResult is not well-formed, whichever round it came in) and
what it asks for (only what the call declared).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fuzz.judging import rules
from fuzz.judging.rules import Rule
from fuzz.text import show
from fuzz.wire.replies import Exchange
from fuzz.wire.rounds import input_requests, input_required
from fuzz.wire.shapes import call_tool_result_problem
from strategies.meta import CLIENT_CAPABILITIES_KEY

_NEEDS = {"sampling/createMessage": "sampling", "roots/list": "roots"}


def round_problems(exchange: Exchange, protocol_version: str) -> Iterator[tuple[Rule, str]]:
    """Every rule the `input_required` answers of `exchange`'s call and rounds violate, with why.

    The last answer's shape is left to the oracle, which judges the final answer."""
    chain = (exchange, *exchange.rounds)
    for position, sent in enumerate(chain):
        result = input_required(sent)
        if result is None:
            continue
        where = "the call" if position == 0 else f"retry {position}"
        if position < len(chain) - 1:
            problem = call_tool_result_problem(result, protocol_version)
            if problem is not None:
                yield rules.RESPONSE_WELL_FORMED, f"answered {where} with {problem}"
        declared = _declared(sent.request)
        for key, request in input_requests(result).items():
            missing = undeclared(request, declared)
            if missing is not None:
                yield (
                    rules.INPUT_REQUEST_UNDECLARED,
                    f"answered {where} with input request {show(key, 60)} ({missing}), which its clientCapabilities {show(declared, 120)} do not declare",
                )


def undeclared(request: Any, declared: dict[str, Any]) -> str | None:
    """What `request` (an input request) needs that `declared` capabilities lack, in words; None
    when they cover it, or when it is no request of the revision (its shape is judged apart).

    Form elicitation needs `elicitation` (`{}` means form only, by the revision's example); URL
    elicitation needs `elicitation.url`."""
    method = request.get("method") if isinstance(request, dict) else None
    if method == "elicitation/create":
        params = request.get("params")
        mode = params.get("mode", "form") if isinstance(params, dict) else "form"
        return None if elicits(declared.get("elicitation"), "url" if mode == "url" else "form") else f"elicitation/create, {mode} mode"
    needed = _NEEDS.get(str(method))
    return method if needed is not None and needed not in declared else None


def elicits(declared: Any, mode: str) -> bool:
    """Whether a declared `elicitation` capability covers `mode` ("form" or "url"): `{}` is form
    only, by the revision's example "form mode only, implicit"."""
    if not isinstance(declared, dict):
        return False
    return mode in declared or (mode == "form" and not declared)


def _declared(request: dict[str, Any]) -> dict[str, Any]:
    params = request.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    capabilities = meta.get(CLIENT_CAPABILITIES_KEY) if isinstance(meta, dict) else None
    return capabilities if isinstance(capabilities, dict) else {}


def rounds_story(exchange: Exchange) -> str:
    """`It asked for input 2 times; retried with ...: ...` for a call with rounds; "" else."""
    if not exchange.rounds:
        return ""
    last = exchange.rounds[-1].request.get("params")
    shown = {key: last.get(key) for key in ("inputResponses", "requestState") if isinstance(last, dict) and key in last}
    return f"It answered input_required and was retried {len(exchange.rounds)} time(s); the last retry sent {show(shown, 300)}. "
