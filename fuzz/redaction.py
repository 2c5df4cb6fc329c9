"""Keeping secrets out of everything the harness prints and writes.

A target's description reaches the terminal, JSON reports and reproduction files.
Commands, URLs, environment variables and HTTP headers carry tokens.
These functions are the one way any of them is turned into text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

REDACTED = "***"

_SECRET_OPTION = re.compile(r"^--?(?:[\w-]*(?:token|secret|password|passwd|api[-_]?key|auth)[\w-]*|H|header)$", re.I)
_SECRET_ASSIGNMENT = re.compile(r"^([\w.-]*(?:token|secret|password|passwd|api[-_]?key|auth)[\w.-]*)=(.+)$", re.I)
_SECRET_VALUE = re.compile(r"^(?:Bearer\s+\S+|sk-[\w-]{8,}|gh[pousr]_\w{16,}|xox[abp]-[\w-]+)$")


def redact_command(command: Sequence[str]) -> list[str]:
    """The command with secret-looking values replaced by `***`.

    A value is secret-looking after an option whose name says token, secret, password,
    api-key, auth or header.
    So is the value of a `NAME=value` with such a name.
    So are values that look like bearer tokens or API keys.
    A redacted command cannot be run again as it is: replay it with `-- COMMAND`."""
    redacted: list[str] = []
    hide_next = False
    for argument in command:
        if hide_next:
            redacted.append(REDACTED)
            hide_next = False
            continue
        option, equals, _ = argument.partition("=")
        if equals and _SECRET_OPTION.match(option):
            redacted.append(f"{option}={REDACTED}")
        elif _SECRET_OPTION.match(argument):
            redacted.append(argument)
            hide_next = True
        elif (match := _SECRET_ASSIGNMENT.match(argument)) is not None:
            redacted.append(f"{match.group(1)}={REDACTED}")
        elif _SECRET_VALUE.match(argument):
            redacted.append(REDACTED)
        else:
            redacted.append(argument)
    return redacted


def redact_url(url: str) -> str:
    """The URL without its password and with secret-looking query values replaced by `***`."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return REDACTED
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, host = netloc.rpartition("@")
        user = userinfo.partition(":")[0]
        netloc = f"{user}:{REDACTED}@{host}" if ":" in userinfo else f"{REDACTED}@{host}"
    query = urlencode(
        [(name, REDACTED if _SECRET_NAME.search(name) else value) for name, value in parse_qsl(parts.query, keep_blank_values=True)],
        safe="*",
    )
    redacted = urlunsplit((parts.scheme, netloc, parts.path, query, ""))
    if not netloc and url.startswith(f"{parts.scheme}://") and not redacted.startswith(f"{parts.scheme}://"):
        redacted = f"{parts.scheme}://{redacted[len(parts.scheme) + 1 :]}"  # unix:///path/to/redis.sock keeps its slashes
    return redacted


def redact_names(names: Iterable[str]) -> str:
    """`NAME: ***` for each header or variable.

    The names say what was given; the values are never shown."""
    return ", ".join(f"{name}: {REDACTED}" for name in sorted(names))


_SECRET_NAME = re.compile(r"token|secret|password|passwd|api[-_]?key|auth|key|sig|session|code", re.I)
