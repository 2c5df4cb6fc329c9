"""Problems, not repeats: findings grouped by what a person fixes once.

A server-wide behaviour (the empty tool name answered -32602, `arguments: null` answered with a
result) shows up as one finding per tool. Findings that share a rule, a case kind and the same
kind of answer (the same JSON-RPC error code, or the same class of result) are one *problem*,
seen on several tools, shown with one representative minimal request. Findings stay the unit of
the JSON report, the exit code and the reproduction files; problems are how reports read.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Sequence

from fuzz.findings import Finding
from fuzz.rules import RULES, Level, Rule
from strategies import CaseKind
from strategies.cases import ENVELOPE

ENVELOPE_DISPLAY = "(envelope)"
"""How the malformed requests that name no tool are shown where a tool name would be."""


def display(tool: str) -> str:
    return ENVELOPE_DISPLAY if tool == ENVELOPE else tool


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

    def describe_tools(self) -> str:
        if len(self.findings) == 1:
            tool = self.representative.tool
            return "no tool (the request envelope)" if tool == ENVELOPE else f"tool {tool}"
        return f"{len(self.findings)} tools: {', '.join(display(tool) for tool in self.tools)}"


def _order(finding: Finding) -> tuple[int, int]:
    rule_ids = [rule.id for rule in RULES]
    position = rule_ids.index(finding.rule.id) if finding.rule.id in rule_ids else len(rule_ids)
    return (list(Level).index(finding.rule.level), position)


def group(findings: Sequence[Finding]) -> list[Problem]:
    """The problems of `findings`, most binding rule first, each with its findings in the order
    given (the plan's tool order)."""
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
    return (f"{_plural(len(problems), 'problem')} ({_plural(len(findings), 'finding')} on "
            f"{_plural(len(tools), 'tool')})")


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def findings_text(findings: Sequence[Finding]) -> str:
    """Each finding as the lines a failed test shows: rule, problem, request, answer, stderr,
    replay command, the rule's sentence."""
    parts = []
    for finding in findings:
        parts.append("\n".join(filter(None, (
            f"{finding.rule.id} [{finding.rule.level.label}] · {finding.case.value} case · {finding.label}",
            f"problem: {finding.why}; expected {finding.expected}",
            f"request: {json.dumps(finding.request, ensure_ascii=False)}",
            "answer:  " + (json.dumps(finding.response, ensure_ascii=False) if finding.response is not None else "(none)"),
            *(f"stderr:  {line}" for line in finding.stderr[-8:]),
            f"replay:  mcp-toolfuzz replay {finding.reproduction}" if finding.reproduction else "",
            f"rule:    {finding.rule.source}",
        ))))
    return "\n\n".join(parts)
