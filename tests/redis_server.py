"""Real Redis servers for the tests of `--database redis://` (no mock): `redis-server` started on
a free port of 127.0.0.1, nothing saved to disk, stopped afterwards. A machine without
`redis-server` fails these tests with the line that says how to install it (CI installs it:
`.ci/run`)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass

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


@contextmanager
def redis_server(*, password: str | None = None, startup: float = 10.0) -> Iterator[RedisServer]:
    executable = shutil.which("redis-server")
    if executable is None:
        pytest.fail("redis-server is not on PATH: the --database redis:// tests need it (apt-get install redis-server)")
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
