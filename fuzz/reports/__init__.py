"""Renderings of a run, for people and for machines.

`terminal` is live, for people. The other modules write the files `--report FORMAT:PATH` asks for,
from the final RunResult. `_json_report` writes the whole result, for machines. `_junit` is for CI
test views. `_sarif` is for code-scanning dashboards. `_markdown` is for step summaries and pull
request comments. `_html` writes one self-contained page, for a nightly job's artifacts.

`problems` groups findings for all of them. None of them drives the engine.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from fuzz.judging.findings import RunResult
from fuzz.reports import _html, _json_report, _junit, _markdown, _sarif

__all__ = [
    "WRITERS",
    "by_revision",
    "json_read",
    "problems",
    "shard_reports",
    "terminal",
]

WRITERS: dict[str, Callable[[RunResult, Path], None]] = {
    "json": _json_report.write,
    "junit": _junit.write,
    "sarif": _sarif.write,
    "markdown": _markdown.write,
    "html": _html.write,
}
"""Each writes atomically: a reader never sees a half-written report."""
