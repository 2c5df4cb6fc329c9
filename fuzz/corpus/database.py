"""Hypothesis's example database: where a run keeps the examples that failed.

A later run tries those examples first. The options are `--database URL|PATH|none` and
`--database-read-only`. By default the database is a directory beside the corpus
(`CORPUS/.hypothesis`), so that CI caches one directory. It may be another directory instead. It may
be a Redis server shared between machines (`redis://`, `rediss://`, `unix://`). That is Hypothesis's
`RedisExampleDatabase`, from the `mcp-toolfuzz[redis]` extra. It is written together with the
directory beside the corpus. Or there may be no database.

Read-only, the database named is read and never changed. Hypothesis deletes an example that no
longer fails when it tries it again. A pull request's build must not erase what the nightly run
found. With a Redis URL, the directory beside the corpus still keeps the run's own examples. That is
Hypothesis's recipe for a laptop reading a CI's database.

Once the run has started, the database is an accelerator, never a requirement. Each part of it is
`Guarded`. Its first error, such as a Redis server gone away or timed out, is said once. That part
is then left out for the rest of the run, which goes on with what is left. Hypothesis catches no
database's errors; a directory database swallows its own `OSError`s. Hypothesis's
`BackgroundWriteDatabase` hangs on a wrapped database that raises, so it is not used.

Before the run, a Redis server that cannot be used is a `ConfigurationError` (`check_database`). It
may refuse the connection, its URL may be bad, or the `redis` package may be missing. The error is one line and exit 2, before
any case is sent. A Redis URL's credentials are never printed or written
(`fuzz.redaction.redact_url`).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import Enum
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import parse_qsl, unquote, urlsplit

from hypothesis.configuration import set_hypothesis_home_dir
from hypothesis.database import (
    DirectoryBasedExampleDatabase,
    ExampleDatabase,
    MultiplexedDatabase,
    ReadOnlyDatabase,
)

from fuzz.errors import ConfigurationError
from fuzz.redaction import REDACTED, redact_url

if TYPE_CHECKING:
    from redis import Redis

DIRECTORY = ".hypothesis"
REDIS_SCHEMES = ("redis", "rediss", "unix")
NONE = "none"
REDIS_EXTRA = "pip install 'mcp-toolfuzz[redis]'"
REDIS_TIMEOUT = 2.0
"""Seconds a Redis command may take, and its connection too.

A hung server costs the run a few seconds, once, before it is left out.
"""

_T = TypeVar("_T")


class DatabaseKind(Enum):
    BESIDE_CORPUS = "beside-corpus"
    """The default: `CORPUS/.hypothesis`, none without a corpus."""
    DIRECTORY = "directory"
    REDIS = "redis"
    """A Redis server, with the directory beside the corpus (when there is a corpus)."""
    NONE = "none"


@dataclass(frozen=True, slots=True)
class DatabaseChoice:
    """Where Hypothesis keeps its examples (`--database`, `--database-read-only`)."""

    kind: DatabaseKind = DatabaseKind.BESIDE_CORPUS
    location: str = field(default="", repr=False)
    """The directory, or the Redis URL (credentials included: shown only through `shown`)."""
    read_only: bool = False

    @classmethod
    def parse(cls, text: str, *, read_only: bool = False) -> DatabaseChoice:
        """`--database`'s value; ValueError, saying what was expected, for one that is none of them."""
        value = text.strip()
        if value.lower() == NONE:
            return cls(DatabaseKind.NONE, read_only=read_only)
        scheme, separator, _ = value.partition("://")
        if separator and scheme.lower() in REDIS_SCHEMES:
            return cls(DatabaseKind.REDIS, value, read_only)
        if separator or not value:
            raise ValueError(
                f"{redact_url(value)!r} is not a place for Hypothesis's examples: give a directory, a Redis URL "
                "(redis://HOST:6379/0, rediss://..., unix:///path/to/redis.sock) or none"
            )
        return cls(DatabaseKind.DIRECTORY, value, read_only)

    @property
    def redis_url(self) -> str | None:
        return self.location if self.kind is DatabaseKind.REDIS else None

    def directory(self, corpus: Path | None) -> Path | None:
        """The directory database: --database's, else the one beside the corpus (None without)."""
        if self.kind is DatabaseKind.DIRECTORY:
            return Path(self.location)
        if self.kind is DatabaseKind.NONE or corpus is None:
            return None
        return corpus / DIRECTORY

    @property
    def shown(self) -> str:
        """The database named, as printed: a Redis URL without its credentials."""
        if self.kind is DatabaseKind.REDIS:
            return redact_url(self.location)
        return self.location or self.kind.value

    def describe(self, corpus: Path | None) -> str:
        directory = self.directory(corpus)
        parts = [f"Redis {self.shown}"] if self.redis_url else []
        parts += [f"directory {directory}"] if directory is not None else []
        if not parts:
            return "none"
        read_only = " (read-only)" if self.read_only else ""
        return (parts[0] + read_only + "".join(f", with {part}" for part in parts[1:])) if self.redis_url else parts[0] + read_only

    def as_json(self, corpus: Path | None) -> dict[str, Any]:
        directory = self.directory(corpus)
        return {
            "directory": str(directory) if directory is not None else None,
            "redis": self.shown if self.redis_url else None,
            "readOnly": self.read_only,
        }


def use_user_cache() -> Path:
    """Point Hypothesis's own storage at a per-user cache directory.

    That storage holds its unicode charmap and its constants cache. It never goes in the user's
    working directory. So a run in a fresh CI checkout reuses what an earlier run on the machine
    built. The costly table, a codec's encoding of every code point, is never built: see
    `strategies.characters.JSON_CHARACTERS`.

    The directory is `$MCP_TOOLFUZZ_CACHE`, else `$XDG_CACHE_HOME/mcp-toolfuzz/hypothesis`, else
    `~/.cache/mcp-toolfuzz/hypothesis`. The example database is apart from it: it sits beside the
    corpus (see `ExampleStore`).
    """
    chosen = os.environ.get("MCP_TOOLFUZZ_CACHE")
    if chosen:
        path = Path(chosen)
    else:
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        path = Path(base) / "mcp-toolfuzz" / "hypothesis"
    with contextlib.suppress(OSError):
        path.mkdir(parents=True, exist_ok=True)
    set_hypothesis_home_dir(path)
    return path


def check_database(choice: DatabaseChoice) -> None:
    """Raise a ConfigurationError when `choice` names a Redis server that cannot be used.

    The `redis` package may be missing. The URL may be one it cannot read. The server may not answer
    PING.
    """
    url = choice.redis_url
    if url is None:
        return
    client = _redis_client(url)
    try:
        client.ping()
    except Exception as error:  # redis.exceptions.RedisError, OSError, ...: whatever stops it
        raise ConfigurationError(
            f"--database {choice.shown}: PING failed ({_scrubbed(error, url)}); expected a Redis server that answers "
            "there (with the URL's credentials): start it or correct the URL, or run with --database none (or a directory)"
        ) from None
    finally:
        with contextlib.suppress(Exception):
            client.close()


def _redis_client(url: str) -> Redis:
    shown = redact_url(url)
    try:
        from redis import Redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry
    except ImportError:
        raise ConfigurationError(f"--database {shown} needs the redis package, which is not installed: {REDIS_EXTRA}") from None
    try:
        return Redis.from_url(url, socket_timeout=REDIS_TIMEOUT, socket_connect_timeout=REDIS_TIMEOUT, retry=Retry(NoBackoff(), 1))
    except (ValueError, TypeError) as error:
        raise ConfigurationError(
            f"--database {shown} is not a Redis URL redis-py can use ({_scrubbed(error, url)}); expected e.g. "
            "redis://HOST:6379/0, rediss://USER:PASSWORD@HOST:6380/0 or unix:///path/to/redis.sock"
        ) from None


def _scrubbed(error: BaseException, url: str) -> str:
    """The error as text, with the URL's password (should a library quote it) replaced."""
    text = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    try:
        parts = urlsplit(url)
        secrets = [parts.password or "", *(value for name, value in parse_qsl(parts.query) if "pass" in name.lower())]
    except ValueError:
        return text.replace(url, redact_url(url))
    variants = {variant for secret in secrets if secret for variant in (secret, unquote(secret))}
    for variant in sorted(variants, key=len, reverse=True):
        text = text.replace(variant, REDACTED)
    return text


class Guarded(ExampleDatabase):
    """A database whose first error leaves it out from then on, in this process.

    That first error is handed to `failed`. The database is opened on first use in each process
    (`opener`). So a worker process forked from the harness makes its own connection, never one
    inherited.
    """

    def __init__(self, name: str, opener: Callable[[], ExampleDatabase], failed: Callable[[Guarded, Exception], None]) -> None:
        super().__init__()
        self.name = name
        self._opener = opener
        self._failed = failed
        self._opened: tuple[int, ExampleDatabase] | None = None
        self._lock = threading.Lock()
        self.dropped = False

    def __repr__(self) -> str:
        return f"Guarded({self.name!r})"

    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return id(self)

    def restore(self) -> None:
        with self._lock:
            self.dropped = False

    def _call(self, use: Callable[[ExampleDatabase], _T]) -> _T | None:
        try:
            with self._lock:
                if self.dropped:
                    return None
                if self._opened is None or self._opened[0] != os.getpid():
                    self._opened = (os.getpid(), self._opener())
                database = self._opened[1]
            return use(database)
        except Exception as error:  # redis.exceptions.RedisError, OSError, TimeoutError, ...
            with self._lock:
                first, self.dropped = not self.dropped, True
            if first:
                self._failed(self, error)
            return None

    def fetch(self, key: bytes) -> Iterable[bytes]:
        yield from self._call(lambda database: list(database.fetch(key))) or ()

    def save(self, key: bytes, value: bytes) -> None:
        self._call(lambda database: database.save(key, value))

    def delete(self, key: bytes, value: bytes) -> None:
        self._call(lambda database: database.delete(key, value))

    def move(self, src: bytes, dest: bytes, value: bytes) -> None:
        self._call(lambda database: database.move(src, dest, value))

    def _start_listening(self) -> None:
        pass

    def _stop_listening(self) -> None:
        pass


class ExampleStore:
    """The example database of `choice` in this process, with what went wrong with it.

    Each part is `Guarded`. Their first errors are kept as warnings (`warnings`) for the run to
    report.
    """

    def __init__(self, choice: DatabaseChoice, corpus: Path | None) -> None:
        self.choice = choice
        self._lock = threading.Lock()
        self._warnings: list[str] = []
        self._parts: list[Guarded] = []
        directory = choice.directory(corpus)
        if directory is not None:
            read_only = choice.read_only and choice.redis_url is None
            self._parts.append(Guarded(f"directory {directory}", lambda: directory_database(directory, read_only), self._failed))
        url = choice.redis_url
        if url is not None:
            self._parts.append(Guarded(f"Redis {choice.shown}", lambda: _redis_database(url, choice.read_only), self._failed))
        self.database: ExampleDatabase | None = None if not self._parts else self._parts[0] if len(self._parts) == 1 else MultiplexedDatabase(*self._parts)
        """What Hypothesis is given (`settings(database=...)`)."""

    @property
    def warnings(self) -> tuple[str, ...]:
        with self._lock:
            return tuple(self._warnings)

    def restore(self) -> None:
        """Every part in use again, no warning: a new run, its Redis server checked."""
        with self._lock:
            self._warnings.clear()
        for part in self._parts:
            part.restore()

    def _failed(self, part: Guarded, error: Exception) -> None:
        left = [other.name for other in self._parts if not other.dropped]
        going_on = f"with the {left[0]}" if left else "without an example database"
        url = self.choice.redis_url
        reason = _scrubbed(error, url) if url else f"{type(error).__name__}: {error}"
        with self._lock:
            self._warnings.append(f"example database {part.name} failed ({reason}) and is left out for the rest of the run, which goes on {going_on}")


@cache
def example_store(choice: DatabaseChoice, corpus: Path | None) -> ExampleStore:
    """The one `ExampleStore` of `choice` in this process (its parts open per process)."""
    return ExampleStore(choice, corpus)


def directory_database(path: Path, read_only: bool) -> ExampleDatabase:
    """The directory database, or a read-only view when it cannot be written.

    A directory that exists but cannot be written or made gets a read-only view of it. One that
    cannot be made gets an empty read-only view. Read-only, nothing is made.
    """
    if read_only:
        return ReadOnlyDatabase(DirectoryBasedExampleDatabase(path))
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        return ReadOnlyDatabase(DirectoryBasedExampleDatabase(path)) if path.is_dir() else ReadOnlyDatabase(_Nothing())
    database = DirectoryBasedExampleDatabase(path)
    return ReadOnlyDatabase(database) if not os.access(path, os.W_OK) else database


def _redis_database(url: str, read_only: bool) -> ExampleDatabase:
    from hypothesis.extra.redis import RedisExampleDatabase

    database = RedisExampleDatabase(_redis_client(url))
    return ReadOnlyDatabase(database) if read_only else database


class _Nothing(ExampleDatabase):
    def fetch(self, key: bytes) -> Iterable[bytes]:
        return ()

    def save(self, key: bytes, value: bytes) -> None:
        pass

    def delete(self, key: bytes, value: bytes) -> None:
        pass
