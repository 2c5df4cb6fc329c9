"""Renderings of a run, for people and for machines.

`terminal` is live, for people. The other modules write the files `--report FORMAT:PATH` asks for,
from the final RunResult. `json_report` writes the whole result, for machines. `junit` is for CI
test views. `sarif` is for code-scanning dashboards. `markdown` is for step summaries and pull
request comments. `html` writes one self-contained page, for a nightly job's artifacts.

`problems` groups findings for all of them. None of them drives the engine.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from fuzz.judging.findings import RunResult
from fuzz.reports import html, json_report, junit, markdown, sarif

WRITERS: dict[str, Callable[[RunResult, Path], None]] = {
    "json": json_report.write,
    "junit": junit.write,
    "sarif": sarif.write,
    "markdown": markdown.write,
    "html": html.write,
}
"""Each writes atomically: a reader never sees a half-written report."""
