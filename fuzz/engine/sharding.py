"""Shards: one run split over the jobs of a CI matrix (`--shard NUMBER/COUNT`).

`mcp-toolfuzz merge` joins them again (`fuzz.reports.shard_reports`).

The unit of the split is an entry of the run's plan (`fuzz.engine.plan.ToolPlan`). It is a tool with
all its case kinds, the malformed envelopes, or the sequences. A tool stays whole because its
invalid arguments are built on its valid ones, and its boundary phase comes before its search.

Units go largest expected cost first. Each goes to the shard with the least cost so far. A tie goes
to the lower shard number, and equal costs go in name order. So the split depends on the plan alone,
never on the order in which the server lists its tools. Every shard plans from the same listing and
options, and computes the same split. Seeds are per exploration. So without --max-time the shards
together make exactly the explorations one unsharded run makes, each once.

A unit's expected cost adds up its case kinds. Each kind counts its --max-examples. The kinds drawn
from a schema count `SCHEMA_KIND_WEIGHT` times that. These are argument and output cases, which have
a boundary phase, validation and shrinking. The sequences count `SEQUENCE_WEIGHT` times, for their
few calls each and their fresh targets. The boundary phase adds one case per keyword of the unit's
schemas.

Each shard's report names the plan it split by a fingerprint (`plan_fingerprint`). It covers the
units, their case kinds, example counts and tool definitions. So `merge` can refuse the reports of
shards that planned different runs, such as a server that listed other tools, or other options.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from fuzz.engine.options import RunOptions, Shard
from fuzz.engine.plan import ToolPlan
from fuzz.errors import ConfigurationError
from strategies import CaseKind
from strategies.cases import SEQUENCES

SCHEMA_KIND_WEIGHT = 2
SEQUENCE_WEIGHT = 4
_SCHEMA_KINDS = frozenset({CaseKind.VALID_ARGUMENTS, CaseKind.INVALID_ARGUMENTS, CaseKind.VALID_OUTPUT, CaseKind.INVALID_OUTPUT})


def parse_shard(text: str) -> Shard:
    """Parse `--shard NUMBER/COUNT`, 1-based as CI matrices count.

    GitHub's number is `strategy.job-index` + 1. GitLab's is `$CI_NODE_INDEX/$CI_NODE_TOTAL`.
    """
    number, slash, count = text.partition("/")
    try:
        shard = Shard(int(number), int(count))
    except ValueError:
        shard = None
    if not slash or shard is None or shard.count < 1 or not 1 <= shard.number <= shard.count:
        raise ConfigurationError(f"--shard {text!r}: expected NUMBER/COUNT with 1 <= NUMBER <= COUNT, e.g. --shard 2/3 for the second of three runners")
    return shard


def cost(tool_plan: ToolPlan, options: RunOptions) -> int:
    """The unit's expected cost (see the module docstring)."""
    examples = options.max_examples_for(tool_plan.tool.name if tool_plan.tool is not None else None)
    total = 0
    for kind in tool_plan.kinds:
        weight = SEQUENCE_WEIGHT if kind is CaseKind.SEQUENCE else SCHEMA_KIND_WEIGHT if kind in _SCHEMA_KINDS else 1
        total += weight * examples
    if tool_plan.tool is not None and any(kind in _SCHEMA_KINDS for kind in tool_plan.kinds):
        total += _keywords(tool_plan.tool.input_schema) + _keywords(tool_plan.tool.output_schema)
    return total


def split(tool_plans: Sequence[ToolPlan], options: RunOptions, count: int) -> list[int]:
    """The shard (0-based) of each unit, in plan order (see the module docstring)."""
    costs = [cost(tool_plan, options) for tool_plan in tool_plans]
    order = sorted(range(len(tool_plans)), key=lambda place: (-costs[place], tool_plans[place].name))
    load = [0] * count
    owners = [0] * len(tool_plans)
    for place in order:
        owner = min(range(count), key=lambda number: (load[number], number))
        owners[place] = owner
        load[owner] += costs[place]
    return owners


def shard_places(tool_plans: Sequence[ToolPlan], options: RunOptions) -> frozenset[int]:
    """The places in the plan of the units `options.shard` makes (all without one)."""
    if options.shard is None:
        return frozenset(range(len(tool_plans)))
    owners = split(tool_plans, options, options.shard.count)
    return frozenset(place for place, owner in enumerate(owners) if owner == options.shard.number - 1)


def plan_fingerprint(tool_plans: Sequence[ToolPlan], options: RunOptions) -> str:
    """What the shards of one run share: each unit's name, case kinds, examples and definition."""
    units = sorted(
        (
            tool_plan.name,
            [kind.value for kind in tool_plan.kinds],
            options.max_examples_for(tool_plan.tool.name if tool_plan.tool is not None else None),
            tool_plan.tool.listing if tool_plan.tool is not None else None,
        )
        for tool_plan in tool_plans
    )
    text = json.dumps(units, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def unit_of(tool: str, *, sequence: bool) -> str:
    """The unit a finding or reproduction of `tool` belongs to.

    A sequence's belongs to the sequences' unit. Any other belongs to its tool's unit. A request
    that names no tool belongs to `ENVELOPE`, which is "".
    """
    return SEQUENCES if sequence else tool


def _keywords(schema: Any) -> int:
    if isinstance(schema, dict):
        return len(schema) + sum(_keywords(value) for value in schema.values())
    if isinstance(schema, list):
        return sum(_keywords(item) for item in schema)
    return 0
