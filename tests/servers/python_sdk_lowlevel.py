"""Fixture MCP server built with the official Python SDK's low-level ``Server``.

Tools and their JSON Schema inputSchemas are declared by hand in the
``on_list_tools`` handler; ``on_call_tool`` dispatches by name and raises a
plain exception for unknown names.  The SDK's default behaviour is kept: in
mcp 2.3.0 the low-level server does not validate arguments against
inputSchema, so none is added here.
Served over stdio, or with ``--http PORT`` as Streamable HTTP on http://127.0.0.1:PORT/mcp
(the SDK's ``streamable_http_app``: both eras on one endpoint, chosen by the
``MCP-Protocol-Version`` header).  Written against mcp 2.3.0 (PyPI ``mcp``).
Run: ``python python_sdk_lowlevel.py [--http PORT]``.
"""

import anyio
import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server

TOOLS = [
    types.Tool(
        name="add",
        description="Add two integers in [-1000, 1000].",
        input_schema={
            "type": "object",
            "properties": {
                "a": {"type": "integer", "minimum": -1000, "maximum": 1000},
                "b": {"type": "integer", "minimum": -1000, "maximum": 1000},
            },
            "required": ["a", "b"],
            "additionalProperties": False,
        },
    ),
    types.Tool(
        name="color",
        description="Echo one of three colour names.",
        input_schema={
            "type": "object",
            "properties": {"name": {"type": "string", "enum": ["red", "green", "blue"]}},
            "required": ["name"],
            "additionalProperties": False,
        },
    ),
    types.Tool(
        name="explode",
        description="Always raises RuntimeError.",
        input_schema={"type": "object", "properties": {}, "additionalProperties": False},
    ),
]


async def list_tools(ctx: ServerRequestContext, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx: ServerRequestContext, params: types.CallToolRequestParams) -> types.CallToolResult:
    args = params.arguments or {}
    if params.name == "add":
        text = str(args["a"] + args["b"])
    elif params.name == "color":
        text = f"colour: {args['name']}"
    elif params.name == "explode":
        raise RuntimeError("boom")
    else:
        raise ValueError(f"Unknown tool: {params.name}")
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


server = Server("python-sdk-lowlevel", version="0.1.0", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int, metavar="PORT", help="serve Streamable HTTP on 127.0.0.1:PORT/mcp")
    port = parser.parse_args().http
    if port is None:
        anyio.run(main)
    else:
        import uvicorn  # a dependency of mcp

        app = server.streamable_http_app(streamable_http_path="/mcp", host="127.0.0.1")
        uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)
