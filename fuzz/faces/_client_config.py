"""Targets from the server configs users already have: the `mcpServers` JSON of MCP clients.

Claude Desktop, Cursor and Claude Code's .mcp.json use this format. VS Code's mcp.json names the
key `servers`:

    {"mcpServers": {
        "files":  {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
                   "env": {"DEBUG": "1"}},
        "remote": {"type": "http", "url": "https://example.com/mcp",
                   "headers": {"Authorization": "Bearer ${API_TOKEN}"}}}}

Any string may name environment variables. `${NAME}` and `${env:NAME}` are replaced by the
harness's environment variable NAME. So a config in a repository names its secrets without
holding them. The legacy HTTP+SSE transport (`"type": "sse"`) is not supported.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from fuzz.errors import ConfigurationError
from fuzz.wire.target import HttpTarget, StdioTarget, TargetSpec

_VARIABLE = re.compile(r"\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}")


def target_from_config(path: Path, server: str | None) -> TargetSpec:
    """The target named `server` in the config file at `path`.

    When `server` is None, it is the file's only target, if it has one. Raises ConfigurationError
    naming what is wrong and what to do.
    """
    servers = _servers(path)
    if server is None:
        if len(servers) != 1:
            raise ConfigurationError(f"{path} configures {len(servers)} servers ({_names(servers)}); choose one with --server NAME")
        server = next(iter(servers))
    if server not in servers:
        raise ConfigurationError(f"{path} configures no server named {server!r}; it has: {_names(servers)}")
    entry = servers[server]
    where = f"{path}: server {server!r}"
    if not isinstance(entry, dict):
        raise ConfigurationError(f"{where} is {type(entry).__name__}, expected an object with command or url")
    kind = entry.get("type", "http" if "url" in entry else "stdio")
    if kind == "sse":
        raise ConfigurationError(f"{where} uses the legacy HTTP+SSE transport, which mcp-toolfuzz does not speak; give its Streamable HTTP endpoint")
    if kind in ("http", "streamable-http", "streamableHttp"):
        url = _string(entry.get("url"), f"{where}: url")
        return HttpTarget(expand_variables(url, where), _pairs(entry.get("headers", {}), f"{where}: headers"))
    if kind != "stdio":
        raise ConfigurationError(f"{where} has type {kind!r}; mcp-toolfuzz knows stdio and http")
    command = _string(entry.get("command"), f"{where}: command")
    arguments = entry.get("args", [])
    if not isinstance(arguments, list) or not all(isinstance(a, str) for a in arguments):
        raise ConfigurationError(f"{where}: args must be a list of strings")
    return StdioTarget(
        tuple(expand_variables(part, where) for part in (command, *arguments)),
        env=_pairs(entry.get("env", {}), f"{where}: env"),
    )


def _servers(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ConfigurationError(f"could not read the config {path}: {error.strerror or error}") from None
    except ValueError as error:
        raise ConfigurationError(f"{path} is not JSON ({error})") from None
    servers = data.get("mcpServers", data.get("servers")) if isinstance(data, dict) else None
    if not isinstance(servers, dict) or not servers:
        raise ConfigurationError(f'{path} has no "mcpServers" (or "servers") object naming at least one server')
    return servers


def _string(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise ConfigurationError(f"{where} must be a non-empty string")
    return value


def _pairs(value: Any, where: str) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ConfigurationError(f"{where} must be an object of strings")
    return tuple((name, expand_variables(text, where)) for name, text in value.items())


def expand_variables(text: str, where: str) -> str:
    def value_of(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in os.environ:
            raise ConfigurationError(f"{where} uses ${{{name}}}, which is not set in the environment")
        return os.environ[name]

    return _VARIABLE.sub(value_of, text)


def _names(servers: dict[str, Any]) -> str:
    return ", ".join(map(repr, servers))
