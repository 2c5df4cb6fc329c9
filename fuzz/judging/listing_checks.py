"""The listing's rules of 2026-07-28: `resultType` and caching hints on `server/discover` and
`tools/list`, and the order `tools/list` gives its tools in over repeated calls.

Judged on answers the rounds phase asks for (`fuzz.engine.phases._rounds`), each once per run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fuzz.judging import rules
from fuzz.judging.rules import Rule
from fuzz.text import show
from fuzz.wire.replies import Exchange

CACHE_SCOPES = ("public", "private")


def result_type_problem(method: str, answer: dict[str, Any] | None) -> tuple[Rule, str] | None:
    """Why `method`'s result lacks the `resultType` every 2026-07-28 result carries; None when it
    has it, or is no result."""
    result = answer.get("result") if answer is not None else None
    if not isinstance(result, dict) or isinstance(result.get("resultType"), str):
        return None
    return (
        rules.RESPONSE_WELL_FORMED,
        f"the {method} result has resultType {show(result.get('resultType', 'absent'), 40)}, not a string (2026-07-28: every result MUST include a resultType)",
    )


def caching_problem(method: str, answer: dict[str, Any] | None) -> tuple[Rule, str] | None:
    """Why `method`'s answer (a complete result) lacks valid caching hints; None when it has
    them, or is no complete result (an error, an `input_required`: no hints are due then)."""
    result = answer.get("result") if answer is not None else None
    if not isinstance(result, dict) or result.get("resultType", "complete") != "complete":
        return None
    ttl, scope = result.get("ttlMs", "absent"), result.get("cacheScope", "absent")
    if ttl == "absent" or not isinstance(ttl, int) or isinstance(ttl, bool) or ttl < 0:
        return rules.CACHING_HINTS, f"the {method} result has ttlMs {show(ttl, 40)}, not an integer >= 0"
    if scope not in CACHE_SCOPES:
        return rules.CACHING_HINTS, f'the {method} result has cacheScope {show(scope, 40)}, not "public" or "private"'
    return None


def order_problem(listings: Sequence[dict[str, Any] | None]) -> tuple[Rule, str] | None:
    """Why the tools of repeated `tools/list` answers (first pages) change order while their set
    does not; None when they keep it, or their sets differ (the tools changed: nothing to judge)."""
    orders = [_names(answer) for answer in listings]
    known = [order for order in orders if order is not None]
    for order in known[1:]:
        if sorted(order) == sorted(known[0]) and order != known[0]:
            return rules.TOOLS_LIST_ORDER, f"tools/list gave {show(known[0], 160)}, then {show(order, 160)}: the same tools in another order"
    return None


def _names(answer: dict[str, Any] | None) -> list[str] | None:
    result = answer.get("result") if answer is not None else None
    tools = result.get("tools") if isinstance(result, dict) else None
    if not isinstance(tools, list):
        return None
    return [str(tool.get("name")) if isinstance(tool, dict) else "?" for tool in tools]


def listing_problems(sent: Sequence[Exchange]) -> list[tuple[Rule, str, int]]:
    """Each listing rule `sent` (`fuzz.wire.stateless.listings`: `server/discover`, then the
    `tools/list` calls) violates, with why and the index of the exchange that shows it."""
    problems = []
    for check in (result_type_problem, caching_problem):
        for index, exchange in enumerate(sent):
            problem = check(str(exchange.request.get("method")), exchange.answer)
            if problem is not None:
                problems.append((*problem, index))
                break
    order = order_problem([exchange.answer for exchange in sent[1:]])
    if order is not None:
        problems.append((*order, len(sent) - 1))
    return problems
