"""The pytest plugin's public face: `from fuzz.pytest_plugin import invariants` in a server's
test suite. The plugin itself, whose hooks pytest loads through the `pytest11` entry point, is
`fuzz.faces.pytest_plugin`."""

from __future__ import annotations

from fuzz.faces.pytest_plugin import invariants

__all__ = ["invariants"]
