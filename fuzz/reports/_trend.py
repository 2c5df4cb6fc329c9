"""The HTML report's nights: the delta since the last night, the trend as pictures, the problems' days.

A nightly job's reader wants to see at a glance whether the server is getting better. So the report
draws, over the nights of the history (`fuzz.judging.nights`), the problems per level and the flaky
ones, then the share of schema keywords reached on every side; each night that brought new problems
is marked `+N` above it, each that saw problems go `−N`. Under the pictures, the same figures as a
table (what a screen reader or a parser reads), and each problem with the day it first appeared.

The pictures are inline SVG made of a few drawing elements (`_html_tree.shape`): nothing loaded, no
script, so the page opens offline as every report does.
"""

from __future__ import annotations

from collections.abc import Sequence

from fuzz.judging.findings import LEVELS, Night, NightProblem, RunResult
from fuzz.judging.nights import ProblemStory, delta, stories
from fuzz.judging.rules import Level
from fuzz.reports._html_tree import Child, Element, shape, table, tag
from fuzz.reports.problems import NIGHT_COLUMNS, NIGHTS_SHOWN, display, night_cells

WIDTH, LEFT, RIGHT, TOP, BOTTOM = 720, 44, 16, 26, 34
"""The pictures' box and margins, in SVG units (they scale to the page's width)."""
PROBLEMS_HEIGHT, COVERAGE_HEIGHT = 220, 150
_CLASSES = {level.label: level.value for level in Level}
"""A level's label (`MUST`) to its CSS class (`must`)."""


def nights_section(result: RunResult, heading: str, key: str) -> Element | None:
    """The section, or None when the run kept no history (`--history`)."""
    change = delta(result.nights)
    if change is None:
        return None
    shown = result.nights[-NIGHTS_SHOWN:]
    listed = []
    if change.since is not None:
        listed += [(f"New since {change.since}", change.new), (f"Gone since {change.since}", change.fixed)]
    listed.append(("Flaky tonight", change.flaky))
    return tag(
        "section",
        tag(heading, "Nights"),
        tag("p", change.line, cls="delta"),
        *(_problem_list(title, problems) for title, problems in listed if problems),
        tag("p", f"The last {len(shown)} of {len(result.nights)} nights kept in the history, oldest on the left.", cls="muted"),
        _legend(),
        problems_picture(shown),
        coverage_picture(shown),
        _nights_table(shown),
        tag("h4", "Each finding and the day it first appeared"),
        table(
            ["finding", "level", "first seen", "last seen", "nights", "tonight"],
            (_story_row(story) for story in stories(result.nights)),
            cls="stories",
        ),
        id=f"{key}nights",
    )


def _story_row(story: ProblemStory) -> list[Child]:
    problem = story.problem
    tonight = ("flaky" if problem.flaky else "present") if story.present else "gone"
    return [f"{problem.rule} · {display(problem.tool)} · {problem.case}", problem.level, story.first, story.last, str(story.nights), tonight]


def _problem_list(title: str, problems: Sequence[NightProblem]) -> Element:
    return tag("div", tag("h4", title), tag("ul", *(tag("li", f"{p.rule} · {display(p.tool)} · {p.case} case [{p.level}]") for p in problems)))


def _legend() -> Element:
    entries = [tag("span", f"— {label} findings", cls=_CLASSES[label]) for label in LEVELS]
    return tag("p", *entries, tag("span", "- - flaky", cls="flaky"), tag("span", "— keywords reached", cls="coverage"), cls="legend")


def _x(index: int, count: int) -> float:
    inner = WIDTH - LEFT - RIGHT
    return LEFT + inner / 2 if count == 1 else LEFT + inner * index / (count - 1)


def problems_picture(nights: Sequence[Night]) -> Element:
    """Problems per level and flaky problems, a line each, with the nights that added or removed some."""
    height = PROBLEMS_HEIGHT
    series = {label: [night.by_level().get(label, 0) for night in nights] for label in LEVELS}
    series["flaky"] = [night.flaky for night in nights]
    top = max(1, *(max(values) for values in series.values()))
    scale = (height - TOP - BOTTOM) / top

    def y(value: float) -> float:
        return height - BOTTOM - value * scale

    parts = _axes(nights, height, top_label=str(top))
    for name, values in series.items():
        css = _CLASSES.get(name, name)
        points = " ".join(f"{_x(i, len(nights)):.1f},{y(v):.1f}" for i, v in enumerate(values))
        parts.append(shape("polyline", attributes={"points": points, "class": css}))
        parts += [shape("circle", attributes={"cx": _x(i, len(nights)), "cy": y(v), "r": 2.5, "class": css}) for i, v in enumerate(values)]
    for index in range(1, len(nights)):
        before = {problem.key for problem in nights[index - 1].problems}
        now = {problem.key for problem in nights[index].problems}
        marks = [text for text in (f"+{len(now - before)}" if now - before else "", f"−{len(before - now)}" if before - now else "") if text]
        for offset, text in enumerate(marks):
            css = "new" if text.startswith("+") else "fixed"
            at: dict[str, str | int | float] = {"x": _x(index, len(nights)), "y": 12 + 12 * offset, "class": css, "text-anchor": "middle"}
            parts.append(shape("text", text, attributes=at))
    label = f"Findings per level over {len(nights)} nights, from {nights[0].day} to {nights[-1].day}"
    return shape("svg", *parts, attributes={"viewBox": f"0 0 {WIDTH} {height}", "class": "trend problems", "role": "img", "aria-label": label})


def coverage_picture(nights: Sequence[Night]) -> Element:
    """The share of schema keywords reached on every side, 0 to 100 %, a night each."""
    height = COVERAGE_HEIGHT
    scale = (height - TOP - BOTTOM) / 100

    def y(percent: float) -> float:
        return height - BOTTOM - percent * scale

    parts = _axes(nights, height, top_label="100%")
    shares = [(index, night.coverage) for index, night in enumerate(nights) if night.coverage is not None]
    if shares:
        points = " ".join(f"{_x(i, len(nights)):.1f},{y(100 * share):.1f}" for i, share in shares)
        parts.append(shape("polyline", attributes={"points": points, "class": "coverage"}))
        parts += [shape("circle", attributes={"cx": _x(i, len(nights)), "cy": y(100 * share), "r": 2.5, "class": "coverage"}) for i, share in shares]
    label = f"Schema keywords reached on every side over {len(nights)} nights"
    return shape("svg", *parts, attributes={"viewBox": f"0 0 {WIDTH} {height}", "class": "trend coverage-picture", "role": "img", "aria-label": label})


def _axes(nights: Sequence[Night], height: int, top_label: str) -> list[Element]:
    bottom = height - BOTTOM
    parts = [
        shape("line", attributes={"x1": LEFT, "y1": bottom, "x2": WIDTH - RIGHT, "y2": bottom, "class": "axis"}),
        shape("line", attributes={"x1": LEFT, "y1": TOP, "x2": LEFT, "y2": bottom, "class": "axis"}),
        shape("text", top_label, attributes={"x": LEFT - 6, "y": TOP + 4, "text-anchor": "end"}),
        shape("text", "0", attributes={"x": LEFT - 6, "y": bottom + 4, "text-anchor": "end"}),
        shape("text", nights[0].day, attributes={"x": _x(0, len(nights)), "y": height - 12, "text-anchor": "start" if len(nights) > 1 else "middle"}),
    ]
    if len(nights) > 1:
        parts.append(shape("text", nights[-1].day, attributes={"x": _x(len(nights) - 1, len(nights)), "y": height - 12, "text-anchor": "end"}))
    return parts


def _nights_table(nights: Sequence[Night]) -> Element:
    return table(NIGHT_COLUMNS, (night_cells(night) for night in reversed(nights)), cls="nights")
