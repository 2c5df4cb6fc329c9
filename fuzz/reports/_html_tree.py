"""The HTML report's building blocks (`fuzz.reports._html`).

A page is an `xml.etree.ElementTree` tree serialised with `method="html"`. So every string in it is
a text node or an attribute value. The serialiser escapes it (`&`, `<`, `>`, `"`). No string is ever
pasted into markup.

`tag` is the only way the report makes an element, and it keeps the rest of the rules. A `str` child
is text, made `printable` first. Control, bidi and invisible characters are written as escapes, as
the terminal shows them. A `Verbatim` child is multi-line text for a `<pre>`. Only `json_block` and
`lines_block` make one. `json_block` writes JSON as `fuzz.text.json_text` does. `lines_block` makes
each line `printable`.

Some elements' text a browser reads raw (`script`, `style`, ...). `tag` cannot make them. The one
`<style>` is the constant `CSS`, put in by `page`. Attributes are a fixed few. An `href` must be a
link inside the page (`#...`).

The page loads nothing. Its CSS is inline, and it has no script, no font and no external URL. Its
Content-Security-Policy forbids them anyway (`default-src 'none'`). That guards against a string
that ever gets past the serialiser.
"""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from fuzz.text import json_text, printable

Element = ElementTree.Element


@dataclass(frozen=True, slots=True)
class Verbatim:
    """Text shown as it is, line breaks included (in a `<pre>`): already made safe to show."""

    text: str


Child = Element | str | Verbatim | None
"""A child of `tag`: an element, text, verbatim text, or nothing (left out)."""

_RAW_TEXT = frozenset({"script", "style", "iframe", "noembed", "noframes", "noscript", "plaintext", "xmp", "template", "textarea", "title"})
"""Elements whose content a browser does not parse as markup (or, for `title`, that `page` makes)."""
_ATTRIBUTES = frozenset({"class", "id", "href", "title", "open", "scope", "colspan", "rowspan"})


def tag(name: str, *children: Child, **attributes: str | int | bool | None) -> Element:
    """An element: `tag("td", "text", cls="violated", title="why")`.

    `cls` is `class`. An attribute that is None or False is left out. One that is True is written
    bare (`open`).
    """
    if name in _RAW_TEXT or not name.isalnum():
        raise ValueError(f"the report does not make <{name}> elements")
    element = Element(name)
    for key, value in attributes.items():
        key = "class" if key == "cls" else key
        if key not in _ATTRIBUTES:
            raise ValueError(f"the report does not write {key}= attributes")
        if value is None or value is False:
            continue
        text = "" if value is True else printable(str(value))
        if key == "href" and not text.startswith("#"):
            raise ValueError("the report links only inside itself")
        element.set(key, text)
    add(element, *children)
    return element


_SHAPES = frozenset({"svg", "g", "polyline", "line", "circle", "text", "rect"})
_SHAPE_ATTRIBUTES = frozenset(
    {"viewBox", "width", "height", "x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "points", "class", "role", "aria-label", "text-anchor"}
)


def shape(name: str, *children: Child, attributes: dict[str, str | int | float] | None = None) -> Element:
    """An inline SVG element (the trend's pictures): `shape("circle", attributes={"cx": 3, "cy": 4, "r": 2})`.

    The element and attribute names are a fixed few, drawing only: no `href`, no `style`, no
    event handler, nothing loaded. Numbers are written to two decimals. Text children are made
    `printable`, as `tag`'s are.
    """
    if name not in _SHAPES:
        raise ValueError(f"the report does not make <{name}> shapes")
    element = Element(name)
    for key, value in (attributes or {}).items():
        if key not in _SHAPE_ATTRIBUTES:
            raise ValueError(f"the report does not write {key}= attributes on shapes")
        element.set(key, f"{value:.2f}".rstrip("0").rstrip(".") if isinstance(value, float) else printable(str(value)))
    add(element, *children)
    return element


def add(element: Element, *children: Child) -> Element:
    """Append children to `element` (as `tag` does), and return it."""
    for child in children:
        if child is None:
            continue
        if isinstance(child, Element):
            element.append(child)
            continue
        text = child.text if isinstance(child, Verbatim) else printable(child)
        if len(element):
            last = element[-1]
            last.tail = (last.tail or "") + text
        else:
            element.text = (element.text or "") + text
    return element


def json_block(value: Any) -> Verbatim:
    """A JSON value as indented JSON text (`fuzz.text.json_text`: it reads back the same value)."""
    return Verbatim(json_text(value, indent=2))


def lines_block(lines: Iterable[str]) -> Verbatim:
    """Lines (the server's stderr, replay commands), each `printable`, one per line."""
    return Verbatim("\n".join(printable(line) for line in lines))


def cell(cell: Child, name: str = "td", **attributes: str) -> Element:
    """`cell` if it is a `td` or a `th` element, else a `name` element holding it."""
    return cell if isinstance(cell, Element) and cell.tag in ("td", "th") else tag(name, cell, **attributes)


def table(head: Iterable[Child], rows: Iterable[Iterable[Child] | Element], cls: str | None = None) -> Element:
    """A table: a header row of `head`, then `rows`, each a `tr` or its cells.

    A cell that is a `td` or a `th` element is the cell itself. Anything else is put in one: a `th`
    in the head, a `td` elsewhere.
    """
    body = tag("tbody")
    for row in rows:
        body.append(row if isinstance(row, Element) else tag("tr", *map(cell, row)))
    return tag("table", tag("thead", tag("tr", *(cell(name, "th", scope="col") for name in head))), body, cls=cls)


def page(title: str, body: Iterable[Element]) -> str:
    """The whole document: `<!DOCTYPE html>`, a head with the CSS and the policy, then `body`."""
    root = Element("html", {"lang": "en"})
    head = ElementTree.SubElement(root, "head")
    ElementTree.SubElement(head, "meta", {"charset": "utf-8"})
    ElementTree.SubElement(head, "meta", {"http-equiv": "Content-Security-Policy", "content": "default-src 'none'; style-src 'unsafe-inline'; img-src data:"})
    ElementTree.SubElement(head, "meta", {"name": "viewport", "content": "width=device-width, initial-scale=1"})
    ElementTree.SubElement(head, "title").text = printable(title)
    ElementTree.SubElement(head, "style").text = CSS
    add(ElementTree.SubElement(root, "body"), *body)
    return "<!DOCTYPE html>\n" + ElementTree.tostring(root, encoding="unicode", method="html") + "\n"


CSS = """
:root { color-scheme: light dark; --fg: #1f2328; --bg: #ffffff; --muted: #59636e; --line: #d1d9e0; --soft: #f6f8fa;
  --must: #cf222e; --should: #bc4c00; --advisory: #0969da; --ok: #1a7f37; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6edf3; --bg: #0d1117; --muted: #9198a1; --line: #3d444d; --soft: #151b23;
    --must: #ff7b72; --should: #f0883e; --advisory: #58a6ff; --ok: #3fb950; } }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg);
  max-width: 80rem; margin: 0 auto; padding: 1.5rem; }
h1 { font-size: 1.6rem; margin: 0 0 .5rem; } h2 { font-size: 1.3rem; margin-top: 2.5rem; border-bottom: 1px solid var(--line); }
h3, h4 { font-size: 1.05rem; margin: 1.5rem 0 .5rem; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .85rem; }
pre { background: var(--soft); border: 1px solid var(--line); border-radius: 6px; padding: .6rem .8rem; overflow-x: auto;
  white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; }
table { border-collapse: collapse; margin: .5rem 0 1rem; font-size: .9rem; }
th, td { border: 1px solid var(--line); padding: .25rem .5rem; text-align: left; vertical-align: top; overflow-wrap: anywhere; }
thead th { background: var(--soft); }
nav a { margin-right: 1rem; } a { color: var(--advisory); }
.verdict { font-size: 1.1rem; padding: .6rem .9rem; border-radius: 6px; border-left: 6px solid var(--ok); background: var(--soft); }
.verdict.fails { border-left-color: var(--must); } .verdict.stopped { border-left-color: var(--should); }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: .1rem 1rem; margin: 1rem 0; }
.facts dt { color: var(--muted); } .facts dd { margin: 0; }
.level { font-weight: 600; padding: 0 .35rem; border-radius: 4px; color: var(--bg); }
.level.must { background: var(--must); } .level.should { background: var(--should); } .level.advisory { background: var(--advisory); }
.problem { border: 1px solid var(--line); border-left: 6px solid var(--advisory); border-radius: 6px; padding: .2rem 1rem 1rem; margin: 1rem 0; }
.problem.must { border-left-color: var(--must); } .problem.should { border-left-color: var(--should); }
.problem h3, .problem h4 { margin-top: .6rem; } h5 { font-size: .85rem; margin: .8rem 0 .3rem; color: var(--muted); }
ol.steps { padding-left: 1.4rem; margin: .3rem 0 .8rem; } ol.steps li { margin: .2rem 0 .6rem; }
p.reused { margin: .3rem 0; color: var(--muted); }
.exchange { display: grid; grid-template-columns: repeat(auto-fit, minmax(22rem, 1fr)); gap: 0 1rem; }
blockquote.spec { margin: .4rem 0; padding: .2rem .8rem; border-left: 3px solid var(--line); color: var(--muted); }
.story { display: grid; grid-template-columns: max-content 1fr; gap: .1rem 1rem; margin: .5rem 0; } .story dt { color: var(--muted); } .story dd { margin: 0; }
.matrix td { text-align: center; font-weight: 600; }
.matrix thead th.rule { writing-mode: vertical-rl; transform: rotate(180deg); white-space: nowrap; font-weight: 500; }
td.violated { color: var(--must); } td.clean { color: var(--ok); } td.not-exercised { color: var(--muted); font-weight: 400; }
tr.unreached td { background: color-mix(in srgb, var(--should) 12%, transparent); } td.zero { color: var(--should); font-weight: 600; }
td.number { text-align: right; font-variant-numeric: tabular-nums; }
details { margin: .4rem 0; } summary { cursor: pointer; }
.muted, footer { color: var(--muted); } footer { margin-top: 3rem; font-size: .85rem; }
svg.trend { width: 100%; max-width: 48rem; height: auto; display: block; margin: .5rem 0 1rem; }
svg.trend .axis { stroke: var(--line); } svg.trend text { fill: var(--muted); font-size: 11px; }
svg.trend polyline { fill: none; stroke-width: 2; } svg.trend circle { stroke: none; }
svg.trend .must { stroke: var(--must); fill: var(--must); } svg.trend .should { stroke: var(--should); fill: var(--should); }
svg.trend .advisory { stroke: var(--advisory); fill: var(--advisory); } svg.trend .coverage { stroke: var(--ok); fill: var(--ok); }
svg.trend .flaky { stroke: var(--muted); fill: var(--muted); stroke-dasharray: 4 3; }
svg.trend text.new { fill: var(--must); font-weight: 600; } svg.trend text.fixed { fill: var(--ok); font-weight: 600; }
svg.trend polyline.must, svg.trend polyline.should, svg.trend polyline.advisory, svg.trend polyline.coverage, svg.trend polyline.flaky { fill: none; }
.legend span { margin-right: 1rem; } .legend .must { color: var(--must); } .legend .should { color: var(--should); }
.legend .advisory { color: var(--advisory); } .legend .coverage { color: var(--ok); } .legend .flaky { color: var(--muted); }
p.delta { font-size: 1.05rem; font-weight: 600; } table.stories td:nth-child(n+2), table.nights td { white-space: nowrap; }
"""
"""The report's only style: inline, no font or image loaded."""
