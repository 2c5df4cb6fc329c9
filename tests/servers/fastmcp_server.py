"""Fixture MCP server built with FastMCP 4 (PyPI ``fastmcp`` 4.2.3, which runs
on the official SDK ``mcp`` 2.3.0 / ``mcp-types`` 2.3.0); served over stdio.

Tools:
  add(a, b)        two integers
  explode(reason)  always raises ValueError
  secret(x)        registered, then disabled with FastMCP's visibility API
                   ``mcp.disable(names={"secret"})`` (FastMCP >= 3: components
                   have no enable()/disable() of their own any more)
  weather(city)    return type is a pydantic model, so FastMCP derives an
                   outputSchema and returns a conforming structuredContent
  mirror(output)   "mirror tool": declares an explicit outputSchema and returns
                   a ``CallToolResult`` whose structuredContent is ``output``
                   unchanged (plus a text block with its JSON); the tool never
                   checks ``output``, so what reaches the wire shows whether
                   FastMCP validates against outputSchema.

Run (fastmcp is a test dependency: pip install ".[test]"): python fastmcp_server.py
"""

import json
import logging
from typing import Any

from fastmcp import FastMCP
from mcp_types import CallToolResult, TextContent
from pydantic import BaseModel, Field

MIRROR_OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "celsius": {"type": "number", "minimum": -100, "maximum": 100},
    },
    "required": ["city", "celsius"],
    "additionalProperties": False,
}

mcp = FastMCP("fastmcp-fixture", version="0.1.0")
# The SDK logs each exception a tool raises with a rich-rendered traceback, which costs almost a
# second per call and tells the tests nothing (the wire answer is what they judge): logging is off.
logging.disable(logging.CRITICAL)


class Weather(BaseModel):
    city: str
    celsius: float = Field(ge=-100, le=100)


@mcp.tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@mcp.tool
def explode(reason: str) -> str:
    """Always raises ValueError."""
    raise ValueError(f"boom: {reason}")


@mcp.tool
def secret(x: int) -> int:
    """A tool that is registered but disabled."""
    return x


@mcp.tool
def weather(city: str) -> Weather:
    """Return a (fake) conforming weather report."""
    return Weather(city=city, celsius=3)


@mcp.tool(output_schema=MIRROR_OUTPUT_SCHEMA)
def mirror(output: Any) -> CallToolResult:
    """Return `output` unchanged as structuredContent (not checked by the tool)."""
    return CallToolResult(
        content=[TextContent(type="text", text=json.dumps(output))],
        structured_content=output,
    )


mcp.disable(names={"secret"})


if __name__ == "__main__":
    mcp.run("stdio", show_banner=False)
