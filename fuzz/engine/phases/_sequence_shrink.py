"""The shortest sequence that still fails, one step taken out at a time.

Each step the violation does not need is taken out, and each removal is confirmed on a fresh target.

Hypothesis shrinks a sequence by its choices. A step's choices say which earlier answer a reused
value comes from (`pick`, counted among the values learned so far). Take out a step before it, and
the pick may point elsewhere. So the shrinker keeps steps that feed nothing.

So, once Hypothesis is done, each step is tried without, from the last to the first. Taking out a
late step can free an earlier one it reused a value of. A step whose value a later request reuses
stays. The others are taken out if the sequence without them still violates the same rule. That is
checked by a replay on a fresh target, with its reused values learned again
(`fuzz.corpus.sequence_replay`), as a reproduction replays.

There is one try per step: `SEQUENCE_STEPS` at most, with a restart each. A try whose replay does
not go as recorded keeps the step. A value not found again, or a step unanswered, are such cases.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from fuzz.corpus.sequence_replay import play_steps
from fuzz.engine.dispatch import Dispatcher
from fuzz.judging.findings import Finding, Use
from fuzz.judging.oracle import Criteria, assess, describe_violation
from fuzz.wire.target import Target
from strategies import Case, CaseKind, Tool


def without_step(finding: Finding, index: int) -> Finding | None:
    """`finding` without its step `index` (0-based), the later steps' uses renumbered.

    None when a later step or the judged request reuses a value of that step's answer.
    """
    later = [*(use for step in finding.steps[index + 1 :] for use in step.uses), *finding.uses]
    if any(use.step == index for use in later):
        return None
    steps = tuple(replace(step, uses=_renumbered(step.uses, index)) for position, step in enumerate(finding.steps) if position != index)
    return replace(finding, steps=steps, uses=_renumbered(finding.uses, index))


def shortest(finding: Finding, still_fails: Callable[[Finding], Finding | None]) -> Finding:
    """`finding` with every step taken out that `still_fails` confirms it does not need.

    `still_fails(candidate)` gives the candidate as its replay made it. It gives None when the
    replay did not violate the rule. Steps are tried from the last to the first.
    """
    current = finding
    for index in reversed(range(len(finding.steps))):
        if index >= len(current.steps):
            continue
        candidate = without_step(current, index)
        if candidate is not None and (again := still_fails(candidate)) is not None:
            current = again
    return current


async def replayed(target: Target, candidate: Finding, tool: Tool, criteria: Criteria, timeout: float) -> Finding | None:
    """`candidate` as a replay of its steps on `target`, a fresh one, made it.

    It has its steps with this replay's ids, values and answers, and its last request and answer.
    None when that request no longer violates the rule, or a step did not go as recorded.
    """
    played = await play_steps(target, candidate, timeout)
    if played.lost is not None or played.notes:
        return None
    label = step_label(len(played.steps) + 1, tool.name, candidate.uses)
    case = Case(candidate.judged_as or CaseKind.VALID_ARGUMENTS, tool.name, played.request.get("params"), label, inputs=candidate.inputs)
    sent = await Dispatcher(target, ping_timeout=timeout).alone(case, timeout=timeout)
    listed = criteria.listed_names if played.tools is None else tuple(listed.name for listed in played.tools)
    exchange = sent.exchange
    _, violation = assess(case, exchange, tool, replace(criteria, listed_names=listed), answers_ping=sent.answers_ping)
    if violation is None or violation.rule.id != candidate.rule.id:
        return None
    response = exchange.answer
    return replace(
        candidate,
        label=f"sequence {label}",
        request=exchange.request,
        response=response,
        steps=played.steps,
        message=describe_violation(violation, case, exchange),
        why=violation.why,
        expected=violation.expected,
        stderr=exchange.stderr,
    )


def step_label(number: int, tool: str, uses: tuple[Use, ...]) -> str:
    """How a sequence's request is labelled: its step number, its tool, the values it reused."""
    return f"step {number}: {tool}" + (f" with {', '.join(use.argument for use in uses)} from earlier answers" if uses else "")


def _renumbered(uses: tuple[Use, ...], removed: int) -> tuple[Use, ...]:
    return tuple(replace(use, step=use.step - 1) if use.step > removed else use for use in uses)
