"""The house's shape, kept: a package per layer, imports only downward, no import circle.

Read from the source, without importing it. A module is one idea; its length follows. Past
`LONGEST` lines a module needs a written reason in `LONG_FOR_A_REASON`.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LONGEST = 800
LONG_FOR_A_REASON: dict[str, str] = {}
"""Modules allowed past `LONGEST`, each with why it is still one idea."""

LAYERS = ("base", "wire", "judging", "corpus", "engine", "reports", "faces", "public")
"""Bottom to top: a module may import from its own layer and those below it."""

_BASE = {"fuzz", "fuzz.errors", "fuzz.text", "fuzz.files", "fuzz.redaction"}
_PUBLIC = {"fuzz.pytest_plugin", "fuzz.__main__"}


def _layer(module: str) -> str | None:
    if module.startswith("strategies"):
        return None
    if module in _BASE:
        return "base"
    if module in _PUBLIC:
        return "public"
    if module == "fuzz.demo_server":
        return "base"
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else None


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted([*ROOT.glob("fuzz/**/*.py"), *ROOT.glob("strategies/**/*.py")]):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """The project's modules `path` imports, at any depth of its code (a deferred import counts)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in names if name in modules}


def test_a_module_past_the_usual_length_says_why() -> None:
    long = {
        name: n for name, path in _modules().items() if (n := len(path.read_text(encoding="utf-8").splitlines())) > LONGEST and name not in LONG_FOR_A_REASON
    }
    assert not long, f"modules over {LONGEST} lines without a reason in LONG_FOR_A_REASON: {long}"


def test_imports_go_down_the_layers_only_and_strategies_import_nothing_of_fuzz() -> None:
    modules = _modules()
    upward = []
    for name, path in modules.items():
        for imported in _imports(path, modules):
            if name.startswith("strategies"):
                if imported.startswith("fuzz"):
                    upward.append(f"{name} -> {imported}")
                continue
            mine, theirs = _layer(name), _layer(imported)
            if mine is not None and theirs is not None and LAYERS.index(theirs) > LAYERS.index(mine):
                upward.append(f"{name} ({mine}) -> {imported} ({theirs})")
    assert not upward, "imports up the layers:\n" + "\n".join(upward)


def test_no_import_circle() -> None:
    modules = _modules()
    graph = {name: {m for m in _imports(path, modules) if m != name and not name.startswith(m + ".")} for name, path in modules.items()}
    state: dict[str, int] = {}
    circles: list[list[str]] = []

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                circles.append([*trail[trail.index(nxt) :], nxt] if nxt in trail else [node, nxt])
            elif nxt not in state:
                visit(nxt, [*trail, nxt])
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert not circles, "import circles:\n" + "\n".join(" -> ".join(circle) for circle in circles)
