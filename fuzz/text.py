"""Shortening what servers send, for messages and reports."""

from __future__ import annotations

import json
from typing import Any


def clip(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters, an ellipsis marking the cut."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def show(value: Any, limit: int) -> str:
    """A JSON value as compact JSON text, clipped."""
    return clip(json.dumps(value, ensure_ascii=False), limit)


def quote(text: str) -> str:
    """Text as a short JSON string literal, for one-line descriptions of answers."""
    return json.dumps(clip(text, 120), ensure_ascii=False)
