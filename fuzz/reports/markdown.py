"""A Markdown summary (`--report markdown:PATH`), fit for `$GITHUB_STEP_SUMMARY` or a pull
request comment: the verdict, the tools by violated rule, then each problem with its minimal
request and answer in fenced blocks and the command that replays it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from fuzz import __version__
from fuzz.coverage import RuleState, exercise_by_tool, exercise_of_run, rule_state, tool_hint
from fuzz.files import write_text_atomically
from fuzz.findings import RunResult
from fuzz.reports.problems import Problem, display, group, headline


_MARKS = {RuleState.VIOLATED: "❌", RuleState.CLEAN: "✅", RuleState.NOT_EXERCISED: "–"}


def _fenced(document: Any, language: str = "json") -> str:
    """A fenced block that no backtick run inside it can close."""
    text = json.dumps(document, ensure_ascii=False, indent=2) if language == "json" else str(document)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}\n{fence}"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render(result: RunResult, title: str = "mcp-toolfuzz", level: int = 1) -> str:
    """The summary under a heading of `level` (under `--protocol-version all`, a section per
    revision at level 2), its problems one level below."""
    lines: list[str] = []
    verdict = "fails" if result.failed else "passes"
    lines.append(f"{'#' * level} {title}: {headline(result.findings)}")
    lines.append("")
    lines.append(
        f"**The run {verdict}** (exit {result.exit_code}; fails on {result.fail_on.value} and above) · "
        f"profile `{result.profile}` · seed `{result.seed}` · "
        f"{sum(summary.total_sent for summary in result.tools)} cases in {result.seconds:.1f} s · mcp-toolfuzz {__version__}"
    )
    lines.append("")
    lines.append(f"Target: `{_cell(result.target_description)}`"
                 + (f" ({_cell(str(result.server_info.get('name', '?')))}, protocol {result.protocol_version})" if result.protocol_version else ""))
    if result.stopped_early:
        lines += ["", f"> The run stopped early: {result.stopped_early}. What was found until then follows."]
    lines += ["", *_table(result)]
    problems = group(result.findings)
    for number, problem in enumerate(problems, 1):
        lines += ["", *_problem(number, problem, result, "#" * (level + 1))]
    return "\n".join(lines) + "\n"


def _table(result: RunResult) -> list[str]:
    violated = list(dict.fromkeys(finding.rule.id for finding in result.findings))
    lines: list[str] = []
    if violated:
        by_tool = exercise_by_tool(result)
        lines.append("| tool | " + " | ".join(f"`{rule}`" for rule in violated) + " |")
        lines.append("|---|" + "---|" * len(violated))
        for summary in result.tools:
            cells = [_MARKS[rule_state(summary, rule, by_tool[summary.tool])] for rule in violated]
            lines.append(f"| {_cell(display(summary.tool))} | " + " | ".join(cells) + " |")
        lines += ["", " · ".join(f"{mark} {state.value}" for state, mark in _MARKS.items())]
    exercise = exercise_of_run(result)
    clean = [rule for rule, state in exercise.items() if state.exercised and rule not in violated]
    if clean:
        lines += ["", "No violation of: " + ", ".join(f"`{rule}`" for rule in clean)]
    missing = [(rule, state.reason) for rule, state in exercise.items() if not state.exercised and rule not in violated]
    if missing:
        lines += ["", "Not exercised:"] + [f"- `{rule}`, because {_cell(reason)}" for rule, reason in missing]
    hints = [hint for hint in (tool_hint(summary) for summary in result.tools) if hint]
    if hints:
        lines += ["", "Hints:"] + [f"- {_cell(hint)}" for hint in hints]
    return lines


def _problem(number: int, problem: Problem, result: RunResult, heading: str) -> list[str]:
    finding = problem.representative
    rule = problem.rule
    known = " (known: in the baseline)" if finding.key in result.baseline else ""
    lines = [
        f"{heading} {number}. `{rule.id}` [{rule.level.label}] · {problem.describe_tools()} · {problem.case.value} case{known}",
        "",
        f"{rule.title}. Sent: {_cell(finding.label)}. Problem: {_cell(finding.why)}; expected {_cell(finding.expected)}.",
    ]
    if len(problem.findings) > 1:
        lines += ["", f"Shown: the request to `{display(finding.tool)}`; the others got {problem.answer} for the same kind of case."]
    lines += ["", "Request:", "", _fenced(finding.request), "", "Answer:", "",
              _fenced(finding.response) if finding.response is not None else "(none)"]
    if finding.stderr:
        lines += ["", "Server stderr:", "", _fenced("\n".join(finding.stderr[-8:]), "text")]
    replays = [member.reproduction for member in problem.findings if member.reproduction]
    if replays:
        lines += ["", "Replay:", "", _fenced("\n".join(f"mcp-toolfuzz replay {path}" for path in replays), "sh")]
    lines += ["", f"<sub>{_cell(rule.source)}</sub>"]
    return lines


def write(result: RunResult, path: Path) -> None:
    write_text_atomically(render(result), path)

