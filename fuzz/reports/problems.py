"""Problems, not repeats: findings grouped by what a person fixes once.

A server-wide behaviour shows up as one finding per tool. Examples are the empty tool name answered
-32602, or `arguments: null` answered with a result. So findings that share a rule, a case kind and
the same kind of answer are one *problem*. The same kind of answer means the same JSON-RPC error
code, or the same class of result. A problem is seen on several tools and shown with one
representative minimal request.

A sequence finding (`CaseKind.SEQUENCE`) is a problem with other sequence findings only. It never
joins the single cases of its rule. Its answer came after steps of its own, and it is shown with
them.

Findings stay the unit of the JSON report, the exit code and the reproduction files. Problems are
how reports read.

The same goes for what the reports say around them. A list of tools is cut to a few names and a
count (`fuzz.text.listing`). A hint or a reason shared by many tools is one line.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from fuzz.judging.coverage import exercise_by_tool, exercise_of_run, tool_hint
from fuzz.judging.findings import LEVELS, Finding, Night, RunResult, ToolSummary
from fuzz.judging.rules import RULES, Level, Rule
from fuzz.reports._steps import aligned, labelled_lines, uses_text
from fuzz.text import json_text, listing, printable
from strategies import CaseKind
from strategies.cases import ENVELOPE

ENVELOPE_DISPLAY = "(envelope)"
"""How the malformed requests that name no tool are shown where a tool name would be."""

REPLAYS_SHOWN = 10
"""A problem's replay commands shown before the others are counted.

The JSON report and the reproduction files keep them all.
"""


NIGHTS_SHOWN = 30
"""The nights a report shows a row of, newest first; the history keeps them all."""
NIGHT_COLUMNS = ("night", "version", *LEVELS, "flaky", "keywords reached", "cases")
"""The head of the table of nights the Markdown and HTML reports show."""


def night_cells(night: Night) -> list[str]:
    """A night's row under `NIGHT_COLUMNS`, as text (the version is the server's: escape it)."""
    counts = night.by_level()
    reached, total = night.keywords
    return [night.date, night.version or "?", *(str(counts.get(level, 0)) for level in LEVELS), str(night.flaky), f"{reached} of {total}", str(night.cases)]


def display(tool: str) -> str:
    """The tool as named in reports, exactly as the server sent it (escape it to print it)."""
    return ENVELOPE_DISPLAY if tool == ENVELOPE else tool


def shown(tool: str) -> str:
    """The tool's name as a person reads it: `display`ed and `printable`."""
    return ENVELOPE_DISPLAY if tool == ENVELOPE else printable(tool)


@dataclass(frozen=True, slots=True)
class Problem:
    rule: Rule
    case: CaseKind
    answer: str
    findings: tuple[Finding, ...]
    """In report order; the first is the representative."""

    @property
    def representative(self) -> Finding:
        return self.findings[0]

    @property
    def tools(self) -> tuple[str, ...]:
        return tuple(finding.tool for finding in self.findings)

    @property
    def fingerprint(self) -> str:
        """Stable across runs (rule, case kind, answer kind, tools): what a dashboard tracks."""
        text = "\0".join((self.rule.id, self.case.value, self.answer, *sorted(self.tools)))
        return hashlib.sha256(text.encode()).hexdigest()[:32]

    def describe_tools(self, name: Callable[[str], str] = shown) -> str:
        """`tool add`, or `79 tools: get_a, get_b, get_c and 76 more`.

        A server-wide behaviour reads as one line however many tools share it. The JSON report lists
        them all. `name` renders a tool's name, escaped for the terminal by default.
        """
        if len(self.findings) == 1:
            tool = self.representative.tool
            return "no tool (the request envelope)" if tool == ENVELOPE else f"tool {name(tool)}"
        return f"{len(self.findings)} tools: {listing(name(tool) for tool in self.tools)}"


def _order(finding: Finding) -> tuple[int, int]:
    rule_ids = [rule.id for rule in RULES]
    position = rule_ids.index(finding.rule.id) if finding.rule.id in rule_ids else len(rule_ids)
    return (list(Level).index(finding.rule.level), position)


def group(findings: Sequence[Finding]) -> list[Problem]:
    """The problems of `findings`, most binding rule first.

    Each holds its findings in the order given: the plan's tool order.
    """
    grouped: dict[tuple[str, CaseKind, str], list[Finding]] = {}
    for finding in sorted(findings, key=_order):
        grouped.setdefault((finding.rule.id, finding.case, finding.answer_kind), []).append(finding)
    return [Problem(members[0].rule, case, answer, tuple(members)) for (_, case, answer), members in grouped.items()]


def headline(findings: Sequence[Finding]) -> str:
    """`6 problems (20 findings on 8 tools)`, or `no findings`."""
    if not findings:
        return "no findings"
    problems = group(findings)
    tools = {finding.tool for finding in findings}
    return f"{_plural(len(problems), 'problem')} ({_plural(len(findings), 'finding')} on {_plural(len(tools), 'tool')})"


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def others(problem: Problem, name: Callable[[str], str] = shown, text: Callable[[str], str] = printable) -> str:
    """What a problem seen on several tools says of its shown finding and the others.

    `name` renders the tools' names, and `text` the kind of answer. For example: `the request to
    add; the others got JSON-RPC error -32602 for the same kind of case`. A sequence problem's
    findings each have steps of their own: the one shown is a whole sequence.
    """
    tool, answer = name(problem.representative.tool), text(problem.answer)
    if problem.case is CaseKind.SEQUENCE:
        return f"the sequence that ended in the request to {tool}; the others' sequences ended in {answer} too (the JSON report has each one's steps)"
    return f"the request to {tool}; the others got {answer} for the same kind of case"


def tries_text(problem: Problem, name: Callable[[str], str] = shown) -> str | None:
    """How the problem's findings came back on fresh targets (`--tries`); None when none was tried.

    One finding: `stable (10 of 10)`. Several, all alike: `stable on all 3 tools (10 of 10 each)`.
    Otherwise each tool's: `flaky on shaky (3 of 10); stable on steady (10 of 10)`, flaky first.
    """
    labelled = [finding for finding in problem.findings if finding.stability is not None]
    if not labelled:
        return None
    if len(problem.findings) == 1:
        return labelled[0].stability.label if labelled[0].stability else None
    labels = {finding.stability for finding in labelled}
    if len(labels) == 1 and len(labelled) == len(problem.findings):
        only = labelled[0].stability
        assert only is not None
        kind = "stable" if only.stable else "flaky"
        return f"{kind} on all {len(labelled)} tools ({only.reproduced} of {only.attempts} each)"
    ordered = sorted(labelled, key=lambda finding: not finding.flaky)
    parts = [(f, f.stability) for f in ordered if f.stability is not None]
    return "; ".join(f"{'flaky' if f.flaky else 'stable'} on {name(f.tool)} ({label.reproduced} of {label.attempts})" for f, label in parts)


def flaky_text(result: RunResult) -> str | None:
    """`2 flaky findings (they fail the run: --flaky fail)`; None when there is none."""
    keys = {finding.key for finding in result.findings if finding.flaky}
    flaky = len(keys | {r.key for r in result.replayed if r.flaky and r.status == "STILL FAILING" and r.key is not None})
    if not flaky:
        return None
    effect = "they fail the run: --flaky fail" if result.flaky_fails else "reported only, failing no run: --flaky report"
    return f"{_plural(flaky, 'flaky finding')} ({effect})"


def findings_text(findings: Sequence[Finding]) -> str:
    """Each finding as the lines a failed test shows.

    The lines are: rule, problem, a sequence's steps, request, answer, stderr, replay command, and
    the rule's sentence. A sequence's steps give each request and answer, and where each reused
    value came from. What the server sent is escaped (`fuzz.text`).
    """
    parts = []
    for finding in findings:
        parts.append(
            "\n".join(
                filter(
                    None,
                    (
                        f"{finding.rule.id} [{finding.rule.level.label}] · {finding.case.value} case · {printable(finding.label)}",
                        f"problem: {printable(finding.why)}; expected {printable(finding.expected)}",
                        *(aligned(label, line, 9) for label, line in labelled_lines(finding, json_text)),
                        f"request: {json_text(finding.request)}",
                        f"reused:  {uses_text(finding.uses)}" if finding.uses else "",
                        "answer:  " + (json_text(finding.response) if finding.response is not None else "(none)"),
                        *(f"stderr:  {printable(line)}" for line in finding.stderr[-8:]),
                        f"replay:  mcp-toolfuzz replay {printable(finding.reproduction)}" if finding.reproduction else "",
                        f"tries:   {finding.stability.label} on fresh targets" if finding.stability else "",
                        f"rule:    {finding.rule.source}",
                    ),
                )
            )
        )
    return "\n\n".join(parts)


def hints(result: RunResult) -> list[str]:
    """The run's hints (`fuzz.judging.coverage.tool_hint`), one per cause, tool names escaped.

    Some tools' valid calls all failed, with the same field named by the refusals (or none). Those
    tools share one line. A server-wide cause, such as a missing API key, is fixed once.
    """
    by_field: dict[str | None, list[ToolSummary]] = {}
    for summary in result.tools:
        if tool_hint(summary) is not None:
            field = max(summary.refused_fields.items(), key=lambda item: (item[1], item[0]))[0] if summary.refused_fields else None
            by_field.setdefault(field, []).append(summary)
    lines = []
    for field, summaries in by_field.items():
        if len(summaries) == 1:
            lines.append(tool_hint(replace(summaries[0], tool=shown(summaries[0].tool))) or "")
            continue
        start = f"no valid call to {len(summaries)} tools succeeded ({listing(shown(s.tool) for s in summaries)})"
        lines.append(
            f"{start}; the refusals named '{printable(field)}': give a value they accept with --argument '*.{printable(field)}=VALUE'"
            if field is not None
            else f"{start}: give known-good values with --argument TOOL.FIELD=VALUE"
        )
    return lines


def unexercised(result: RunResult) -> list[tuple[str, str]]:
    """The rules no tool exercised, each with why (`fuzz.judging.coverage.exercise_of_run`).

    The reason is escaped. The tools that share a reason are named once, cut to a few: `get_a,
    get_b, get_c and 76 more: ...`.
    """
    by_tool = exercise_by_tool(result)
    lines = []
    for rule, exercise in exercise_of_run(result).items():
        if exercise.exercised:
            continue
        reasons: dict[str, list[str]] = {}
        for tool, exercises in by_tool.items():
            if rule in exercises:
                reasons.setdefault(exercises[rule].reason, []).append(shown(tool))
        why = "; ".join(f"{listing(tools)}: {printable(reason)}" for reason, tools in reasons.items())
        lines.append((rule, why or printable(exercise.reason)))
    return lines
