"""Resuming a Spark search whose driver died, from its last checkpoint.

Every ``--checkpoint-levels`` levels the level's successors (the next
level's whole input, partition by partition) are checkpointed by Spark into
the checkpoint directory; the visited set's runs are there already
(``modelcheck.spark.visited``). With a directory the user named, the driver
then writes ``DIR/modelcheck-spark.json``: which RDD files hold the level,
the visited directory, the depth, the counts so far, and the spec,
constants, checks and code the run is for (the fast engine's ``RunIdentity``,
which carries the digest of the model's definition).
``--resume DIR`` reads it back, reloads the RDD files and carries on from
the level after; the runs of later levels a dead driver left behind are
never read (a step reads the runs below its own level) and are replaced.

The manifest is written to a temporary name and renamed into place, and only
after Spark has written the RDD files it names; the files of the checkpoint
before are deleted only after that. So a driver killed at any moment leaves
a manifest naming a complete checkpoint.

Nothing a resume reads is believed unchecked: the manifest carries a
SHA-256 digest of its own content, and it lists every file the resumed
search reads with its digest (``modelcheck.spark.integrity``); ``load``
checks them all before Spark starts, and refuses a damaged or missing one
with one line naming it.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field

from modelcheck import __version__
from modelcheck.runtime.atomic import write_atomically
from modelcheck.search.checkpoint import RunIdentity, check_depth_limit, valid_reached
from modelcheck.search.checkpoint_files import json_digest
from modelcheck.errors import InputError
from modelcheck.runtime.reading import MANIFEST_CAP, read_bytes
from modelcheck.spark import integrity

MANIFEST = "modelcheck-spark.json"
FORMAT = "modelcheck-spark-checkpoint"
VERSION = 4  # 3: digests of the manifest and of every file it names; 4: the digest of the model's definition


@dataclass
class LevelCheckpoint:
    """A checkpointed level: where its RDD files are and the search's counters there."""

    rdd: str  # the RDD's checkpoint directory, as Spark names it
    partitions: int
    depth: int
    total: int
    generated: int
    sometimes: dict[str, int | None] = field(default_factory=dict)
    visited: str = ""  # the directory of the visited set's runs (modelcheck.spark.visited)


def manifest_path(directory: str) -> str:
    return os.path.join(directory, MANIFEST)


def check_resumable(settings) -> None:
    """``--resume DIR`` with ``--engine spark``: DIR is the ``--checkpoint-dir``
    of the run to continue, and holds its manifest. A fresh run may not start
    in a directory that holds a search's checkpoint: that would replace it
    without being asked."""
    resume, directory = settings.resume, settings.checkpoint_dir
    if resume:
        if not os.path.exists(manifest_path(resume)):
            raise InputError(f"--resume {resume}: no Spark search checkpointed there ({MANIFEST} is missing)")
    elif directory and os.path.exists(manifest_path(directory)):
        raise InputError(f"--checkpoint-dir {directory} already holds a search's checkpoint; continue it with "
                         f"--resume {directory} or choose another directory")


def save(directory: str, identity: RunIdentity, level: LevelCheckpoint, files: dict) -> None:
    """Write the manifest, atomically; ``files`` are the digests of the
    files a resume reads (``integrity.verify``)."""
    body = {"format": FORMAT, "version": VERSION, "modelcheck": __version__, "saved_at": time.time(),
            "identity": asdict(identity), "level": asdict(level), "files": files}
    body["digest"] = body_digest(body)
    write_atomically(manifest_path(directory), lambda f: json.dump(body, f), replace=True)


body_digest = json_digest  # SHA-256 of the manifest's content but its digest, as canonical JSON


def saved_width(directory: str) -> int | None:
    """The fingerprint width a checkpoint was saved with, read leniently
    (``load`` checks everything): what a run that did not choose one resumes at."""
    try:
        body = json.loads(read_bytes(manifest_path(directory), "", MANIFEST_CAP))
        bits = body["identity"]["fingerprint_bits"]
    except Exception:  # noqa: BLE001 -- any problem is load's to report, with its own words
        return None
    return bits if bits in (64, 128) else None


def load(directory: str, identity: RunIdentity, partitions: int | None, max_depth: int | None = None,
         ) -> tuple[LevelCheckpoint, integrity.Ledger]:
    """The checkpoint to resume and the digests of the runs it holds,
    refused if it is damaged, for another run, or deeper than ``max_depth``."""
    path = manifest_path(directory)
    try:
        body = json.loads(read_bytes(path, f"--resume {directory}:", MANIFEST_CAP))
        if not isinstance(body, dict):
            raise ValueError("not a JSON object")
    except (OSError, ValueError, RecursionError) as e:
        reason = " ".join(str(getattr(e, "strerror", None) or e).split())[:120]
        raise InputError(f"--resume {directory}: {MANIFEST} is not a readable checkpoint ({reason})") from None
    if body.get("format") != FORMAT or body.get("version") != VERSION:
        raise InputError(f"--resume {directory}: not a Spark checkpoint of this modelcheck version")
    if body.get("digest") != body_digest(body):
        raise InputError(f"--resume {directory}: {path} does not match the digest saved with it; "
                         f"it cannot be resumed")
    try:
        saved, level = RunIdentity(**body["identity"]), LevelCheckpoint(**body["level"])
        files = body["files"]
        valid = valid_reached(level.sometimes, level.depth) and isinstance(files, dict)
    except (KeyError, TypeError) as e:
        raise InputError(f"--resume {directory}: {path} is incomplete ({e})") from None
    if not valid:
        raise InputError(f"--resume {directory}: {path} is inconsistent; it cannot be resumed")
    if identity.refusal(saved):
        raise InputError(f"--resume {directory}: {identity.refusal(saved)}")
    if partitions is not None and partitions != level.partitions:
        raise InputError(f"--resume {directory}: the checkpoint has {level.partitions} partitions; "
                         f"drop --partitions or give --partitions {level.partitions}")
    if not os.path.isdir(level.rdd.removeprefix("file:")):
        raise InputError(f"--resume {directory}: the checkpointed level's files ({level.rdd}) are missing")
    if not os.path.isdir(level.visited):
        raise InputError(f"--resume {directory}: the visited set's files ({level.visited or 'not named'}) are missing")
    check_depth_limit(directory, level.depth, max_depth)
    try:
        integrity.verify(files, level.visited, level.rdd.removeprefix("file:"), level.partitions, level.depth,
                         level.total)
    except integrity.Damaged as e:
        raise InputError(f"--resume {directory}: {e.path} {e.problem}; the checkpoint cannot be resumed") from None
    return level, integrity.Ledger(files.get("runs"), level.depth)


def delete_files(sc, path: str) -> None:
    """Remove a superseded RDD checkpoint (any file system Spark can reach)."""
    jvm = sc._jvm
    target = jvm.org.apache.hadoop.fs.Path(path)
    target.getFileSystem(sc._jsc.hadoopConfiguration()).delete(target, True)
