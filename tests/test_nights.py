"""The nights (`--history`): one record per run, the delta since the last one, the trend.

Ten nights of one server are made as records first (the arithmetic of the delta and the days each
problem first appeared), then as runs on one corpus (tests/servers/flaky_server.py with a bug fixed
on some nights and back on others, through the environment so that it stays one target), read back
from every report format, and the HTML drawn in a real browser where Debian's Chromium is installed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from fuzz.corpus.history import append, read
from fuzz.judging.findings import Night, NightProblem
from fuzz.judging.nights import delta, nights, of_server, stories
from tests.conftest import mcp_toolfuzz, stdlib_server
from tests.test_html_report import parsed, rows

MUST = "MUST"


def night(day: int, *problems: tuple[str, str], server: str = "s", flaky: frozenset[str] = frozenset(), shard: tuple[int, int, str] | None = None) -> Night:
    return Night(
        date=f"2026-11-{day:02d}T03:00:00Z",
        server=server,
        version="1.0",
        target="python server.py",
        seed=day,
        protocol_version="2025-11-25",
        problems=tuple(sorted(NightProblem(rule, tool, "invalid-arguments", MUST, tool in flaky) for rule, tool in problems)),
        cases=100 + day,
        seconds=1.0,
        keywords=(day, 20),
        rules_exercised=("a",),
        rules_judged=("a", "b"),
        shard=shard,
    )


A, B, C = ("arguments-not-validated", "steady"), ("arguments-not-validated", "shaky"), ("tool-failure", "divide")

TEN = [
    night(1, A),
    night(2, A, B),  # B appears
    night(3, A, B),
    night(4, B),  # A fixed
    night(5, B, C),  # C appears
    night(6, B, C, flaky=frozenset({"shaky"})),
    night(7, C),  # B gone
    night(8, A, C),  # A is back
    night(9, A, C),
    night(10),  # all fixed
]
LINES = [
    "first night recorded: 1 new, 0 fixed, 0 flaky, 0 schema changes",
    "1 new, 0 fixed, 0 flaky, 0 schema changes since 2026-11-01T03:00:00Z",
    "0 new, 0 fixed, 0 flaky, 0 schema changes since 2026-11-02T03:00:00Z",
    "0 new, 1 fixed, 0 flaky, 0 schema changes since 2026-11-03T03:00:00Z",
    "1 new, 0 fixed, 0 flaky, 0 schema changes since 2026-11-04T03:00:00Z",
    "0 new, 0 fixed, 1 flaky, 0 schema changes since 2026-11-05T03:00:00Z",
    "0 new, 1 fixed, 0 flaky, 0 schema changes since 2026-11-06T03:00:00Z",
    "1 new, 0 fixed, 0 flaky, 0 schema changes since 2026-11-07T03:00:00Z",
    "0 new, 0 fixed, 0 flaky, 0 schema changes since 2026-11-08T03:00:00Z",
    "0 new, 2 fixed, 0 flaky, 0 schema changes since 2026-11-09T03:00:00Z",
]


def test_the_delta_of_each_of_ten_nights() -> None:
    assert [delta(TEN[: index + 1]).line for index in range(10)] == LINES  # type: ignore[union-attr]
    assert delta([]) is None


def test_each_problem_with_the_day_it_first_appeared() -> None:
    told = {(story.problem.tool, story.first[:10], story.last[:10], story.nights, story.present) for story in stories(TEN[:9])}
    assert told == {
        ("steady", "2026-11-01", "2026-11-09", 5, True),
        ("divide", "2026-11-05", "2026-11-09", 5, True),
        ("shaky", "2026-11-02", "2026-11-06", 5, False),
    }
    assert [story.problem.tool for story in stories(TEN[:9])] == ["divide", "steady", "shaky"], "present first, newest first"


def test_the_records_of_one_runs_shards_are_one_night() -> None:
    one = night(3, A, shard=(1, 2, "plan"))
    two = replace(night(3, B, flaky=frozenset({"shaky"}), shard=(2, 2, "plan")), date="2026-11-03T03:10:00Z")
    merged = nights([night(2, A), two, one])
    assert len(merged) == 2
    joined = merged[-1]
    assert joined.shard is None and joined.date == "2026-11-03T03:10:00Z"
    assert {p.tool for p in joined.problems} == {"steady", "shaky"} and joined.flaky == 1
    assert joined.cases == 2 * 103 and joined.keywords == (6, 40)
    again = replace(one, problems=())  # shard 1 run again replaces its first record
    assert {p.tool for p in nights([one, two, again])[0].problems} == {"shaky"}


def test_a_history_holds_each_server_apart() -> None:
    assert [n.server for n in of_server([night(1, A, server="x"), night(2, A, server="y"), night(3, server="x")], "x")] == ["x", "x"]


def test_the_file_keeps_every_night_and_skips_a_damaged_line(tmp_path: Path) -> None:
    path = tmp_path / "nights.jsonl"
    assert read(path).records == ()
    for record in TEN[:3]:
        assert append(path, record) is None
    with path.open("a", encoding="utf-8") as file:
        file.write('{"format": "mcp-toolfuzz/night", "version": 1, "date": 3')  # a job killed mid-line
    assert append(path, TEN[3]) is None
    got = read(path)
    assert got.records == tuple(TEN[:4])
    (warning,) = got.warnings
    assert warning.startswith(f"history {path}: line 4 skipped, not a night's record (") and warning.endswith("); the other nights are kept")


def test_an_unwritable_history_is_a_warning(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    warning = append(tmp_path / "file" / "nights.jsonl", TEN[0])
    assert warning is not None and warning.startswith(f"history {tmp_path / 'file' / 'nights.jsonl'} cannot be written")


# --- nights run on one corpus -----------------------------------------------------------------


FIXED_ON = ["", "", "steady", "steady", "", "steady,shaky", "", ""]
"""The bugs fixed on each of eight nights of one server: both, then steady fixed, back, both fixed, back."""


def night_run(tmp_path: Path, fixed: str, *more: str) -> tuple[int, dict[str, Any], str]:
    reports = ["--report", f"json:{tmp_path / 'r.json'}", "--report", f"html:{tmp_path / 'r.html'}", "--report", f"markdown:{tmp_path / 'r.md'}"]
    command = stdlib_server("flaky_server.py", "--counter", str(tmp_path / "count"), "--one-in", "1")
    done = mcp_toolfuzz(
        "run", "--seed", "1", "--phases", "boundary", "--processes", "1", "--no-progress", "--tools", "steady,shaky", *reports, *more, "--", *command,
        cwd=tmp_path, env={"FLAKY_FIXED": fixed},
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads((tmp_path / "r.json").read_text(encoding="utf-8")), done.stdout


@pytest.fixture(scope="module")
def eight_nights(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]], list[str]]:
    """Eight runs on one corpus, each night's JSON report and terminal output kept."""
    where = tmp_path_factory.mktemp("nights")
    reports, outputs = [], []
    for fixed in FIXED_ON:
        _, report, out = night_run(where, fixed)
        reports.append(report)
        outputs.append(out)
    return where, reports, outputs


def test_each_nights_delta_is_right(eight_nights: tuple[Path, list[dict[str, Any]], list[str]]) -> None:
    where, reports, outputs = eight_nights
    deltas = [report["delta"] for report in reports]
    expected = [
        ("first night recorded: 2 new, 0 fixed, 0 flaky, 0 schema changes", None),
        ("0 new, 0 fixed, 0 flaky, 0 schema changes", 0),
        ("0 new, 1 fixed, 0 flaky, 0 schema changes", 1),
        ("0 new, 0 fixed, 0 flaky, 0 schema changes", 2),
        ("1 new, 0 fixed, 0 flaky, 0 schema changes", 3),
        ("0 new, 2 fixed, 0 flaky, 0 schema changes", 4),
        ("2 new, 0 fixed, 0 flaky, 0 schema changes", 5),
        ("0 new, 0 fixed, 0 flaky, 0 schema changes", 6),
    ]
    for got, (counts, since) in zip(deltas, expected, strict=True):
        assert got == (counts if since is None else f"{counts} since {reports[since]['nights'][-1]['date']}"), got
    assert [len(report["nights"]) for report in reports] == list(range(1, 9))
    assert all(f"  nights: {line} ({n} in the history)" in out for n, (line, out) in enumerate(zip(deltas, outputs, strict=True), 1))
    assert (where / "r.md").read_text(encoding="utf-8").split("\n")[2] == f"**{deltas[-1]}**"
    assert len((where / "corpus" / "nights.jsonl").read_text(encoding="utf-8").splitlines()) == 8


class _Page(HTMLParser):
    """The trend's parts, as a browser's parser meets them: each picture's lines and marks."""

    def __init__(self) -> None:
        super().__init__()
        self.pictures: list[dict[str, Any]] = []
        self.texts: list[tuple[str, str]] = []
        self._text_class: str | None = None
        self.delta: list[str] = []
        self._in_delta = False
        self.scripts = 0
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "svg":
            self.pictures.append({"label": attributes.get("aria-label"), "lines": {}})
        if tag == "polyline":
            self.pictures[-1]["lines"][attributes.get("class")] = [tuple(map(float, point.split(","))) for point in (attributes.get("points") or "").split()]
        if tag == "text":
            self._text_class = attributes.get("class")
        if tag == "p" and attributes.get("class") == "delta":
            self._in_delta = True
        if tag == "script":
            self.scripts += 1
        for name in ("src", "href"):
            if attributes.get(name) and not str(attributes[name]).startswith("#"):
                self.links.append(str(attributes[name]))

    def handle_endtag(self, tag: str) -> None:
        if tag == "text":
            self._text_class = None
        if tag == "p":
            self._in_delta = False

    def handle_data(self, data: str) -> None:
        if self._text_class in ("new", "fixed"):
            self.texts.append((self._text_class, data))
        if self._in_delta:
            self.delta.append(data)


def test_the_html_draws_the_trend(eight_nights: tuple[Path, list[dict[str, Any]], list[str]]) -> None:
    where, reports, _ = eight_nights
    page = _Page()
    page.feed((where / "r.html").read_text(encoding="utf-8"))
    assert page.scripts == 0 and page.links == [], "offline: nothing loaded, no script"
    problems, coverage = page.pictures
    assert problems["label"].startswith("Findings per level over 8 nights")
    must = problems["lines"]["must"]
    assert len(must) == 8
    heights = [y for _, y in must]
    counts = [2, 2, 1, 1, 2, 0, 2, 2]
    assert [heights.index(y) for y in heights] == [counts.index(c) for c in counts], "one height per count, in the nights' order"
    assert heights[5] > heights[2] > heights[0], "fewer problems draw lower (SVG's y grows downwards)"
    assert len(coverage["lines"]["coverage"]) == 8
    assert page.texts == [("fixed", "−1"), ("new", "+1"), ("fixed", "−2"), ("new", "+2")]
    assert "".join(page.delta).startswith(reports[-1]["delta"])


def test_the_html_trend_lists_the_day_each_problem_first_appeared(eight_nights: tuple[Path, list[dict[str, Any]], list[str]]) -> None:
    where, reports, _ = eight_nights
    tree = parsed((where / "r.html").read_text(encoding="utf-8"))  # strict: the pictures parse as a browser's parser reads them
    table = next(t for t in tree.iter("table") if t.get("class") == "stories")
    first, last = reports[0]["nights"][0]["date"], reports[-1]["nights"][-1]["date"]
    assert sorted(rows(table)) == [
        ["invalid-arguments · shaky · invalid-arguments", "MUST", first, last, "7", "present"],
        ["invalid-arguments · steady · invalid-arguments", "MUST", first, last, "5", "present"],
    ]
    nights_table = next(t for t in tree.iter("table") if t.get("class") == "nights")
    assert [row[2] for row in rows(nights_table)] == ["2", "2", "0", "2", "1", "1", "2", "2"], "newest first, MUST problems"


def test_shards_sharing_a_corpus_make_one_night_and_merge_records_one(tmp_path: Path) -> None:
    for number in ("1", "2"):
        done = mcp_toolfuzz(
            "run", "--seed", "7", "--shard", f"{number}/2", "--phases", "boundary", "--processes", "1", "--no-progress", "--tries", "0",
            "--report", f"json:{tmp_path / f'shard{number}.json'}", "--", *stdlib_server("flaky_server.py", "--one-in", "1"),
            cwd=tmp_path,
        )  # fmt: skip
        assert done.returncode in (0, 1), done.stderr
    kept = read(tmp_path / "corpus" / "nights.jsonl").records
    assert [record.shard[:2] for record in kept if record.shard] == [(1, 2), (2, 2)]
    (whole,) = nights(kept)
    assert {problem.tool for problem in whole.problems} == {"steady", "shaky"}
    merged = mcp_toolfuzz(
        "merge", str(tmp_path / "shard1.json"), str(tmp_path / "shard2.json"), "--history", str(tmp_path / "merged.jsonl"),
        "--report", f"json:{tmp_path / 'merged.json'}",
        cwd=tmp_path,
    )  # fmt: skip
    assert merged.returncode == 1, merged.stderr
    (record,) = read(tmp_path / "merged.jsonl").records
    assert record.shard is None and {problem.tool for problem in record.problems} == {"steady", "shaky"}
    assert record.cases == whole.cases
    assert json.loads((tmp_path / "merged.json").read_text())["delta"] == "first night recorded: 2 new, 0 fixed, 0 flaky, 0 schema changes"


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_the_trend_renders_in_a_browser_offline(eight_nights: tuple[Path, list[dict[str, Any]], list[str]], tmp_path: Path) -> None:
    """Headless Chromium opens the page from a file, with the network off, and lays the pictures out."""
    where, _, _ = eight_nights
    flags = [
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}", "--proxy-server=http://0.0.0.0:9",
    ]  # fmt: skip
    url = (where / "r.html").as_uri()
    dom = subprocess.run(["chromium", *flags, "--dump-dom", url], capture_output=True, text=True, timeout=120, check=True).stdout
    page = _Page()
    page.feed(dom)
    assert len(page.pictures) == 2 and len(page.pictures[0]["lines"]["must"]) == 8
    shot = tmp_path / "trend.png"
    subprocess.run(["chromium", *flags, "--window-size=1200,3000", f"--screenshot={shot}", url], capture_output=True, timeout=120, check=True)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000
