"""The terminal report, printed as the run goes.

It prints a line per tool as it finishes. Under a tool's line, it says how many keywords of its
schemas the run reached on every side. It names a few of those it did not (`_keywords`).

At the end, it prints every problem with its minimal request and answer. A sequence's come after its
steps: a line for each request and one for each answer, clipped. A table of tools by violated rule
follows.

Everything the server sent is printed through `fuzz.text` (`printable`, `show`). So a terminal or a
CI log gets no control character from it. It gets no line of the server's making and no workflow
command. Long lists of tools are cut to a few names and a count.
"""

from __future__ import annotations

import shutil
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TextIO

from fuzz import __version__
from fuzz.engine.events import (
    CorpusReplayed,
    Event,
    Progress,
    RunFinished,
    RunStarted,
    ToolFinished,
    Warned,
)
from fuzz.judging.coverage import (
    SUCCESS,
    RuleState,
    exercise_by_tool,
    exercise_of_run,
    rule_state,
)
from fuzz.judging.findings import FindingKey, RunResult
from fuzz.judging.nights import delta
from fuzz.judging.rules import RULES, Level
from fuzz.reports import _keywords, _tool_list
from fuzz.reports._steps import aligned, labelled_lines, uses_text
from fuzz.reports.problems import (
    REPLAYS_SHOWN,
    Problem,
    flaky_text,
    group,
    headline,
    hints,
    others,
    shown,
    tries_text,
    unexercised,
)
from fuzz.text import LISTED, clip, listing, printable, safe_line, show
from fuzz.wire.rounds import RETRY_MEMBERS
from strategies import CaseKind
from strategies.cases import NOT_TOOLS, SEQUENCES, TASK_METHODS

_WIDTH = 100
_CLEAR_LINE = "\r\x1b[K"
_MARKS = {RuleState.VIOLATED: "x", RuleState.CLEAN: ".", RuleState.NOT_EXERCISED: "-"}

ANSWERS_PER_TOOL_UP_TO = 20
"""Tools past which the Answers section counts per case kind over all tools, not per tool."""

STEP_LIMIT = 400
"""Characters of a sequence step's request or answer shown on its line.

The request that violated a rule gets 2000, as any finding's. The Markdown, HTML and JSON reports
have every step in full.
"""

PLAIN_PROGRESS_EVERY = 30.0
"""Seconds between two progress lines when the output is not a terminal (a CI log)."""


class TerminalReporter:
    """A Listener: pass it to the engine and it prints as the run goes."""

    def __init__(
        self,
        stream: TextIO | None = None,
        *,
        show_stderr_lines: int = 8,
        notes: Sequence[str] = (),
        progress: bool = True,
        plain_progress_every: float = PLAIN_PROGRESS_EVERY,
    ) -> None:
        self.stream = stream or sys.stdout
        self.notes = tuple(notes)
        self._baseline: frozenset[FindingKey] = frozenset()
        self.show_stderr_lines = show_stderr_lines
        self._name_width = 12
        self._live = progress and self.stream.isatty()
        """Whether to redraw one status line in place, on a terminal.

        Otherwise, with `progress`, a plain line is printed now and then (a CI log).
        """
        self._plain_every = plain_progress_every if progress and not self._live else None
        self._next_plain = plain_progress_every
        self._status_shown = False

    def __call__(self, event: Event) -> None:
        if isinstance(event, Progress):
            self._progress(event)
        elif isinstance(event, RunStarted):
            self._started(event)
        elif isinstance(event, ToolFinished):
            summary = event.summary
            count = len(summary.findings)
            skipped = f"  ({', '.join(skip.case.value for skip in summary.skips)} skipped)" if summary.skips else ""
            valid = summary.answers.get(CaseKind.VALID_ARGUMENTS, {})
            accepted = f"  (valid calls: {valid.get(SUCCESS, 0)} of {sum(valid.values())} succeeded)" if valid else ""
            self._print(
                f"  {shown(summary.tool):<{self._name_width}} {summary.total_sent:>6} cases  {_plural(count, 'finding') if count else 'ok'}{skipped}{accepted}"
            )
            if summary.schema_coverage:
                self._print(f"    {_keywords.line(summary.schema_coverage)}")
            if summary.boundary_left_out:
                self._print(f"    boundary phase: {summary.boundary_cases} cases; {summary.boundary_left_out} more values left out by its bound per schema")
            if summary.conclusion:
                self._print(f"    {printable(summary.conclusion)}")
        elif isinstance(event, Warned):
            self._print(f"warning {printable(event.warning)}")
        elif isinstance(event, CorpusReplayed):
            replayed = event.replayed
            self._print(f"  corpus  {replayed.status:<13} {printable(replayed.path)}: {printable(replayed.detail)}")
        elif isinstance(event, RunFinished):
            self._finished(event.result)

    def _started(self, event: RunStarted) -> None:
        self._name_width = max([12, *(min(len(shown(name)), 40) for name in event.tool_names)])
        self._print(f"mcp-toolfuzz {__version__} · seed {event.seed} (repeat this run with --seed {event.seed})")
        self._print(f"target  {printable(event.target)}")
        self._print(f"server  {printable(event.server_name)}, protocol {printable(event.protocol_version)}, {_plural(len(event.tool_names), 'tool')} to fuzz")
        self._print(f"profile {event.profile}")
        if event.shard is not None:
            self._print(f"shard   {event.shard}")
        for note in self.notes:
            self._print(note)
        for warning in event.warnings:
            self._print(f"warning {printable(warning)}")
        self._print("")

    def _finished(self, result: RunResult) -> None:
        self._baseline = result.baseline
        if result.stopped_early:
            self._print(f"\nThe run stopped early: {printable(result.stopped_early)}. What was found until then follows.")
        self._skipped(result)
        self._tool_list(result)
        if result.findings:
            self._print(f"\nProblems: {headline(result.findings)}")
            for number, problem in enumerate(group(result.findings), 1):
                self._problem(number, problem)
        self._answers(result)
        self._summary(result)

    def _tool_list(self, result: RunResult) -> None:
        """What changed in the tool list since the corpus kept it: a line per change, breaking first."""
        tool_list = _tool_list.headline(result)
        if tool_list is None or not result.tool_changes:
            return
        self._print(f"\n{printable(tool_list[0].upper() + tool_list[1:])}")
        for change in _tool_list.ordered(result):
            self._print(f"  {_tool_list.mark(change):<10} {shown(change.tool)}: {printable(change.detail)}")

    def _answers(self, result: RunResult) -> None:
        """Per tool and case kind: how many cases were judged, and how they were answered.

        Past `ANSWERS_PER_TOOL_UP_TO` tools, it counts per case kind over all tools. The JSON report
        has each tool's.
        """
        answered = [summary for summary in result.tools if summary.answers]
        if not answered:
            return
        if len(answered) > ANSWERS_PER_TOOL_UP_TO:
            tools = sum(1 for summary in answered if summary.tool not in (SEQUENCES, TASK_METHODS))  # theirs are their kind's line
            self._print(f"\nAnswers (cases judged, shrinking included, over {tools} tools; each tool's in --report json)")
            totals: dict[CaseKind, Counter[str]] = {}
            for summary in answered:
                for kind, counts in summary.answers.items():
                    totals.setdefault(kind, Counter()).update(counts)
            for kind, counts in totals.items():
                if counts:
                    self._print(f"  {kind.value:<{self._name_width}} {_told(counts)}")
            return
        self._print("\nAnswers (cases judged, shrinking included)")
        for summary in answered:
            parts = [f"{kind.value} {_told(counts)}" for kind, counts in summary.answers.items() if counts]
            if parts:  # a kind no case of was judged (another phase's, under --phases) is left out
                self._print(f"  {shown(summary.tool):<{self._name_width}} " + " · ".join(parts))

    def _skipped(self, result: RunResult) -> None:
        skips = [skip for summary in result.tools for skip in summary.skips]
        if not skips and not result.excluded_tools:
            return
        self._print("\nSkipped")
        if result.excluded_tools:
            self._print(f"  not fuzzed (--tools / --exclude-tools): {listing(map(printable, result.excluded_tools))}")
        by_reason: dict[str, list[str]] = {}
        for skip in skips:
            by_reason.setdefault(skip.reason, []).append(f"{shown(skip.tool)} {skip.case.value}")
        for reason, what in by_reason.items():
            self._print(f"  {listing(what)}: {printable(reason)}")

    def _problem(self, number: int, problem: Problem) -> None:
        """A problem: its rule, the tools it was seen on, and its representative finding."""
        finding = problem.representative
        rule = finding.rule
        known = []
        if finding.key in self._baseline:
            known.append("known: in the baseline")
        if not finding.first_seen:
            known.append("already in the corpus")
        note = f"  ({'; '.join(known)})" if known else ""
        self._print(f"\n{number}. {rule.id} [{rule.level.label}] · {problem.describe_tools()} · {finding.case.value} case{note}")
        if len(problem.findings) > 1:
            self._print(f"   shown:    {others(problem)}")
        self._print(f"   sent:     {printable(finding.label)}")
        self._print(f"   problem:  {printable(finding.why)}; expected {printable(finding.expected)}")
        for label, line in labelled_lines(finding, lambda value: show(value, STEP_LIMIT)):
            self._print("   " + aligned(label, line, 10))
        self._print(f"   request:  {show(finding.request, 2000)}")
        for number, round_ in enumerate(finding.rounds, 1):
            params = round_.request.get("params")
            added = {key: params[key] for key in RETRY_MEMBERS if key in params} if isinstance(params, dict) else {}
            self._print("   " + aligned(f"retry {number}:", f"the same call, adding {show(added, STEP_LIMIT)}", 10))
        if finding.uses:
            self._print(f"   reused:   {uses_text(finding.uses)}")
        self._print(f"   answer:   {show(finding.response, 2000) if finding.response is not None else '(none)'}")
        for line in finding.stderr[-self.show_stderr_lines :]:
            self._print(f"   stderr:   {clip(printable(line), _WIDTH)}")
        tries = tries_text(problem)
        if tries:
            self._print(f"   tries:    {tries} on fresh targets")
        self._print(f"   rule:     {rule.source}")
        replays = [member.reproduction for member in problem.findings if member.reproduction]
        cut = len(replays) > REPLAYS_SHOWN
        for path in replays[: LISTED if cut else None]:
            self._print(f"   replay:   mcp-toolfuzz replay {printable(path)}")
        if cut:
            self._print(f"   replay:   and {len(replays) - LISTED} more (the JSON report lists every reproduction)")

    def _summary(self, result: RunResult) -> None:
        violated = [rule for rule in RULES if any(f.rule.id == rule.id for f in result.findings)]
        self._print("\nSummary")
        if violated:
            header = f"  {'tool':<{self._name_width}}" + "".join(f"  {rule.id}" for rule in violated)
            self._print(header)
            by_tool = exercise_by_tool(result)
            for summary in result.tools:
                cells = ""
                for rule in violated:
                    mark = _MARKS[rule_state(summary, rule.id, by_tool[summary.tool])]
                    cells += f"  {mark:^{len(rule.id)}}"
                self._print(f"  {shown(summary.tool):<{self._name_width}}{cells}")
            self._print("  (" + " · ".join(f"{mark} {state.value}" for state, mark in _MARKS.items()) + ")")
        exercise = exercise_of_run(result)
        clean = [rule.id for rule in RULES if rule not in violated and rule.id in exercise and exercise[rule.id].exercised]
        if clean:
            self._print(f"  no violation of: {', '.join(clean)}")
        for rule_id, reason in unexercised(result):
            if not any(f.rule.id == rule_id for f in result.findings):
                self._print(f"  not exercised: {rule_id}, because {reason}")
        for hint in hints(result):
            self._print(f"  hint: {hint}")
        for warning in result.warnings:
            self._print(f"  warning: {printable(warning)}")
        counts = {level: sum(1 for f in result.findings if f.rule.level is level) for level in Level}
        cases = sum(summary.total_sent for summary in result.tools)
        verdict = headline(result.findings)
        if result.findings:
            verdict = verdict[:-1] + ": " + ", ".join(f"{counts[level]} {level.label}" for level in Level) + ")"
        if result.replayed:
            statuses = [r.status for r in result.replayed]
            gone = f", {statuses.count('TOOL GONE')} of tools no longer listed (not replayed)" if "TOOL GONE" in statuses else ""
            self._print(
                f"  corpus: {len(statuses)} reproductions replayed: {statuses.count('STILL FAILING')} still failing, "
                f"{statuses.count('FIXED')} fixed, {statuses.count('ERROR')} unreadable{gone}"
            )
        tool_list = _tool_list.headline(result)
        if tool_list is not None:
            self._print(f"  {printable(tool_list)}")
        new = sum(1 for f in result.findings if f.first_seen and f.key not in result.baseline)
        if result.baseline or any(not f.first_seen for f in result.findings):
            self._print(f"  new findings: {new} (the others are in the baseline or the corpus already)")
        for stale in result.stale_baseline:
            self._print(f"  stale baseline entry (not reproduced by this run): {printable(stale.rule)} · {shown(stale.tool)} · {printable(stale.case)}")
        flaky = flaky_text(result)
        if flaky:
            self._print(f"  flaky: {flaky}")
        change = delta(result.nights)
        if change is not None:
            self._print(f"  nights: {printable(change.line)} ({len(result.nights)} in the history)")
        self._print(
            f"\n{verdict} · profile {result.profile} · fail on {result.fail_on.value} · "
            f"{_plural(sum(1 for t in result.tools if t.tool not in NOT_TOOLS), 'tool')} · {cases} cases · {result.seconds:.1f} s · "
            f"seed {result.seed} · exit {result.exit_code}"
        )

    def _progress(self, event: Progress) -> None:
        running = [f"{shown(tool)} {kind}" for tool, kind in event.running[:3]]
        more = f" +{len(event.running) - 3} more" if len(event.running) > 3 else ""
        left = f", {event.left:.0f} s left" if event.left is not None else ""
        text = (
            f"{', '.join(running) or 'between explorations'}{more} · {event.cases:,} cases · {_plural(event.findings, 'finding')} · {event.seconds:.0f} s{left}"
        )
        if self._live:
            width = shutil.get_terminal_size((100, 20)).columns - 1
            self.stream.write(_CLEAR_LINE + clip(f"  … {text}", width))
            self.stream.flush()
            self._status_shown = True
        elif self._plain_every is not None and event.seconds >= self._next_plain:
            self._next_plain = event.seconds + self._plain_every
            self._print(f"  progress: {text}")

    def _print(self, text: str) -> None:
        """Print `text`, each of its lines guarded (`safe_line`) as the last line of defence."""
        if self._status_shown:
            self.stream.write(_CLEAR_LINE)
            self._status_shown = False
        print("\n".join(map(safe_line, text.split("\n"))), file=self.stream, flush=True)


def _told(counts: Mapping[str, int]) -> str:
    """`25: 20 success, 5 tool-error`: the cases judged, then each kind of answer.

    The most frequent kind comes first. Equals go by name, not by which came first: the JSON report
    does not keep that order.
    """
    told = ", ".join(f"{count} {name}" for name, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])))
    return f"{sum(counts.values())}: {told}"


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"
