"""Renderings of a run: `terminal` (live, for people), and the files `--report FORMAT:PATH`
writes from the final RunResult: `json_report` (the whole result, for machines), `junit` (for
CI test views), `sarif` (for code-scanning dashboards), `markdown` (for step summaries and pull
request comments), `html` (one self-contained page, for a nightly job's artifacts). `problems`
groups findings for all of them. None drives the engine."""

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
