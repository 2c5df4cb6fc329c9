"""Values generated per second, per schema of the corpus, against plain hypothesis-jsonschema.

    benchmarks/run-generation.sh            # makes .venv-bench, then runs this file in it
    python benchmarks/generation.py --examples 20 --json out.json

For every schema in tests/schemas/, the same Hypothesis settings draw `--examples` values twice,
in this one process: once from `strategies.values.valid_values` (our generator, every value
checked by the dialect's validator with formats asserted) and once from
`hypothesis_jsonschema.from_schema` (the baseline, unchecked). The figure is values per second
of wall time; the report gives the ratio ours / baseline per schema and its geometric mean over
the schemas both handle, and how many baseline values the validator rejects (a value a
generator calls valid that is not is a false positive for a fuzzer). Ratios, not absolute
figures: these machines are shared and noisy.

hypothesis-jsonschema 0.23.1 crashes on object schemas with Hypothesis 6.170.10 and later, so
the baseline needs Hypothesis 6.170.9 (run-generation.sh pins it); on a newer Hypothesis the
baseline handles almost nothing and the script says so.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import hypothesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from strategies.schemas import SchemaCheck  # noqa: E402
from strategies.values import valid_values  # noqa: E402


def _rate(strategy: st.SearchStrategy[Any], examples: int, seen: Callable[[Any], None]) -> float | str:
    """Values per second drawing `examples` values, or the error's name when drawing failed."""

    started = time.perf_counter()
    count = 0

    def counting(value: Any) -> None:
        nonlocal count
        count += 1
        seen(value)

    try:

        @settings(max_examples=examples, database=None, deadline=None, phases=[Phase.generate], suppress_health_check=list(HealthCheck), derandomize=True)
        @given(strategy)
        def counted(value: Any) -> None:
            counting(value)

        counted()
    except Exception as error:
        return type(error).__name__
    elapsed = time.perf_counter() - started
    return count / elapsed if count else "no values"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=20, help="values drawn per schema and generator (default 20)")
    parser.add_argument("--every", type=int, default=1, help="take every Nth schema of the corpus (default: all)")
    parser.add_argument("--json", type=Path, default=None, help="also write the per-schema figures here")
    options = parser.parse_args()
    try:
        from hypothesis_jsonschema import from_schema
    except ImportError:
        print("hypothesis-jsonschema is not installed: run benchmarks/run-generation.sh", file=sys.stderr)
        return 2
    warnings.simplefilter("ignore")
    entries = [entry for path in sorted((ROOT / "tests" / "schemas").glob("*.json")) for entry in json.loads(path.read_text())["schemas"]]
    entries = entries[:: options.every]
    print(f"Hypothesis {hypothesis.__version__}, {len(entries)} schemas, {options.examples} values each\n")
    rows = []
    for entry in entries:
        check = SchemaCheck.for_schema(entry["schema"])
        ours = _rate(valid_values(check), options.examples, lambda value: None)
        rejected = 0

        def judge(value: Any) -> None:
            nonlocal rejected
            rejected += not check.accepts_strictly(value)

        baseline = _rate(from_schema(dict(entry["schema"])), options.examples, judge)
        ratio = ours / baseline if isinstance(ours, float) and isinstance(baseline, float) else None
        rows.append({"id": entry["id"], "ours": ours, "baseline": baseline, "ratio": ratio, "baselineInvalid": rejected})
        shown = lambda rate: f"{rate:8.0f}/s" if isinstance(rate, float) else f"{rate:>10}"  # noqa: E731
        print(
            f"{entry['id'][:58]:<58} {shown(ours)} {shown(baseline)} {'' if ratio is None else f'{ratio:6.2f}x'}"
            f"{f'  baseline drew {rejected} invalid' if rejected else ''}",
            flush=True,
        )
    ratios = [row["ratio"] for row in rows if row["ratio"]]
    ours_ok = sum(isinstance(row["ours"], float) for row in rows)
    base_ok = sum(isinstance(row["baseline"], float) for row in rows)
    wrong = sum(1 for row in rows if row["baselineInvalid"])
    print(f"\nschemas handled: ours {ours_ok}/{len(rows)}, hypothesis-jsonschema {base_ok}/{len(rows)}")
    print(f"schemas where hypothesis-jsonschema drew values the validator rejects: {wrong}")
    if ratios:
        geometric = math.exp(statistics.fmean(math.log(r) for r in ratios))
        print(
            f"values/s ratio ours / hypothesis-jsonschema over the {len(ratios)} schemas both handle: "
            f"geometric mean {geometric:.2f}x, median {statistics.median(ratios):.2f}x, "
            f"min {min(ratios):.2f}x, max {max(ratios):.2f}x"
        )
    if options.json:
        options.json.write_text(json.dumps({"hypothesis": hypothesis.__version__, "examples": options.examples, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
