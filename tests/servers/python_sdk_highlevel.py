"""Fixture MCP server built with the official Python SDK's high-level API.

Uses ``mcp.server.mcpserver.MCPServer`` (the mcp 2.x successor of FastMCP) and
its ``@tool()`` decorator.  Written against mcp 2.3.0 (PyPI ``mcp``).

Run: ``python python_sdk_highlevel.py`` serves stdio (newline-delimited JSON-RPC);
``python python_sdk_highlevel.py --http PORT`` serves the same tools as Streamable HTTP
on http://127.0.0.1:PORT/mcp (stateful: the SDK issues an ``Mcp-Session-Id`` on
initialize; POST answers are SSE streams, the SDK default ``json_response=False``).
"""

import argparse
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--http", type=int, metavar="PORT", help="serve Streamable HTTP on 127.0.0.1:PORT/mcp")
    args = parser.parse_args()
    if args.http is None:
        mcp.run("stdio")
        return
    import uvicorn  # a dependency of mcp

    # Build the SDK's Starlette app (its lifespan runs the session manager) and serve it ourselves so that
    # uvicorn stays quiet; host 127.0.0.1 makes the SDK enable its DNS-rebinding check (Host 127.0.0.1:*,
    # localhost:*, [::1]:* are accepted).
    app = mcp.streamable_http_app(streamable_http_path="/mcp", host="127.0.0.1")
    uvicorn.run(app, host="127.0.0.1", port=args.http, log_level="warning", access_log=False)


if __name__ == "__main__":
    main()
