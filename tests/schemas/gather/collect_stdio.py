#!/usr/bin/env python3
"""Collect real MCP tool schemas from servers published on npm and PyPI.

Each server is started over stdio and asked ``initialize`` then ``tools/list``
(following ``nextCursor``) with newline-delimited JSON-RPC.  Every tool's
``inputSchema`` and ``outputSchema`` is written, exactly as the server sent it,
to ``<out>/<group>.json`` in the corpus file format used by tests/schemas/.
No de-duplication or schema checking is done here: build_corpus.py does that.

Setup (scratch dirs, never inside the repo); server-redis needs a local Redis
(``redis-server --port 6399 --bind 127.0.0.1 --save ''``) or it never answers:

    mkdir -p /tmp/schema-gather/npm && cd /tmp/schema-gather/npm && npm init -y
    PUPPETEER_SKIP_DOWNLOAD=1 npm install --ignore-scripts <the npm packages in SERVERS>
    python3 -m venv /tmp/schema-gather/pyvenv
    /tmp/schema-gather/pyvenv/bin/pip install <the "pypi" packages in SERVERS>
    python3 -m venv /tmp/schema-gather/pyvenv-mcp1
    /tmp/schema-gather/pyvenv-mcp1/bin/pip install <the "pypi-mcp1" packages in SERVERS>

Run:

    python3 collect_stdio.py --npm-dir /tmp/schema-gather/npm \
        --py-venv /tmp/schema-gather/pyvenv --py-venv-mcp1 /tmp/schema-gather/pyvenv-mcp1 --out /tmp/schema-gather/raw [NAME ...]

Not a test module (no ``test_`` prefix): pytest does not collect it.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

PROTOCOL_VERSION = "2025-06-18"
TIMEOUT_S = 20.0

# Dummy credentials: enough for servers that refuse to start without them.  No
# request ever leaves the machine: only initialize and tools/list are sent.
DUMMY = "dummy-key-for-schema-collection"

# group name -> (kind, package, bin, args, env)
#   kind "npm": bin is in <npm-dir>/node_modules/.bin; "pypi": in <py-venv>/bin;
#   "pypi-mcp1": in <py-venv-mcp1>/bin.
#   "{tmp}" in args is replaced by a scratch directory.
SERVERS: dict[str, tuple[str, str, str, list[str], dict[str, str]]] = {
    "server-everything": ("npm", "@modelcontextprotocol/server-everything", "mcp-server-everything", ["stdio"], {}),
    "server-filesystem": ("npm", "@modelcontextprotocol/server-filesystem", "mcp-server-filesystem", ["{tmp}"], {}),
    "server-memory": ("npm", "@modelcontextprotocol/server-memory", "mcp-server-memory", [], {"MEMORY_FILE_PATH": "{tmp}/memory.jsonl"}),
    "server-sequential-thinking": ("npm", "@modelcontextprotocol/server-sequential-thinking", "mcp-server-sequential-thinking", [], {}),
    "server-github": ("npm", "@modelcontextprotocol/server-github", "mcp-server-github", [], {"GITHUB_PERSONAL_ACCESS_TOKEN": DUMMY}),
    "server-puppeteer": ("npm", "@modelcontextprotocol/server-puppeteer", "mcp-server-puppeteer", [], {}),
    "server-brave-search": ("npm", "@modelcontextprotocol/server-brave-search", "mcp-server-brave-search", [], {"BRAVE_API_KEY": DUMMY}),
    "server-slack": ("npm", "@modelcontextprotocol/server-slack", "mcp-server-slack", [], {"SLACK_BOT_TOKEN": "xoxb-" + DUMMY, "SLACK_TEAM_ID": "T00000000"}),
    "server-gitlab": (
        "npm",
        "@modelcontextprotocol/server-gitlab",
        "mcp-server-gitlab",
        [],
        {"GITLAB_PERSONAL_ACCESS_TOKEN": DUMMY, "GITLAB_API_URL": "http://127.0.0.1:9/api/v4"},
    ),
    "server-google-maps": ("npm", "@modelcontextprotocol/server-google-maps", "mcp-server-google-maps", [], {"GOOGLE_MAPS_API_KEY": DUMMY}),
    "server-postgres": ("npm", "@modelcontextprotocol/server-postgres", "mcp-server-postgres", ["postgresql://127.0.0.1:9/none"], {}),
    "server-redis": ("npm", "@modelcontextprotocol/server-redis", "mcp-server-redis", ["redis://127.0.0.1:6399"], {}),
    "server-everart": ("npm", "@modelcontextprotocol/server-everart", "mcp-server-everart", [], {"EVERART_API_KEY": DUMMY}),
    "playwright-mcp": ("npm", "@playwright/mcp", "playwright-mcp", ["--headless", "--isolated"], {}),
    "notion-mcp-server": ("npm", "@notionhq/notion-mcp-server", "notion-mcp-server", [], {"NOTION_TOKEN": DUMMY}),
    "firecrawl-mcp": ("npm", "firecrawl-mcp", "firecrawl-mcp", [], {"FIRECRAWL_API_KEY": "fc-" + DUMMY}),
    "tavily-mcp": ("npm", "tavily-mcp", "tavily-mcp", [], {"TAVILY_API_KEY": "tvly-" + DUMMY}),
    "exa-mcp-server": ("npm", "exa-mcp-server", "exa-mcp-server", [], {"EXA_API_KEY": DUMMY}),
    "context7-mcp": ("npm", "@upstash/context7-mcp", "context7-mcp", [], {}),
    "chrome-devtools-mcp": ("npm", "chrome-devtools-mcp", "chrome-devtools-mcp", ["--headless", "--isolated"], {}),
    "supabase-mcp": ("npm", "@supabase/mcp-server-supabase", "mcp-server-supabase", ["--access-token", DUMMY], {}),
    "circleci-mcp": ("npm", "@circleci/mcp-server-circleci", "mcp-server-circleci", [], {"CIRCLECI_TOKEN": DUMMY}),
    "mongodb-mcp-server": ("npm", "mongodb-mcp-server", "mongodb-mcp-server", [], {"MDB_MCP_TELEMETRY": "disabled"}),
    "desktop-commander": ("npm", "@wonderwhy-er/desktop-commander", "desktop-commander", [], {}),
    "zereight-mcp-gitlab": (
        "npm",
        "@zereight/mcp-gitlab",
        "zereight-mcp-gitlab",
        [],
        {"GITLAB_PERSONAL_ACCESS_TOKEN": DUMMY, "GITLAB_API_URL": "http://127.0.0.1:9/api/v4"},
    ),
    "sentry-mcp": ("npm", "@sentry/mcp-server", "sentry-mcp", ["--access-token", DUMMY, "--host", "127.0.0.1:9", "--insecure-http"], {}),
    "stripe-mcp": ("npm", "@stripe/mcp", "@stripe/mcp/dist/index.js", ["--api-key=sk_test_" + DUMMY], {}),
    "launchdarkly-mcp": ("npm", "@launchdarkly/mcp-server", "mcp", ["start", "--api-key", DUMMY], {}),
    "next-devtools-mcp": ("npm", "next-devtools-mcp", "next-devtools-mcp", [], {"NEXT_TELEMETRY_DISABLED": "1"}),
    "azure-devops-mcp": ("npm", "@azure-devops/mcp", "mcp-server-azuredevops", ["dummy-org"], {}),
    "server-aws-kb-retrieval": (
        "npm",
        "@modelcontextprotocol/server-aws-kb-retrieval",
        "mcp-server-aws-kb-retrieval",
        [],
        {"AWS_ACCESS_KEY_ID": DUMMY, "AWS_SECRET_ACCESS_KEY": DUMMY, "AWS_REGION": "us-east-1"},
    ),
    "server-pdf": ("npm", "@modelcontextprotocol/server-pdf", "mcp-pdf-server", ["--stdio"], {}),
    "server-budget-allocator": ("npm", "@modelcontextprotocol/server-budget-allocator", "mcp-budget-allocator-server", ["--stdio"], {}),
    "server-scenario-modeler": ("npm", "@modelcontextprotocol/server-scenario-modeler", "mcp-scenario-modeler-server", ["--stdio"], {}),
    "server-customer-segmentation": ("npm", "@modelcontextprotocol/server-customer-segmentation", "mcp-customer-segmentation-server", ["--stdio"], {}),
    "server-system-monitor": ("npm", "@modelcontextprotocol/server-system-monitor", "mcp-system-monitor-server", ["--stdio"], {}),
    "server-cohort-heatmap": ("npm", "@modelcontextprotocol/server-cohort-heatmap", "mcp-cohort-heatmap-server", ["--stdio"], {}),
    "server-map": ("npm", "@modelcontextprotocol/server-map", "mcp-map-server", ["--stdio"], {}),
    "mcp-server-fetch": ("pypi", "mcp-server-fetch", "mcp-server-fetch", [], {}),
    "mcp-server-git": ("pypi", "mcp-server-git", "mcp-server-git", ["--repository", "{tmp}"], {}),
    "mcp-server-time": ("pypi", "mcp-server-time", "mcp-server-time", ["--local-timezone", "UTC"], {}),
    # These pin the mcp 1.x SDK, so they live in a venv of their own (--py-venv-mcp1).
    "mcp-server-sqlite": ("pypi-mcp1", "mcp-server-sqlite", "mcp-server-sqlite", ["--db-path", "{tmp}/test.db"], {}),
    "mcp-server-sentry": ("pypi-mcp1", "mcp-server-sentry", "mcp-server-sentry", ["--auth-token", DUMMY], {}),
    "mcp-server-calculator": ("pypi-mcp1", "mcp-server-calculator", "mcp-server-calculator", [], {}),
}


class StdioClient:
    def __init__(self, argv: list[str], env: dict[str, str], cwd: str):
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=cwd,
            text=True,
            bufsize=1,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.stderr: list[str] = []
        threading.Thread(target=self._pump, daemon=True).start()
        threading.Thread(target=self._pump_err, daemon=True).start()
        self.next_id = 1

    def _pump(self) -> None:
        assert self.proc.stdout
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _pump_err(self) -> None:
        assert self.proc.stderr
        for line in self.proc.stderr:
            if len(self.stderr) < 200:
                self.stderr.append(line.rstrip())

    def send(self, msg: dict) -> None:
        assert self.proc.stdin
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict, deadline: float) -> dict:
        rid = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no answer to {method} in time")
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                raise TimeoutError(f"no answer to {method} in time") from None
            if line is None:
                raise RuntimeError(f"server closed stdout before answering {method}")
            try:
                msg = json.loads(line)
            except json.JSONDecodeError:
                continue  # a server logging to stdout
            if not isinstance(msg, dict):
                continue
            if msg.get("id") == rid and ("result" in msg or "error" in msg):
                if "error" in msg:
                    raise RuntimeError(f"{method} error: {msg['error']}")
                return msg["result"]
            if "method" in msg and "id" in msg:  # a server->client request (roots/list, ping...)
                if msg["method"] == "roots/list":
                    self.send({"jsonrpc": "2.0", "id": msg["id"], "result": {"roots": []}})
                elif msg["method"] == "ping":
                    self.send({"jsonrpc": "2.0", "id": msg["id"], "result": {}})
                else:
                    self.send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "not supported"}})

    def close(self) -> None:
        try:
            if self.proc.stdin:
                self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=3)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def list_tools(argv: list[str], env: dict[str, str], cwd: str) -> tuple[dict, list[dict]]:
    client = StdioClient(argv, env, cwd)
    deadline = time.monotonic() + TIMEOUT_S
    try:
        init = client.request(
            "initialize",
            {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {"roots": {"listChanged": False}},
                "clientInfo": {"name": "mcp-toolfuzz-schema-gather", "version": "0.1.0"},
            },
            deadline,
        )
        client.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        tools: list[dict] = []
        cursor = None
        for _ in range(100):
            params = {"cursor": cursor} if cursor else {}
            res = client.request("tools/list", params, deadline)
            tools.extend(res.get("tools", []))
            cursor = res.get("nextCursor")
            if not cursor:
                break
        return init, tools
    except Exception as exc:
        tail = "\n".join(client.stderr[-5:])
        raise RuntimeError(f"{exc}; stderr tail: {tail}") from exc
    finally:
        client.close()


def package_version(kind: str, package: str, npm_dir: Path, py_venv: Path) -> str:
    if kind == "npm":
        pj = npm_dir / "node_modules" / package / "package.json"
        return json.loads(pj.read_text())["version"]
    out = subprocess.run(
        [str(py_venv / "bin" / "python"), "-c", f"import importlib.metadata as m; print(m.version({package!r}))"], capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--npm-dir", type=Path, default=Path("/tmp/schema-gather/npm"))
    ap.add_argument("--py-venv", type=Path, default=Path("/tmp/schema-gather/pyvenv"))
    ap.add_argument("--py-venv-mcp1", type=Path, default=Path("/tmp/schema-gather/pyvenv-mcp1"))
    ap.add_argument("--out", type=Path, default=Path("/tmp/schema-gather/raw"))
    ap.add_argument("names", nargs="*", help="server group names (default: all)")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    fail_path = args.out / "_failures.json"
    failures: dict[str, str] = json.loads(fail_path.read_text()) if fail_path.exists() else {}
    for name, (kind, package, binname, sargs, senv) in SERVERS.items():
        if args.names and name not in args.names:
            continue
        tmp = tempfile.mkdtemp(prefix=f"gather-{name}-")
        if name == "mcp-server-git":
            subprocess.run(["git", "init", "-q", tmp], check=True)
        venv = args.py_venv_mcp1 if kind == "pypi-mcp1" else args.py_venv
        bindir = args.npm_dir / "node_modules" / ".bin" if kind == "npm" else venv / "bin"
        if "/" in binname:  # a script inside node_modules, run with node
            argv = ["node", str(args.npm_dir / "node_modules" / binname)]
        else:
            argv = [str(bindir / binname)]
        argv += [a.replace("{tmp}", tmp) for a in sargs]
        env = dict(os.environ)
        env.update({k: v.replace("{tmp}", tmp) for k, v in senv.items()})
        env.setdefault("PUPPETEER_SKIP_DOWNLOAD", "1")
        try:
            version = package_version(kind, package, args.npm_dir, venv)
            init, tools = list_tools(argv, env, tmp)
        except Exception as exc:
            failures[name] = str(exc)[:400]
            print(f"FAIL {name}: {failures[name]}", file=sys.stderr)
            continue
        failures.pop(name, None)
        schemas = []
        for tool in tools:
            for key, suffix in (("inputSchema", "input"), ("outputSchema", "output")):
                if key in tool:
                    schemas.append({"id": f"{name}/{tool['name']}/{suffix}", "schema": tool[key]})
        prefix = "npm" if kind == "npm" else "pypi"
        doc = {
            "source": f"{package}@{version}",
            "collected": (
                f"stdio: initialize (protocol {PROTOCOL_VERSION}, server answered "
                f"{init.get('protocolVersion')}) then tools/list with nextCursor "
                f"pagination, by gather/collect_stdio.py"
            ),
            "schemas": schemas,
        }
        (args.out / f"{prefix}-{name}.json").write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
        print(f"ok   {name}: {package}@{version}, {len(tools)} tools, {len(schemas)} schemas", file=sys.stderr)
    fail_path.write_text(json.dumps(failures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
