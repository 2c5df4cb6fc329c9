"""Fresh targets for the sequence phase, one at hand whenever a sequence begins.

Each sequence starts from a target no other sequence touched; Hypothesis runs hundreds of them
(its shrinking most), and a restart of a Python server over stdio costs about 40 ms: most of
the phase's time. So a spare is started beside the target in use, while the sequence runs, and
swapped in when the next one begins; the old one is closed in the background. A target given by
URL is never restarted (there is one server): `fresh` gives the same one.
"""

from __future__ import annotations

import trio

from fuzz.errors import HarnessError, TargetStartError
from fuzz.wire.framing import DEFAULT_MAX_MESSAGE_BYTES
from fuzz.wire.target import RESTART_GRACE, HttpTarget, Target, TargetSpec


class FreshTargets:
    """The target in use and its spare, in `nursery` (which must outlive them: `aclose` first)."""

    def __init__(self, spec: TargetSpec, nursery: trio.Nursery, *, startup_timeout: float, protocol_version: str | None,
                 max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES) -> None:
        self._spec = spec
        self._nursery = nursery
        self._startup_timeout = startup_timeout
        self._protocol_version = protocol_version
        self._max_message_bytes = max_message_bytes
        self._spare: Target | None = None
        self._spare_ready = trio.Event()
        self._spare_failed: HarnessError | None = None
        self._closing = False
        self._open: set[Target] = set()
        self.current: Target

    async def start(self) -> Target:
        """The first target (raises TargetStartError when it does not start), and its spare."""
        self.current = await self._started()
        self._prepare_spare()
        return self.current

    async def fresh(self) -> Target:
        """A target no sequence has touched: the spare, once it has started."""
        if isinstance(self._spec, HttpTarget):
            return self.current
        await self._spare_ready.wait()
        if self._spare_failed is not None or self._spare is None:
            raise TargetStartError(f"a fresh target for the next sequence did not start: {self._spare_failed}")
        old, self.current = self.current, self._spare
        self._nursery.start_soon(self._close, old)
        self._prepare_spare()
        return self.current

    async def aclose(self) -> None:
        self._closing = True
        for target in list(self._open):
            await self._close(target)

    def _prepare_spare(self) -> None:
        if isinstance(self._spec, HttpTarget) or self._closing:
            return
        self._spare, self._spare_ready, self._spare_failed = None, trio.Event(), None
        self._nursery.start_soon(self._start_spare, self._spare_ready)

    async def _start_spare(self, ready: trio.Event) -> None:
        try:
            spare = await self._started()
        except HarnessError as error:
            self._spare_failed = error
        else:
            if self._closing:
                await self._close(spare)
            else:
                self._spare = spare
        finally:
            ready.set()

    async def _started(self) -> Target:
        target = Target(self._spec, self._nursery, startup_timeout=self._startup_timeout, protocol_version=self._protocol_version,
                        max_message_bytes=self._max_message_bytes)
        self._open.add(target)
        try:
            await target.start()
        except BaseException:
            self._open.discard(target)
            raise
        return target

    async def _close(self, target: Target) -> None:
        self._open.discard(target)
        await target.close_for_good(grace=RESTART_GRACE)
