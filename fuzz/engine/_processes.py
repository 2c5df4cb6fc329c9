"""Worker processes (`--processes N`): a run's tools split between N processes.

Each process has its own connection to the target. With stdio, that is its own copy of the server;
with a URL, its own session. Their events and results are merged into one run.

Why processes, not more threads? The harness computes under one GIL: Hypothesis draws and shrinks,
and the oracle judges. It also waits while the target answers. Two processes on two cores compute
side by side, and overlap each other's waits. On a 2-core machine, two processes send
far more cases per second than one (`benchmarks/throughput.py` measures it).

What a run finds does not depend on the process count. A tool is fuzzed whole by one process, chosen
from the plan alone (`assign`). Each exploration is seeded on its own and judged by its own answers
(`fuzz.engine._scheduler`). So one process or four make the same findings from the same seed, and a
test checks that the JSON reports agree. Only the first process replays the corpus.

The first worker is the harness's own process. It runs its shard on its main thread, while a second
thread collects what the others send. The others are forked before anything runs, with no threads
yet. The garbage collector's objects are frozen when they fork (`gc.freeze`, until the run ends; see
`fuzz.engine.run`). So the pages the imports filled stay shared. A collection would write to every
object's header and copy the page.

Why the parent works rather than waits: any page a process writes ends up copied once per process
that still maps it. Reference counts are such writes, and CPython 3.11 has no immortal objects. An
idle parent would keep the originals alive for nothing. Working in the parent lowers the memory
summed over the processes.

The forked processes ignore Ctrl-C, and die with the parent. The parent gets Ctrl-C, and stops its
own shard as a single-process run does. It then asks each of them to stop with SIGTERM, as a CI
runner's timeout does, and each keeps what it found. An error in one process stops the others. A
process that ends without a result loses no finding already reported. The summaries of the tools it
finished came with its events.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import replace
from multiprocessing.connection import Connection, wait
from typing import Any, cast

from fuzz.engine._conclusion import concluded
from fuzz.engine._process_events import Crashed, Done, Failed, ShardMerger
from fuzz.engine.events import Event, Listener, RunFinished
from fuzz.engine.options import ProcessPart, RunOptions
from fuzz.errors import (
    ConfigurationError,
    HandshakeError,
    HarnessError,
    TargetStartError,
)
from fuzz.judging.findings import INTERRUPTED, TERMINATED, RunResult

RunShard = Callable[[RunOptions, Listener], RunResult]

STOP_GRACE = 10.0
"""Seconds the processes get to stop and send what they found, once asked to.

They are asked on Ctrl-C, on SIGTERM, or on another process's error. This comes on top of the
engine's own grace after --max-time.
"""


def assign(kinds_per_tool: Sequence[int], count: int) -> list[int]:
    """The process of each tool, in plan order.

    Each tool goes to the process with the fewest case kinds so far, the lowest number on a tie. It
    depends on the plan alone, so every process computes the same.
    """
    load = [0] * count
    owners: list[int] = []
    for kinds in kinds_per_tool:
        owner = min(range(count), key=lambda number: (load[number], number))
        owners.append(owner)
        load[owner] += max(1, kinds)
    return owners


class _Stop(Exception):
    """The parent was asked to stop (SIGTERM)."""


def run_in_processes(options: RunOptions, listener: Listener, run_shard: RunShard) -> RunResult:
    """Run `options` in `options.processes` processes, and merge what they send.

    Each runs `run_shard` with its `ProcessPart`. The first runs in this process, on this thread.
    The others are forked. What they all send becomes one stream of events for `listener`, and one
    result.
    """
    count = options.processes
    context = multiprocessing.get_context("fork") if sys.platform == "linux" else multiprocessing.get_context("spawn")
    started = time.monotonic()
    merger = ShardMerger(options, listener, count, started)
    connections: dict[Connection, int] = {}
    processes = []
    for number in range(1, count):
        receiving, sending = context.Pipe(duplex=False)
        process = context.Process(target=_child, args=(run_shard, replace(options, process_part=ProcessPart(number, count)), sending), daemon=True)
        process.start()
        sending.close()
        connections[receiving] = number
        processes.append(process)

    def stop_all() -> None:
        for process in processes:
            if process.is_alive() and process.pid is not None:
                os.kill(process.pid, signal.SIGTERM)

    def on_failure() -> None:
        stop_all()
        if not merger.ended_here:
            os.kill(os.getpid(), signal.SIGTERM)  # this process's shard stops as on SIGTERM, keeping what it found

    collector = _Collector(connections, merger, on_failure)
    previous = signal.signal(signal.SIGTERM, _raise_stop) if threading.current_thread() is threading.main_thread() else None
    stopped: str | None = None
    try:
        collector.start()
        try:
            stopped = _run_here(options, run_shard, merger)
        except _Stop:  # the SIGTERM another process's error sent landed as this shard was ending
            stopped = TERMINATED
        if stopped is not None:
            stop_all()
            collector.until = time.monotonic() + STOP_GRACE + options.timeout
        try:
            collector.wait()
        except (KeyboardInterrupt, _Stop) as why:
            stopped = INTERRUPTED if isinstance(why, KeyboardInterrupt) else TERMINATED
            stop_all()
            collector.until = time.monotonic() + STOP_GRACE + options.timeout
            collector.wait()
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
        collector.until = 0.0
        collector.join()
        for process in processes:
            process.join(timeout=1.0)
            if process.is_alive():
                process.kill()
                process.join()
    result = concluded(merger.result(stopped, exit_codes=[0, *(process.exitcode for process in processes)]), options)
    listener(RunFinished(result))
    return result


def _run_here(options: RunOptions, run_shard: RunShard, merger: ShardMerger) -> str | None:
    """Run the first shard in this process, as a worker's.

    `merger` takes its events and its result, or its error, as it takes a worker's. Returns why it
    stopped early, when Ctrl-C or SIGTERM stopped it.
    """

    try:
        listener = _but_the_end(lambda event: merger.take_safely(0, event))
        result = run_shard(replace(options, process_part=ProcessPart(0, options.processes)), listener)
    except HarnessError as error:
        merger.take_safely(0, Failed(error))
        return None
    except (KeyboardInterrupt, _Stop) as why:
        return INTERRUPTED if isinstance(why, KeyboardInterrupt) else TERMINATED
    except Exception:
        merger.take_safely(0, Crashed(traceback.format_exc()))
        return None
    finally:
        merger.ended_safely(0)
    merger.take_safely(0, Done(result))
    return result.stopped_early if result.stopped_early in (INTERRUPTED, TERMINATED) else None


def _but_the_end(deliver: Callable[[Event], None]) -> Listener:
    """A shard's listener: its events go to the merger, except its `RunFinished`.

    The merged run's `RunFinished` is sent once, by `run_in_processes`.
    """

    def listener(event: Event) -> None:
        if not isinstance(event, RunFinished):
            deliver(event)

    return listener


def _raise_stop(signum: int, frame: Any) -> None:
    raise _Stop()


class _Collector(threading.Thread):
    """Reads what the forked processes send, on a thread of its own.

    It runs while this process runs its own shard. It goes on until each process has ended, or until
    `until`, which the main thread sets when it stops them. On a process's error, it asks the others
    to stop (`on_failure`). It waits until each has started or failed, so that the error can say
    whether other copies of the target started (see `ShardMerger.result`).
    """

    def __init__(self, connections: dict[Connection, int], merger: ShardMerger, on_failure: Callable[[], None]) -> None:
        super().__init__(name="mcp-toolfuzz worker processes", daemon=True)
        self.connections = connections
        self.merger = merger
        self.on_failure = on_failure
        self.until = float("inf")

    def run(self) -> None:
        while self.connections and time.monotonic() < self.until:
            for ready in wait(list(self.connections), timeout=0.25):
                connection = cast(Connection, ready)
                number = self.connections[connection]
                try:
                    message = connection.recv()
                except (EOFError, OSError):
                    del self.connections[connection]
                    self.merger.ended_safely(number)
                    continue
                self.merger.take_safely(number, message)
            self._stop_on_failure()
        self._stop_on_failure()

    def _stop_on_failure(self) -> None:
        with self.merger.lock:
            if self.merger.failure is None or not self.merger.settled or self.merger.stopping:
                return
            self.merger.stopping = True
        self.on_failure()

    def wait(self) -> None:
        """Wait until the thread has ended, in steps, so that signals reach the main thread.

        The signals are Ctrl-C and SIGTERM.
        """
        while self.is_alive():
            self.join(timeout=0.25)


def _child(run_shard: RunShard, options: RunOptions, connection: Connection) -> None:
    """One worker process: run its shard, send each event, then its result or error."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent()

    try:
        result = run_shard(options, _but_the_end(connection.send))
    except HarnessError as error:
        connection.send(Failed(_portable(error)))
    except BaseException:
        connection.send(Crashed(traceback.format_exc()))
    else:
        connection.send(Done(result))
    finally:
        connection.close()


def _portable(error: HarnessError) -> HarnessError:
    """The error if it survives pickling; else one of the nearest kind that does.

    The replacement keeps the error's message.
    """
    import pickle

    try:
        pickle.loads(pickle.dumps(error))
        return error
    except Exception:
        kind = next(kind for kind in type(error).__mro__ if kind in (TargetStartError, HandshakeError, ConfigurationError, HarnessError))
        return kind(str(error))


def _die_with_parent() -> None:
    """On Linux, SIGTERM this process when the parent dies.

    A `kill -9` of the harness must not leave workers fuzzing on.
    """
    if sys.platform != "linux":
        return
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
