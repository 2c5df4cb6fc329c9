"""Worker processes (`--processes N`): the tools of a run split between N processes, each
with its own connection to the target (its own copy of a stdio server; its own session with
a URL), their events and results merged into one run.

Why processes, not more threads: the harness computes (Hypothesis draws and shrinks, the
oracle judges) under one GIL, and waits while the target answers; two processes on two cores
compute side by side and overlap each other's waits. Measured on a 2-core machine
(`benchmarks/throughput.py`): 2.2 times the cases per second of one process on the demo, 1.8 to 2.0
times on an `mcp` SDK server.

What a run finds does not depend on the process count: a tool is fuzzed whole by one process
(`assign`, from the plan alone), and each exploration is seeded on its own and judged by its
own answers (`fuzz.engine`), so one process or four make the same findings from the same seed
(a test checks that the JSON reports agree). Only the first process replays the corpus.

The first worker is the harness's own process (it runs its shard on its main thread while a
second thread collects what the others send); the others are forked before anything runs
(no threads yet), with the garbage collector's objects frozen (`gc.freeze`, until the run
ends, here too) so that the pages the imports filled stay shared (a collection would write to
every object's header and copy the page). Why the parent works rather than waits: a page
that any process writes (a reference count, CPython 3.11 has no immortal objects) ends up
copied once per process that still maps it, and an idle parent keeps the originals; measured
on the demo, PSS summed over the processes at the defaults 142 -> 110 MB
(`benchmarks/throughput.py`). The forked ones ignore Ctrl-C (the parent, which gets it,
stops its own shard as a single-process run does and asks each of them to stop with SIGTERM,
as a CI runner's timeout does: each keeps what it found) and die with the parent; an error in
one stops the others. A process that ends without a result loses no finding already reported:
the summaries of the tools it finished came with its events.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import signal
import sys
import threading
import time
import traceback
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection, wait
from typing import Any, Callable, Sequence

from fuzz.errors import ConfigurationError, HandshakeError, HarnessError, TargetStartError
from fuzz.events import PROGRESS_EVERY, Event, Listener, Progress, RunFinished, RunStarted, ToolFinished
from fuzz.findings import INTERRUPTED, TERMINATED, RunResult, ToolSummary
from fuzz.options import RunOptions, Shard
from strategies.cases import ENVELOPE

RunShard = Callable[[RunOptions, Listener], RunResult]

STOP_GRACE = 10.0
"""Seconds the processes get to stop and send what they found once asked to (Ctrl-C, SIGTERM,
another process's error), beyond the engine's own grace after --max-time."""


def assign(kinds_per_tool: Sequence[int], count: int) -> list[int]:
    """The process of each tool, in plan order: the one with the fewest case kinds so far (the
    lowest number on a tie). Depends on the plan alone, so every process computes the same."""
    load = [0] * count
    owners: list[int] = []
    for kinds in kinds_per_tool:
        owner = min(range(count), key=lambda number: (load[number], number))
        owners.append(owner)
        load[owner] += max(1, kinds)
    return owners


@dataclass(frozen=True, slots=True)
class _Done:
    result: RunResult


@dataclass(frozen=True, slots=True)
class _Failed:
    error: HarnessError


@dataclass(frozen=True, slots=True)
class _Crashed:
    traceback: str


class _Stop(Exception):
    """The parent was asked to stop (SIGTERM)."""


def run_in_processes(options: RunOptions, listener: Listener, run_shard: RunShard) -> RunResult:
    """Run `options` in `options.processes` processes, each `run_shard` with its `Shard`: the
    first in this process (on this thread), the others forked; merge what they all send into
    one stream of events for `listener` and one result."""
    count = options.processes
    context = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
    started = time.monotonic()
    merger = _Merger(options, listener, count, started)
    connections: dict[Connection, int] = {}
    processes = []
    gc.freeze()  # what is allocated so far stays shared with the forked workers: no collection, here or there, copies its pages
    for number in range(1, count):
        receiving, sending = context.Pipe(duplex=False)
        process = context.Process(
            target=_child, args=(run_shard, replace(options, shard=Shard(number, count)), sending), daemon=True
        )
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
        gc.unfreeze()
    result = merger.result(stopped, exit_codes=[0, *(process.exitcode for process in processes)])
    listener(RunFinished(result))
    return result


def _run_here(options: RunOptions, run_shard: RunShard, merger: _Merger) -> str | None:
    """Run the first shard in this process, its events and its result (or its error) taken by
    `merger` as a worker's are; return why it stopped early when Ctrl-C or SIGTERM stopped it."""

    try:
        listener = _but_the_end(lambda event: merger.take_safely(0, event))
        result = run_shard(replace(options, shard=Shard(0, options.processes)), listener)
    except HarnessError as error:
        merger.take_safely(0, _Failed(error))
        return None
    except (KeyboardInterrupt, _Stop) as why:
        return INTERRUPTED if isinstance(why, KeyboardInterrupt) else TERMINATED
    except Exception:  # noqa: BLE001 - said as a worker's crash is, once the others have stopped
        merger.take_safely(0, _Crashed(traceback.format_exc()))
        return None
    finally:
        merger.ended_safely(0)
    merger.take_safely(0, _Done(result))
    return result.stopped_early if result.stopped_early in (INTERRUPTED, TERMINATED) else None


def _but_the_end(deliver: Callable[[Event], None]) -> Listener:
    """A shard's listener: its events delivered to the merger, but its `RunFinished` (the
    merged run's is sent once, by `run_in_processes`)."""

    def listener(event: Event) -> None:
        if not isinstance(event, RunFinished):
            deliver(event)

    return listener


def _raise_stop(signum: int, frame: Any) -> None:
    raise _Stop()


class _Collector(threading.Thread):
    """Reads what the forked processes send, on a thread of its own while this process runs its
    own shard, until each has ended or `until` (set from the main thread when it stops them).
    On a process's error, asks the others to stop (`on_failure`) once each has started or failed
    (so that the error can say whether other copies of the target started: see `_Merger.result`)."""

    def __init__(self, connections: dict[Connection, int], merger: _Merger, on_failure: Callable[[], None]) -> None:
        super().__init__(name="mcp-toolfuzz worker processes", daemon=True)
        self.connections = connections
        self.merger = merger
        self.on_failure = on_failure
        self.until = float("inf")

    def run(self) -> None:
        while self.connections and time.monotonic() < self.until:
            for connection in wait(list(self.connections), timeout=0.25):
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
        """Until the thread has ended, in steps, so that Ctrl-C and SIGTERM reach the main thread."""
        while self.is_alive():
            self.join(timeout=0.25)


def _child(run_shard: RunShard, options: RunOptions, connection: Connection) -> None:
    """One worker process: run its shard, send each event and then its result (or its error)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent()

    try:
        result = run_shard(options, _but_the_end(connection.send))
    except HarnessError as error:
        connection.send(_Failed(_portable(error)))
    except BaseException:  # noqa: B036 - whatever it is, the parent says it, not a lost pipe
        connection.send(_Crashed(traceback.format_exc()))
    else:
        connection.send(_Done(result))
    finally:
        connection.close()


def _portable(error: HarnessError) -> HarnessError:
    """The error, or one of the nearest kind that does, with its message, when it does not
    survive pickling."""
    import pickle

    try:
        pickle.loads(pickle.dumps(error))
        return error
    except Exception:  # noqa: BLE001 - any failure to pickle
        kind = next(kind for kind in type(error).__mro__ if kind in (TargetStartError, HandshakeError, ConfigurationError, HarnessError))
        return kind(str(error))


def _die_with_parent() -> None:
    """Linux: SIGTERM this process when the parent dies (a `kill -9` of the harness must not
    leave workers fuzzing on)."""
    if sys.platform != "linux":
        return
    import ctypes

    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class _Merger:
    """The processes' events as one run's: one `RunStarted` once every process has started (what
    the others sent meanwhile held back until then), tools announced finished in plan order,
    progress summed; and their results as one."""

    def __init__(self, options: RunOptions, listener: Listener, count: int, started: float) -> None:
        self.options = options
        self.listener = listener
        self.count = count
        self.started = started
        self._failures: dict[int, _Failed | _Crashed] = {}
        self.stopping = False
        """The processes have been asked to stop after an error."""
        self._run_started: dict[int, RunStarted] = {}
        self._held: list[tuple[int, Event]] = []
        self._ended: set[int] = set()
        self._results: dict[int, RunResult] = {}
        self._order: list[str] = []
        self._finished: dict[str, ToolSummary] = {}
        self._announced = 0
        self._progress: dict[int, Progress] = {}
        self._progress_sent = 0.0
        self.lock = threading.Lock()
        """Held while a message is taken: this process's shard sends from its threads, the
        collector from its own."""

    @property
    def failure(self) -> _Failed | _Crashed | None:
        """The error of the lowest-numbered process that sent one: with a target that cannot
        start, the first process's (its own), not that of one stopped by another's error."""
        return self._failures[min(self._failures)] if self._failures else None

    @property
    def settled(self) -> bool:
        """Every process has started its target, failed or ended."""
        return all(
            number in self._run_started or number in self._failures or number in self._ended for number in range(self.count)
        )

    @property
    def _all_started(self) -> bool:
        return all(number in self._run_started or number in self._ended for number in range(self.count))

    @property
    def ended_here(self) -> bool:
        """This process's own shard (the first) has ended."""
        return 0 in self._ended

    def take_safely(self, number: int, message: object) -> None:
        with self.lock:
            self.take(number, message)

    def ended_safely(self, number: int) -> None:
        with self.lock:
            self.ended(number)

    def take(self, number: int, message: object) -> None:
        if isinstance(message, _Done):
            self._results[number] = message.result
        elif isinstance(message, (_Failed, _Crashed)):
            self._failures[number] = message
        elif isinstance(message, RunStarted):
            self._run_started[number] = message
            self._release()
        elif self._all_started and self._run_started:
            self._event(number, message)  # type: ignore[arg-type]
        else:
            self._held.append((number, message))  # type: ignore[arg-type]

    def ended(self, number: int) -> None:
        self._ended.add(number)
        self._release()

    def _release(self) -> None:
        if not self._all_started or not self._run_started or self._order:
            return
        first = self._run_started[min(self._run_started)]
        self._order = ([ENVELOPE] if self.options.envelope else []) + list(first.tool_names)
        if self.failure is None:
            self.listener(first)
        held, self._held = self._held, []
        for number, event in held:
            self._event(number, event)

    def _event(self, number: int, event: Event) -> None:
        if self.failure is not None:
            return
        if isinstance(event, ToolFinished):
            self._finished[event.summary.tool] = event.summary
            self._announce()
        elif isinstance(event, Progress):
            self._progress[number] = event
            now = time.monotonic()
            if now - self._progress_sent >= PROGRESS_EVERY:
                self._progress_sent = now
                self.listener(self._summed_progress(now))
        else:
            self.listener(event)

    def _announce(self, everything: bool = False) -> None:
        while self._announced < len(self._order):
            name = self._order[self._announced]
            if name not in self._finished:
                if not everything:
                    return
            else:
                self.listener(ToolFinished(self._finished[name]))
            self._announced += 1

    def _summed_progress(self, now: float) -> Progress:
        shown = [self._progress[number] for number in sorted(self._progress)]
        lefts = [progress.left for progress in shown if progress.left is not None]
        return Progress(
            running=tuple(pair for progress in shown for pair in progress.running),
            cases=sum(progress.cases for progress in shown),
            findings=sum(progress.findings for progress in shown),
            seconds=now - self.started,
            left=min(lefts) if lefts else None,
        )

    def result(self, stopped: str | None, *, exit_codes: Sequence[int | None]) -> RunResult:
        """One result from the processes' (raising the first process's error, if any)."""
        failure = self.failure
        number = min(self._failures) if self._failures else 0
        if isinstance(failure, _Failed):
            error = failure.error
            started = sorted(self._run_started)
            if isinstance(error, TargetStartError) and started:
                raise type(error)(
                    f"{error} (the copy of the target that worker process {number + 1} of {self.count} starts, while "
                    f"that of worker process {started[0] + 1} runs: a server that allows one copy at a time needs "
                    f"--processes 1)"
                )
            raise error
        if isinstance(failure, _Crashed):
            raise RuntimeError(f"worker process {number + 1} of {self.count} failed:\n{failure.traceback}")
        self._announce(everything=True)
        if not self._results:
            raise HarnessError(f"no worker process sent a result (exit codes {list(exit_codes)}): the run could not be made")
        results = [self._results[number] for number in sorted(self._results)]
        first = results[0]
        lost = [number for number in range(self.count) if number not in self._results]
        reasons = [result.stopped_early for result in results if result.stopped_early and not result.out_of_time]
        if lost:
            reasons.append(
                f"worker process {', '.join(str(number + 1) for number in lost)} of {self.count} ended without a result "
                f"(exit code {', '.join(str(exit_codes[number]) for number in lost)}): the tools it had not finished are missing"
            )
        out_of_time = any(result.out_of_time for result in results)
        stopped_early = stopped or (reasons[0] if reasons else next(
            (result.stopped_early for result in results if result.stopped_early), None))
        summaries = {summary.tool: summary for summary in self._finished.values()}
        summaries.update({summary.tool: summary for result in results for summary in result.tools})
        place = {name: position for position, name in enumerate(self._order)}
        tools = tuple(sorted(summaries.values(), key=lambda summary: place.get(summary.tool, len(place))))
        return replace(
            first,
            tools=tools,
            seconds=time.monotonic() - self.started,
            target_restarts=sum(result.target_restarts for result in results),
            stopped_early=stopped_early,
            out_of_time=out_of_time and stopped is None and not reasons,
            replayed=self._results[0].replayed if 0 in self._results else (),
        )
