"""Checkpoints of the fast engine's search, taken at level boundaries.

A checkpoint is one file, ``DIR/checkpoint.npz``, holding the visited
fingerprints, every state's parent and action, the frontier, and a JSON
header naming the spec, constants, invariants and deadlock setting it was
made for. It is written whole or not at all (``modelcheck.atomic``), so a
crash or a full disk while saving leaves the previous checkpoint intact, and
an interrupted save removes its temporary file. Resuming under any other spec, constants or
checks is refused: its states were checked against those and only those.

A damaged or inconsistent file is refused too, never resumed into a wrong
count: the header records the structure's sizes and a SHA-256 digest of its
arrays and of the header itself (the identity, the depth, the depths where
each reachability check first held, every counter), and loading checks the
digest along with the invariants of the search (the visited set sorted and
the size of the state store, parents pointing into the level before, the
frontier's fingerprints all visited, one level per depth). The file is read
only if it is a regular file of at most ``reading.CHECKPOINT_CAP`` bytes.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import zipfile
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from modelcheck import __version__
from modelcheck.atomic import write_atomically
from modelcheck.destinations import make_writable_dir
from modelcheck.errors import InputError
from modelcheck.reading import CHECKPOINT_CAP, open_regular

FILE = "checkpoint.npz"
FORMAT = "modelcheck-fast-checkpoint"
VERSION = 3  # 3: the digest covers the header too
ARRAYS = ("level_words", "visited", "level_sizes", "parents", "actions")


@dataclass
class RunIdentity:
    """What a checkpoint must match to be resumed."""

    spec: str
    constants: dict
    invariants: list[str]
    check_deadlock: bool
    symmetry: bool = False  # its states are orbit representatives
    view: bool = False  # its fingerprints are of the spec's VIEW (a checkpoint from before has none)

    @classmethod
    def of(cls, model, options) -> "RunIdentity":
        return cls(model.spec.name, model.json_constants(), list(options.invariants), bool(options.check_deadlock),
                   bool(options.symmetry), bool(model.view))

    def describe(self) -> str:
        consts = " ".join(f"{k}={{{', '.join(v)}}}" if isinstance(v, list) else f"{k}={v}"
                          for k, v in self.constants.items())
        return f"{self.spec} ({consts}; invariants {', '.join(self.invariants)}" + \
               ("; deadlock checked" if self.check_deadlock else "") + ("; symmetry" if self.symmetry else "") + \
            ("; under the VIEW" if self.view else "") + ")"


@dataclass
class SearchState:
    """Everything the fast engine needs to carry on after the last full level."""

    depth: int
    level_words: np.ndarray
    level_start: int
    visited: np.ndarray
    parents: list[np.ndarray]
    actions: list[np.ndarray]
    generated: int
    sometimes: dict[str, int | None] = field(default_factory=dict)


def path(directory: str) -> str:
    return os.path.join(directory, FILE)


def check_destination(directory: str, resuming: bool) -> None:
    """Refuse, before any work, a checkpoint directory that cannot be used.
    Resuming creates nothing: a mistyped --resume path is only reported."""
    option = "--resume" if resuming else "--checkpoint"
    if os.path.exists(directory) and not os.path.isdir(directory):
        raise InputError(f"{option} {directory} is a file, not a directory")
    if resuming and not os.path.exists(path(directory)):
        where = "no checkpoint there" if os.path.isdir(directory) else "no such directory"
        raise InputError(f"--resume {directory}: {where} ({FILE} is missing)")
    if os.path.exists(path(directory)) and not resuming:
        raise InputError(f"{directory} already holds a checkpoint; continue it with --resume {directory} "
                         f"or choose another directory")
    make_writable_dir(directory, option)


def save(directory: str, identity: RunIdentity, state: SearchState) -> float:
    """Write the checkpoint; returns the seconds it took."""
    started = time.perf_counter()
    arrays = {"level_words": state.level_words, "visited": state.visited,
              "level_sizes": np.array([p.size for p in state.parents], dtype=np.int64),
              "parents": np.concatenate(state.parents) if state.parents else np.zeros(0, np.int64),
              "actions": np.concatenate(state.actions) if state.actions else np.zeros(0, np.int32)}
    header = {"format": FORMAT, "version": VERSION, "modelcheck": __version__, "saved_at": time.time(),
              "identity": identity.__dict__, "depth": state.depth, "level_start": state.level_start,
              "generated": state.generated, "sometimes": state.sometimes, "levels": len(state.parents),
              "states": int(state.visited.size), "frontier": int(state.level_words.shape[1])}
    header["digest"] = digest(arrays, header)
    # a second Ctrl-C, a full disk: the last complete checkpoint stays, and no temporary file
    write_atomically(path(directory), lambda f: np.savez(f, header=np.array(json.dumps(header)), **arrays),
                     replace=True, binary=True)
    return time.perf_counter() - started


class Saver:
    """Saves a search into ``directory`` again and again, and remembers the
    last save that worked. A save that fails (a full disk) costs the search
    nothing: it goes on, the last complete checkpoint stays in place, and
    ``problem`` says both, for the report."""

    def __init__(self, directory: str, identity: RunIdentity, saved_depth: int | None = None):
        self.directory, self.identity = directory, identity
        self.saved_depth = saved_depth  # the depth of the checkpoint in the directory, if any
        self.problem: str | None = None  # why the latest save failed, until one works again

    def save(self, state: SearchState) -> float | None:
        """The seconds the save took, or None if it failed (see ``problem``)."""
        try:
            seconds = save(self.directory, self.identity, state)
        except OSError as e:
            self.problem = self.failure(state.depth, e)
            return None
        self.saved_depth, self.problem = state.depth, None
        return seconds

    def failure(self, depth: int, error: OSError) -> str:
        kept = (f"{self.directory} keeps the checkpoint saved at depth {self.saved_depth}, which "
                f"--resume {self.directory} continues" if self.saved_depth is not None
                else f"no checkpoint was saved in {self.directory}")
        return f"the checkpoint at depth {depth} could not be saved ({error.strerror or error}); {kept}"


def digest(arrays: dict[str, np.ndarray], header: dict) -> str:
    """SHA-256 over the header (all of it but the digest, as canonical JSON),
    then each array's name, dtype, shape and bytes."""
    h = hashlib.sha256()
    covered = {k: v for k, v in header.items() if k != "digest"}
    h.update(json.dumps(covered, sort_keys=True, separators=(",", ":")).encode())
    for name in ARRAYS:
        a = np.ascontiguousarray(arrays[name])
        h.update(f"{name}:{a.dtype.str}:{a.shape};".encode())
        h.update(memoryview(a).cast("B"))
    return h.hexdigest()


def load(directory: str, identity: RunIdentity, max_depth: int | None = None,
         fingerprints: Callable[[np.ndarray], np.ndarray] | None = None) -> SearchState:
    """The search saved in ``directory``, refused (``InputError``) if it is
    damaged, for another run, or deeper than ``max_depth``. ``fingerprints``:
    the run's own (``Packing.fingerprints``, which under a VIEW are of the
    view), by which its frontier must be visited."""
    file = path(directory)
    if not os.path.lexists(file):
        raise InputError(f"--resume {directory}: no checkpoint there ({FILE} is missing)")
    try:
        with open_regular(file, f"--resume {directory}:", CHECKPOINT_CAP) as f, np.load(f, allow_pickle=False) as data:
            header = json.loads(str(data["header"]))
            arrays = {k: data[k] for k in ARRAYS}
    except (OSError, ValueError, KeyError, EOFError, RecursionError, zipfile.BadZipFile) as e:
        # EOFError (an empty file) must not reach the CLI, which reads it as Ctrl-D
        reason = " ".join(str(e).split())[:120] or type(e).__name__
        raise InputError(f"--resume {directory}: {FILE} is damaged, not a readable checkpoint ({reason})") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise InputError(f"--resume {directory}: {FILE} is not a modelcheck checkpoint")
    if header.get("version") != VERSION:
        raise InputError(f"--resume {directory}: not a checkpoint of this modelcheck version")
    problem = inconsistency(header, arrays)
    if problem:
        raise InputError(f"--resume {directory}: {FILE} is damaged ({problem}); it cannot be resumed")
    try:
        saved = RunIdentity(**header["identity"])
    except (KeyError, TypeError):
        raise InputError(f"--resume {directory}: {FILE} is damaged (its identity is unreadable)") from None
    if saved != identity:
        raise InputError(f"--resume {directory}: the checkpoint is for {saved.describe()}, "
                         f"but this run is {identity.describe()}")
    # only now, the run known to be its own: its fingerprints are the run's (under a VIEW, of the view)
    if not frontier_visited(arrays["level_words"], arrays["visited"], fingerprints):
        raise InputError(f"--resume {directory}: {FILE} is damaged (its frontier holds states that are not in "
                         f"its visited set); it cannot be resumed")
    check_depth_limit(directory, header["depth"], max_depth)
    bounds = np.cumsum(arrays["level_sizes"])[:-1]
    return SearchState(
        depth=header["depth"], level_words=arrays["level_words"], level_start=header["level_start"],
        visited=arrays["visited"], parents=list(np.split(arrays["parents"], bounds)),
        actions=list(np.split(arrays["actions"], bounds)), generated=header["generated"],
        sometimes=header["sometimes"])


def inconsistency(header: dict, arrays: dict[str, np.ndarray]) -> str | None:
    """What is wrong with a loaded checkpoint, or None: its digest, then the
    structure a search leaves behind."""
    try:
        if header.get("digest") != digest(arrays, header):
            return "its content does not match the digest saved with it"
        words, visited, sizes, parents, actions = (arrays[k] for k in ARRAYS)
        states, frontier = int(header["states"]), int(header["frontier"])
        if visited.dtype != np.uint64 or visited.ndim != 1 or words.ndim != 2 or words.dtype != np.uint64:
            return "its arrays have the wrong types"
        if visited.size != states or int(sizes.sum()) != states or parents.size != states \
                or actions.size != states or sizes.size != int(header["levels"]) or sizes.size < 1:
            return "its visited set, state store and level sizes disagree"
        if int(header["depth"]) != sizes.size:
            return "its depth is not its number of levels"
        if not valid_reached(header["sometimes"], sizes.size):
            return "its reachability checks name depths it has not reached"
        if int(header["generated"]) < states:
            return "it generated fewer states than it holds"
        if np.any(visited[1:] <= visited[:-1]):
            return "its visited set is not sorted"
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        if words.shape[1] != frontier or int(header["level_start"]) != int(starts[-1]) \
                or frontier != int(sizes[-1]):
            return "its frontier is not its last level"
        if np.any(parents[:sizes[0]] != -1) or np.any(actions[:sizes[0]] >= 0):
            return "its first level is not made of initial states"
        level_of = np.repeat(np.arange(sizes.size), sizes)[sizes[0]:]
        later = parents[sizes[0]:]
        if np.any(later < starts[np.maximum(level_of - 1, 0)]) or np.any(later >= starts[level_of]):
            return "a state's parent is not in the level before it"
    except (KeyError, TypeError, ValueError) as e:
        return f"its header is incomplete ({e})"
    return None


def frontier_visited(words: np.ndarray, visited: np.ndarray,
                     fingerprints: Callable[[np.ndarray], np.ndarray] | None = None) -> bool:
    """Whether every frontier state's fingerprint (by the run's own
    ``fingerprints``, the plain ones if not given) is in the sorted visited set."""
    if fingerprints is None:
        from modelcheck.packing import fingerprints
    fps = fingerprints(words)
    pos = np.minimum(np.searchsorted(visited, fps), max(visited.size - 1, 0))
    return fps.size == 0 or (visited.size > 0 and bool(np.all(visited[pos] == fps)))


def valid_reached(sometimes, depth: int) -> bool:
    """The depths where each reachability check first held: None or 1..depth."""
    return isinstance(sometimes, dict) and all(
        v is None or (type(v) is int and 1 <= v <= depth) for v in sometimes.values())


def check_depth_limit(directory: str, depth: int, max_depth: int | None) -> None:
    """A checkpoint holds every level up to its depth; a --max-depth below
    that cannot be honoured from it (the levels past the limit are already
    in its visited set), so it is refused before any work."""
    if max_depth is not None and depth > max_depth:
        raise InputError(f"--resume {directory}: the checkpoint already holds {depth} levels, deeper than "
                         f"--max-depth {max_depth}; give --max-depth {depth} or more, or run without --resume")
