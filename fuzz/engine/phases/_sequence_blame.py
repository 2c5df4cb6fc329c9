"""Whose bug a sequence's violation is: the sequence's, or a single request's.

It is the sequence's when it needs the calls before it. It is a single request's when the same
request, alone on a fresh target, makes it too.

The sequence phase judges every answer by the rules the single cases are judged by. So a tool that
fails on some arguments, whatever came before, fails in sequences too. Such a violation is the
single cases' to report. The sequence ends there, and a sequence that shrank to it is left out. Only
a fresh target can tell. The request is sent again, alone, to one
(`PhaseTargets.sent_on_a_fresh_target`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from fuzz.engine.dispatch import Sent
from fuzz.engine.stops import OutOfTime, ShareSpent
from fuzz.judging.findings import Finding
from fuzz.judging.oracle import Criteria, assess
from strategies import Case, CaseKind, Tool


class SingleRequestBugs:
    """What the phase has learned of single requests' bugs.

    `on_a_fresh_target` sends cases to a target no call has touched. It gives None when none can be
    had, as by URL.
    """

    def __init__(self, criteria: Criteria, on_a_fresh_target: Callable[[Sequence[Case]], Sequence[Sent] | None]) -> None:
        self._criteria = criteria
        self._on_a_fresh_target = on_a_fresh_target
        self._known: set[tuple[str, str]] = set()
        """(rule, tool) violations a single request makes on a fresh target."""
        self._tried: set[str] = set()

    def intrinsic(self, case: Case, tool: Tool, rule_id: str) -> bool:
        """Whether a violation on a request that reuses nothing is the tool's own.

        It is the tool's own when the same request to a fresh target makes it too. Then the sequence
        ends there, and the single cases report it. Every later violation of the kind is taken as
        the same, without a try. Each request is tried once.
        """
        if (rule_id, tool.name) in self._known:
            return True
        key = f"{rule_id} {json.dumps(case.params, sort_keys=True, default=str)}"
        if key in self._tried:
            return False
        self._tried.add(key)
        if self._violated_on_a_fresh_target(case, tool, rule_id):
            self._known.add((rule_id, tool.name))
            return True
        return False

    def needs_its_steps(self, finding: Finding, tool: Tool | None, *, stopped: bool) -> bool:
        """Whether a sequence finding needs the calls before it.

        It does not when its request reuses no value and, sent alone to a fresh target, violates the
        same rule. That is a single case's bug, which the other phases report. A sequence that
        shrank to it says nothing more. The finding is kept untried when the phase `stopped` (no
        time, no target), or when the tool is unknown.
        """
        if not finding.steps:
            return False
        if finding.uses or stopped or tool is None:
            return True
        case = Case(finding.judged_as or CaseKind.VALID_ARGUMENTS, tool.name, finding.request.get("params"), finding.label, inputs=finding.inputs)
        try:
            return not self._violated_on_a_fresh_target(case, tool, finding.rule.id)
        except (OutOfTime, ShareSpent):
            return True

    def _violated_on_a_fresh_target(self, case: Case, tool: Tool, rule_id: str) -> bool:
        """Whether `case`, alone on a target no call has touched, violates `rule_id`.

        Never when no fresh target can be had.
        """
        sent = self._on_a_fresh_target([case])
        if not sent:
            return False
        _, again = assess(case, sent[0].exchange, tool, self._criteria, answers_ping=sent[0].answers_ping)
        return again is not None and again.rule.id == rule_id
