"""A finding as a file: a self-contained, versioned reproduction.

A reproduction carries everything needed to send the failing request again. It also carries what is
needed to judge the answer the same way. That is the target, secrets redacted, and the negotiated
protocol version. It is the tool's listed definition and the exact messages sent, handshake
included. It is the answer seen and the stderr written meanwhile. It is the rule and profile, the
seed, and a one-line command that replays it.

A sequence's reproduction has case kind `sequence`. It also holds the requests sent before the
violating one (`steps`). Each comes with its answer, and with the earlier answers its reused values
came from (`uses`). It holds the kind of case the violating request was judged as (`judgedAs`).
`fuzz.corpus.replay` sends them again.

Files are written atomically: a temporary file is renamed into place. So a run killed at any moment
leaves whole files or none.

A file's name is derived from its content. That is the rule, tool, case kind, revision and the
request without its id. For a sequence it includes the steps too, each reused value left out: those
are new at every run. So the same finding found twice is one file. An existing file is kept as it
is.

Each target's files go to a subdirectory of the corpus named by its key (`fuzz.corpus.targets`). So
a directory shared by several targets keeps them apart.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fuzz.corpus.targets import TargetIdentity
from fuzz.errors import HarnessError
from fuzz.files import write_json_atomically
from fuzz.judging.findings import Round, SequenceStep, Stability, Use, reused_in
from strategies import CaseKind
from strategies.cases import ROUNDS
from strategies.inputs import Inputs
from strategies.meta import HeaderOverrides, sent_as_task

FORMAT = "mcp-toolfuzz/reproduction"
VERSION = 1
REUSED = "<reused>"
"""What stands for a reused value in the request a file's name is derived from."""


class CorruptReproduction(HarnessError):
    """A file that is not a reproduction mcp-toolfuzz can read."""


STEPPED = (CaseKind.SEQUENCE, CaseKind.TASK_METHOD, CaseKind.REQUEST_STATE)
"""The kinds whose reproductions keep the requests sent before theirs: a sequence's, the task
phase's (replayed), the rounds phase's state trial (evidence: its replay makes its own)."""


@dataclass(frozen=True, slots=True)
class Reproduction:
    rule: str
    level: str
    profile: str
    tool: str
    """"" for a malformed request that names no tool."""
    case: CaseKind
    label: str
    target: dict[str, Any]
    protocol_version: str
    tool_listing: dict[str, Any] | None
    handshake: tuple[dict[str, Any], ...]
    request: dict[str, Any]
    response: dict[str, Any] | None
    message: str
    seed: int
    timeout: float
    stderr: tuple[str, ...] = ()
    headers: HeaderOverrides = ()
    """HTTP header values sent instead of those the request implies (a header mismatch)."""
    target_identity: TargetIdentity | None = None
    """The target it belongs to across nights.

    It is None in a file written before targets were recorded. Such a file belongs to the target
    whose command it records.
    """
    steps: tuple[SequenceStep, ...] = ()
    """A sequence's requests before `request`, in order, each with its answer and its `uses`."""
    uses: tuple[Use, ...] = ()
    """Where the values `request` reused came from (a sequence's)."""
    judged_as: CaseKind | None = None
    """The kind of case a sequence's `request` was judged as; None: as `case`."""
    inputs: Inputs | None = None
    """How its call answered input requests (2026-07-28): replay answers them the same way."""
    rounds: tuple[Round, ...] = ()
    stability: Stability | None = None
    """How often it came back on fresh targets when it was found (`--tries`): not part of what
    the finding is, so not of its name."""
    """The retries of its call, as found: evidence; replay makes its own."""
    source: Path | None = field(default=None, compare=False)
    """The file it was read from, if any."""

    @property
    def is_sequence(self) -> bool:
        return self.case is CaseKind.SEQUENCE

    @property
    def not_exported(self) -> str | None:
        """Why `export --pytest` writes no test for it, or None when it does. The test would need
        what only the harness does: a task's lifecycle (a call sent as a task, or the task phase's),
        or the rounds phase's trials (a tampered `requestState`, the listing asked again). It replays
        (`mcp-toolfuzz replay`)."""
        if sent_as_task(self.request) or self.case in (CaseKind.TASK_METHOD, CaseKind.CALL_WITHOUT_TASK, CaseKind.TASK_FOR_FORBIDDEN):
            return "its answer came through a task, which an exported test does not follow"
        if self.case is CaseKind.REQUEST_STATE or self.of_the_listing_asked_again:
            return "it is a trial of the rounds phase, which an exported test does not run"
        return None

    @property
    def of_the_listing_asked_again(self) -> bool:
        """Whether the rounds phase found it on the listing it asked for (`fuzz.judging.listing_checks`)."""
        return self.case is CaseKind.TOOL_LISTING and self.tool == ROUNDS

    @property
    def has_steps(self) -> bool:
        """Whether requests went before its own (`STEPPED`)."""
        return self.case in STEPPED

    @property
    def judged_kind(self) -> CaseKind:
        """The kind of case its request is judged as."""
        return self.judged_as or self.case

    @property
    def file_name(self) -> str:
        """`RULE--TOOL--HASH.json`, named by a hash of what the finding is.

        The hash covers the rule, tool, case kind, revision, request without its id, and header
        overrides. For a sequence, it also covers its steps' requests and the kind its request was
        judged as. Each reused value is replaced by `REUSED`. The values a server gives are new at
        every run, so the same sequence found twice is one file.
        """
        return self._named([self.protocol_version])

    @property
    def legacy_file_name(self) -> str:
        """The name an mcp-toolfuzz that recorded no target gave the same finding.

        That name has no revision in its hash. It is how a finding is matched to a file of an
        existing corpus.
        """
        return self._named([])

    def _named(self, extra: list[str]) -> str:
        request = _hashed(self.request, self.uses)
        sequence = [[_hashed(step.request, step.uses) for step in self.steps], self.judged_kind.value] if self.has_steps else []
        if self.case is CaseKind.REQUEST_STATE:
            # The states are the server's, new at every call: the trial is named by its tool's call and its label.
            params = self.request.get("params")
            request, sequence = {"arguments": params.get("arguments") if isinstance(params, dict) else None, "label": self.label}, []
        answering = [self.inputs.as_json()] if self.inputs is not None else []
        identity = json.dumps(
            [self.rule, self.tool, self.case.value, request, *([list(self.headers)] if self.headers else []), *sequence, *answering, *extra],
            sort_keys=True,
            ensure_ascii=False,
        )
        digest = hashlib.sha256(identity.encode()).hexdigest()[:12]
        tool = re.sub(r"[^A-Za-z0-9_.-]+", "_", self.tool)[:40] or "envelope"
        return f"{self.rule}--{tool}--{digest}.json"

    @property
    def relative_path(self) -> Path:
        """Where it goes in a corpus directory: its target's subdirectory.

        A reproduction with no target identity goes in the directory itself.
        """
        if self.target_identity is None:
            return Path(self.file_name)
        return Path(self.target_identity.key) / self.file_name

    def as_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "rule": self.rule,
            "level": self.level,
            "profile": self.profile,
            "tool": self.tool or None,
            "case": self.case.value,
            "label": self.label,
            "message": self.message,
            "target": self.target,
            **({"targetIdentity": self.target_identity.as_json()} if self.target_identity else {}),
            "protocolVersion": self.protocol_version,
            "toolDefinition": self.tool_listing,
            "handshake": list(self.handshake),
            "request": self.request,
            "response": self.response,
            "stderr": list(self.stderr),
            **({"headers": [list(pair) for pair in self.headers]} if self.headers else {}),
            **({"steps": [step.as_json() for step in self.steps], "uses": [use.as_json() for use in self.uses]} if self.has_steps else {}),
            **({"judgedAs": self.judged_kind.value} if self.is_sequence else {}),
            **({"inputs": self.inputs.as_json(), "rounds": [r.as_json() for r in self.rounds]} if self.inputs is not None else {}),
            **({"stability": self.stability.as_json()} if self.stability is not None else {}),
            "seed": self.seed,
            "timeout": self.timeout,
            "reproduce": f"mcp-toolfuzz replay {shlex.quote(self.file_name)}",
        }

    @classmethod
    def from_json(cls, data: Any, *, source: Path | None = None) -> Reproduction:
        where = str(source) if source else "the reproduction"
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise CorruptReproduction(f'{where} is not an mcp-toolfuzz reproduction (no "format": "{FORMAT}")')
        if data.get("version") != VERSION:
            raise CorruptReproduction(f"{where} has version {data.get('version')!r}; this mcp-toolfuzz reads version {VERSION}")
        try:
            case = CaseKind(data.get("case"))
            steps, uses = _steps(data, case) if case in STEPPED else ((), ())
            judged_as = _judged_as(data) if case is CaseKind.SEQUENCE else None
            return cls(
                rule=_typed(data, "rule", str),
                level=_typed(data, "level", str),
                profile=_typed(data, "profile", str),
                tool=data.get("tool") or "",
                case=case,
                label=_typed(data, "label", str),
                target=_typed(data, "target", dict),
                protocol_version=_typed(data, "protocolVersion", str),
                tool_listing=data.get("toolDefinition"),
                handshake=tuple(_typed(data, "handshake", list)),
                request=_typed(data, "request", dict),
                response=data.get("response"),
                message=_typed(data, "message", str),
                seed=_typed(data, "seed", int),
                timeout=float(_typed(data, "timeout", (int, float))),
                stderr=tuple(data.get("stderr") or ()),
                headers=_headers(data.get("headers")),
                target_identity=_identity(data.get("targetIdentity")),
                steps=steps,
                uses=uses,
                judged_as=judged_as,
                inputs=_inputs(data.get("inputs")),
                rounds=_rounds(data.get("rounds")),
                stability=Stability.from_json(data.get("stability")),
                source=source,
            )
        except (ValueError, TypeError) as error:
            raise CorruptReproduction(f"{where} is damaged: {error}") from None


_INPUTS = '{"declares": [CAPABILITY, ...], "answers": [{"action": "accept" | "decline" | "cancel", "variant": N}, ...]}'


def _inputs(value: Any) -> Inputs | None:
    """A reproduction's input plan; None when it has none. Raises TypeError, saying what is wrong."""
    if value is None:
        return None
    try:
        return Inputs.from_json(value)
    except (KeyError, ValueError, TypeError, AttributeError) as error:
        raise TypeError(f"'inputs' is {value!r:.80} ({error}), expected {_INPUTS}") from None


def _rounds(value: Any) -> tuple[Round, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(r, dict) and isinstance(r.get("request"), dict) for r in value):
        raise TypeError(f'\'rounds\' is {value!r:.60}, expected [{{"request": {{...}}, "response": {{...}} or null}}, ...]')
    return tuple(Round(r.get("asked"), r["request"], r.get("response")) for r in value)


def _hashed(request: dict[str, Any], uses: tuple[Use, ...]) -> dict[str, Any]:
    """`request` without its id, each value it reused (`uses`) given `REUSED` for its value."""
    hashed = copy.deepcopy({key: value for key, value in request.items() if key != "id"})
    holder = reused_in(hashed)
    for use in uses:
        if holder is not None and use.argument in holder:
            holder[use.argument] = REUSED
    return hashed


_STEP = '{"request": {...}, "response": {...} or null, "uses": [...]}'
_USE = '{"argument": NAME, "step": EARLIER STEP (from 0), "path": [KEY OR INDEX, ...]}'
_JUDGED = (CaseKind.VALID_ARGUMENTS, CaseKind.INVALID_ARGUMENTS, CaseKind.UNKNOWN_TOOL)


def _steps(data: dict[str, Any], case: CaseKind) -> tuple[tuple[SequenceStep, ...], tuple[Use, ...]]:
    """A sequence's or the task phase's `steps` and `uses`. Raises TypeError, saying which is wrong."""
    steps = data.get("steps")
    if not isinstance(steps, list):
        whose = "a sequence's" if case is CaseKind.SEQUENCE else "a task phase"
        raise TypeError(f"'steps' is {steps!r:.60}; {whose} reproduction lists the requests before the one judged: [{_STEP}, ...]")
    parsed: list[SequenceStep] = []
    for index, step in enumerate(steps):
        if not isinstance(step, dict) or not isinstance(step.get("request"), dict) or not isinstance(step.get("response"), (dict, type(None))):
            raise TypeError(f"'steps'[{index}] is {step!r:.60}, expected {_STEP}")
        parsed.append(SequenceStep(step["request"], step["response"], _uses(step.get("uses", []), index, f"'steps'[{index}]['uses']")))
    return tuple(parsed), _uses(data.get("uses", []), len(parsed), "'uses'")


def _judged_as(data: dict[str, Any]) -> CaseKind:
    """A sequence's `judgedAs`. Raises TypeError when it is none of the kinds a sequence judges."""
    judged = data.get("judgedAs")
    if judged not in [kind.value for kind in _JUDGED]:
        raise TypeError(f"'judgedAs' is {judged!r:.40}, expected one of {', '.join(kind.value for kind in _JUDGED)}")
    return CaseKind(judged)


def _uses(value: Any, before: int, where: str) -> tuple[Use, ...]:
    """Uses of the answers of steps 0 to `before` - 1."""
    if not isinstance(value, list):
        raise TypeError(f"{where} is {value!r:.60}, expected [{_USE}, ...]")
    uses: list[Use] = []
    for use in value:
        step, path = use.get("step") if isinstance(use, dict) else None, use.get("path") if isinstance(use, dict) else None
        if (
            not isinstance(use, dict)
            or not isinstance(use.get("argument"), str)
            or not isinstance(step, int)
            or isinstance(step, bool)
            or not 0 <= step < before
            or not isinstance(path, list)
            or not all(isinstance(part, (str, int)) and not isinstance(part, bool) for part in path)
        ):
            raise TypeError(f"{where} holds {use!r:.80}, expected {_USE}, its step one of the {before} before it")
        uses.append(Use(use["argument"], step, tuple(path)))
    return tuple(uses)


def _headers(value: Any) -> HeaderOverrides:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(
        isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str) and isinstance(pair[1], (str, type(None))) for pair in value
    ):
        raise TypeError(f"'headers' is {value!r:.60}, expected [[NAME, VALUE or null], ...]")
    return tuple((name, header) for name, header in value)


def _identity(value: Any) -> TargetIdentity | None:
    if value is None:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("server"), str) or not isinstance(value.get("launch"), str):
        raise TypeError(f'\'targetIdentity\' is {value!r:.80}, expected {{"server": NAME, "launch": COMMAND OR URL}}')
    return TargetIdentity(value["server"], value["launch"])


def _typed(data: dict[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    value = data.get(key)
    if not isinstance(value, kind):
        raise TypeError(f"{key!r} is {value!r:.60}")
    return value


def write(reproduction: Reproduction, corpus: Path) -> Path:
    """Write `reproduction` atomically into its target's subdirectory of `corpus`.

    Nothing is written when a file of that name, the same finding, is already there. Returns the
    file's path.
    """
    path = corpus / reproduction.relative_path
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        return path
    write_json_atomically(reproduction.as_json(), path)
    return path


def relabel(path: Path, stability: Stability) -> None:
    """Write `stability` into the reproduction file at `path`, atomically, all else as it was.

    Raises CorruptReproduction when the file cannot be read, OSError when it cannot be written."""
    load(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["stability"] = stability.as_json()
    write_json_atomically(data, path)


def load(path: Path) -> Reproduction:
    """Read one reproduction. Raises CorruptReproduction, naming the file, when it cannot."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise CorruptReproduction(f"{path} cannot be read: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise CorruptReproduction(f"{path} is not UTF-8 text") from None
    try:
        data = json.loads(text)
    except ValueError as error:
        raise CorruptReproduction(f"{path} is not JSON ({error})") from None
    return Reproduction.from_json(data, source=path)


def discover(paths: Iterable[Path]) -> list[Path]:
    """The reproduction files among `paths`.

    Files count as given. A directory gives its `*.json` files and those of its subdirectories, one
    level down: a corpus's targets. They come sorted, with hidden files and directories left out.
    Raises HarnessError for a path that does not exist.
    """
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found += files_in(path)
            for sub in sorted(p for p in path.iterdir() if p.is_dir() and not p.name.startswith(".")):
                found += files_in(sub)
        elif path.is_file():
            found.append(path)
        else:
            raise HarnessError(f"{path}: no such file or directory (give reproduction files or the corpus directory)")
    return found


def files_in(directory: Path) -> list[Path]:
    """The `*.json` files of `directory` itself, sorted, hidden ones left out.

    None when it is not a directory.
    """
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.glob("*.json") if not p.name.startswith(".") and p.is_file())
