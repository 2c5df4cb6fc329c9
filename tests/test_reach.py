"""Reach past the first refusal (issue 12): invalid arguments mutate what the server accepted,
known-good values from the user, documented examples, and a report that says which rules were
never exercised, and why."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, find, given, settings

from fuzz.judging.coverage import exercise_by_tool
from strategies import Tool, invalid_arguments, valid_arguments
from strategies.schemas import SchemaCheck
from strategies.values import valid_values
from tests.conftest import SERVERS, fuzz, mcp_toolfuzz, python_server

LAX = python_server("lax_server.py")
LAX_COMMAND = (sys.executable, str(SERVERS / "lax_server.py"))
_FIND = settings(max_examples=2000, database=None, suppress_health_check=list(HealthCheck))


def _run(*arguments: str) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    run = mcp_toolfuzz(
        "run", "--no-corpus", "--max-examples", "50", "--phases", "boundary,random", "--report", "json:report.json", *arguments, "--", *LAX_COMMAND, timeout=180
    )
    assert "Traceback" not in run.stderr, run.stderr
    return run, json.loads(Path("report.json").read_text())


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_coerced_integer_is_found_one_mutation_from_accepted_arguments(seed: int) -> None:
    """`toggle` refuses most valid values of its wide `enabled` field (any string but "true" and
    "false"), so mutants of fresh values are refused for that field; mutants of accepted ones
    reach `count`, which takes a digit string."""
    result = fuzz(LAX, seed=seed, max_examples=50, timeout=5)
    findings = [f for f in result.findings if f.rule.id == "arguments-not-validated" and f.tool == "toggle"]
    assert findings, [(f.rule.id, f.tool, f.label) for f in result.findings]
    (finding,) = findings
    arguments = finding.request["params"]["arguments"]
    assert set(arguments) == {"enabled", "count"} and arguments["count"] == "0", arguments
    assert arguments["enabled"] in (True, False, "true", "false"), "the base is one the server accepted"
    assert finding.label.startswith("arguments.count: wrong type") and "in arguments the server accepted" in finding.label
    assert not [f for f in result.findings if f.tool == "read_lines"], "read_lines cannot be reached without its root"


@pytest.mark.slow
def test_without_the_known_value_the_rules_it_needs_are_reported_not_exercised() -> None:
    run, document = _run("--seed", "4")
    read_lines = next(tool for tool in document["tools"] if tool["name"] == "read_lines")
    assert set(read_lines["answers"]["valid-arguments"]) == {"tool-error"}, read_lines["answers"]
    assert read_lines["rules"]["arguments-not-validated"]["exercised"] is False
    assert "no valid call succeeded" in read_lines["rules"]["arguments-not-validated"]["reason"]
    assert read_lines["rules"]["output-schema"]["exercised"] is False
    assert read_lines["rules"]["invalid-arguments"]["exercised"] is True
    assert "'root'" in read_lines["hint"] and "--argument read_lines.root=VALUE" in read_lines["hint"]
    assert document["coverage"]["output-schema"]["exercised"] is False
    assert "read_lines: no valid call succeeded" in document["coverage"]["output-schema"]["reason"]
    assert "not exercised: output-schema, because read_lines: no valid call succeeded" in run.stdout
    assert "hint: no valid call to read_lines succeeded" in run.stdout
    assert "read_lines" in run.stdout and "(valid calls: 0 of" in run.stdout
    assert re.search(r"\n  read_lines +valid-arguments (\d+): \1 tool-error · invalid-arguments", run.stdout), run.stdout
    summary = run.stdout[run.stdout.index("\nSummary") :]
    read_lines_row = next(line for line in summary.splitlines() if line.strip().startswith("read_lines"))
    assert read_lines_row.split()[1:] == ["-"], "arguments-not-validated is not exercised on read_lines, not clean"


@pytest.mark.slow
def test_with_the_known_value_the_lax_tool_is_reached_and_caught() -> None:
    run, document = _run("--seed", "4", "--argument", "read_lines.root=/srv/data")
    assert run.returncode == 1, run.stdout
    caught = [f for f in document["findings"] if f["tool"] == "read_lines"]
    assert [f["rule"] for f in caught] == ["arguments-not-validated"], caught
    arguments = caught[0]["request"]["params"]["arguments"]
    # The boundary phase's wrong type (false) or the coercion probe's "0": either way not an integer, and accepted.
    assert arguments["root"] == "/srv/data" and arguments["first"] in (False, "0"), arguments
    read_lines = next(tool for tool in document["tools"] if tool["name"] == "read_lines")
    assert read_lines["answers"]["valid-arguments"].get("success", 0) > 0
    assert read_lines["rules"]["output-schema"]["exercised"] is True and read_lines["hint"] is None
    assert document["options"]["arguments"] == [{"field": "read_lines.root", "value": "/srv/data"}]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("argument", "expected"),
    [
        ("nothing.root=/srv", "no listed tool is named 'nothing' (listed: read_lines, toggle)"),
        ("read_lines.depth=3", "tool 'read_lines' declares no field 'depth' (its fields: first, root)"),
        ("read_lines.first=many", "the inputSchema of tool 'read_lines' rejects this value for 'first'"),
        ("*.colour=1", "no listed tool declares a field 'colour'"),
        ("read_lines", "is not TOOL.FIELD=VALUE"),
    ],
)
def test_a_known_value_that_cannot_be_used_is_one_line_and_exit_2(argument: str, expected: str) -> None:
    run = mcp_toolfuzz("run", "--no-corpus", "--argument", argument, "--", *LAX_COMMAND, timeout=60)
    assert run.returncode == 2, run.stdout + run.stderr
    assert expected in run.stderr and "Traceback" not in run.stderr
    assert len([line for line in run.stderr.splitlines() if line.startswith(("mcp-toolfuzz", "usage"))]) >= 1


_READ_LINES = Tool.from_listing(
    {
        "name": "read_lines",
        "inputSchema": {
            "type": "object",
            "properties": {"root": {"type": "string"}, "first": {"type": "integer"}},
            "required": ["root", "first"],
            "additionalProperties": False,
        },
    }
)
_KNOWN = {"root": ("/srv/data", "/srv/logs")}


@settings(max_examples=50, database=None, suppress_health_check=list(HealthCheck))
@given(valid_arguments(_READ_LINES, known=_KNOWN))
def test_every_valid_object_holds_a_known_value(drawn: Any) -> None:
    assert drawn.value["root"] in _KNOWN["root"]


def test_a_mutation_of_a_known_value_says_so_and_others_keep_it() -> None:
    on_known = find(invalid_arguments(_READ_LINES, known=_KNOWN), lambda d: d.label.startswith("arguments.root:"), settings=_FIND)
    assert "(the field of a known-good value)" in on_known.label
    elsewhere = find(invalid_arguments(_READ_LINES, known=_KNOWN), lambda d: d.label.startswith("arguments.first:"), settings=_FIND)
    assert elsewhere.value["root"] in _KNOWN["root"]


def test_invalid_arguments_are_mostly_mutants_of_accepted_ones() -> None:
    accepted = [{"root": "/srv/data", "first": 7}]
    labels: list[str] = []

    @settings(max_examples=200, database=None, suppress_health_check=list(HealthCheck))
    @given(invalid_arguments(_READ_LINES, accepted=accepted))
    def draw(drawn: Any) -> None:
        labels.append(drawn.label)

    draw()
    on_accepted = sum("in arguments the server accepted" in label for label in labels)
    assert len(labels) / 3 <= on_accepted < len(labels), (on_accepted, len(labels))


def test_documented_examples_and_defaults_are_drawn_when_the_schema_accepts_them() -> None:
    check = SchemaCheck.for_schema({"type": "string", "minLength": 3, "examples": ["ab", "repo-42"], "default": "main"})
    assert find(valid_values(check), lambda value: value == "repo-42", settings=_FIND) == "repo-42"
    assert find(valid_values(check), lambda value: value == "main", settings=_FIND) == "main"
    never = settings(max_examples=300, database=None, suppress_health_check=list(HealthCheck))

    @never
    @given(valid_values(check))
    def rejected_example_is_never_drawn(value: str) -> None:
        assert value != "ab"

    rejected_example_is_never_drawn()


@pytest.mark.slow
def test_the_demo_exercises_every_rule() -> None:
    run = mcp_toolfuzz("run", "--no-corpus", "--seed", "3", "--max-examples", "25", "--phases", "boundary,random", "--report", "json:report.json", timeout=180)
    document = json.loads(Path("report.json").read_text())
    assert {rule: value for rule, value in document["coverage"].items() if not value["exercised"]} == {}, run.stdout
    assert "  not exercised: " not in run.stdout


def test_exercise_is_judged_per_tool_from_its_answers() -> None:
    result = fuzz(LAX, seed=5, max_examples=20, timeout=5)
    by_tool = exercise_by_tool(result)
    assert by_tool["toggle"]["arguments-not-validated"].exercised
    assert not by_tool["read_lines"]["arguments-not-validated"].exercised
    assert "unknown-tool" not in by_tool[""], "the envelope gets no unknown-tool cases: the rule is not for it"
