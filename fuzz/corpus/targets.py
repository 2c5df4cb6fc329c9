"""Which target a reproduction belongs to, from one night to the next.

A corpus directory may be shared by several targets. An example is a nightly job fuzzing two servers
with the default `--corpus corpus`. Each target's reproductions go to a subdirectory of their own,
named by the target's key. A run replays its own target's files alone. It judges "already in the
corpus" against them alone too.

A target is its server's name (`serverInfo.name`) and how it is reached.

A stdio server is reached by its command, secrets redacted. The interpreter or package runner is
named without its directory or version. So `/usr/bin/python3.12` is `python`: another virtualenv or
a newer interpreter is the same target. Version pins are dropped. So `pkg@1.2.3`, `pkg==1.2.3` and
`image:1.2` are `pkg` and `image`: a new release is the same target. Every other argument stays as
written, so two scripts in two directories are two targets.

An HTTP server is reached by its URL, without credentials, query or fragment.

The server's version is not part of a target: a new version is the same target. Environment
variables and headers are not part of it either: a rotated token is the same target. A renamed
binary or script is a new target. So is a server that changes its `serverInfo.name`. Its history
stays under the old key. Replay it there with `mcp-toolfuzz replay DIR/OLD-KEY -- NEW COMMAND`.

Some reproductions were written before targets were recorded. They have no `targetIdentity` and sit
in the corpus directory itself. They are read as they were then: they belong to the target whose
recorded command they name.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import urlsplit, urlunsplit

LAUNCHERS = frozenset(
    {
        "python",
        "pythonw",
        "py",
        "pypy",
        "node",
        "nodejs",
        "deno",
        "bun",
        "bunx",
        "npx",
        "pnpx",
        "npm",
        "pnpm",
        "yarn",
        "uv",
        "uvx",
        "pipx",
        "poetry",
        "pdm",
        "hatch",
        "ruby",
        "java",
        "dotnet",
        "docker",
        "podman",
        "go",
        "cargo",
    }
)
"""Programs named without their directory or version in a target's identity.

Where they are installed, and which version, changes from machine to machine and night to night.
"""

_CONTAINERS = frozenset({"docker", "podman"})
_VERSIONED_PROGRAM = re.compile(r"^(?P<name>[A-Za-z]+?)[\d.]*(?:\.exe)?$")
_PACKAGE_PIN = re.compile(r"^(?P<bare>(?:@[\w.-]+/)?[\w.-]+)(?:@(?:v?\d[\w.+-]*|latest|next)|==v?\d[\w.+-]*)$")
_IMAGE_TAG = re.compile(r"^(?P<bare>(?=[^:]*[a-z])[a-z0-9][\w.-]*(?:/[\w.-]+)+|[a-z][\w.-]*):(?:v?\d[\w.+-]*|latest)$")


@dataclass(frozen=True, slots=True)
class TargetIdentity:
    server: str
    """The server's `serverInfo.name` ("" when it gives none)."""
    launch: str
    """How it is reached, normalized (see the module): a command line or a URL."""

    @property
    def key(self) -> str:
        """The name of the target's subdirectory.

        It is the server's name, made safe for a file name, and a digest of the whole identity.
        """
        digest = hashlib.sha256(json.dumps([self.server, self.launch], ensure_ascii=False).encode()).hexdigest()[:10]
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", self.server).strip("._")[:40] or "server"
        return f"{name}--{digest}"

    def as_json(self) -> dict[str, str]:
        return {"server": self.server, "launch": self.launch, "key": self.key}


def identity_of(target: Mapping[str, Any], server_info: Mapping[str, Any]) -> TargetIdentity:
    """The identity of a target from its recording and its server's introduction.

    `target` is a TargetSpec's `as_json()`, whose secrets are already redacted. `server_info` is how
    the server introduced itself.
    """
    name = server_info.get("name")
    return TargetIdentity(name if isinstance(name, str) else "", _launch(target))


def _launch(target: Mapping[str, Any]) -> str:
    url = target.get("url")
    if target.get("transport") == "http" and isinstance(url, str):
        try:
            parts = urlsplit(url)
        except ValueError:
            return url
        host = parts.netloc.rpartition("@")[2]
        return urlunsplit((parts.scheme.lower(), host.lower(), parts.path or "/", "", ""))
    command = target.get("command")
    if not isinstance(command, list) or not command:
        return json.dumps(target, sort_keys=True)
    program = _program(str(command[0]))
    return shlex.join([program, *(_unpinned(str(part), images=program in _CONTAINERS) for part in command[1:])])


def _program(program: str) -> str:
    name = PurePosixPath(program.replace("\\", "/")).name
    match = _VERSIONED_PROGRAM.match(name)
    if match is not None and match.group("name").lower() in LAUNCHERS:
        return match.group("name").lower()
    return program


def _unpinned(argument: str, *, images: bool) -> str:
    """`argument` without a version pin.

    With `images`, the program runs container images, whose tags are versions too. Elsewhere,
    `host:8080` is no image.
    """
    match = _PACKAGE_PIN.match(argument) or (_IMAGE_TAG.match(argument) if images else None)
    return argument if match is None else match.group("bare")
