"""The example database (`fuzz.corpus.database`) as a run uses it.

It is checked before anything is sent, and given to each exploration's Hypothesis runs. What goes
wrong with it is told as it happens, as a `Warned` event from trio's thread. The run's result keeps
it too.

A worker process (`--processes`) opens its own connection to a Redis server on first use. It tells
its warnings as its other events, and `fuzz.engine._process_events` says each once.
"""

from __future__ import annotations

from hypothesis.database import ExampleDatabase

from fuzz.corpus.database import check_database, example_store
from fuzz.engine.events import Listener, Warned
from fuzz.engine.options import RunOptions


def prepare_database(options: RunOptions) -> None:
    """Check the database before a run, and before its worker processes are forked.

    A Redis server that cannot be used is a ConfigurationError. A database an earlier run in this
    process left out is used again.
    """
    check_database(options.database)
    example_store(options.database, options.corpus).restore()


def example_database(options: RunOptions) -> ExampleDatabase | None:
    """What Hypothesis is given as its database in this run."""
    return example_store(options.database, options.corpus).database


def announce_warnings(options: RunOptions, announced: list[str], listener: Listener) -> None:
    """Tell `listener` each database warning not in `announced` yet, and add it there."""
    for warning in example_store(options.database, options.corpus).warnings[len(announced) :]:
        announced.append(warning)
        listener(Warned(warning))
