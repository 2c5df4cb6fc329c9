"""A target kept open in a thread of its own, for callers that are not trio.

The pytest plugin starts a server once, and fuzzes it tool by tool from pytest's thread. The thread
runs a trio run that opens the target (`fuzz.wire.target.open_target`), then waits. `run` sends it a
call (`fuzz.engine.run.run_on`) and waits until it is done. `close` cancels whatever runs there and
closes the target: its process is killed, or a session deleted. It does so after a Ctrl-C in the
caller's thread too.

The caller waits in slices of `WAIT_SLICE`, not in one blocking wait. Python runs a signal's handler
only where the main thread runs Python code. The kernel may hand a SIGINT to another thread, since
the run's own threads are busy. That does not wake a main thread blocked on a lock. So a Ctrl-C
stops `run` within a slice, and the call in flight is then cancelled.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import trio

from fuzz.errors import HarnessError, first_leaf
from fuzz.wire.framing import DEFAULT_MAX_MESSAGE_BYTES
from fuzz.wire.target import Target, TargetSpec, open_target

T = TypeVar("T")

CLOSE_GRACE = 10.0
"""Seconds `close` waits for the thread to close the target.

After a Ctrl-C, `run` waits as long for its call to end.
"""

WAIT_SLICE = 0.1
"""Seconds: how often the caller of `run` wakes, to see a Ctrl-C."""


class HostedTarget:
    def __init__(
        self, spec: TargetSpec, *, startup_timeout: float, protocol_version: str | None = None, max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES
    ) -> None:
        self.spec = spec
        self._max_message_bytes = max_message_bytes
        self._startup_timeout = startup_timeout
        self._protocol_version = protocol_version
        self._ready = threading.Event()
        self._token: trio.lowlevel.TrioToken | None = None
        self._scope: trio.CancelScope | None = None
        self._nursery: trio.Nursery | None = None
        self._target: Target | None = None
        self.error: HarnessError | None = None
        """Why the target could not be opened."""
        self._thread = threading.Thread(target=self._serve, name="mcp-toolfuzz target", daemon=True)
        self._thread.start()
        self._ready.wait()
        if self.error is not None:
            raise self.error

    @property
    def target(self) -> Target:
        assert self._target is not None
        return self._target

    def _serve(self) -> None:
        try:
            trio.run(self._main)
        except BaseException as error:
            leaf = first_leaf(error)
            self.error = leaf if isinstance(leaf, HarnessError) else HarnessError(f"the target's thread failed: {type(leaf).__name__}: {leaf}")
        finally:
            self._ready.set()

    async def _main(self) -> None:
        self._token = trio.lowlevel.current_trio_token()
        with trio.CancelScope() as scope:
            self._scope = scope
            async with open_target(
                self.spec, startup_timeout=self._startup_timeout, protocol_version=self._protocol_version, max_message_bytes=self._max_message_bytes
            ) as target:
                self._target = target
                async with trio.open_nursery() as nursery:
                    self._nursery = nursery
                    self._ready.set()
                    await trio.sleep_forever()

    def run(self, function: Callable[..., Awaitable[T]], *arguments: Any) -> T:
        """`await function(self.target, *arguments)` in the target's thread.

        A Ctrl-C meanwhile cancels it and is raised (see the module's docstring).
        """
        if self._token is None or self._nursery is None or not self._thread.is_alive():
            raise HarnessError(f"the target {self.spec.describe()} is closed")
        done = threading.Event()
        scope = trio.CancelScope()
        box: dict[str, Any] = {}

        async def call() -> None:
            try:
                with scope:
                    box["value"] = await function(self.target, *arguments)
            except Exception as error:
                box["error"] = error
            finally:
                done.set()

        try:
            trio.from_thread.run_sync(self._nursery.start_soon, call, trio_token=self._token)
        except trio.RunFinishedError:
            raise HarnessError(f"the target {self.spec.describe()} is closed") from None
        try:
            while not done.wait(WAIT_SLICE):
                pass
        except KeyboardInterrupt:
            with contextlib.suppress(trio.RunFinishedError):
                trio.from_thread.run_sync(scope.cancel, trio_token=self._token)
            done.wait(CLOSE_GRACE)
            raise
        if "error" in box:
            raise box["error"]
        if "value" not in box:
            raise HarnessError(f"the call to the target {self.spec.describe()} was cancelled (the target was closed)")
        return box["value"]  # type: ignore[no-any-return]

    def close(self) -> None:
        if self._thread.is_alive() and self._token is not None and self._scope is not None:
            with contextlib.suppress(trio.RunFinishedError):
                trio.from_thread.run_sync(self._scope.cancel, trio_token=self._token)
        self._thread.join(timeout=CLOSE_GRACE)
