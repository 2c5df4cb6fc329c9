"""A Markdown summary (`--report markdown:PATH`).

It fits `$GITHUB_STEP_SUMMARY` or a pull request comment. It opens with the verdict, then the tools
by violated rule. Then comes each problem, with its minimal request and answer in fenced blocks. A
sequence's steps come before it, each request and answer in full. The command that replays the
problem follows. Last comes the schema coverage. Per tool, a table lists the keywords of its schemas
and the cases that reached each side.

What the server sent renders as text, never as markup. Tool and server names go in code spans.
Requests, answers and stderr go in fences longer than any backtick run inside them. Some prose
quotes the server, such as a refusal's message or a skip's reason. There, every character Markdown
could act on is backslash-escaped, links and autolinks included. Control characters are escaped
first (`fuzz.text.printable`). No line starts with a CI workflow command.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from fuzz import __version__
from fuzz.files import write_text_atomically
from fuzz.judging.coverage import (
    RuleState,
    exercise_by_tool,
    exercise_of_run,
    rule_state,
)
from fuzz.judging.findings import Finding, RunResult
from fuzz.judging.nights import delta, stories
from fuzz.judging.schema_coverage import SideReach
from fuzz.reports import _keywords, _tool_list
from fuzz.reports._steps import called, uses_text
from fuzz.reports.problems import (
    ENVELOPE_DISPLAY,
    NIGHT_COLUMNS,
    NIGHTS_SHOWN,
    REPLAYS_SHOWN,
    Problem,
    flaky_text,
    group,
    headline,
    hints,
    night_cells,
    others,
    tries_text,
    unexercised,
)
from fuzz.text import LISTED, json_text, printable, safe_line
from strategies.cases import ENVELOPE

_MARKS = {RuleState.VIOLATED: "❌", RuleState.CLEAN: "✅", RuleState.NOT_EXERCISED: "–"}
_ACTIVE = re.compile(r"[!#$&*<>@\[\\\]_`|~]|:(?=//)|\.(?=\w)")
"""The ASCII punctuation that can begin inline Markdown in the middle of a line.

It covers emphasis, code, links and images, HTML, entities, math and table cells. It also covers
what GitHub and linkify guess links from: `https://`, `www.example`, a bare `example.com`, `a@b`.
Any ASCII punctuation may be backslash-escaped (CommonMark), so escaping these keeps the text. A `:`
or a `.` that starts no link is left as it reads.
"""


def _fenced(document: Any, language: str = "json") -> str:
    """A fenced block that no backtick run inside it can close.

    JSON is written as `json_text` writes it.
    """
    text = json_text(document, indent=2) if language == "json" else str(document)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}\n{fence}"


def code(text: str) -> str:
    """`text` (a tool's name, the server's) as a code span.

    A code span renders every character as itself. The backtick run around it is longer than any
    inside.
    """
    text = printable(text)
    if not text:
        return "(empty)"
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    padding = " " if text[0] in "` " or text[-1] in "` " else ""
    return f"{ticks}{padding}{text}{padding}{ticks}"


def tool(name: str) -> str:
    return ENVELOPE_DISPLAY if name == ENVELOPE else code(name)


def prose(text: str) -> str:
    """Text that quotes the server, escaped to render as written (`_ACTIVE`)."""
    return _ACTIVE.sub(lambda match: "\\" + match.group(), printable(text))


def _cell(text: str) -> str:
    """Table-cell text: a `|` would end the cell, even inside a code span."""
    return text.replace("|", "\\|")


def render(result: RunResult, title: str = "mcp-toolfuzz", level: int = 1) -> str:
    """The summary under a heading of `level`, its problems one level below.

    Under `--protocol-version all`, each revision gets a section at level 2.
    """
    lines: list[str] = []
    verdict = "fails" if result.failed else "passes"
    lines.append(f"{'#' * level} {title}: {headline(result.findings)}")
    lines.append("")
    change = delta(result.nights)
    if change is not None:
        lines += [f"**{prose(change.line)}**", ""]
    lines.append(
        f"**The run {verdict}** (exit {result.exit_code}; fails on {result.fail_on.value} and above"
        f"{', and on a breaking change of the tool list' if result.fail_on_breaking else ''}) · "
        f"profile `{result.profile}` · seed `{result.seed}` · "
        f"{sum(summary.total_sent for summary in result.tools)} cases in {result.seconds:.1f} s · mcp-toolfuzz {__version__}"
    )
    lines.append("")
    server = f" ({code(str(result.server_info.get('name', '?')))}, protocol {prose(result.protocol_version)})" if result.protocol_version else ""
    lines.append(f"Target: {code(result.target_description)}{server}")
    if result.stopped_early:
        lines += ["", f"> The run stopped early: {prose(result.stopped_early)}. What was found until then follows."]
    lines += [line for warning in result.warnings for line in ("", f"> Warning: {prose(warning)}")]
    lines += [line for summary in result.tools if summary.conclusion for line in ("", f"{tool(summary.tool)}: {prose(summary.conclusion)}")]
    flaky = flaky_text(result)
    if flaky:
        lines += ["", f"Flaky: {prose(flaky)}."]
    lines += _tool_changes(result, "#" * (level + 1))
    lines += ["", *_table(result)]
    problems = group(result.findings)
    for number, problem in enumerate(problems, 1):
        lines += ["", *_problem(number, problem, result, "#" * (level + 1))]
    lines += _schema_coverage(result, "#" * (level + 1))
    lines += _nights(result, "#" * (level + 1))
    return "\n".join(map(safe_line, "\n".join(lines).split("\n"))) + "\n"


def _tool_changes(result: RunResult, heading: str) -> list[str]:
    """What changed in the tool list since the corpus kept it: a table, the breaking changes first."""
    headline = _tool_list.headline(result)
    if headline is None:
        return []
    lines = ["", f"{heading} Tool list", "", prose(headline[0].upper() + headline[1:]) + "."]
    if result.tool_changes:
        lines += ["", "| | tool | change | kind |", "|---|---|---|---|"]
        for change in _tool_list.ordered(result):
            mark = "**breaking**" if change.breaking else "compatible"
            cells = [mark, code(change.tool), prose(change.detail), f"`{change.kind.value}`"]
            lines.append("| " + " | ".join(map(_cell, cells)) + " |")
    return lines


def _table(result: RunResult) -> list[str]:
    violated = list(dict.fromkeys(finding.rule.id for finding in result.findings))
    lines: list[str] = []
    if violated:
        by_tool = exercise_by_tool(result)
        lines.append("| tool | " + " | ".join(f"`{rule}`" for rule in violated) + " |")
        lines.append("|---|" + "---|" * len(violated))
        for summary in result.tools:
            cells = [_MARKS[rule_state(summary, rule, by_tool[summary.tool])] for rule in violated]
            lines.append(f"| {_cell(tool(summary.tool))} | " + " | ".join(cells) + " |")
        lines += ["", " · ".join(f"{mark} {state.value}" for state, mark in _MARKS.items())]
    exercise = exercise_of_run(result)
    clean = [rule for rule, state in exercise.items() if state.exercised and rule not in violated]
    if clean:
        lines += ["", "No violation of: " + ", ".join(f"`{rule}`" for rule in clean)]
    missing = [(rule, reason) for rule, reason in unexercised(result) if rule not in violated]
    if missing:
        lines += ["", "Not exercised:"] + [f"- `{rule}`, because {prose(reason)}" for rule, reason in missing]
    shown_hints = hints(result)
    if shown_hints:
        lines += ["", "Hints:"] + [f"- {prose(hint)}" for hint in shown_hints]
    return lines


def _problem(number: int, problem: Problem, result: RunResult, heading: str) -> list[str]:
    finding = problem.representative
    rule = problem.rule
    known = " (known: in the baseline)" if finding.key in result.baseline else ""
    lines = [
        f"{heading} {number}. `{rule.id}` [{rule.level.label}] · {problem.describe_tools(tool)} · {problem.case.value} case{known}",
        "",
        f"{prose(rule.title)}. Sent: {prose(finding.label)}. Problem: {prose(finding.why)}; expected {prose(finding.expected)}.",
    ]
    if len(problem.findings) > 1:
        lines += ["", f"Shown: {others(problem, tool, prose)}."]
    tries = tries_text(problem, tool)
    if tries:
        lines += ["", f"Tried again on fresh targets: **{tries}**."]
    lines += _steps(finding)
    request = "Request:"
    if finding.steps:
        reused = f", reusing {uses_text(finding.uses, code)}" if finding.uses else ""
        request = f"Request (step {len(finding.steps) + 1}){reused}:"
    lines += ["", request, "", _fenced(finding.request), *_rounds(finding)]
    lines += [
        "",
        "Answer:" if not finding.rounds else "Answer (to the last retry):",
        "",
        _fenced(finding.response) if finding.response is not None else "(none)",
    ]
    if finding.stderr:
        lines += ["", "Server stderr:", "", _fenced("\n".join(map(printable, finding.stderr[-8:])), "text")]
    replays = [f"mcp-toolfuzz replay {printable(member.reproduction)}" for member in problem.findings if member.reproduction]
    if len(replays) > REPLAYS_SHOWN:
        replays = [*replays[:LISTED], f"# and {len(replays) - LISTED} more: the JSON report lists every reproduction"]
    if replays:
        lines += ["", "Replay:", "", _fenced("\n".join(replays), "sh")]
    lines += ["", f"<sub>{prose(rule.source)}</sub>"]
    return lines


def _rounds(finding: Finding) -> list[str]:
    """A call's rounds (2026-07-28): each answer that asked for input, then the retry answering it."""
    lines = []
    for number, round_ in enumerate(finding.rounds, 1):
        asked = _fenced(round_.asked) if round_.asked is not None else "(none)"
        lines += ["", f"Round {number}, the answer asking for input:", "", asked, "", f"Round {number}, the retry:", "", _fenced(round_.request)]
    return lines


def _steps(finding: Finding) -> list[str]:
    """A sequence finding's steps, in order, each request and answer in full; none for another."""
    if not finding.steps:
        return []
    count = len(finding.steps)
    lines = ["", f"Steps: the {'call' if count == 1 else f'{count} calls'} the sequence made before the request, in order."]
    for number, step in enumerate(finding.steps, 1):
        name = called(step)
        to = f" to {code(name)}" if name is not None else ""
        reused = f", reusing {uses_text(step.uses, code)}" if step.uses else ""
        lines += [
            "",
            f"Step {number}, request{to}{reused}:",
            "",
            _fenced(step.request),
            "",
            f"Step {number}, answer:",
            "",
            _fenced(step.response) if step.response is not None else "(none)",
        ]
    return lines


def _schema_coverage(result: RunResult, heading: str) -> list[str]:
    """Per tool, each keyword of its schemas and the cases that reached each side.

    Those not reached on every side come first, marked. It is empty when the run recorded none.
    """
    covered = [summary for summary in result.tools if summary.schema_coverage]
    if not covered:
        return []
    lines = [
        "",
        f"{heading} Schema coverage",
        "",
        "The cases that reached each keyword of a tool's schemas on its valid side (a valid value at its boundary) "
        "and on its invalid side (a value rejected for it there), and how they were answered. "
        "⚠ marks a side no case reached, – a side the keyword does not have; those not reached come first.",
    ]
    for summary in covered:
        entries = summary.schema_coverage
        lines += [
            "",
            f"{tool(summary.tool)}: keywords {_keywords.reached(entries)}",
            "",
            "| place | keyword | valid sent | invalid sent | answers |",
            "|---|---|---|---|---|",
        ]
        for entry in _keywords.ordered(entries):
            cells = [code(entry.path), code(entry.keyword), _sent(entry.valid), _sent(entry.invalid), prose(_keywords.sides_answered(entry)) or "–"]
            lines.append("| " + " | ".join(map(_cell, cells)) + " |")
    return lines


def _nights(result: RunResult, heading: str) -> list[str]:
    """The nights of the history (`--history`): what changed since the last one, then a row a night,
    newest first, and the day each problem of the history first appeared."""
    if not result.nights:
        return []
    change = delta(result.nights)
    assert change is not None
    lines = ["", f"{heading} Nights", "", prose(change.line) + "."]
    listed = (("New", change.new), ("Fixed", change.fixed), ("Flaky", change.flaky)) if change.since else (("Flaky", change.flaky),)
    for what, problems in listed:
        if problems:
            lines += ["", f"{what}:"] + [f"- `{p.rule}` · {tool(p.tool)} · {p.case} case [{p.level}]" for p in problems]
    lines += ["", "| " + " | ".join(NIGHT_COLUMNS) + " |", "|" + "---|" * len(NIGHT_COLUMNS)]
    for night in reversed(result.nights[-NIGHTS_SHOWN:]):
        cells = night_cells(night)
        cells[1] = code(cells[1])
        lines.append("| " + " | ".join(map(_cell, cells)) + " |")
    lines += ["", "| finding | level | first seen | last seen | nights |", "|---|---|---|---|---|"]
    for story in stories(result.nights):
        problem = story.problem
        name = f"`{problem.rule}` · {tool(problem.tool)} · {problem.case}"
        last = story.last if not story.present else f"{story.last} (tonight)"
        lines.append("| " + " | ".join(map(_cell, [name, problem.level, story.first, last, str(story.nights)])) + " |")
    return lines


def _sent(side: SideReach | None) -> str:
    return f"⚠ {side.sent}" if side is not None and side.sent == 0 else _keywords.sent(side)


def write(result: RunResult, path: Path) -> None:
    write_text_atomically(render(result), path)
