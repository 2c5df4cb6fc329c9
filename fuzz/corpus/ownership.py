"""Whose reproductions are whose in a corpus directory shared by several targets.

A run replays its own target's reproductions alone. It judges "already in the corpus" against them
alone too. `fuzz.corpus.targets` says what a target is. A target's reproductions are those in its
subdirectory. Older ones count too: those written before targets were recorded. They sit in the
directory itself, without a `targetIdentity`. They count when their recorded target is this run's
exactly, as they were matched then.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fuzz.corpus.reproductions import CorruptReproduction, Reproduction, files_in, load
from fuzz.corpus.targets import TargetIdentity


def belongs_to(reproduction: Reproduction, identity: TargetIdentity, target: Mapping[str, Any]) -> bool:
    """Whether `reproduction` is a reproduction of the target `identity` (recorded as `target`)."""
    if reproduction.target_identity is not None:
        return reproduction.target_identity == identity
    return reproduction.target == target


def candidate_files(corpus: Path, identity: TargetIdentity) -> list[Path]:
    """The files that may be the target's: the corpus directory's own, then its subdirectory's.

    A file of the directory's own is from before targets were recorded, or cannot be read. One that
    cannot be read is reported, not skipped in silence. Other targets' subdirectories are not read.
    """
    return [*files_in(corpus), *files_in(corpus / identity.key)]


def already_kept(reproduction: Reproduction, corpus: Path) -> Path | None:
    """The file of `corpus` that already holds this finding of this target.

    That is the one in its subdirectory. Or it is one of the same finding, written before targets
    were recorded, for the very target `reproduction` records. None when this target has none.
    """
    path = corpus / reproduction.relative_path
    if path.exists():
        return path
    legacy = corpus / reproduction.legacy_file_name
    if not legacy.is_file():
        return None
    try:
        kept = load(legacy)
    except CorruptReproduction:
        return None
    if kept.target_identity is None and kept.target == reproduction.target and kept.protocol_version == reproduction.protocol_version:
        return legacy
    return None


def legacy_files(corpus: Path, target: Mapping[str, Any]) -> list[Path]:
    """The reproductions in `corpus` itself that record `target`, from before targets were recorded.

    This run reads them as its own, as such files were read then.
    """
    found = []
    for path in files_in(corpus):
        try:
            reproduction = load(path)
        except CorruptReproduction:
            continue
        if reproduction.target_identity is None and reproduction.target == target:
            found.append(path)
    return found
