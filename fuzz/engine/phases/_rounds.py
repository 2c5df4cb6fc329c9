"""The rounds phase: the 2026-07-28 rules no single call judges, on a copy of the target of its own.

Where the server speaks 2026-07-28, the phase sends, in order:

1. `server/discover`, then `tools/list` three times: each result's caching hints
   (`caching-hints`), and the order of the tools over the three (`tools-list-order`), by
   `fuzz.judging.listing_checks`.
2. For each tool the phase may call (`TRIED_TOOLS` at most) whose plainest arguments need no
   search: the call, declaring every capability; where it answers `input_required` with a
   `requestState`, each `Tamper` in turn (`fuzz.wire.rounds.state_trial`), judged by
   `fuzz.judging.request_state`: a tampered state that completes the call otherwise than the state
   as given did is `request-state-verified`; another call's state that completes it as that call
   did is `request-state-bound`.

Findings: the listing's under `(rounds)`, as kind `tool-listing`; the state's under their tool, as
kind `request-state`, each with the trial's earlier requests as its steps. Replay runs the same
trial again (`fuzz.corpus.replay`). It runs on a target of its own because a tampered state may
leave a server's state changed; a target given by URL is the one server, and is shared.
"""

from __future__ import annotations

from dataclasses import dataclass

from fuzz.engine.jobs import Job, Untried
from fuzz.engine.options import RunPhase
from fuzz.engine.phases._probe_phase import ProbePhase
from fuzz.engine.plan import Unit
from fuzz.judging.coverage import exchange_bucket
from fuzz.judging.findings import Finding, SequenceStep
from fuzz.judging.listing_checks import listing_problems
from fuzz.judging.request_state import state_problem
from fuzz.judging.rules import Rule
from fuzz.text import show
from fuzz.wire.replies import Exchange
from fuzz.wire.state_trials import Tamper, trial_for
from fuzz.wire.stateless import listings
from fuzz.wire.target import Target
from strategies import CaseKind, Tool
from strategies.cases import ROUNDS, plain_arguments

TRIED_TOOLS = 8
"""The most tools whose `requestState` is tampered with."""


class RoundsPhase(ProbePhase):
    """The 2026-07-28 rules beyond one call, on a target of the phase's own (see the module docstring)."""

    chosen_by = RunPhase.ROUNDS
    named = "the rounds phase"

    def takes(self, job: Job) -> bool:
        return job.unit is Unit.ROUNDS

    def probe(self) -> RoundsProbe:
        return RoundsProbe(None, CaseKind.REQUEST_STATE, ROUNDS, tools=self.context.callable_tools)


@dataclass
class RoundsProbe(Untried):
    """The rounds phase's outcome: what it sent and found."""

    tools: tuple[Tool, ...] = ()

    async def run(self, target: Target, *, timeout: float) -> None:
        if not target.description.stateless:
            self.skip = "the server does not speak 2026-07-28"
            return
        sent = await listings(target.session, timeout=timeout, version=target.description.protocol_version)
        self._count(sent)
        for rule, why, index in listing_problems(sent):
            self._found(rule, why, ROUNDS, CaseKind.TOOL_LISTING, f"{sent[index].request.get('method')} (the rounds phase)", sent[: index + 1])
        asked = 0
        for tool in self.tools[:TRIED_TOOLS]:
            arguments = plain_arguments(tool)
            if arguments is None:
                continue
            for tamper in Tamper:
                trial = await trial_for(target, tool, arguments, tamper, timeout)
                if trial is None:
                    if tamper is Tamper.EDITED:
                        continue
                    break
                asked += tamper is Tamper.FLIPPED
                self._count(list(trial.exchanges))
                problem = state_problem(trial)
                if problem is not None:
                    self._found(*problem, tool.name, CaseKind.REQUEST_STATE, f"retry whose requestState had {tamper.value}", list(trial.exchanges))
        if not asked:
            self.conclusion = "no tool the phase may call, with arguments plain enough to need no search, asked for input with a requestState"

    def _count(self, sent: list[Exchange]) -> None:
        for exchange in sent:
            self.sent += 1
            bucket = exchange_bucket(exchange)
            self.answers[bucket] = self.answers.get(bucket, 0) + 1

    def _found(self, rule: Rule, why: str, tool: str, kind: CaseKind, label: str, sent: list[Exchange]) -> None:
        if any(finding.rule.id == rule.id and finding.tool == tool for finding in self.findings):
            return
        last = sent[-1]
        steps = tuple(SequenceStep(exchange.request, exchange.answer) for exchange in sent[:-1])
        message = (
            f"{rule.id} ({rule.level.label}): {why}. Sent {label} after {len(steps)} step(s) of the rounds phase: "
            f"{show(last.request, 400)}. Answer: {show(last.answer, 400) if last.answer is not None else 'none'}. "
            f"Expected: {rule.title}. {rule.source}"
        )
        self.findings.append(Finding(rule, tool, kind, label, last.request, last.answer, message, why, rule.title, last.stderr, steps=steps))
