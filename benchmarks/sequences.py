"""Sequence bugs found, minimal, and replayed: the notes test server's three, over seeds.

    .venv/bin/python benchmarks/sequences.py [--seeds 1,2,3] [--max-examples 50] [--rounds 5] [--json FILE]

`tests/servers/notes_server.py` has three bugs only a sequence of calls reaches: a note read,
updated, archived or deleted after it was deleted crashes (JSON-RPC -32603, `tool-failure`), and
`archive_note` called after `set_archive` switched it off answers -32601 (`unknown-tool`). For
each seed, `mcp-toolfuzz run --allow-destructive --max-examples N --seed S` (every phase, the
rest at the defaults) is run from an empty directory with a corpus there, and timed. Then, per
seed: each bug found (use after delete on `get_note`, a second `delete_note`, the switched-off
`archive_note`); each reported sequence minimal (the bug's own calls: `create_note`,
`delete_note` before the failing call; `set_archive` before the gone tool's); each sequence's
reproduction replayed alone from an empty directory, STILL FAILING against the server and FIXED
against `--fixed`. The issue's budget (issue 49): 9 of 9 found and minimal, every replay as
expected, each run under a minute.

And what the phase costs where there is no state: the bundled demo (no state) fuzzed at the
defaults (`mcp-toolfuzz run --no-corpus --seed 1`, every phase) and with `--phases
boundary,random`, in `--rounds` interleaved rounds; the median of the rounds' time ratios (the
issue's budget: within 1.5x).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PYTHON = ROOT / ".venv" / "bin" / "python"
NOTES = ROOT / "tests" / "servers" / "notes_server.py"
BUGS = {
    ("tool-failure", "get_note"): ["create_note", "delete_note"],
    ("tool-failure", "delete_note"): ["create_note", "delete_note"],
    ("unknown-tool", "archive_note"): ["set_archive"],
}
"""Each bug, and the calls of its minimal sequence before the failing one."""


def toolfuzz(*arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(PYTHON), "-m", "fuzz", *arguments], capture_output=True, text=True, cwd=cwd, timeout=900)


def one_seed(seed: int, examples: int, scratch: Path) -> dict[str, Any]:
    work = scratch / f"seed{seed}"
    work.mkdir()
    started = time.perf_counter()
    run = toolfuzz(
        "run",
        "--allow-destructive",
        "--max-examples",
        str(examples),
        "--seed",
        str(seed),
        "--no-progress",
        "--corpus",
        "corpus",
        "--report",
        "json:report.json",
        "--",
        str(PYTHON),
        str(NOTES),
        cwd=work,
    )
    seconds = time.perf_counter() - started
    if run.returncode not in (0, 1):
        raise SystemExit(f"seed {seed}: the run failed ({run.returncode}):\n{run.stdout[-2000:]}{run.stderr[-2000:]}")
    report = json.loads((work / "report.json").read_text())
    found = {(f["rule"], f["tool"]): f for f in report["findings"] if f["case"] == "sequence"}
    bugs = {}
    for key, minimal in BUGS.items():
        finding = found.get(key)
        steps = [step["request"]["params"]["name"] for step in finding["steps"]] if finding else None
        replays = replayed(work, finding["reproduction"], seed) if finding and finding.get("reproduction") else None
        bugs[" ".join(key)] = {"found": finding is not None, "steps": steps, "minimal": steps == minimal, "replays": replays}
    conclusion = next((tool.get("conclusion") for tool in report["tools"] if tool["name"] == "(sequences)"), None)
    return {"seed": seed, "seconds": round(seconds, 1), "bugs": bugs, "conclusion": conclusion}


def replayed(work: Path, reproduction: str, seed: int) -> dict[str, str]:
    """The reproduction alone in an empty directory, replayed against the server and against `--fixed`."""
    empty = Path(tempfile.mkdtemp(prefix=f"replay-{seed}-", dir=work))
    copy = Path(shutil.copy(work / reproduction, empty / Path(reproduction).name))
    outcomes = {}
    for name, extra in (("server", []), ("fixed", ["--fixed"])):
        replay = toolfuzz("replay", copy.name, "--", str(PYTHON), str(NOTES), *extra, cwd=empty)
        outcomes[name] = replay.stdout.split(" ", 2)[0] + (" FAILING" if replay.stdout.startswith("STILL") else "")
    return outcomes


def phase_cost(rounds: int, scratch: Path) -> dict[str, Any]:
    """Wall seconds of the demo at the defaults and with boundary + random alone, interleaved."""
    times: dict[str, list[float]] = {"defaults": [], "boundary,random": []}
    for _ in range(rounds):
        for name in times:
            extra = [] if name == "defaults" else ["--phases", name]
            started = time.perf_counter()
            run = toolfuzz("run", "--no-corpus", "--seed", "1", "--no-progress", *extra, cwd=scratch)
            if run.returncode not in (0, 1):
                raise SystemExit(f"the demo run failed ({run.returncode}):\n{run.stderr[-2000:]}")
            times[name].append(time.perf_counter() - started)
    ratios = [whole / part for whole, part in zip(times["defaults"], times["boundary,random"], strict=True)]
    return {"seconds": times, "median": {name: statistics.median(values) for name, values in times.items()}, "ratio": statistics.median(ratios)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1,2,3")
    parser.add_argument("--max-examples", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds of the demo's phase cost (0: none)")
    parser.add_argument("--json", type=Path, default=None)
    options = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="toolfuzz-sequences-"))
    try:
        results = [one_seed(int(seed), options.max_examples, scratch) for seed in options.seeds.split(",") if seed]
        cost = phase_cost(options.rounds, scratch) if options.rounds else None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    good = 0
    for result in results:
        for bug, outcome in result["bugs"].items():
            ok = outcome["found"] and outcome["minimal"] and outcome["replays"] == {"server": "STILL FAILING", "fixed": "FIXED"}
            good += ok
            print(
                f"seed {result['seed']} ({result['seconds']:5.1f} s) {bug:<27} {'ok' if ok else 'NOT OK'}: "
                f"steps {outcome['steps']}, replays {outcome['replays']}"
            )
    total = sum(len(result["bugs"]) for result in results)
    slowest = max((result["seconds"] for result in results), default=0.0)
    if results:
        print(f"\n{good} of {total} found, minimal and replayed as expected; the slowest run took {slowest:.1f} s")
    if cost is not None:
        print(
            f"the demo at the defaults: {cost['median']['defaults']:.2f} s, boundary + random alone "
            f"{cost['median']['boundary,random']:.2f} s (medians of {options.rounds} interleaved rounds): {cost['ratio']:.2f}x"
        )
    if options.json:
        options.json.write_text(json.dumps({"runs": results, "good": good, "total": total, "phaseCost": cost}, indent=1))
    return 0 if good == total and slowest < 60 and (cost is None or cost["ratio"] <= 1.5) else 1


if __name__ == "__main__":
    sys.exit(main())
