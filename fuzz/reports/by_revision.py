"""The reports of `--protocol-version all` (`fuzz.engine.revisions`).

Each revision's own report comes first, in a section of its own. Then come the revisions not fuzzed,
and the differences between the others. Each format lays this out its own way.

JSON: `revisions` holds each revision's whole report, as `--report json` writes one. `unfuzzed` and
`differences` follow. JUnit: each revision's suites, named with the revision. SARIF: a run per
revision. Markdown and the terminal: a section per revision, then the comparison. What the server
sent is escaped in it (`fuzz.text`). HTML: one page, with the comparison first, then a section per
revision.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from fuzz import __version__
from fuzz.engine.revisions import Behaviour, Difference, RevisionRuns, Uncompared
from fuzz.files import write_json_atomically, write_text_atomically
from fuzz.reports import _html, _json_report, _junit, _markdown, _sarif
from fuzz.reports.problems import headline
from fuzz.reports.problems import shown as shown_tool
from fuzz.text import listing, printable, safe_line, show
from strategies.envelopes import ABSENT
from strategies.meta import with_meta


def _request_params(behaviour: Behaviour) -> Any:
    """The minimal request's params, without the envelope every revision adds its own way."""
    if behaviour.example is None:
        return None
    return with_meta(behaviour.example.request.get("params"), ABSENT)


def _behaviour_json(behaviour: Behaviour) -> dict[str, Any]:
    return {
        "answers": dict(behaviour.answers),
        "findings": [{"rule": rule, "answer": answer} for rule, answer in behaviour.findings],
        "params": _request_params(behaviour),
    }


def _difference_json(difference: Difference) -> dict[str, Any]:
    return {
        "tool": difference.tool or None,
        "case": difference.case.value,
        "revisions": {behaviour.version: _behaviour_json(behaviour) for behaviour in difference.behaviours},
    }


def as_json(runs: RevisionRuns) -> dict[str, Any]:
    first = runs.runs[0]
    return {
        "format": _json_report.FORMAT_VERSION,
        "tool": {"name": "mcp-toolfuzz", "version": __version__},
        "protocolVersion": "all",
        "seed": first.seed,
        "target": first.target,
        "seconds": round(runs.seconds, 3),
        "exitCode": runs.exit_code,
        "revisions": [_json_report.as_json(result) for result in runs.runs],
        "unfuzzed": [{"protocolVersion": item.version, "reason": item.reason} for item in runs.unfuzzed],
        "differences": [_difference_json(difference) for difference in runs.differences],
        "notCompared": [_uncompared_json(item) for item in runs.uncompared],
    }


def _uncompared_json(item: Uncompared) -> dict[str, Any]:
    return {
        "tool": item.tool or None,
        "case": item.case.value,
        "revisions": {behaviour.version: _behaviour_json(behaviour) for behaviour in item.behaviours},
        "notJudgedUnder": list(item.missing),
    }


def _describe(behaviour: Behaviour) -> str:
    answers = ", ".join(f"{count} {bucket}" for bucket, count in behaviour.answers) or "no answer counted"
    if not behaviour.findings:
        return f"no finding · answers: {answers}"
    broken = "; ".join(f"{rule}: {printable(answer)}" for rule, answer in behaviour.findings)
    return f"{broken} · answers: {answers}"


def comparison_lines(runs: RevisionRuns) -> list[str]:
    """The comparison that follows the revisions' own reports."""
    lines = ["Revisions"]
    for result in runs.runs:
        lines.append(f"  {result.protocol_version}  {headline(result.findings)} · {result.seconds:.1f} s · exit {result.exit_code}")
    for item in runs.unfuzzed:
        lines.append(f"  {item.version}  not fuzzed: {printable(item.reason)}")
    differences = runs.differences
    if len(runs.runs) > 1:
        lines.append("")
        lines.append(
            f"Differences: {len(differences) or 'none'} (the same tool and case kind classified differently, "
            f"of {runs.compared} judged under more than one revision)"
        )
    for difference in differences:
        lines.append(f"  {shown_tool(difference.tool)} · {difference.case.value} cases")
        alike: dict[tuple[str, str], list[str]] = {}
        for behaviour in difference.behaviours:
            params = _request_params(behaviour)
            shown = "" if params is None else show(params, 160)
            alike.setdefault((_describe(behaviour), shown), []).append(behaviour.version)
        requests = {shown for _, shown in alike if shown}
        for (described, shown), versions in alike.items():
            lines.append(f"    {', '.join(versions)}: {described}")
            if shown and len(requests) > 1:
                lines.append(f"      minimal request params: {shown}")
        if len(requests) == 1:
            lines.append(f"    minimal request params: {requests.pop()}")
    lines += uncompared_lines(runs.uncompared)
    lines.append("")
    spoken = ", ".join(runs.versions)
    lines.append(f"all revisions: {len(runs.runs)} fuzzed ({spoken}) · {len(differences)} differences · {runs.seconds:.1f} s · exit {runs.exit_code}")
    return lines


UNCOMPARED_SHOWN = 10
"""Uncompared items with a finding shown per group of revisions.

An item is a tool and case kind. The rest, and those without a finding, are only counted. The JSON
report lists each one.
"""


def uncompared_lines(items: tuple[Uncompared, ...]) -> list[str]:
    """What only some revisions judged, grouped by the revisions that judged it.

    Each item with a finding comes first, with what it was. Then those without one are named in
    short.
    """
    if not items:
        return []
    lines = ["", f"Judged under some revisions only: {len(items)} (tool and case kinds not compared: the other revisions sent them no case)"]
    groups: dict[tuple[str, ...], list[Uncompared]] = {}
    for item in items:
        groups.setdefault(item.versions, []).append(item)
    for versions, group in groups.items():
        found = [item for item in group if any(behaviour.findings for behaviour in item.behaviours)]
        lines.append(f"  under {', '.join(versions)} only: {len(group)}, {len(found)} with findings")
        for item in found[:UNCOMPARED_SHOWN]:
            told = (
                "; ".join(f"{behaviour.version}: {_describe(behaviour)}" for behaviour in item.behaviours)
                if len(versions) > 1
                else _describe(item.behaviours[0])
            )
            lines.append(f"    {shown_tool(item.tool)} · {item.case.value} cases: {told}")
        if len(found) > UNCOMPARED_SHOWN:
            lines.append(f"    and {len(found) - UNCOMPARED_SHOWN} more with findings (the JSON report lists each)")
        clean = [f"{shown_tool(item.tool)} {item.case.value}" for item in group if item not in found]
        if clean:
            lines.append(f"    without a finding: {listing(clean)}")
    return lines


def print_comparison(runs: RevisionRuns, stream: TextIO) -> None:
    print("", file=stream)
    for line in comparison_lines(runs):
        print(safe_line(line), file=stream, flush=True)


def _markdown_runs(runs: RevisionRuns) -> str:
    sections = [f"# mcp-toolfuzz under every revision: exit {runs.exit_code}", ""]
    sections += [_markdown._fenced("\n".join(comparison_lines(runs)), "text"), ""]
    sections += [_markdown.render(result, f"Under {result.protocol_version}", level=2) for result in runs.runs]
    return "\n".join(map(safe_line, "\n".join(sections).split("\n")))


WRITERS: dict[str, Callable[[RevisionRuns, Path], None]] = {
    "json": lambda runs, path: write_json_atomically(as_json(runs), path),
    "junit": lambda runs, path: write_text_atomically(_junit.render_runs(runs.runs), path),
    "sarif": lambda runs, path: write_json_atomically(_sarif.as_sarif_runs(runs.runs), path),
    "markdown": lambda runs, path: write_text_atomically(_markdown_runs(runs), path),
    "html": lambda runs, path: write_text_atomically(_html.render_runs(runs.runs, comparison_lines(runs), runs.exit_code), path),
}
"""`fuzz.reports.WRITERS` for a run per revision; each writes atomically."""
