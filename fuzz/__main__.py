from __future__ import annotations

from fuzz.console import entry_point

entry_point()
