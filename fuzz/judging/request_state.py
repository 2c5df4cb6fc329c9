"""Whether a tampered `requestState` changed what a tool does (2026-07-28, SEP-2322).

The revision makes `requestState` attacker input: a server whose state influences what the tool
does MUST protect its integrity and reject state that fails verification (`request-state-verified`),
and SHOULD bind it to the request it was made for (`request-state-bound`). A state that only makes
the request fail when tampered with needs no protection. So the oracle is differential: the
tampered retry is a violation only when it succeeds *and* its result differs from the genuine
retry's, which two calls of the same arguments agreed on (a tool whose results differ from one call
to the next cannot be judged so).
"""

from __future__ import annotations

from typing import Any

from fuzz.judging import rules
from fuzz.judging.rules import Rule
from fuzz.text import show
from fuzz.wire.replies import Exchange
from fuzz.wire.state_trials import StateTrial, Tamper


def outcome(exchange: Exchange) -> dict[str, Any] | None:
    """What a retry did, as its result's content and structured content; None when it did not
    complete successfully (an error of either kind, another `input_required`, no answer)."""
    answer = exchange.answer
    result = answer.get("result") if answer is not None else None
    if not isinstance(result, dict) or result.get("resultType", "complete") != "complete" or result.get("isError") is True:
        return None
    return {"content": result.get("content"), "structuredContent": result.get("structuredContent")}


def state_problem(trial: StateTrial) -> tuple[Rule, str] | None:
    """The rule the trial's tampered retry violates, with why; None when it violates none, or the
    tool's genuine results cannot tell (they failed, or differ between two calls)."""
    genuine = outcome(trial.genuine)
    if genuine is None or genuine != outcome(trial.again):
        return None
    got = outcome(trial.tampered)
    if got is None or got == genuine:
        return None
    if trial.tamper is Tamper.OTHER_CALL:
        other = outcome(trial.other) if trial.other is not None else None
        if other is None or got != other:
            return None
        return rules.REQUEST_STATE_BOUND, (
            f"a retry carrying the requestState of a call with other arguments completed as that call did ({show(got, 160)}), "
            f"not as its own arguments do ({show(genuine, 160)})"
        )
    return rules.REQUEST_STATE_VERIFIED, (
        f"a retry whose requestState had {trial.tamper.value} completed with {show(got, 160)}, where the state as given "
        f"led to {show(genuine, 160)}: the state changed what the tool did without being verified"
    )
