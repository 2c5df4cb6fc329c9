"""The boundary phase: each schema keyword at its edges, deterministic, checked like every label,
and finding what sits there (tests/servers/boundary_server.py) with the random search off."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fuzz.engine.context import RunContext
from fuzz.engine.jobs import Job
from fuzz.engine.options import RunOptions
from fuzz.engine.phases._batches import batch_size
from fuzz.engine.phases._random_search import Exploration
from fuzz.engine.phases.deterministic import CanonicalVerdicts
from fuzz.engine.plan import Selection, ToolPlan, Unit
from fuzz.judging import oracle
from fuzz.wire.target import StdioTarget
from strategies import CaseKind
from strategies.boundaries import Side, boundary_values, keyword_sites, reached
from strategies.schemas import SchemaCheck
from tests.conftest import fuzz, mcp_toolfuzz

SERVERS = Path(__file__).parent / "servers"
BOUNDARY_SERVER = [sys.executable, str(SERVERS / "boundary_server.py")]

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "title": {"type": "string", "minLength": 1, "maxLength": 80},
        "tags": {"type": "array", "items": {"type": "string", "maxLength": 5}, "maxItems": 6, "uniqueItems": True},
        "priority": {"type": "integer", "minimum": 1, "maximum": 5},
        "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
        "step": {"type": "integer", "multipleOf": 5, "maximum": 42},
        "color": {"enum": ["red", "green", "blue"]},
        "mode": {"const": "fast"},
        "either": {"anyOf": [{"type": "string", "maxLength": 3}, {"type": "integer", "minimum": 10}]},
        "address": {
            "type": "object",
            "properties": {"zip": {"type": "string", "maxLength": 5}, "city": {"type": "string"}},
            "required": ["zip"],
            "additionalProperties": False,
        },
        "kind": {"type": ["string", "null"], "default": "a", "examples": ["b"]},
    },
    "required": ["title"],
    "additionalProperties": False,
}


def _run(*arguments: str, server: list[str] = BOUNDARY_SERVER, cwd: Path | None = None) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    report = (cwd or Path("/tmp")) / f"boundary-{abs(hash(arguments))}.json"
    run = mcp_toolfuzz("run", "--no-corpus", "--no-progress", "--report", f"json:{report}", *arguments, "--", *server, timeout=300, cwd=cwd)
    assert run.returncode in (0, 1), run.stdout + run.stderr
    return run, json.loads(report.read_text())


def _labels(side: Side) -> dict[str, Any]:
    boundaries = boundary_values(SchemaCheck.for_schema(SCHEMA), prefix="arguments")
    return {value.label: value.value for value in boundaries.of(side)}


def test_each_valid_boundary_value_is_accepted_and_sits_where_its_label_says() -> None:
    check = SchemaCheck.for_schema(SCHEMA)
    valid = _labels(Side.VALID)
    assert valid["boundary: arguments.title: maxLength 80: exactly 80 characters (valid)"]["title"] == "0" * 80
    assert valid["boundary: arguments.tags: maxItems 6: exactly 6 items (valid)"]["tags"].__len__() == 6
    assert valid["boundary: arguments.priority: maximum 5: the bound itself (valid)"] == {"title": "0", "priority": 5}
    assert valid["boundary: arguments.ratio: exclusiveMaximum 1: 0.9999999999999999, the nearest number inside (valid)"]["ratio"] < 1
    assert valid["boundary: arguments.step: multipleOf 5: 40, a multiple at the bound (valid)"]["step"] == 40
    assert {value["color"] for label, value in valid.items() if "arguments.color: enum" in label} == {"red", "green", "blue"}
    every = valid["boundary: arguments: properties: every optional property (valid)"]
    assert set(every) == set(SCHEMA["properties"])
    for value in valid.values():
        assert check.accepts_strictly(value), value


def test_each_invalid_boundary_value_is_rejected_for_its_keyword_alone_and_one_step_past() -> None:
    check = SchemaCheck.for_schema(SCHEMA)
    invalid = _labels(Side.INVALID)
    assert invalid["boundary: arguments.title: maxLength 80: exactly 81 characters (invalid)"] == {"title": "0" * 81}
    assert invalid["boundary: arguments.priority: maximum 5: 6, one past it (invalid)"] == {"title": "0", "priority": 6}
    assert invalid["boundary: arguments.ratio: exclusiveMaximum 1: the excluded bound itself (invalid)"] == {"title": "0", "ratio": 1}
    assert len(invalid["boundary: arguments.tags: maxItems 6: exactly 7 items (invalid)"]["tags"]) == 7
    assert "unexpected" in invalid["boundary: arguments: additionalProperties: one property too many ('unexpected') (invalid)"]
    assert invalid["boundary: arguments.address: required: without 'zip' (invalid)"]["address"] == {"city": ""}
    for label, value in invalid.items():
        errors = list(check.errors(value))
        keyword = label.split(": ")[2].split(" ")[0]
        assert errors and {error.validator for error in errors} == {keyword}, (label, [error.message for error in errors])
        assert isinstance(value, dict), "arguments stay an object"


def test_the_values_are_the_same_every_time() -> None:
    first = boundary_values(SchemaCheck.for_schema(SCHEMA), prefix="arguments")
    again = boundary_values(SchemaCheck.for_schema(json.loads(json.dumps(SCHEMA))), prefix="arguments")
    assert first.valid == again.valid and first.invalid == again.invalid


def test_every_boundary_value_reaches_the_side_of_the_keyword_its_label_names() -> None:
    """The boundary phase and the schema coverage agree: what the phase claims to send, the
    coverage (which reads only the value) counts."""
    check = SchemaCheck.for_schema(SCHEMA)
    sites = keyword_sites(SCHEMA)
    for side in Side:
        for value in boundary_values(check, prefix="arguments").of(side):
            if "one inside it" in value.label or "only the optional" in value.label:
                continue  # probes beside the edge: the valid side is the bound itself, every optional property
            found = reached(sites, check, value.value, valid=side is Side.VALID)
            hit = {(sites[index].path("arguments"), sites[index].keyword) for index, reached_side in found if reached_side is side}
            place, keyword = value.label.split(": ")[1], value.label.split(": ")[2].split(" ")[0]
            assert (place.replace("[0]", "[]"), keyword) in hit, (value.label, hit)


def test_the_bound_per_schema_keeps_the_first_candidates_of_every_keyword_and_says_what_it_left_out() -> None:
    schema = {"type": "object", "properties": {"code": {"enum": [f"c{n}" for n in range(50)]}, "n": {"type": "integer", "maximum": 3}}}
    bounded = boundary_values(SchemaCheck.for_schema(schema), prefix="arguments", limit=10)
    labels = [value.label for value in bounded.valid]
    assert len(labels) == 10 and any("maximum 3: the bound itself" in label for label in labels)
    assert {'enum value "c0"', 'enum value "c49"'} <= {label.split(": ")[3].removesuffix(" (valid)") for label in labels}, "first and last kept"
    assert bounded.left_out is not None and bounded.left_out[Side.VALID] > 0


@settings(max_examples=25, deadline=None)
@given(st.fixed_dictionaries({"a": st.integers(0, 3), "b": st.integers(0, 3)}))
def test_valid_values_reach_the_boundaries_they_sit_on_and_no_others(value: dict[str, int]) -> None:
    schema = {"type": "object", "properties": {"a": {"type": "integer", "minimum": 0, "maximum": 3}, "b": {"type": "integer", "maximum": 3}}}
    check = SchemaCheck.for_schema(schema)
    sites = keyword_sites(schema)
    hit = {(sites[index].path("arguments"), sites[index].keyword) for index, _ in reached(sites, check, value, valid=True)}
    expected = {("arguments.a", "minimum")} if value["a"] == 0 else set()
    expected |= {("arguments.a", "maximum")} if value["a"] == 3 else set()
    expected |= {("arguments.b", "maximum")} if value["b"] == 3 else set()
    assert {entry for entry in hit if entry[1] in ("minimum", "maximum")} == expected


def test_the_phase_alone_finds_every_bug_at_an_edge_with_the_edge_in_the_request(tmp_path: Path) -> None:
    _, document = _run("--phases", "boundary", "--max-examples", "20", "--seed", "1", cwd=tmp_path)
    found = {(finding["rule"], finding["tool"]): finding["request"]["params"]["arguments"] for finding in document["findings"]}
    assert len(found[("tool-failure", "note")]["title"]) == 80
    assert len(found[("tool-failure", "tag")]["tags"]) == 6
    assert found[("tool-failure", "pick")] == {"code": "c154"}
    assert set(found[("tool-failure", "profile")]) == {"name", "nickname", "age", "email", "bio"}
    assert found[("arguments-not-validated", "rate")] == {"priority": 6}
    assert found[("arguments-not-validated", "ratio")] == {"value": 1}
    assert document["options"]["phases"] == ["boundary"]
    assert all(sum(tool["casesSent"].values()) > 0 for tool in document["tools"])


@pytest.mark.parametrize("seed", ["1", "2"])
def test_the_phase_needs_no_seed_and_finds_nothing_on_the_fixed_server(seed: str, tmp_path: Path) -> None:
    _, document = _run("--phases", "boundary", "--seed", seed, cwd=tmp_path, server=[*BOUNDARY_SERVER, "--fixed"])
    assert document["findings"] == []
    assert sum(sum(tool["casesSent"].values()) for tool in document["tools"]) > 300


def test_the_same_boundary_findings_whatever_the_seed(tmp_path: Path) -> None:
    requests = []
    for seed in ("3", "4"):
        _, document = _run("--phases", "boundary", "--seed", seed, cwd=tmp_path)
        requests.append(sorted(json.dumps(finding["request"]["params"], sort_keys=True) for finding in document["findings"]))
    assert requests[0] == requests[1]


def test_phases_name_only_known_phases() -> None:
    run = mcp_toolfuzz("run", "--phases", "boundary,nope")
    assert run.returncode == 2
    assert "no phase named 'nope'; the phases are: boundary, random, sequence" in run.stderr


def test_a_rule_a_canonical_case_found_does_not_end_the_random_search() -> None:
    """The demo's `divide` fails at b = 0, the canonical case's value, which Hypothesis also draws
    at once: the search goes on for all its examples (looking for other rules), and shrinks
    nothing, where it stopped to shrink what the canonical case had already found, minimal
    (about a thousand cases sent: every shrinking try is a batch)."""
    demo = StdioTarget((sys.executable, "-m", "fuzz.demo_server"))
    result = fuzz(demo, max_examples=240, selection=Selection(tools=frozenset({"divide"})), envelope=False, kinds=frozenset({CaseKind.VALID_ARGUMENTS}))
    ((summary,),) = [[summary for summary in result.tools if summary.tool == "divide"]]
    assert 240 <= summary.cases_sent[CaseKind.VALID_ARGUMENTS] < 260, summary.cases_sent
    (failure,) = [finding for finding in result.findings if finding.rule.id == "tool-failure"]
    assert failure.request["params"]["arguments"] == {"a": 0, "b": 0}


@pytest.mark.slow
def test_no_round_of_the_search_shrinks_what_a_canonical_case_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """Later rounds send no canonical case of their own: they keep the first round's verdicts."""
    failed: list[tuple[int, str]] = []
    rounds: set[tuple[CaseKind, int, frozenset[str]]] = set()
    check, search = Exploration._check, Exploration.search

    def failing(self: Exploration, batch: Any) -> None:
        try:
            check(self, batch)
        except Exception as failure:
            failed.append((self.round, type(failure).__name__))
            raise

    def searching(self: Exploration) -> None:
        rounds.add((self.kind, self.round, self.earlier.rules))
        search(self)

    monkeypatch.setattr(Exploration, "_check", failing)
    monkeypatch.setattr(Exploration, "search", searching)
    demo = StdioTarget((sys.executable, "-m", "fuzz.demo_server"))
    result = fuzz(
        demo,
        max_examples=10**6,
        max_time=4.0,
        selection=Selection(tools=frozenset({"divide"})),
        envelope=False,
        kinds=frozenset({CaseKind.VALID_ARGUMENTS, CaseKind.UNKNOWN_TOOL}),
    )
    rule = {CaseKind.VALID_ARGUMENTS: "tool-failure", CaseKind.UNKNOWN_TOOL: "unknown-tool"}
    assert (CaseKind.VALID_ARGUMENTS, 1, frozenset({"tool-failure"})) in rounds, rounds
    assert all(rules == (frozenset({rule[kind]}) if round else frozenset()) for kind, round, rules in rounds), rounds
    assert failed == []
    assert {finding.rule.id for finding in result.findings} == {"tool-failure", "unknown-tool"}


def test_a_later_round_leaves_out_the_shapes_the_first_round_got_no_answer_for() -> None:
    earlier = CanonicalVerdicts(frozenset({"request-answered"}), frozenset({"arguments is null"}))
    demo = StdioTarget((sys.executable, "-m", "fuzz.demo_server"))
    context = RunContext(
        options=RunOptions(target=demo, seed=1),
        target=SimpleNamespace(tools=()),  # type: ignore[arg-type]
        dispatcher=None,  # type: ignore[arg-type]
        criteria=None,  # type: ignore[arg-type]
        tool_plans=(ToolPlan(None, (CaseKind.MALFORMED_REQUEST,), unit=Unit.ENVELOPE),),
        deadline=math.inf,
    )
    exploration = Exploration(context, Job(0, Unit.ENVELOPE, None, CaseKind.MALFORMED_REQUEST, round=1, earlier=earlier))
    assert exploration._silent_labels == {"arguments is null"}
    assert exploration.verdicts == earlier


def test_a_search_past_a_canonical_rule_keeps_no_finding_per_case(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every unknown-tool case of the demo violates `unknown-tool`, which the canonical cases
    found first: the search goes on through all its examples, and must not hold on to the
    finding each of its cases made (the benchmark's long run grew by 2 MB a second when it did)."""
    held: list[int] = []
    check = Exploration._check

    def measuring(self: Exploration, batch: Any) -> None:
        try:
            check(self, batch)
        finally:
            held.append(len(self._case_of))

    monkeypatch.setattr(Exploration, "_check", measuring)
    described: list[str] = []
    describe = oracle.describe_violation
    monkeypatch.setattr(oracle, "describe_violation", lambda violation, *rest: described.append(violation.rule.id) or describe(violation, *rest))
    demo = StdioTarget((sys.executable, "-m", "fuzz.demo_server"))
    result = fuzz(demo, max_examples=400, selection=Selection(tools=frozenset({"add"})), envelope=False, kinds=frozenset({CaseKind.UNKNOWN_TOOL}))
    (summary,) = [summary for summary in result.tools if summary.tool == "add"]
    assert summary.cases_sent[CaseKind.UNKNOWN_TOOL] >= 400
    assert [finding.rule.id for finding in result.findings] == ["unknown-tool"]
    assert len(held) >= 400 // batch_size(400) and max(held) <= 2, max(held)
    assert 0 < len(described) < 20, "the search's own violations of the canonical rule are not described"
