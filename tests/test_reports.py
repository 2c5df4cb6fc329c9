"""Reports for the nightly job: problems grouped, and JUnit XML, SARIF 2.1.0 and Markdown, each
checked against its published schema or read by a real consumer."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from dataclasses import replace
from pathlib import Path

import html5lib
import jsonschema
import junitparser
import pytest
import xmlschema
from markdown_it import MarkdownIt

from fuzz.engine.events import ToolFinished
from fuzz.judging.schema_coverage import SchemaRole
from fuzz.reports import _json_report, _junit, _markdown
from fuzz.reports._markdown import _fenced
from fuzz.reports.problems import group
from fuzz.reports.terminal import TerminalReporter
from tests.conftest import SERVERS, fuzz, made_once, mcp_toolfuzz, python_server
from tests.test_html_report import ADD_COVERAGE, HOSTILE_PROPERTY, HOSTILE_TOOL, keyword, made_result, parsed, side

SCHEMAS = Path(__file__).parent / "report_schemas"
DEMO_TOOLS = ["add", "echo", "divide", "set_volume", "lookup", "mirror", "maintenance", "reset"]


def _demo(tmp_path: Path, *extra: str, seed: int = 42) -> tuple[subprocess.CompletedProcess[str], Path]:
    out = tmp_path / f"out-{seed}"
    run = mcp_toolfuzz(
        "run",
        "--seed",
        str(seed),
        "--max-examples",
        "25",
        "--corpus",
        str(tmp_path / "corpus"),
        "--report",
        f"json:{out}/r.json",
        "--report",
        f"junit:{out}/r.xml",
        "--report",
        f"sarif:{out}/r.sarif",
        "--report",
        f"markdown:{out}/r.md",
        *extra,
        timeout=180,
    )
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr
    return run, out


@pytest.fixture(scope="module")
def demo_reports(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path]:
    """One demo run for the session (`made_once`), its output kept beside its reports."""

    def make(directory: Path) -> None:
        run, _ = _demo(directory)
        (directory / "stdout.txt").write_text(run.stdout)
        (directory / "stderr.txt").write_text(run.stderr)

    directory = made_once(tmp_path_factory, "demo-reports", make)
    stdout, stderr = ((directory / name).read_text() for name in ("stdout.txt", "stderr.txt"))
    return subprocess.CompletedProcess([], 1, stdout, stderr), directory / "out-42"


@pytest.mark.slow
def test_the_demo_is_six_problems_not_twenty_findings(demo_reports: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    run, out = demo_reports
    document = json.loads((out / "r.json").read_text())
    assert len(document["findings"]) == 20 and document["exitCode"] == 1
    problems = document["problems"]
    assert len(problems) == 6
    by_rule = {problem["rule"]: problem for problem in problems}
    assert by_rule["unknown-tool"]["tools"] == DEMO_TOOLS and by_rule["unknown-tool"]["answer"] == "JSON-RPC error -32602"
    assert by_rule["malformed-request"]["tools"] == DEMO_TOOLS
    assert sorted(index for problem in problems for index in problem["findings"]) == list(range(20))
    for problem in problems:
        assert {document["findings"][index]["rule"] for index in problem["findings"]} == {problem["rule"]}
    assert "Problems: 6 problems (20 findings on 8 tools)" in run.stdout
    assert "6 problems (20 findings on 8 tools: 17 MUST, 2 SHOULD, 1 advisory)" in run.stdout
    assert run.stdout.count("mcp-toolfuzz replay ") == 20, "every finding keeps its reproduction"


def test_junit_is_valid_against_the_jenkins_schema_and_reads_in_junitparser(
    demo_reports: tuple[subprocess.CompletedProcess[str], Path],
) -> None:
    _, out = demo_reports
    xmlschema.XMLSchema(SCHEMAS / "JUnit.xsd").validate(out / "r.xml")
    document = json.loads((out / "r.json").read_text())
    xml = junitparser.JUnitXml.fromfile(str(out / "r.xml"))
    suites = {suite.name: suite for suite in xml}
    assert set(suites) == {"mcp-toolfuzz.(envelope)", *(f"mcp-toolfuzz.{tool}" for tool in DEMO_TOOLS), "mcp-toolfuzz.(sequences)"}
    failed: set[tuple[str, str]] = set()
    skipped: dict[tuple[str, str], str] = {}
    for name, suite in suites.items():
        for case in suite:
            for outcome in case.result:
                if isinstance(outcome, junitparser.Failure):
                    failed.add((name.removeprefix("mcp-toolfuzz."), case.name))
                    assert "request: {" in outcome.text and "mcp-toolfuzz replay " in outcome.text, outcome.text
                    assert outcome.type == case.name and outcome.message.startswith(case.name)
                elif isinstance(outcome, junitparser.Skipped):
                    skipped[(name.removeprefix("mcp-toolfuzz."), case.name)] = outcome.message
    assert failed == {("(sequences)" if finding["case"] == "sequence" else finding["tool"], finding["rule"]) for finding in document["findings"]}
    assert skipped[("reset", "valid-arguments cases")].startswith("the tool may be destructive")
    assert suites["mcp-toolfuzz.add"].failures == 2 and suites["mcp-toolfuzz.add"].tests >= 10


@pytest.mark.slow
def test_sarif_is_valid_and_its_fingerprints_do_not_change_from_night_to_night(
    demo_reports: tuple[subprocess.CompletedProcess[str], Path],
    tmp_path: Path,
) -> None:
    _, out = demo_reports
    schema = json.loads((SCHEMAS / "sarif-schema-2.1.0.json").read_text())
    log = json.loads((out / "r.sarif").read_text())
    jsonschema.validators.validator_for(schema)(schema).validate(log)
    (run,) = log["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert [rule["id"] for rule in rules][:3] == ["unknown-tool", "invalid-arguments", "arguments-not-validated"]
    assert all(rule["help"]["text"] and rule["defaultConfiguration"]["level"] in ("error", "warning", "note") for rule in rules)
    results = run["results"]
    assert len(results) == 6
    for result in results:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        assert {location["kind"] for location in result["locations"][0]["logicalLocations"]} == {"tool"}
    _, other_night = _demo(tmp_path, seed=7)
    later = json.loads((other_night / "r.sarif").read_text())["runs"][0]["results"]
    fingerprints = sorted(result["partialFingerprints"]["mcpToolfuzzProblem/v1"] for result in results)
    assert sorted(result["partialFingerprints"]["mcpToolfuzzProblem/v1"] for result in later) == fingerprints


@pytest.mark.slow
def test_sarif_points_at_the_servers_entry_point(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = tmp_path / "server.py"
    server.write_text((SERVERS / "lax_server.py").read_text())
    run = mcp_toolfuzz(
        "run",
        "--no-corpus",
        "--max-examples",
        "50",
        "--phases",
        "boundary,random",
        "--report",
        "sarif:r.sarif",
        "--",
        sys.executable,
        "server.py",
        timeout=120,
        cwd=tmp_path,
    )
    assert run.returncode == 1, run.stdout + run.stderr
    (result, *_) = json.loads((tmp_path / "r.sarif").read_text())["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": "server.py", "uriBaseId": "%SRCROOT%"}


def test_markdown_has_the_verdict_the_table_and_each_problem_with_its_request(
    demo_reports: tuple[subprocess.CompletedProcess[str], Path],
) -> None:
    _, out = demo_reports
    text = (out / "r.md").read_text()
    assert text.startswith("# mcp-toolfuzz: 6 problems (20 findings on 8 tools)\n")
    assert "**The run fails** (exit 1; fails on should and above)" in text
    assert "| tool | `unknown-tool` |" in text and "| `add` | ❌ |" in text
    assert len(re.findall(r"^## \d+\. ", text, re.MULTILINE)) == 6
    assert text.count('```json\n{\n  "jsonrpc": "2.0"') >= 12, "each problem's request and answer, fenced"
    assert text.count("mcp-toolfuzz replay ") == 20


def test_a_fence_is_longer_than_any_backtick_run_inside() -> None:
    fenced = _fenced({"text": "``` and ````"})
    assert fenced.startswith("`````json\n") and fenced.endswith("\n`````")


def test_junit_carries_no_character_xml_cannot(tmp_path: Path) -> None:
    result = fuzz(python_server("lax_server.py"), seed=1, max_examples=50, timeout=5)
    (finding, *_) = result.findings
    odd = replace(finding, stderr=("NUL \0 and ESC \x1b and a lone surrogate \ud800",))
    summaries = tuple(replace(summary, findings=(odd,)) if summary.findings else summary for summary in result.tools)
    rendered = _junit.render(replace(result, tools=summaries))
    tree = ElementTree.fromstring(rendered.encode())
    failure = next(tree.iter("failure"))
    assert "NUL \\x00 and ESC \\x1b" in failure.text and "\\ud800" in failure.text
    assert _markdown.render(replace(result, tools=summaries)).count("## 1.") == 1
    assert len(group(result.findings)) == len(result.findings) >= 1


@pytest.mark.slow
@pytest.mark.parametrize("request_text", ["xml:r.xml", "junit", "sarif:"])
def test_a_report_format_that_does_not_exist_is_one_line_and_exit_2(request_text: str) -> None:
    run = mcp_toolfuzz("run", "--report", request_text, timeout=60)
    assert run.returncode == 2 and "json, junit, sarif, markdown" in run.stderr and "Traceback" not in run.stderr


def test_the_json_report_has_each_tools_schema_coverage(demo_reports: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    _, out = demo_reports
    assert all(isinstance(tool["schemaCoverage"], list) for tool in json.loads((out / "r.json").read_text())["tools"])
    tools = _json_report.as_json(made_result())["tools"]
    assert tools[0]["schemaCoverage"] == [entry.as_json() for entry in ADD_COVERAGE]
    assert tools[0]["schemaCoverage"][1] == {
        "schema": "input",
        "path": "arguments.title",
        "schemaPath": "/properties/title",
        "keyword": "maxLength",
        "valid": {"sent": 2, "answers": {"success": 2}},
        "invalid": {"sent": 0, "answers": {}},
    }
    assert tools[1]["schemaCoverage"][0]["path"] == f"arguments.{HOSTILE_PROPERTY}", "the JSON report keeps the exact value"


def _tool_lines(summary_coverage: tuple[object, ...], tool: str = "add") -> list[str]:
    stream = io.StringIO()
    summary = replace(made_result().tools[0], tool=tool, schema_coverage=summary_coverage)  # type: ignore[arg-type]
    TerminalReporter(stream, progress=False)(ToolFinished(summary))
    return stream.getvalue().splitlines()


def test_the_terminal_counts_the_keywords_reached_and_names_a_few_that_were_not() -> None:
    (_, line) = _tool_lines(ADD_COVERAGE)
    assert line == (
        "    keywords: 2 of 5 reached on every side (not reached: arguments.title maxLength invalid, "
        "arguments.tags maxItems valid, arguments.mode default valid)"
    )
    many = tuple(keyword(f"arguments.p{n}", "minimum", side(0), side(0)) for n in range(9))
    (_, line) = _tool_lines((*ADD_COVERAGE[2:], *many))
    assert line == (
        "    keywords: 1 of 12 reached on every side (not reached: arguments.tags maxItems valid, arguments.mode default valid, "
        "arguments.p0 minimum valid/invalid and 8 more)"
    )
    (_, line) = _tool_lines((ADD_COVERAGE[0], ADD_COVERAGE[2]))
    assert line == "    keywords: 2 of 2 reached on every side"
    assert len(_tool_lines(())) == 1, "no line for a tool with no keyword recorded"


def test_the_terminal_line_escapes_the_property_names() -> None:
    hostile = keyword("arguments.q\n::error title=x::boom\x1b[2J", "maxLength", side(0), side(1), SchemaRole.OUTPUT)
    (_, line) = _tool_lines((hostile,), tool=HOSTILE_TOOL)
    assert line == "    keywords: 0 of 1 reached on every side (not reached: arguments.q\\n::error title=x::boom\\x1b[2J maxLength valid)"


def test_markdown_has_a_schema_coverage_table_per_tool_the_unreached_first() -> None:
    text = _markdown.render(made_result())
    section = text.split("\n## Schema coverage\n", 1)[1]
    assert (
        "\n`add`: keywords 2 of 5 reached on every side\n\n| place | keyword | valid sent | invalid sent | answers |\n|---|---|---|---|---|\n"
        "| `arguments.title` | `maxLength` | 2 | ⚠ 0 | valid: success 2 |\n"
    ) in section
    rows = [line for line in section.splitlines() if line.startswith("| `arguments")]
    assert [row.split(" | ")[0] for row in rows] == [
        "| `arguments.title`",
        "| `arguments.tags`",
        "| `arguments.mode`",
        "| `arguments.a`",
        "| `arguments`",
        f"| `arguments.{HOSTILE_PROPERTY}`",
    ]
    assert "| `arguments` | `additionalProperties` | – | 4 | invalid: tool-error 3, success 1 |" in rows
    assert "| `arguments.mode` | `default` | ⚠ 0 | – | – |" in rows
    rendered = html5lib.parse(MarkdownIt("commonmark").enable("table").render(text), treebuilder="etree", namespaceHTMLElements=False)
    assert not [element.tag for element in rendered.iter() if element.tag in ("script", "img", "b")]
    cells = {"".join(cell.itertext()) for cell in rendered.iter("td")}
    assert {f"arguments.{HOSTILE_PROPERTY}", "arguments.title"} <= cells
    assert "## Schema coverage" not in _markdown.render(replace(made_result(), tools=()))


def test_the_demo_reports_schema_coverage_in_every_format(tmp_path: Path) -> None:
    """A run of the demo records, for every tool that got argument or output cases, the keywords of
    its schemas; JSON, the terminal, Markdown and HTML report them."""
    reports = [f"{kind}:{tmp_path / ('r.' + kind)}" for kind in ("json", "markdown", "html")]
    run = mcp_toolfuzz(
        "run", "--seed", "3", "--max-examples", "5", "--no-corpus", *(argument for report in reports for argument in ("--report", report)), timeout=180
    )
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr
    tools = json.loads((tmp_path / "r.json").read_text())["tools"]
    argued = {"valid-arguments", "invalid-arguments", "valid-output", "invalid-output"}
    for tool in tools:
        assert tool["schemaCoverage"] or not argued & set(tool["casesSent"]), f"{tool['name']}: no schema coverage"
        for entry in tool["schemaCoverage"]:
            assert entry["schema"] in ("input", "output") and entry["path"] and entry["keyword"]
            assert entry["valid"] is not None or entry["invalid"] is not None
    covered = [tool["name"] for tool in tools if tool["schemaCoverage"]]
    assert {"add", "echo", "divide", "set_volume", "lookup", "mirror"} <= set(covered)
    assert run.stdout.count("\n    keywords: ") == len(covered)
    assert "\n## Schema coverage\n" in (tmp_path / "r.markdown").read_text()
    page = parsed((tmp_path / "r.html").read_text())
    assert len([table for table in page.iter("table") if table.get("class") == "coverage"]) == len(covered)
