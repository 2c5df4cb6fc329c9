"""The dispatcher's alone gate against the misbehaving server: an alone send waits for the
requests in flight to end, but not for one the target has dropped."""

from __future__ import annotations

import time

import trio

from fuzz.engine.dispatch import PRESUMED_DROPPED, Dispatcher, Sent
from fuzz.wire.replies import Answered
from fuzz.wire.target import open_target
from strategies import Case, CaseKind
from tests.conftest import python_server

MISBEHAVING = python_server("misbehaving_server.py")


def _call(tool: str, n: int) -> Case:
    return Case(CaseKind.VALID_ARGUMENTS, tool, {"name": tool, "arguments": {"n": n}}, f"{tool} n={n}")


def _alone_beside(*batches: list[Case]) -> tuple[Sent, float, list[Sent]]:
    """Send each of `batches` in the background, 0.1 s apart (so that they are written in that
    order), then (0.3 s later) one case alone; returns the alone outcome, how long the alone
    send took, and the outcomes of the batches that ended meanwhile."""

    async def main() -> tuple[Sent, float, list[Sent]]:
        async with open_target(MISBEHAVING, startup_timeout=20) as target:
            dispatcher = Dispatcher(target, ping_timeout=2)
            batch_outcomes: list[Sent] = []

            async def background(batch: list[Case]) -> None:
                batch_outcomes.extend(await dispatcher.send(batch, timeout=30))

            async with trio.open_nursery() as nursery:
                for batch in batches:
                    nursery.start_soon(background, batch)
                    await trio.sleep(0.1)
                await trio.sleep(0.3)
                started = time.monotonic()
                outcome = await dispatcher.alone(_call("garbage", 1), timeout=10)
                took = time.monotonic() - started
                finished = list(batch_outcomes)
                nursery.cancel_scope.cancel()
            return outcome, took, finished

    return trio.run(main)


def test_an_alone_send_does_not_wait_for_a_request_the_target_dropped() -> None:
    outcome, took, ended = _alone_beside([_call("hang", 100)], [_call("crash", 1), _call("slow", 2)])
    assert isinstance(outcome.exchange.reply, Answered)
    assert len(ended) == 2, "the hang request is still in flight (30 s timeout), the later ones were answered"
    assert took < PRESUMED_DROPPED + 3, f"the alone send waited {took:.1f} s behind a dropped request"


def test_an_alone_send_waits_for_a_slow_request_that_nothing_overtook() -> None:
    outcome, took, _ = _alone_beside([_call("crash", 1)], [_call("slow", 100)])
    assert isinstance(outcome.exchange.reply, Answered)
    assert took >= 1.5, f"the alone send took {took:.2f} s: it did not wait for the slow answer (2 s after the batch)"
