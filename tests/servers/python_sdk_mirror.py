"""Fixture MCP server with a "mirror tool", built with the official Python SDK's
high-level ``mcp.server.mcpserver.MCPServer`` (PyPI ``mcp`` 2.3.0, wire types
from ``mcp-types`` 2.3.0); served over stdio.

Tools:
  add(a, b)       two integers (control)
  mirror(output)  returns a ``CallToolResult`` whose structuredContent is
                  ``output`` unchanged (plus a text block with its JSON).  The
                  return annotation ``Annotated[CallToolResult, Weather]`` is
                  the SDK's way to declare an outputSchema for a tool that
                  builds its own ``CallToolResult``: the schema is derived from
                  the pydantic model ``Weather`` (extra="forbid" gives
                  additionalProperties: false).  The tool never checks
                  ``output``; the SDK validates ``structured_content`` against
                  ``Weather`` before answering.

MCPServer 2.3.0 has no API to disable a tool (only ``remove_tool(name)``, after
which the tool is simply unknown), so there is no ``secret`` tool here.

Run: ``.venv/bin/python tests/servers/python_sdk_mirror.py`` (the project venv's python, from the
checkout's root).
"""

import json
import logging
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, TextContent
from pydantic import BaseModel, ConfigDict, Field

mcp = MCPServer("python-sdk-mirror", version="0.1.0")
# The SDK logs each exception a tool raises with a rich-rendered traceback, which costs almost a
# second per call and tells the tests nothing (the wire answer is what they judge): logging is off.
logging.disable(logging.CRITICAL)


class Weather(BaseModel):
    """Declared output of the mirror tool."""

    model_config = ConfigDict(extra="forbid")

    city: str
    celsius: float = Field(ge=-100, le=100)


@mcp.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@mcp.tool()
def mirror(output: Any) -> Annotated[CallToolResult, Weather]:
    """Return `output` unchanged as structuredContent (not checked by the tool)."""
    return CallToolResult(
        content=[TextContent(type="text", text=json.dumps(output))],
        structured_content=output,
    )


if __name__ == "__main__":
    mcp.run("stdio")
