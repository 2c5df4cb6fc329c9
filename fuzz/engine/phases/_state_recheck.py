"""State behind single cases: does a finding's request fail on a fresh target?

A single case is sent to a target that every earlier case has changed. Take a `read_sheet("")` that
crashes only because an earlier case created an empty sheet named "". That is a real bug. But its
"minimal request" alone, sent to a fresh target, is refused. A reproduction that says FIXED on the
next night would mislead.

So each new finding is sent once more, alone, to a copy of the target started for it. The sequence
phase does it (`SequencePhase.checked`), when it runs: the user asked for state to be looked at. The target must be a
stdio one, so that a fresh copy can be had. Only the rules a tool's state can decide are checked.
When that copy does not make the violation, the finding says so.
"""

from __future__ import annotations

from dataclasses import replace

from fuzz.engine.dispatch import Dispatcher
from fuzz.engine.options import RunOptions
from fuzz.errors import HarnessError
from fuzz.judging.findings import Finding
from fuzz.judging.oracle import Criteria, assess
from fuzz.wire.target import StdioTarget, open_target
from strategies import Case, CaseKind, Tool

NOT_ON_A_FRESH_TARGET = (
    " Sent alone to a fresh copy of the target, this request does not make the violation: it depended on"
    " calls made before it (state the earlier cases left), so its reproduction may replay FIXED; the sequence"
    " phase's findings show such dependencies step by step."
)


async def checked_on_a_fresh_target(finding: Finding, tool: Tool | None, options: RunOptions, criteria: Criteria, protocol_version: str | None) -> Finding:
    """`finding`, with a note when its request alone passes on a fresh target.

    `NOT_ON_A_FRESH_TARGET` is added to its message when its request alone, on a fresh copy of the
    target, does not violate its rule. See the module docstring.
    """
    if (
        not isinstance(options.target, StdioTarget)
        or tool is None
        or not finding.rule.depends_on_state
        or finding.case not in (CaseKind.VALID_ARGUMENTS, CaseKind.INVALID_ARGUMENTS)
    ):
        return finding
    case = Case.from_request(finding.case, finding.tool, finding.request, finding.label)
    try:
        async with open_target(
            options.target, startup_timeout=options.startup_timeout, protocol_version=protocol_version, max_message_bytes=options.max_answer_size
        ) as target:
            sent = await Dispatcher(target, ping_timeout=options.timeout).alone(case, timeout=options.timeout)
    except HarnessError:
        return finding
    _, violation = assess(case, sent.exchange, tool, criteria, answers_ping=sent.answers_ping)
    if violation is not None and violation.rule.id == finding.rule.id:
        return finding
    return replace(finding, message=finding.message + NOT_ON_A_FRESH_TARGET)
