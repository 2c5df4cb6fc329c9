"""JUnit XML (`--report junit:PATH`), what CI systems show as tests.

Each tool gets a `testsuite`, the envelope included. Each rule that applies to the tool gets a
`testcase` in it.

A test case passes when its rule was exercised and found nothing. It fails when the rule found
something. The failure holds the rule, its level, the minimal request, the answer and the replay
command. A sequence finding sits in the `(sequences)` suite. Its steps come before its request: each
request, its answer, and where each reused value came from (`fuzz.reports.problems.findings_text`).
A test case is skipped, with the reason, when its rule was not exercised. Either the case kind was
skipped, or what the rule judges never happened. The case kinds a tool did not get are skipped test
cases of their own.

The file follows the Apache Ant JUnit schema (windyroad/JUnit-Schema's `JUnit.xsd`). That is what
Jenkins, GitLab and GitHub test reporters read. The `testsuites` root has no attributes. Each
`testsuite` has its `package`, `id`, `timestamp` and `hostname`. Its `properties` come first, its
`system-out` and `system-err` last.

What the server sent is escaped as the terminal escapes it (`fuzz.text.printable`). So a test view
or a CI log that shows a failure's text shows no control character of the server's. The XML also
stays XML 1.0, which cannot carry most C0 controls even as character references.
"""

from __future__ import annotations

import re
import socket
import xml.etree.ElementTree as ElementTree
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from fuzz.files import write_text_atomically
from fuzz.judging.coverage import Exercise, exercise_by_tool
from fuzz.judging.findings import RunResult, ToolSummary
from fuzz.judging.profiles import resolve
from fuzz.reports.problems import findings_text, shown
from fuzz.text import escape_character, printable

SUITE_PREFIX = "mcp-toolfuzz"

_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
"""Characters XML 1.0 cannot carry: NUL and the other C0 controls, lone surrogates, U+FFFE.

What the server sent is escaped before it gets here; this is the last guard.
"""


def _xml_safe(text: str) -> str:
    return _NOT_XML.sub(lambda match: escape_character(match.group()), text)


def _sanitised(root: ElementTree.Element) -> None:
    for element in root.iter():
        if element.text:
            element.text = _xml_safe(element.text)
        for key, value in element.attrib.items():
            element.set(key, _xml_safe(value))


def _suite(number: int, summary: ToolSummary, exercise: dict[str, Exercise], result: RunResult, stamp: str, host: str, prefix: str) -> ElementTree.Element:
    name = f"{prefix}.{shown(summary.tool)}"
    suite = ElementTree.Element(
        "testsuite", name=name, package=SUITE_PREFIX, id=str(number), timestamp=stamp, hostname=host, time=f"{sum(summary.seconds.values()):.3f}"
    )
    properties = ElementTree.SubElement(suite, "properties")
    for key, value in (
        ("seed", result.seed),
        ("profile", result.profile),
        ("target", result.target_description),
        ("protocolVersion", result.protocol_version),
        ("casesSent", summary.total_sent),
    ):
        ElementTree.SubElement(properties, "property", name=key, value=printable(str(value)))
    counts = {"tests": 0, "failures": 0, "skipped": 0}
    rules = resolve(result.profile, result.protocol_version).rules
    found = {finding.rule.id for finding in summary.findings}
    for rule_id in [rule for rule in rules if rule in exercise or rule in found]:
        case = ElementTree.SubElement(suite, "testcase", name=rule_id, classname=name, time="0")
        counts["tests"] += 1
        findings = [finding for finding in summary.findings if finding.rule.id == rule_id]
        if findings:
            first = findings[0]
            tried = f" ({first.stability.label} on fresh targets)" if first.stability is not None else ""
            message = f"{rule_id} [{first.rule.level.label}]: {printable(first.why)}; expected {printable(first.expected)}{tried}"
            failure = ElementTree.SubElement(case, "failure", type=rule_id, message=message)
            failure.text = findings_text(findings)
            counts["failures"] += 1
        elif not exercise[rule_id].exercised:
            ElementTree.SubElement(case, "skipped", message=f"not exercised, because {printable(exercise[rule_id].reason)}")
            counts["skipped"] += 1
    for skip in summary.skips:
        case = ElementTree.SubElement(suite, "testcase", name=f"{skip.case.value} cases", classname=name, time="0")
        ElementTree.SubElement(case, "skipped", message=printable(skip.reason))
        counts["tests"] += 1
        counts["skipped"] += 1
    ElementTree.SubElement(suite, "system-out")
    ElementTree.SubElement(suite, "system-err")
    for key, value in counts.items():
        suite.set(key, str(value))
    suite.set("errors", "0")
    return suite


def render(result: RunResult) -> str:
    return render_runs((result,))


def render_runs(results: Sequence[RunResult]) -> str:
    """The suites of one run, or of a run per revision (`--protocol-version all`).

    Under a run per revision, suite names carry the revision: `mcp-toolfuzz.2026-07-28.add`.
    """
    stamp = datetime.now(UTC).replace(microsecond=0, tzinfo=None).isoformat()
    host = socket.gethostname() or "localhost"
    root = ElementTree.Element("testsuites")
    for result in results:
        prefix = SUITE_PREFIX if len(results) == 1 else f"{SUITE_PREFIX}.{result.protocol_version}"
        by_tool = exercise_by_tool(result)
        for summary in result.tools:
            root.append(_suite(len(root), summary, by_tool[summary.tool], result, stamp, host, prefix))
    _sanitised(root)
    ElementTree.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ElementTree.tostring(root, encoding="unicode") + "\n"


def write(result: RunResult, path: Path) -> None:
    write_text_atomically(render(result), path)
