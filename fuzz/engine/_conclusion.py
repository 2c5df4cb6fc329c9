"""What a run does once it has fuzzed: try its findings again, then record the night.

Both happen once per run, in the process that reports it (never in a worker process of
`--processes`), before the result is announced: the reports show each finding's label, the trend and
the delta since the last night.
"""

from __future__ import annotations

from dataclasses import replace

from fuzz.corpus.history import recorded
from fuzz.engine._stability import tried
from fuzz.engine.options import RunOptions
from fuzz.judging.findings import RunResult


def concluded(result: RunResult, options: RunOptions) -> RunResult:
    """`result` with its findings tried again (`--tries`) and its night recorded (`--history`)."""
    result = tried(replace(result, flaky_fails=options.flaky_fails), options)
    return recorded(result, options.history) if options.history is not None else result
