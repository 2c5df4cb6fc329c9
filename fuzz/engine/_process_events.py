"""The worker processes' messages, and their events and results merged into one run's.

`fuzz.engine._processes` hands the merged stream to its listener as if one process had made the run.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

from fuzz.engine.events import (
    PROGRESS_EVERY,
    Event,
    Listener,
    Progress,
    RunStarted,
    ToolFinished,
    Warned,
)
from fuzz.engine.options import RunOptions
from fuzz.errors import HarnessError, TargetStartError
from fuzz.judging.findings import RunResult, ToolSummary


@dataclass(frozen=True, slots=True)
class Done:
    result: RunResult


@dataclass(frozen=True, slots=True)
class Failed:
    error: HarnessError


@dataclass(frozen=True, slots=True)
class Crashed:
    traceback: str


class ShardMerger:
    """The processes' events and results as one run's.

    One `RunStarted` is sent once every process has started. What the others sent meanwhile is held
    back until then. Tools are announced finished in plan order, and progress is summed. The results
    become one.
    """

    def __init__(self, options: RunOptions, listener: Listener, count: int, started: float) -> None:
        self.options = options
        self.listener = listener
        self.count = count
        self.started = started
        self._failures: dict[int, Failed | Crashed] = {}
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
        self._warned: list[str] = []
        """The warnings told so far, each once whichever processes sent it."""
        self.lock = threading.Lock()
        """Held while a message is taken.

        This process's shard sends from its threads, and the collector from its own.
        """

    @property
    def failure(self) -> Failed | Crashed | None:
        """The error of the lowest-numbered process that sent one.

        With a target that cannot start, that is the first process's own error. It is not that of a
        process stopped by another's error.
        """
        return self._failures[min(self._failures)] if self._failures else None

    @property
    def settled(self) -> bool:
        """Every process has started its target, failed or ended."""
        return all(number in self._run_started or number in self._failures or number in self._ended for number in range(self.count))

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
        if isinstance(message, Done):
            self._results[number] = message.result
        elif isinstance(message, (Failed, Crashed)):
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
        self._order = list(first.units)
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
        elif isinstance(event, Warned):
            if event.warning not in self._warned:
                self._warned.append(event.warning)
                self.listener(event)
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
        """One result from the processes' results.

        Raises the first process's error, if any.
        """
        failure = self.failure
        number = min(self._failures) if self._failures else 0
        if isinstance(failure, Failed):
            error = failure.error
            started = sorted(self._run_started)
            if isinstance(error, TargetStartError) and started:
                raise type(error)(
                    f"{error} (the copy of the target that worker process {number + 1} of {self.count} starts, while "
                    f"that of worker process {started[0] + 1} runs: a server that allows one copy at a time needs "
                    f"--processes 1)"
                )
            raise error
        if isinstance(failure, Crashed):
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
        stopped_early = stopped or (reasons[0] if reasons else next((result.stopped_early for result in results if result.stopped_early), None))
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
            warnings=tuple(dict.fromkeys([*self._warned, *(warning for result in results for warning in result.warnings)])),
        )
