from __future__ import annotations

from fuzz.cli import entry_point

entry_point()
