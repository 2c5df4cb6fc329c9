"""Fixture MCP server built with the official Python SDK's high-level API.

Uses ``mcp.server.mcpserver.MCPServer`` (the mcp 2.x successor of FastMCP) and
its ``@tool()`` decorator; served over stdio.  Written against mcp 2.3.0
(PyPI ``mcp``).  Run: ``python python_sdk_highlevel.py``.
"""

import logging
from mcp.server.mcpserver import MCPServer

mcp = MCPServer("python-sdk-highlevel", version="0.1.0")
# The SDK logs each exception a tool raises with a rich-rendered traceback, which costs almost a
# second per call and tells the tests nothing (the wire answer is what they judge): logging is off.
logging.disable(logging.CRITICAL)


@mcp.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@mcp.tool()
def greet(name: str) -> str:
    """Greet someone by name."""
    return f"Hello, {name}."


@mcp.tool()
def explode(reason: str) -> str:
    """Always raises ValueError."""
    raise ValueError(f"boom: {reason}")


@mcp.tool()
def divide(a: float, b: float) -> float:
    """Divide a by b (raises ZeroDivisionError when b == 0)."""
    return a / b


if __name__ == "__main__":
    mcp.run("stdio")
