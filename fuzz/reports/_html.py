"""An HTML report (`--report html:PATH`): one self-contained file.

It is meant for a nightly job's artifacts, and it opens offline. Its CSS is inline, and it has no
script, no font and no external URL.

It holds the verdict: what the exit code means, and the problems and findings per level. Then comes
the tools × rules matrix. Then each problem, with its rule, level and spec sentence. Each problem
shows the minimal request and the exact answer as JSON. A sequence's steps come before them: each
request and answer, and where each reused value came from. Then come the server's stderr, its
findings and their replay commands. After the problems come the schema coverage per tool, and how
each tool's cases of each kind were answered.

Every string of the server's in it is escaped text. That covers its name, tool names, messages,
JSON, paths and property names. The page is built as an element tree and serialised
(`fuzz.reports._html_tree`), never pasted together.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path

from fuzz import __version__
from fuzz.files import write_text_atomically
from fuzz.judging.coverage import BUCKETS, RuleState, exercise_by_tool, exercise_of_run, judged_rules, rule_state
from fuzz.judging.findings import Finding, RunResult, ToolSummary, Use
from fuzz.judging.nights import delta
from fuzz.judging.rules import Level
from fuzz.reports import _keywords, _tool_list
from fuzz.reports._html_tree import Child, Element, add, cell, json_block, lines_block, page, table, tag
from fuzz.reports._steps import called, path_text
from fuzz.reports._trend import nights_section
from fuzz.reports.problems import Problem, display, flaky_text, group, headline, hints, others, tries_text, unexercised

_MARKS = {RuleState.VIOLATED: ("✗", "violated"), RuleState.CLEAN: ("✓", "clean"), RuleState.NOT_EXERCISED: ("–", "not-exercised")}


def render(result: RunResult) -> str:
    """The report of one run, as a whole page."""
    return page(f"mcp-toolfuzz: {headline(result.findings)}", [*report(result), _footer(result)])


def render_runs(results: Sequence[RunResult], comparison: Sequence[str], exit_code: int) -> str:
    """The report of `--protocol-version all`, as a whole page.

    The comparison (`fuzz.reports.by_revision`'s lines) comes first. Then each revision's own report
    follows, in a section of its own.
    """
    body = [
        tag("h1", f"mcp-toolfuzz under every revision: exit {exit_code}"),
        tag("nav", *(tag("a", f"Under {result.protocol_version}", href=f"#r{n}") for n, result in enumerate(results))),
        tag("pre", lines_block(comparison)),
    ]
    for n, result in enumerate(results):
        body.append(tag("section", *report(result, f"Under {result.protocol_version}", level=2, key=f"r{n}-"), id=f"r{n}"))
    if results:
        body.append(_footer(results[0]))
    return page(f"mcp-toolfuzz under every revision: exit {exit_code}", body)


def write(result: RunResult, path: Path) -> None:
    """Write atomically: a reader never sees a half-written report."""
    write_text_atomically(render(result), path)


def report(result: RunResult, title: str = "mcp-toolfuzz", level: int = 1, key: str = "") -> list[Element]:
    """One run's report under a heading of `level`.

    Its sections sit one level below. `key` starts every id in it, since a page may hold several
    runs.
    """
    section = f"h{level + 1}"
    nights = nights_section(result, section, key)
    change, flaky = delta(result.nights), flaky_text(result)
    anchors = [("matrix", "Tools × rules"), ("problems", "Problems"), ("coverage", "Schema coverage"), ("answers", "Answers")]
    parts = [
        tag(f"h{level}", f"{title}: {headline(result.findings)}"),
        _verdict(result),
        *([tag("p", change.line, cls="delta")] if change is not None else []),
        *([tag("p", f"Flaky: {flaky}.")] if flaky else []),
        _facts(result),
        _levels(result),
        tag("nav", *(tag("a", name, href=f"#{key}{anchor}") for anchor, name in [*anchors, *([("nights", "Nights")] if nights is not None else [])])),
        *_tool_changes(result, section, key),
        tag("section", tag(section, "Tools × rules"), *_matrix(result), id=f"{key}matrix"),
        tag(
            "section",
            tag(section, f"Problems: {headline(result.findings)}"),
            *(_problem(number, problem, result, f"h{level + 2}") for number, problem in enumerate(group(result.findings), 1)),
            None if result.findings else tag("p", "No rule was violated."),
            id=f"{key}problems",
        ),
        tag("section", tag(section, "Schema coverage"), *_coverage(result), id=f"{key}coverage"),
        tag("section", tag(section, "Answers"), *_answers(result), id=f"{key}answers"),
        *([nights] if nights is not None else []),
    ]
    parts += _others(result, section)
    return parts


def _tool_changes(result: RunResult, heading: str, key: str) -> list[Element]:
    """What changed in the tool list since the corpus kept it: a table, the breaking changes first."""
    headline = _tool_list.headline(result)
    if headline is None:
        return []
    rows: list[list[Child]] = [
        [
            tag("td", _tool_list.mark(change), cls="breaking" if change.breaking else "compatible"),
            tag("code", change.tool),
            change.detail,
            tag("code", change.kind.value),
        ]
        for change in _tool_list.ordered(result)
    ]
    body: list[Child] = [tag(heading, "Tool list"), tag("p", headline[0].upper() + headline[1:] + ".")]
    if rows:
        body.append(table(["", "tool", "change", "kind"], rows, cls="tool-changes"))
    return [tag("section", *body, id=f"{key}tool-list")]


def _verdict(result: RunResult) -> Element:
    fail_on = result.fail_on.value
    if result.failed_on_breaking and not replace(result, fail_on_breaking=False).failed:
        return tag(
            "p",
            tag("strong", "The run fails"),
            f" · exit 1: {len(result.breaking_changes)} changes of the tool list break clients (--fail-on-breaking)",
            cls="verdict fails",
        )
    if result.failed:
        return tag(
            "p",
            tag("strong", "The run fails"),
            f" · exit 1: a violation at {fail_on} level or above (--fail-on {fail_on}) that is not in the baseline was found or replayed",
            cls="verdict fails",
        )
    if result.exit_code == 2:
        return tag(
            "p",
            tag("strong", "The run proves nothing yet"),
            f" · exit 2: it stopped early ({result.stopped_early}), and a partial run with no violation at {fail_on} level or above is not a pass",
            cls="verdict stopped",
        )
    known = " (the findings below are under that level, or known: in the baseline)" if result.findings else ""
    return tag("p", tag("strong", "The run passes"), f" · exit 0: no violation at {fail_on} level or above{known}", cls="verdict passes")


def _facts(result: RunResult) -> Element:
    server = result.server_info
    facts: list[tuple[str, str]] = [
        ("target", result.target_description),
        ("server", f"{server.get('name', '?')} {server.get('version', '')}".rstrip()),
        ("protocol", result.protocol_version or "?"),
        ("profile", f"{result.profile} · fails on {result.fail_on.value} and above"),
        ("seed", f"{result.seed} (repeat this run with --seed {result.seed})"),
        (
            "cases",
            f"{sum(summary.total_sent for summary in result.tools)} in {result.seconds:.1f} s"
            + (f" · {result.target_restarts} target restarts" if result.target_restarts else ""),
        ),
    ]
    if result.stopped_early:
        facts.append(("stopped early", f"{result.stopped_early}; what was found until then follows"))
    listed = tag("dl", cls="facts")
    for name, value in facts:
        add(listed, tag("dt", name), tag("dd", value))
    return listed


def _levels(result: RunResult) -> Element:
    problems = group(result.findings)
    rows = [
        [
            tag("span", level.label, cls=f"level {level.value}"),
            tag("td", str(sum(1 for problem in problems if problem.rule.level is level)), cls="number"),
            tag("td", str(sum(1 for finding in result.findings if finding.rule.level is level)), cls="number"),
            "yes" if level.at_least(result.fail_on) else "no: reported only",
        ]
        for level in Level
    ]
    return table(["level", "problems", "findings", "fails the run"], rows, cls="levels")


def _problem(number: int, problem: Problem, result: RunResult, heading: str) -> Element:
    finding = problem.representative
    rule = problem.rule
    known = " (known: in the baseline)" if finding.key in result.baseline else ""
    story = tag("dl", cls="story")
    lines = [("sent", finding.label), ("problem", finding.why), ("expected", finding.expected)]
    if len(problem.findings) > 1:
        lines.append(("shown", others(problem, display, str)))
    tries = tries_text(problem, display)
    if tries:
        lines.append(("tried again", f"{tries} on fresh targets"))
    for name, value in lines:
        add(story, tag("dt", name), tag("dd", value))
    section = tag(
        "section",
        tag(
            heading,
            f"{number}. ",
            tag("code", rule.id),
            " ",
            tag("span", rule.level.label, cls=f"level {rule.level.value}"),
            f" · {problem.describe_tools(display)} · {problem.case.value} case{known}",
        ),
        tag("p", f"Rule: {rule.title}."),
        tag("blockquote", rule.source, cls="spec"),
        story,
        cls=f"problem {rule.level.value}",
    )
    if finding.steps:
        add(section, *_sequence_steps(finding))
    answer = tag("pre", json_block(finding.response)) if finding.response is not None else tag("p", "(none: no answer came)")
    request = f"Request (step {len(finding.steps) + 1})" if finding.steps else "Request"
    if finding.rounds:
        first = finding.rounds[0].asked
        asked = tag("pre", json_block(first)) if first is not None else tag("p", "(none)")
        add(
            section, tag("div", tag("div", tag("h5", request), tag("pre", json_block(finding.request))), tag("div", tag("h5", "Answer"), asked), cls="exchange")
        )
        for number, round_ in enumerate(finding.rounds, 1):
            last = number == len(finding.rounds)
            reply = answer if last else tag("pre", json_block(finding.rounds[number].asked))
            add(
                section,
                tag(
                    "div",
                    tag("div", tag("h5", f"Round {number}: retry"), tag("pre", json_block(round_.request))),
                    tag("div", tag("h5", f"Round {number}: answer"), reply),
                    cls="exchange",
                ),
            )
    else:
        add(
            section,
            tag("div", tag("div", tag("h5", request), tag("pre", json_block(finding.request))), tag("div", tag("h5", "Answer"), answer), cls="exchange"),
        )
    if finding.uses:
        add(section, tag("p", "Reused: ", *_reused(finding.uses), cls="reused"))
    if finding.headers:
        add(section, tag("h5", "HTTP headers sent instead"), tag("pre", json_block(dict(finding.headers))))
    if finding.stderr:
        add(section, tag("h5", "Server stderr"), tag("pre", lines_block(finding.stderr[-8:])))
    replays = [f"mcp-toolfuzz replay {member.reproduction}" for member in problem.findings if member.reproduction]
    if replays:
        add(section, tag("h5", "Replay"), tag("pre", lines_block(replays)))
    rows: list[list[Child]] = [
        [
            tag("code", display(member.tool)),
            member.label,
            member.answer_kind,
            tag("code", member.reproduction) if member.reproduction else "–",
            _known(member, result),
            member.stability.label if member.stability is not None else "not tried",
        ]
        for member in problem.findings
    ]
    head = ["tool", "sent", "answer", "reproduction", "seen", "tries"]
    add(section, tag("h5", f"Findings ({len(problem.findings)})"), table(head, rows, cls="findings"))
    return section


def _sequence_steps(finding: Finding) -> list[Element]:
    """A sequence finding's steps, in order.

    Each request and its answer sit side by side. Each value the request reused says where it came
    from.
    """
    count = len(finding.steps)
    items = []
    for number, step in enumerate(finding.steps, 1):
        name = called(step)
        heading = tag("h5", f"Step {number}: request")
        if name is not None:
            add(heading, " to ", tag("code", name))
        answer = tag("pre", json_block(step.response)) if step.response is not None else tag("p", "(none: no answer came)")
        exchange = tag(
            "div", tag("div", heading, tag("pre", json_block(step.request))), tag("div", tag("h5", f"Step {number}: answer"), answer), cls="exchange"
        )
        items.append(tag("li", exchange, tag("p", "Reused: ", *_reused(step.uses), cls="reused") if step.uses else None))
    calls = "call" if count == 1 else f"{count} calls"
    return [tag("h5", f"Steps: the {calls} the sequence made before the request, in order"), tag("ol", *items, cls="steps")]


def _reused(uses: tuple[Use, ...]) -> list[Child]:
    """`note_id from step 1's answer (structuredContent.id)` for each use, the names in code."""
    parts: list[Child] = []
    for use in uses:
        parts += ["; "] if parts else []
        parts += [tag("code", use.argument), f" from step {use.step + 1}'s answer (", tag("code", path_text(use.path)), ")"]
    return parts


def _known(finding: Finding, result: RunResult) -> str:
    if finding.key in result.baseline:
        return "known: in the baseline"
    return "new" if finding.first_seen else "already in the corpus"


def _tool_cell(summary: ToolSummary) -> Element:
    return tag("th", tag("code", display(summary.tool)), scope="row")


def _matrix(result: RunResult) -> list[Element]:
    """Every judged rule on every tool, as `exercise_by_tool` says (a mark's title tells why)."""
    rules = judged_rules(result)
    by_tool = exercise_by_tool(result)
    rows = []
    for summary in result.tools:
        cells: list[Element] = [_tool_cell(summary)]
        for rule in rules:
            state = rule_state(summary, rule, by_tool[summary.tool])
            exercise = by_tool[summary.tool].get(rule)
            why = (
                state.value if state is not RuleState.NOT_EXERCISED else (f"not exercised: {exercise.reason}" if exercise is not None else "not for this tool")
            )
            mark, cls = _MARKS[state]
            cells.append(tag("td", mark, cls=cls, title=f"{rule}: {why}"))
        rows.append(cells)
    head = [tag("th", "tool", scope="col"), *(tag("th", rule, cls="rule", scope="col") for rule in rules)]
    parts = [
        table(head, rows, cls="matrix"),
        tag("p", " · ".join(f"{mark} {state.value}" for state, (mark, _) in _MARKS.items()), " (a mark's tooltip says why)", cls="muted"),
    ]
    violated = {finding.rule.id for finding in result.findings}
    clean = [rule for rule, exercise in exercise_of_run(result).items() if exercise.exercised and rule not in violated]
    if clean:
        parts.append(tag("p", "No violation of: ", *_joined(tag("code", rule) for rule in clean)))
    missing = [(rule, reason) for rule, reason in unexercised(result) if rule not in violated]
    if missing:
        parts += [tag("p", "Not exercised:"), tag("ul", *(tag("li", tag("code", rule), f", because {reason}") for rule, reason in missing))]
    shown_hints = hints(result)
    if shown_hints:
        parts += [tag("p", "Hints:"), tag("ul", *(tag("li", hint) for hint in shown_hints))]
    return parts


def _joined(elements: Iterable[Element]) -> list[Child]:
    """The elements with a comma between each two."""
    items: list[Child] = []
    for element in elements:
        items += [", ", element] if items else [element]
    return items


def _coverage(result: RunResult) -> list[Element]:
    """Per tool, its keywords: those not reached on every side first, marked."""
    covered = [summary for summary in result.tools if summary.schema_coverage]
    if not covered:
        return [tag("p", "No schema coverage was recorded in this run.", cls="muted")]
    parts = [
        tag(
            "p",
            "The cases that reached each keyword of a tool's schemas on its valid side (a valid value at its boundary) and on its "
            "invalid side (a value rejected for it there), and how they were answered; – : the keyword has no such side. "
            "The keywords not reached on every side come first, highlighted.",
            cls="muted",
        )
    ]
    for summary in covered:
        entries = summary.schema_coverage
        rows = []
        for entry in _keywords.ordered(entries):
            cells: list[Child] = [tag("code", entry.path), tag("code", entry.keyword)]
            for side in (entry.valid, entry.invalid):
                cells.append(tag("td", _keywords.sent(side), cls="number zero" if side is not None and side.sent == 0 else "number"))
            cells.append(_keywords.sides_answered(entry) or "–")
            rows.append(tag("tr", *map(cell, cells), cls=None if entry.fully_reached else "unreached"))
        complete = all(entry.fully_reached for entry in entries)
        parts.append(
            tag(
                "details",
                tag("summary", tag("code", display(summary.tool)), f": keywords {_keywords.reached(entries)}"),
                table(["place", "keyword", "valid sent", "invalid sent", "answers"], rows, cls="coverage"),
                open=not complete,
            )
        )
    return parts


def _answers(result: RunResult) -> list[Element]:
    """How each tool's cases of each kind were answered (shrinking included)."""
    answered = [summary for summary in result.tools if summary.answers]
    if not answered:
        return [tag("p", "No case was answered.", cls="muted")]
    seen = {name for summary in answered for counts in summary.answers.values() for name in counts}
    names = [name for name in BUCKETS if name in seen] + sorted(seen - set(BUCKETS))
    rows = []
    for summary in answered:
        for kind, counts in summary.answers.items():
            rows.append(
                [
                    _tool_cell(summary),
                    kind.value,
                    tag("td", str(sum(counts.values())), cls="number"),
                    *(tag("td", str(counts.get(name, "")), cls="number") for name in names),
                ]
            )
    return [tag("p", "Cases judged, shrinking included.", cls="muted"), table(["tool", "case kind", "cases", *names], rows, cls="answers")]


def _others(result: RunResult, heading: str) -> list[Element]:
    """What was skipped, the corpus replayed and the baseline, where there is any."""
    parts: list[Element] = []
    concluded = [tag("p", tag("code", display(summary.tool)), f": {summary.conclusion}") for summary in result.tools if summary.conclusion]
    if concluded:
        parts.append(tag("section", tag(heading, "Sequence phase"), *concluded))
    skips = [skip for summary in result.tools for skip in summary.skips]
    if skips or result.excluded_tools:
        items = (
            [tag("li", "not fuzzed (--tools / --exclude-tools): ", *_joined([tag("code", name) for name in result.excluded_tools]))]
            if result.excluded_tools
            else []
        )
        items += [tag("li", tag("code", display(skip.tool)), f" {skip.case.value}: {skip.reason}") for skip in skips]
        parts.append(tag("section", tag(heading, "Skipped"), tag("ul", *items)))
    if result.replayed:
        replayed: list[list[Child]] = [[r.status, tag("code", r.path), r.detail] for r in result.replayed]
        parts.append(tag("section", tag(heading, "Corpus replayed"), table(["status", "reproduction", "detail"], replayed)))
    if result.baseline:
        stale = [tag("li", f"{key.rule} · {display(key.tool)} · {key.case}") for key in result.stale_baseline]
        parts.append(
            tag(
                "section",
                tag(heading, "Baseline"),
                tag(
                    "p",
                    f"{len(result.baseline)} known findings: reported, but they fail no run; {len(stale)} entries not reproduced by this run (stale)",
                    ":" if stale else ".",
                ),
                tag("ul", *stale) if stale else None,
            )
        )
    return parts


def _footer(result: RunResult) -> Element:
    return tag("footer", f"mcp-toolfuzz {__version__} · seed {result.seed} · the JSON report (--report json:PATH) holds every value exactly")
