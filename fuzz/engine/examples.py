"""The example database (`fuzz.corpus.database`) as a run uses it: checked before anything is
sent, given to each exploration's Hypothesis runs, and what went wrong with it told as it
happens (a `Warned` event, from trio's thread) and kept in the run's result.

A worker process (`--processes`) opens its own connection to a Redis server on first use, and
tells its warnings as its other events; `fuzz.engine.shard_merge` says each once.
"""

from __future__ import annotations

from hypothesis.database import ExampleDatabase

from fuzz.corpus.database import check_database, example_store
from fuzz.engine.events import Listener, Warned
from fuzz.engine.options import RunOptions


def prepare_database(options: RunOptions) -> None:
    """Before a run (before its worker processes are forked): a Redis server that cannot be used
    is a ConfigurationError, and a database an earlier run in this process left out is used
    again."""
    check_database(options.database)
    example_store(options.database, options.corpus).restore()


def example_database(options: RunOptions) -> ExampleDatabase | None:
    """What Hypothesis is given as its database in this run."""
    return example_store(options.database, options.corpus).database


def announce_warnings(options: RunOptions, announced: list[str], listener: Listener) -> None:
    """Tell `listener` each warning of the database not in `announced` yet, and add it there."""
    for warning in example_store(options.database, options.corpus).warnings[len(announced) :]:
        announced.append(warning)
        listener(Warned(warning))
