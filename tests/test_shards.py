"""Shards on a CI matrix (`--shard NUMBER/COUNT`, `fuzz.engine.sharding`) and their reports joined
into one run (`mcp-toolfuzz merge`, `fuzz.reports.shard_reports`)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import junitparser
import pytest

from fuzz.engine.options import RunOptions
from fuzz.engine.plan import ToolPlan
from fuzz.engine.sharding import parse_shard, split
from fuzz.errors import ConfigurationError
from fuzz.wire.target import StdioTarget
from strategies import CaseKind, Tool
from tests.conftest import made_once, mcp_toolfuzz, mcp_toolfuzz_process, one_line_exit_2, without_jsonrpc_ids

SERVERS = Path(__file__).parent / "servers"
SCHEMAS = Path(__file__).parent / "report_schemas"
BOUNDARY = [sys.executable, str(SERVERS / "boundary_server.py")]
REFERENCE = [sys.executable, str(SERVERS / "reference_server.py")]
ARGUMENT_KINDS = (CaseKind.VALID_ARGUMENTS, CaseKind.INVALID_ARGUMENTS, CaseKind.UNKNOWN_TOOL, CaseKind.MALFORMED_REQUEST)


def _harness(*arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return mcp_toolfuzz(*arguments, timeout=600, cwd=cwd)


def _run(cwd: Path, report: str, *arguments: str, server: list[str]) -> dict[str, Any]:
    """A run, sharded or not, in a process of its own: shards run apart (each process with its own
    hash seed), and must agree on who owns what."""
    run = mcp_toolfuzz_process("run", "--no-progress", "--report", f"json:{report}", *arguments, "--", *server, timeout=600, cwd=cwd)
    assert run.returncode in (0, 1), run.stdout[-3000:] + run.stderr
    document: dict[str, Any] = json.loads((cwd / report).read_text())
    return document


def _plan(name: str, kinds: tuple[CaseKind, ...] = ARGUMENT_KINDS, properties: int = 1) -> ToolPlan:
    schema = {"type": "object", "properties": {f"p{number}": {"type": "integer", "minimum": 0} for number in range(properties)}}
    return ToolPlan(Tool(name=name, input_schema=schema), kinds)


def _owners(plans: list[ToolPlan], options: RunOptions, count: int) -> dict[str, int]:
    return {plan.name: owner for plan, owner in zip(plans, split(plans, options, count), strict=True)}


def test_the_split_depends_on_the_plan_not_on_the_listing_order() -> None:
    options = RunOptions(target=StdioTarget(("server",)), seed=1)
    plans = [_plan(f"tool_{number}", properties=number % 4) for number in range(12)]
    owners = _owners(plans, options, 3)
    for seed in range(5):
        shuffled = plans[:]
        random.Random(seed).shuffle(shuffled)
        assert _owners(shuffled, options, 3) == owners
    assert sorted(set(owners.values())) == [0, 1, 2]


def test_the_split_is_balanced_by_expected_cost_not_by_count() -> None:
    options = RunOptions(target=StdioTarget(("server",)), seed=1, tool_max_examples=(("big", 1000),))
    plans = [_plan("big"), *(_plan(f"small_{number}") for number in range(6))]
    owners = _owners(plans, options, 2)
    assert [name for name, owner in owners.items() if owner == owners["big"]] == ["big"], "the costly tool has a runner to itself"
    bodyless = [_plan("a"), _plan("b"), _plan("c", (CaseKind.UNKNOWN_TOOL,)), _plan("d", (CaseKind.UNKNOWN_TOOL,))]
    by_cost = _owners(bodyless, options, 2)
    assert by_cost["a"] != by_cost["b"], "the two costly tools go to different runners, whatever their names"


@pytest.mark.parametrize("text", ["0/3", "4/3", "2", "a/b", "1/0", "-1/2"])
def test_a_shard_outside_its_count_is_refused(text: str) -> None:
    with pytest.raises(ConfigurationError, match="NUMBER/COUNT"):
        parse_shard(text)


def test_a_wrong_shard_on_the_command_line_is_one_line_and_exit_2(tmp_path: Path) -> None:
    run = _harness("run", "--shard", "4/3", "--no-corpus", cwd=tmp_path)
    assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
    *usage, line = run.stderr.strip().splitlines()  # argparse's usage line, then the error, as for every option
    assert "argument --shard: expected NUMBER/COUNT" in line and len(usage) <= 1


@pytest.fixture(scope="module")
def three_shards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One unsharded run of the boundary server (six seeded bugs) and its three shards, each with
    the JSON report a CI job would upload."""

    def runs(cwd: Path) -> None:
        common = ("--seed", "4", "--max-examples", "16", "--no-corpus", "--allow-destructive")
        _run(cwd, "whole.json", *common, server=BOUNDARY)
        for number in (1, 2, 3):
            _run(cwd, f"shard-{number}.json", *common, "--shard", f"{number}/3", server=BOUNDARY)

    return made_once(tmp_path_factory, "three-shards", runs)


def _comparable(document: dict[str, Any]) -> str:
    kept = {
        "findings": document["findings"],
        "tools": [{key: tool[key] for key in ("name", "casesSent", "answers", "schemaCoverage", "boundaryCases")} for tool in document["tools"]],
        "problems": document["problems"],
        "exitCode": document["exitCode"],
    }
    return without_jsonrpc_ids(kept)


@pytest.mark.slow
def test_three_shards_merged_are_the_unsharded_run(three_shards: Path) -> None:
    shards = [json.loads((three_shards / f"shard-{number}.json").read_text()) for number in (1, 2, 3)]
    owned = [unit for shard in shards for unit in shard["shard"]["owned"]]
    assert sorted(owned, key=str) == sorted(shards[0]["shard"]["units"], key=str), "every unit in exactly one shard"
    assert all(shard["shard"]["owned"] for shard in shards), "no shard is empty"
    assert len({shard["shard"]["plan"] for shard in shards}) == 1
    merged = _harness(
        "merge",
        *(f"shard-{number}.json" for number in (3, 1, 2)),
        "--report",
        "json:merged.json",
        "--report",
        "junit:merged.xml",
        "--report",
        "sarif:merged.sarif",
        "--report",
        "markdown:merged.md",
        "--report",
        "html:merged.html",
        cwd=three_shards,
    )
    whole = json.loads((three_shards / "whole.json").read_text())
    assert merged.returncode == whole["exitCode"] == 1, merged.stdout[-3000:] + merged.stderr
    document = json.loads((three_shards / "merged.json").read_text())
    assert _comparable(document) == _comparable(whole)
    assert len(whole["findings"]) >= 6
    assert document["shard"] is None and document["stoppedEarly"] is None
    assert "6 problems" in merged.stdout or f"{len(whole['problems'])} problems" in merged.stdout
    suites = list(junitparser.JUnitXml.fromfile(str(three_shards / "merged.xml")))
    assert sum(suite.failures for suite in suites) == len(whole["findings"])
    sarif = json.loads((three_shards / "merged.sarif").read_text())
    schema = json.loads((SCHEMAS / "sarif-schema-2.1.0.json").read_text())
    jsonschema.validators.validator_for(schema)(schema).validate(sarif)
    assert len(sarif["runs"]) == 1, "code scanning no longer combines several runs of one tool and category"
    assert len(sarif["runs"][0]["results"]) == len(whole["problems"]), "a result per problem, as for one run"


def test_a_missing_shard_is_named_with_the_tools_it_did_not_fuzz(three_shards: Path) -> None:
    merged = _harness("merge", "shard-1.json", "shard-3.json", "--report", "json:partial.json", cwd=three_shards)
    document = json.loads((three_shards / "partial.json").read_text())
    missing = json.loads((three_shards / "shard-2.json").read_text())["shard"]["owned"]
    reason = document["stoppedEarly"]
    assert reason.startswith("shard 2 of 3 not merged: these tools were not fuzzed: ")
    assert all((unit or "(envelope)") in reason for unit in missing)
    assert "shard 2 of 3 not merged" in merged.stdout
    assert merged.returncode == 1, "the merged shards' findings still fail the run"


@pytest.mark.slow
def test_the_baseline_applies_to_the_merged_run(three_shards: Path) -> None:
    baseline = three_shards / "baseline.json"
    written = _harness(
        "run",
        "--seed",
        "4",
        "--max-examples",
        "16",
        "--no-corpus",
        "--allow-destructive",
        "--no-progress",
        "--baseline",
        str(baseline),
        "--baseline-update",
        "--",
        *BOUNDARY,
        cwd=three_shards,
    )
    assert written.returncode == 1, written.stderr
    merged = _harness("merge", "shard-1.json", "shard-2.json", "shard-3.json", "--baseline", "baseline.json", cwd=three_shards)
    assert merged.returncode == 0, merged.stdout[-2000:] + merged.stderr


@pytest.mark.slow
@pytest.mark.parametrize(
    ("files", "expected"),
    [
        (["shard-1.json", "shard-1.json"], "are both shard 1 of 3"),
        (["shard-1.json", "whole.json"], "is the report of a whole run, not of a shard"),
        (["shard-1.json", "other-seed.json"], "not shards of one run: seed 4 and 5"),
        (["shard-1.json", "corrupt.json"], "corrupt.json is not JSON"),
        (["shard-1.json", "missing.json"], "missing.json cannot be read"),
        (["shard-1.json", "not-a-report.json"], "not-a-report.json"),
    ],
)
def test_reports_that_are_not_one_run_s_shards_are_one_line_and_exit_2(three_shards: Path, files: list[str], expected: str) -> None:
    other = json.loads((three_shards / "shard-2.json").read_text())
    (three_shards / "other-seed.json").write_text(json.dumps({**other, "seed": 5}))
    (three_shards / "corrupt.json").write_text('{"format": 1, "seed"')
    (three_shards / "not-a-report.json").write_text('{"hello": "world"}')
    assert expected in one_line_exit_2(_harness("merge", *files, cwd=three_shards))


@pytest.mark.slow
def test_each_shard_replays_only_its_own_units_reproductions(tmp_path: Path) -> None:
    common = ("--seed", "2", "--max-examples", "12", "--corpus", "corpus", "--allow-destructive", "--phases", "boundary,random")
    first = _run(tmp_path, "first.json", *common, server=BOUNDARY)
    written = {finding["reproduction"] for finding in first["findings"]}
    assert len(written) >= 3
    replayed: list[set[str]] = []
    for number in (1, 2):
        document = _run(tmp_path, f"replay-{number}.json", *common, "--shard", f"{number}/2", server=BOUNDARY)
        paths = {Path(entry["path"]).name for entry in document["replayed"]}
        owned = {unit or "" for unit in document["shard"]["owned"]}
        assert all(entry["tool"] in owned or (entry["tool"] is None and "" in owned) for entry in document["replayed"])
        replayed.append(paths)
    assert not replayed[0] & replayed[1], "no reproduction is replayed twice"
    assert replayed[0] | replayed[1] == {Path(path).name for path in written}
