from __future__ import annotations

from fuzz.faces.console import entry_point

entry_point()
