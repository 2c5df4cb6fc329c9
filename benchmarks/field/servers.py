"""The published servers of the field run: what each is, how it is installed and started.

Every version is pinned: npm's through `package.json` and `package-lock.json` beside this file
(installed with `npm ci`), PyPI's through `locks/<name>.txt`, the `pip freeze` of the server's own
virtual environment (installed with `pip install --no-deps -r`). A command's `{npm}`, `{venv}` and
`{work}` are the npm prefix, the server's virtual environment and its scratch directory.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Server:
    name: str
    registry: str
    """`npm` or `pypi`."""
    package: str
    version: str
    sdk: str
    """What speaks MCP in it: the SDK (and its version in the lock), or `hand-rolled`."""
    language: str
    command: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict)
    """Set in the sandbox (placeholders only: no key or token is real)."""
    setup: str | None = None
    """What its scratch directory must hold first: `git-repo`, `files`."""
    note: str = ""
    """Why it is run this way (what a key or backend it lacks does)."""
    executable: str | None = None
    """A file in the virtual environment the install makes executable (a wrapper would chmod it at its first start)."""
    options: tuple[str, ...] = ()
    """mcp-toolfuzz options beyond the defaults, and why in `note`."""


NPM = "{npm}/node_modules"

SERVERS: tuple[Server, ...] = (
    Server(
        "server-everything",
        "npm",
        "@modelcontextprotocol/server-everything",
        "2026.8.31",
        "TypeScript SDK 1.x",
        "TypeScript",
        ("node", f"{NPM}/@modelcontextprotocol/server-everything/dist/index.js", "stdio"),
    ),
    Server(
        "server-filesystem",
        "npm",
        "@modelcontextprotocol/server-filesystem",
        "2026.8.31",
        "TypeScript SDK 1.x",
        "TypeScript",
        ("node", f"{NPM}/@modelcontextprotocol/server-filesystem/dist/index.js", "{work}/files"),
        setup="files",
    ),
    Server(
        "server-memory",
        "npm",
        "@modelcontextprotocol/server-memory",
        "2026.8.31",
        "TypeScript SDK 1.x",
        "TypeScript",
        ("node", f"{NPM}/@modelcontextprotocol/server-memory/dist/index.js"),
        env={"MEMORY_FILE_PATH": "{work}/memory.jsonl"},
    ),
    Server(
        "server-sequential-thinking",
        "npm",
        "@modelcontextprotocol/server-sequential-thinking",
        "2026.8.31",
        "TypeScript SDK 1.x",
        "TypeScript",
        ("node", f"{NPM}/@modelcontextprotocol/server-sequential-thinking/dist/index.js"),
    ),
    Server(
        "server-brave-search",
        "npm",
        "@modelcontextprotocol/server-brave-search",
        "0.6.2",
        "TypeScript SDK 1.0.1",
        "TypeScript",
        ("node", f"{NPM}/@modelcontextprotocol/server-brave-search/dist/index.js"),
        env={"BRAVE_API_KEY": "field-run-placeholder"},
        note="needs a Brave API key and the network: it is given a placeholder key and has no network",
    ),
    Server(
        "server-github",
        "npm",
        "@modelcontextprotocol/server-github",
        "2025.4.8",
        "TypeScript SDK 1.0.1",
        "TypeScript",
        ("node", f"{NPM}/@modelcontextprotocol/server-github/dist/index.js"),
        env={"GITHUB_PERSONAL_ACCESS_TOKEN": "field-run-placeholder"},
        note="needs a GitHub token and the network: it is given a placeholder token and has no network",
    ),
    Server(
        "mcp-server-commands",
        "npm",
        "mcp-server-commands",
        "0.5.0",
        "TypeScript SDK 1.9.0",
        "TypeScript",
        ("node", f"{NPM}/mcp-server-commands/build/index.js"),
    ),
    Server(
        "stock-sdk",
        "npm",
        "stock-sdk",
        "2.4.4",
        "hand-rolled (no SDK)",
        "JavaScript",
        ("node", f"{NPM}/stock-sdk/dist/cli.js", "mcp"),
        note="its tools fetch market data from the network, which it does not have",
    ),
    Server(
        "mcp-cron",
        "npm",
        "mcp-cron-linux-amd64",
        "0.9.1",
        "Go SDK (modelcontextprotocol/go-sdk)",
        "Go",
        (
            f"{NPM}/mcp-cron-linux-amd64/bin/mcp-cron",
            "--transport",
            "stdio",
            "--db-path",
            "{work}/results.db",
            "--mcp-config-path",
            "{work}/mcp.json",
            "--log-file",
            "{work}/mcp-cron.log",
        ),
        note="its AI tasks need an OpenAI key: none is given; fuzzed with --processes 1 (a second copy finds its database locked and exits)",
        options=("--processes", "1"),
    ),
    Server(
        "mcp-time",
        "npm",
        "mcp-time-linux-x64",
        "0.4.0",
        "mcp-go (mark3labs)",
        "Go",
        (f"{NPM}/mcp-time-linux-x64/bin/mcp-time", "--transport", "stdio"),
        env={"TZ": "UTC"},
    ),
    Server(
        "mcp-server-fetch",
        "pypi",
        "mcp-server-fetch",
        "2026.10.24",
        "Python SDK 2.x (low-level Server)",
        "Python",
        ("{venv}/bin/mcp-server-fetch",),
        note="its one tool fetches a URL: there is no network",
    ),
    Server(
        "mcp-server-time",
        "pypi",
        "mcp-server-time",
        "2026.10.19",
        "Python SDK 2.x (low-level Server)",
        "Python",
        ("{venv}/bin/mcp-server-time", "--local-timezone", "UTC"),
    ),
    Server(
        "mcp-server-git",
        "pypi",
        "mcp-server-git",
        "2026.10.19",
        "Python SDK 2.x (low-level Server)",
        "Python",
        ("{venv}/bin/mcp-server-git", "--repository", "{work}/repo"),
        setup="git-repo",
    ),
    Server(
        "mcp-server-sqlite",
        "pypi",
        "mcp-server-sqlite",
        "2025.4.25",
        "Python SDK 1.x (low-level Server)",
        "Python",
        ("{venv}/bin/mcp-server-sqlite", "--db-path", "{work}/field.db"),
    ),
    Server(
        "mcp-server-calculator",
        "pypi",
        "mcp-server-calculator",
        "0.2.1",
        "Python SDK 1.x (FastMCP)",
        "Python",
        ("{venv}/bin/mcp-server-calculator",),
    ),
    Server(
        "duckduckgo-mcp-server",
        "pypi",
        "duckduckgo-mcp-server",
        "0.7.0",
        "Python SDK 2.x (MCPServer)",
        "Python",
        ("{venv}/bin/duckduckgo-mcp-server",),
        note="its tools search and fetch on the network, which it does not have",
    ),
    Server(
        "astro-airflow-mcp",
        "pypi",
        "astro-airflow-mcp",
        "0.9.1",
        "FastMCP 3.x",
        "Python",
        ("{venv}/bin/astro-airflow-mcp", "--transport", "stdio"),
        note=(
            "needs an Airflow server (none runs: its default URL is refused, and each call spends about 1.5 s finding that out); "
            "fuzzed on 4 of its 34 tools with --max-examples 10, as the defaults on all of them would take hours"
        ),
        options=("--tools", "get_airflow_version,list_variables,get_variable,list_connections", "--max-examples", "10"),
    ),
    Server(
        "mcp-grafana",
        "pypi",
        "mcp-grafana",
        "2.1.1",
        "mcp-go (mark3labs)",
        "Go",
        ("{venv}/bin/mcp-grafana",),
        executable="lib/python3.11/site-packages/mcp_grafana/bin/mcp-grafana",
        note=(
            "needs a Grafana server (none runs: its default URL is refused); its Python wrapper makes the Go binary executable at its first start, "
            "which a read-only install cannot, so the install step does it"
        ),
    ),
    Server(
        "ai-workbench-mcp",
        "pypi",
        "alptugharun-ai-workbench-mcp",
        "0.1.0a2",
        "hand-rolled (no SDK)",
        "Python",
        ("{venv}/bin/alptugharun-ai-workbench-mcp",),
    ),
)

BY_NAME = {server.name: server for server in SERVERS}
