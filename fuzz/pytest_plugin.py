"""The pytest plugin's public face, imported in a server's test suite.

A test suite writes `from fuzz.pytest_plugin import invariants`.
The plugin itself is `fuzz.faces.pytest_hooks`.
pytest loads its hooks through the `pytest11` entry point."""

from __future__ import annotations

from fuzz.faces.pytest_hooks import invariants

__all__ = ["invariants"]
