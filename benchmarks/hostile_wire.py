"""Time and memory of runs against hostile servers, each against the compliant baseline.

    .venv/bin/python benchmarks/hostile_wire.py [--rounds 3] [--max-examples 10] [--modes deep,huge,...] [--json FILE]

For each mode of `tests/servers/hostile_wire_server.py` (and its `compliant` mode, the baseline),
`mcp-toolfuzz run --no-corpus --seed 1 --max-examples N --processes 1` is run (N: 10, as the issue
measured, or the default 100 with `--max-examples 100`) with the repo's
`.venv`; rounds interleave the modes (the baseline runs in every round), so that the machine's
noise (shared, two cores) spreads over all of them. Per mode: the median wall time and the median
peak RSS of the harness's own process (VmHWM, read from /proc every 20 ms: the target's memory is
not counted, it is the server's), and the issue's budgets, checked on the medians: time within
2x the baseline's plus 10 s (a flood's own writing excepted), peak RSS within 2x the baseline's.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = ROOT / ".venv" / "bin" / "python"
SERVER = ROOT / "tests" / "servers" / "hostile_wire_server.py"
MODES = (
    "deep",
    "huge",
    "huge-first",
    "huge-id-last",
    "endless",
    "not-utf8",
    "not-utf8-ping-error",
    "lone-surrogate",
    "notification-flood",
    "stray-flood",
    "request-flood",
)
FLOODS = {"notification-flood", "stray-flood", "request-flood", "endless"}


def measure(mode: str, examples: int) -> tuple[float, int, int]:
    """Wall seconds, peak RSS of the harness process in KiB, exit code."""
    command = [
        str(PYTHON),
        "-m",
        "fuzz",
        "run",
        "--no-corpus",
        "--seed",
        "1",
        "--max-examples",
        str(examples),
        "--processes",
        "1",
        "--",
        str(PYTHON),
        str(SERVER),
        mode,
    ]
    started = time.monotonic()
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = 0
    status = Path(f"/proc/{process.pid}/status")
    while process.poll() is None:
        try:
            for line in status.read_text().splitlines():
                if line.startswith("VmHWM:"):
                    peak = max(peak, int(line.split()[1]))
        except (OSError, ValueError):
            pass
        time.sleep(0.02)
    seconds = time.monotonic() - started
    stderr = process.stderr.read().decode(errors="replace") if process.stderr else ""
    if "Traceback" in stderr:
        raise SystemExit(f"{mode}: the harness crashed:\n{stderr}")
    return seconds, peak, process.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--max-examples", type=int, default=10)
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--json", type=Path, default=None)
    options = parser.parse_args()
    modes = options.modes.split(",")
    samples: dict[str, list[tuple[float, int, int]]] = {mode: [] for mode in ["compliant", *modes]}
    for round_number in range(options.rounds):
        for mode in ["compliant", *modes]:
            samples[mode].append(measure(mode, options.max_examples))
        print(f"round {round_number + 1} of {options.rounds} done", file=sys.stderr)
    base_seconds = statistics.median(s for s, _, _ in samples["compliant"])
    base_rss = statistics.median(r for _, r, _ in samples["compliant"])
    print(f"{'mode':22} {'seconds':>8} {'budget':>8} {'peak MiB':>9} {'x base':>7}  exit  verdict")
    rows = []
    for mode, runs in samples.items():
        seconds = statistics.median(s for s, _, _ in runs)
        rss = statistics.median(r for _, r, _ in runs)
        budget = 2 * base_seconds + 10
        within = (seconds <= budget or mode in FLOODS) and rss <= 2 * base_rss
        codes = sorted({code for _, _, code in runs})
        print(f"{mode:22} {seconds:8.1f} {budget:8.1f} {rss / 1024:9.1f} {rss / base_rss:7.2f}  {codes}  {'ok' if within else 'OVER'}")
        rows.append(
            {"mode": mode, "seconds": seconds, "peakRssKiB": rss, "rssRatio": rss / base_rss, "timeBudget": budget, "exitCodes": codes, "within": within}
        )
    if options.json is not None:
        document = {"rounds": options.rounds, "maxExamples": options.max_examples, "results": rows}
        options.json.write_text(json.dumps(document, indent=2) + "\n")


if __name__ == "__main__":
    main()
