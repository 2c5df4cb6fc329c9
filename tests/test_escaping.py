"""Every string a server sends is data, never markup: a hostile server's name, tool names, error
messages and stderr reach the terminal, the CI log and each report escaped (the JSON report
keeps them exact; in the HTML report they are text nodes), and a server with many tools reads as a
few lines, not a wall."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import html5lib
import jsonschema
import junitparser
import pytest
import xmlschema
from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml

from fuzz.judging.findings import RunResult, ToolSummary
from fuzz.reports._markdown import code, prose
from fuzz.reports.problems import hints
from fuzz.text import json_text, listing, printable, safe_line
from strategies import CaseKind
from tests import conftest
from tests.conftest import SERVERS
from tests.servers import hostile_text_server as hostile

SCHEMAS = Path(__file__).parent / "report_schemas"
SERVER = [sys.executable, str(SERVERS / "hostile_text_server.py")]
RAW = re.compile("[\x1b\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
"""What must never reach a person raw: ESC, DEL, C1 controls, line separators, bidi controls."""
COMMAND = re.compile(r"^\s*::|##(vso)?\[", re.IGNORECASE | re.MULTILINE)
"""A CI workflow command: `::name::` starting a line (GitHub), `##[name]` (GitHub, anywhere in a
line) or `##vso[` (Azure Pipelines, anywhere)."""


def mcp_toolfuzz(*arguments: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return conftest.mcp_toolfuzz(*arguments, timeout=timeout, cwd=cwd, errors="surrogateescape")


def assert_inert(text: str, where: str) -> None:
    """`text` holds no raw control character and no CI workflow command."""
    raw = RAW.search(text)
    assert raw is None, f"{where}: raw {raw.group()!r} at {raw.start()}: {text[max(0, raw.start() - 80) : raw.start() + 80]!r}"
    command = COMMAND.search(text)
    assert command is None, f"{where}: a workflow command: {text[max(0, command.start() - 80) : command.start() + 80]!r}"


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path]:
    out = tmp_path_factory.mktemp("hostile")
    run = mcp_toolfuzz(
        "run",
        "--seed",
        "3",
        "--max-examples",
        "10",
        "--corpus",
        "corpus",
        "--report",
        "markdown:r.md",
        "--report",
        "junit:r.xml",
        "--report",
        "sarif:r.sarif",
        "--report",
        "json:r.json",
        "--report",
        "html:r.html",
        "--",
        *SERVER,
        cwd=out,
    )
    assert run.returncode == 1, run.stdout[-3000:] + run.stderr
    return run, out


@pytest.mark.slow
def test_a_hostile_server_reaches_the_terminal_and_the_ci_log_escaped(hostile_run: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    run, _ = hostile_run
    assert_inert(run.stdout, "stdout")
    assert run.stderr == "", "no warning, no traceback, nothing of the server's on stderr"
    assert "server  hostile\\x1b]0;pwned-title\\x07\\n::error title=name::from-serverInfo, protocol" in run.stdout
    assert "probe\\n::error title=x::boom" in run.stdout, "a line break in a name is shown as \\n, on the same line"
    assert "audit\\n##\\x5berror]x" in run.stdout
    assert "   stderr:   \\x3a:error title=stderr::from-stderr" in run.stdout
    assert "   stderr:   \\x9b31mc1 \\x85 next line \\u2028 separator \\x1b]8;;https://evil.example/" in run.stdout
    assert '"message": "Unknown tool: \\u001b[2J' in run.stdout, "answers are shown as JSON, escapes and all"


def test_replay_prints_what_the_server_says_escaped(hostile_run: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    _, out = hostile_run
    replayed = mcp_toolfuzz("replay", "corpus", cwd=out)
    assert replayed.returncode == 1 and "STILL FAILING" in replayed.stdout, replayed.stdout[-2000:] + replayed.stderr
    assert_inert(replayed.stdout + replayed.stderr, "replay")


@pytest.mark.slow
def test_a_harness_error_quoting_the_server_is_one_escaped_line(tmp_path: Path) -> None:
    run = mcp_toolfuzz("run", "--no-corpus", "--", *SERVER, "--refuse-initialize", cwd=tmp_path)
    assert run.returncode == 2 and run.stdout == ""
    assert len(run.stderr.splitlines()) == 1 and run.stderr.startswith("mcp-toolfuzz: "), run.stderr
    assert_inert(run.stderr, "stderr")


def test_the_markdown_report_renders_the_servers_text_as_text(hostile_run: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    _, out = hostile_run
    text = (out / "r.md").read_text(encoding="utf-8")
    assert_inert(text, "r.md")
    html = MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(text)
    assert "<a " not in html and "<b>" not in html and "<img" not in html, "no link, no HTML of the server's"
    headings = re.findall(r"<h(\d)>(.*?)</h\1>", html)
    assert headings[0][0] == "1" and all(
        level == "2" and re.match(r"\d+\. <code>|Schema coverage$|Nights$|Tool list$", body) for level, body in headings[1:]
    ), headings
    cells = re.findall(r"<td>(.*?)</td>", html)
    assert "<code>[click](https://evil.example/) &lt;b&gt;bold&lt;/b&gt; | `tick` # head</code>" in cells, "a | stays in its cell"
    assert "<code>probe\\n::error title=x::boom</code>" in cells
    assert re.search(r"Sent: .*?\. Problem: answered with JSON-RPC error -3260[23] &quot;", html), "the prose quoting the server is text"


def test_the_markdown_report_links_nothing_even_where_links_are_guessed(hostile_run: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    """GitHub links `www.` and `https://` text, and markdown-it's linkify bare domains too."""
    _, out = hostile_run
    assert "<a " not in MarkdownIt("gfm-like").render((out / "r.md").read_text(encoding="utf-8"))


def test_junit_and_sarif_stay_valid_and_carry_the_text_escaped(hostile_run: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    _, out = hostile_run
    xmlschema.XMLSchema(SCHEMAS / "JUnit.xsd").validate(out / "r.xml")
    suites = {suite.name for suite in junitparser.JUnitXml.fromfile(str(out / "r.xml"))}
    assert "mcp-toolfuzz.probe\\n::error title=x::boom" in suites
    assert_inert((out / "r.xml").read_text(encoding="utf-8"), "r.xml")
    schema = json.loads((SCHEMAS / "sarif-schema-2.1.0.json").read_text())
    log = json.loads((out / "r.sarif").read_text(encoding="utf-8"))
    jsonschema.validators.validator_for(schema)(schema).validate(log)
    messages = "\n".join(result["message"]["text"] for result in log["runs"][0]["results"])
    assert_inert(messages, "SARIF messages")
    assert "probe\\n::error title=x::boom" in messages


def test_the_html_report_shows_the_servers_text_as_text(hostile_run: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    """Read by a real HTML parser, strictly: no element of the server's making, and each of its
    strings is the text of an element, printable (control characters shown as escapes)."""
    _, out = hostile_run
    text = (out / "r.html").read_text(encoding="utf-8")
    assert_inert(text, "r.html")
    parser = html5lib.HTMLParser(tree=html5lib.getTreeBuilder("etree"), namespaceHTMLElements=False, strict=True)
    page = parser.parse(text)
    assert not [element.tag for element in page.iter() if element.tag in ("script", "img", "b", "iframe")], "no element of the server's"
    assert all(element.get("href", "").startswith("#") for element in page.iter("a")), "no link out of the page"
    codes = {"".join(code.itertext()) for code in page.iter("code")}
    assert {printable(name) for name in hostile.HOSTILE_TOOLS} <= codes
    assert hostile.MARKDOWN_TOOL in codes, "markup in a tool name is its text"
    assert any(printable(hostile.ARGUMENT) in "".join(pre.itertext()) for pre in page.iter("pre")), "the argument, in the requests"
    places = {"".join(row[0].itertext()) for table in page.iter("table") if table.get("class") == "coverage" for row in table.iter("tr")}
    assert all(printable(hostile.ARGUMENT) in place for place in places - {"place", "arguments"}), places
    assert f"{printable(hostile.SERVER_INFO['name'])} {printable(hostile.SERVER_INFO['version'])}" in {"".join(dd.itertext()) for dd in page.iter("dd")}


def test_the_json_report_keeps_the_exact_values(hostile_run: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    _, out = hostile_run
    document = json.loads((out / "r.json").read_text(encoding="utf-8"))
    assert document["serverInfo"] == hostile.SERVER_INFO
    assert {tool["name"] for tool in document["tools"]} >= set(hostile.HOSTILE_TOOLS)
    assert any(finding["tool"] == hostile.GITHUB_ERROR_TOOL and hostile.STDERR_LINES[0] in finding["stderr"] for finding in document["findings"])


@pytest.mark.slow
def test_many_tools_with_one_behaviour_read_as_one_line(tmp_path: Path) -> None:
    run = mcp_toolfuzz("run", "--no-corpus", "--seed", "1", "--max-examples", "1", "--rules", "unknown-tool", "--", *SERVER, "--many", "79", cwd=tmp_path)
    assert run.returncode == 1, run.stdout[-2000:] + run.stderr
    assert_inert(run.stdout, "stdout")
    (problem,) = [line for line in run.stdout.splitlines() if line.startswith("1. unknown-tool")]
    assert " · 84 tools: probe\\n::error title=x::boom, audit\\n##\\x5berror]x, paint" in problem
    assert problem.endswith(" and 81 more · unknown-tool case") and len(problem) < 300, problem
    assert "Answers (cases judged, shrinking included, over 84 tools" in run.stdout, "84 tools; no envelope: --rules unknown-tool judges none of its cases"
    assert "get_item_78" not in run.stdout.split("Answers (")[1].split("Summary")[0], "answers counted per case kind"


def _summary(tool: str, refused: dict[str, int]) -> ToolSummary:
    return ToolSummary(tool, {CaseKind.VALID_ARGUMENTS: 10}, (), answers={CaseKind.VALID_ARGUMENTS: {"tool-error": 10}}, refused_fields=refused)


def test_a_hint_shared_by_many_tools_is_one_line() -> None:
    tools = (*tuple(_summary(f"get_{n}", {"api_key": 10}) for n in range(30)), _summary("\x1b[2Jodd", {}))
    result = RunResult(1, {}, "server", "2025-11-25", {}, {}, tools, 1.0)
    assert hints(result) == [
        "no valid call to 30 tools succeeded (get_0, get_1, get_2 and 27 more); the refusals named 'api_key': "
        "give a value they accept with --argument '*.api_key=VALUE'",
        "no valid call to \\x1b[2Jodd succeeded (10 of 10 refused): give known-good values with --argument \\x1b[2Jodd.FIELD=VALUE",
    ]
    assert hints(replace(result, tools=tools[:1]))[0].startswith("no valid call to get_0 succeeded (10 of 10 refused); the refusals")


@pytest.mark.parametrize(
    ("sent", "shown"),
    [
        ("\x1b]0;title\x07", "\\x1b]0;title\\x07"),
        ("\x9b2J\x85\x7f", "\\x9b2J\\x85\\x7f"),
        ("a\nb\rc\td", "a\\nb\\rc\\td"),
        ("x\u2028::y\u2029", "x\\u2028::y\\u2029"),
        ("\u202eevil\u2066\u200f", "\\u202eevil\\u2066\\u200f"),
        ("hidden\U000e0041\ufeff\ud800", "hidden\\U000e0041\\ufeff\\ud800"),
        ("::error::x", "\\x3a:error::x"),
        ("  \u00a0::add-mask::x", "  \u00a0\\x3a:add-mask::x"),
        ("a::b", "a::b"),
        ("x ##[error]y ##VSO[task]z ###[", "x ##\\x5berror]y ##VSO\\x5btask]z ###\\x5b"),
        ("naïve 日本 👩\u200d👩\u200d👧", "naïve 日本 👩\u200d👩\u200d👧"),
    ],
)
def test_printable_escapes_what_acts_and_keeps_what_reads(sent: str, shown: str) -> None:
    assert printable(sent) == shown


def test_json_text_reads_back_the_same_value_and_is_inert() -> None:
    value = {"message": "\x1b[2J\x9b\u2028##[error]x\n::error::y\ud800\U000e0041", "list": ["::z", 1]}
    for indent in (None, 2):
        text = json_text(value, indent)
        assert json.loads(text) == value
        assert RAW.search(text) is None and "##[" not in text


def test_a_line_made_of_pieces_cannot_start_a_command_and_lists_are_cut() -> None:
    assert safe_line("  ::x::y") == "  \\x3a:x::y" and safe_line("ok ::x::") == "ok ::x::"
    assert listing(["a", "b", "c", "d"]) == "a, b, c, d"
    assert listing([f"t{n}" for n in range(79)]) == "t0, t1, t2 and 76 more"


@pytest.mark.parametrize(
    "text",
    [
        "``x`` `y`",
        "`start",
        "trailing ",
        "[a](https://x.example/) <b>b</b> *c* _d_ &amp; \\* ~~e~~ $f$ ![g](h) a@b.example",
    ],
)
def test_markdown_spans_and_prose_render_as_the_text(text: str) -> None:
    md = MarkdownIt("commonmark").enable("strikethrough")
    assert md.renderInline(code(text)) == f"<code>{escapeHtml(text)}</code>"
    assert md.renderInline(prose(text)) == escapeHtml(text)


def test_hypothesis_warnings_stay_off_the_terminal_in_threads_and_forked_processes(tmp_path: Path) -> None:
    """Hypothesis warns about a repr over 30 kB (a long server schema made one of 61 kB); the
    CLI runs with Hypothesis's warnings silenced, in its worker threads and forked processes,
    and every other warning as it was."""
    script = tmp_path / "warn.py"
    script.write_text(
        textwrap.dedent("""
        import os, threading, warnings
        from hypothesis.internal.reflection import repr_call
        from fuzz.faces.console import library_warnings_silenced

        def takes(value):
            return value

        def large_repr():
            repr_call(takes, ("x" * 40_000,), {})

        with library_warnings_silenced():
            thread = threading.Thread(target=large_repr)
            thread.start()
            thread.join()
            child = os.fork()
            if child == 0:
                large_repr()
                os._exit(0)
            os.waitpid(child, 0)
            warnings.warn("the harness's own warning", UserWarning)
        large_repr()
    """)
    )
    root = Path(__file__).parent.parent
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(root)})
    assert run.returncode == 0, run.stderr
    assert "the harness's own warning" in run.stderr
    assert run.stderr.count("Generating overly large repr") == 1, "only the one outside the block: " + run.stderr
