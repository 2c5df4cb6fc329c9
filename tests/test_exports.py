"""Each package's face, kept: a module is private (`_name.py`) unless another package imports it.

A module that a module of another package imports is public: its name has no leading `_`, and
its package's `__all__` names it. Every other module is private and its name starts with `_`.
Imports from tests and benchmarks do not count; a few modules keep their names whoever imports
them (`NAMED_AS_THEY_ARE`, `PRIVATE_PACKAGE`). A package whose `__init__` holds only its docstring
lists exactly its public modules and packages. Read from the source with `tests/test_layers.py`'s
import graph; only `__all__` is checked by importing.
"""

from __future__ import annotations

import ast
import functools
import importlib
from pathlib import Path

from tests.test_layers import _imports, _modules

NAMED_AS_THEY_ARE = {"fuzz.__main__", "fuzz.pytest_plugin", "fuzz.faces.pytest_hooks", "fuzz.demo_server"}
"""Public whoever imports them: `python -m fuzz`, the users' import, pytest's entry point, and
`python -m fuzz.demo_server` (the command committed reproductions record)."""

USER_API = "strategies"
"""Its `__all__` is what a user may import (docs/strategies.md, tests/test_strategies_docs.py), and
no module: the modules the harness imports keep their names but stay out of it."""

PRIVATE_PACKAGE = "strategies._hypothesis"
"""A private package already: its modules keep their names."""


def _packages() -> dict[str, Path]:
    return {name: path for name, path in _modules().items() if path.name == "__init__.py"}


def _package_of(name: str) -> str:
    return name.rpartition(".")[0]


@functools.cache
def _imported_from_outside() -> frozenset[str]:
    """The modules a module of another package imports (a package's own `__init__` is inside it)."""
    modules, packages = _modules(), _packages()
    found = set()
    for name, path in modules.items():
        importer = name if name in packages else _package_of(name)
        found.update(imported for imported in _imports(path, modules) if imported not in packages and _package_of(imported) != importer)
    return frozenset(found)


def _public(package: str) -> set[str]:
    """The names of `package`'s public submodules: those imported from outside, the named exceptions, and its public packages."""
    outside = _imported_from_outside()
    return {
        name.rpartition(".")[2]
        for name in _modules()
        if _package_of(name) == package
        and name != f"{package}.__main__"
        and (name in outside or name in NAMED_AS_THEY_ARE or (name in _packages() and not name.rpartition(".")[2].startswith("_")))
    }


def _only_lists_modules(path: Path) -> bool:
    """Whether an `__init__` holds nothing but its docstring and `__all__`."""
    body = ast.parse(path.read_text(encoding="utf-8")).body
    return all(
        (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))
        or (isinstance(node, ast.ImportFrom) and node.module == "__future__")
        or (isinstance(node, ast.Assign) and [target.id for target in node.targets if isinstance(target, ast.Name)] == ["__all__"])
        for node in body
    )


def _all(package: str) -> list[str]:
    names = getattr(importlib.import_module(package), "__all__", None)
    assert isinstance(names, list), f"{package} has no __all__ list"
    return names


def test_a_module_imported_from_outside_its_package_is_public_and_named_in_all() -> None:
    wrong = []
    for name in sorted(_imported_from_outside()):
        package, _, last = name.rpartition(".")
        if last.startswith("_") and not package.startswith(PRIVATE_PACKAGE):
            wrong.append(f"{name} is imported from outside {package} but its name starts with '_'")
        if package != USER_API and last not in _all(package):
            wrong.append(f"{name} is imported from outside {package} but {package}.__all__ does not name it")
    assert not wrong, "\n".join(wrong)


def test_a_module_imported_only_within_its_package_is_private() -> None:
    outside, packages = _imported_from_outside(), _packages()
    public = sorted(
        name
        for name in _modules()
        if name not in outside | NAMED_AS_THEY_ARE
        and name not in packages
        and not name.startswith(PRIVATE_PACKAGE + ".")
        and not name.rpartition(".")[2].startswith("_")
    )
    assert not public, "modules imported only within their package, whose names need a leading '_':\n" + "\n".join(public)


def test_every_name_in_all_exists() -> None:
    missing = []
    for package in sorted(_packages()):
        imported = importlib.import_module(package)
        for name in _all(package):
            if not hasattr(imported, name):
                try:
                    importlib.import_module(f"{package}.{name}")
                except ModuleNotFoundError:
                    missing.append(f"{package}.{name}")
    assert not missing, f"names in __all__ that do not exist: {missing}"


def test_a_package_that_lists_modules_lists_exactly_its_public_ones() -> None:
    """A package that re-exports names lists them too: its public modules are among them."""
    wrong = {}
    for package, path in sorted(_packages().items()):
        listed, public = set(_all(package)), _public(package) if package != USER_API else set()
        if (listed != public) if _only_lists_modules(path) else not public <= listed:
            wrong[package] = {"__all__": sorted(listed), "public": sorted(public)}
    assert not wrong, f"__all__ and the package's public modules differ: {wrong}"


def test_all_never_names_a_private_module() -> None:
    private = [f"{package}.{name}" for package in sorted(_packages()) for name in _all(package) if name.startswith("_") and f"{package}.{name}" in _modules()]
    assert not private, f"__all__ names private modules: {private}"
