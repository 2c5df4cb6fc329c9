"""docs/strategies.md runs: its Python blocks are executed in order as one module (an assertion
on the page fails here, with the page's line number), and every `test_` function they define is
run as the Hypothesis test it is. And every public name `strategies` exports is on the page: a
function with a section of its own and a `@given` example, an alias or a record mentioned.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

import strategies

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "strategies.md"
EXAMPLES = settings(max_examples=30, deadline=None, database=None)
"""The page's tests carry no settings of their own (they are a user's tests); here they run
briefly and without an example database, like the rest of the suite."""


def python_blocks() -> list[tuple[int, str]]:
    """The page's ```python blocks: the line each one's code starts on, and the code."""
    text = PAGE.read_text(encoding="utf-8")
    return [(text.count("\n", 0, match.start(1)) + 1, match[1]) for match in re.finditer(r"^```python\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)]


TESTS = [name for _, code in python_blocks() for name in re.findall(r"^def (test_\w+)", code, flags=re.MULTILINE)]


@pytest.fixture(scope="module")
def page() -> dict[str, Any]:
    """The page's module namespace, after every block ran (compiled at the page's own line
    numbers, so a traceback points into docs/strategies.md)."""
    namespace: dict[str, Any] = {"__name__": "docs_strategies"}
    for line, code in python_blocks():
        exec(compile("\n" * (line - 1) + code, str(PAGE), "exec"), namespace)
    return namespace


def test_the_page_has_examples() -> None:
    assert len(python_blocks()) >= 8 and len(TESTS) >= 10


@pytest.mark.parametrize("name", TESTS)
def test_the_pages_example_passes(page: dict[str, Any], name: str) -> None:
    EXAMPLES(page[name])()


def test_every_public_name_of_strategies_is_documented() -> None:
    text = PAGE.read_text(encoding="utf-8")
    code = "\n".join(code for _, code in python_blocks())
    headings = re.findall(r"^#{2,4} +(.+)$", text, flags=re.MULTILINE)
    problems = []
    for name in strategies.__all__:
        exported = getattr(strategies, name)
        if f"`{name}" not in text:
            problems.append(f"{name} is not mentioned")
        if inspect.isfunction(exported) and exported.__name__ == name:  # a strategy, not an alias
            if not any(heading.startswith(f"`{name}(") for heading in headings):
                problems.append(f"{name} has no section (a heading `{name}(...)`)")
            if not re.search(rf"^@given\(.*\b{name}\(", code, flags=re.MULTILINE):
                problems.append(f"{name} has no @given example")
    assert problems == []
