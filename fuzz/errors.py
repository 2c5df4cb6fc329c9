"""The harness's own errors: the run could not be made (exit code 2).

They are kept apart from findings (exit code 1), which are data, not exceptions.
Each message says what happened, what was expected, and what to try.
The CLI prints it as one line.
"""

from __future__ import annotations


class HarnessError(Exception):
    """Root of every error that stops a run before it could judge the target."""

    exit_code = 2


class TargetStartError(HarnessError):
    """The target could not be started, or exited before it finished the MCP handshake."""

    opening: HandshakeError | None = None
    """What opening the connection raised, when it was that."""


class HandshakeError(HarnessError):
    """The target answered `initialize` or `tools/list` with something the harness cannot use."""


class ConfigurationError(HarnessError):
    """The command line or a configuration file asks for something that cannot be done."""


class ReportError(HarnessError):
    """A file given as a run's JSON report is not one this mcp-toolfuzz can read back.

    `mcp-toolfuzz merge` reads such files.
    The message names the file, what in it is wrong, and what was expected."""


def first_leaf(error: BaseException) -> BaseException:
    """The first exception that is not a group.

    Trio's nurseries wrap what they raise in groups."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error
