"""Checkpoints of the fast engine's search, taken at level boundaries.

A checkpoint is a directory's ``checkpoint.json``, a header naming the
spec, constants, invariants and deadlock setting it was made for and the
digest of the model's definition (``Model.definition_digest``: its actions,
predicates and state layout, whatever the spec is written in), and the
array files it describes, in a directory of their own beside it
(``checkpoint-data-*``): the visited fingerprints, every state's parent and
action, the sizes of the levels, and the frontier. The arrays are written
and read a chunk at a time (``modelcheck.search.checkpoint_files``), so that a
search of hundreds of millions of states can be saved and resumed without
holding any of them whole in memory.

A save writes a new data directory, then replaces the header in one step
(``modelcheck.runtime.atomic``), then removes the data the old header named: a
crash, a full disk or a second Ctrl-C while saving leaves the previous
checkpoint intact and no partial directory. Resuming under any other spec,
constants, checks or code is refused: its states were found by that code
and checked against those checks, and only those.

A damaged or inconsistent checkpoint is refused too, never resumed into a
wrong count: the header records each array's shape and SHA-256 and a
SHA-256 of the header itself (the identity, the depth, the depths where
each reachability check first held, every counter), and loading checks
them, along with the invariants of the search (the sizes of the visited
set and the state store, parents pointing into the level before, no
fingerprint visited twice, the frontier's fingerprints all visited, one
level per depth). Each file is read only if it is a regular file.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable

import numpy as np

from modelcheck import __version__
from modelcheck.runtime.atomic import current_umask, write_atomically
from modelcheck.search.checkpoint_files import ArrayWriter, Damaged, dtypes, map_arrays
from modelcheck.search.checkpoint_files import json_digest as header_digest  # covers each array's shape and SHA-256
from modelcheck.runtime.destinations import make_writable_dir
from modelcheck.errors import InputError
from modelcheck.language.packing import fingerprints as packed_fingerprints, transposed
from modelcheck.runtime.reading import MiB, read_bytes

FILE = "checkpoint.json"
DATA_PREFIX = "checkpoint-data-"
EARLIER_FILE = "checkpoint.npz"  # the one-file checkpoints of modelcheck before format 4
FORMAT = "modelcheck-fast-checkpoint"
VERSION = 5  # 4: a header and array files, streamed; 5: the digest of the model's definition
HEADER_CAP = 64 * MiB
CHUNK = 1 << 22  # elements of an array checked or written at a time


@dataclass
class RunIdentity:
    """What a checkpoint must match to be resumed."""

    spec: str
    constants: dict
    invariants: list[str]
    check_deadlock: bool
    symmetry: bool = False  # its states are orbit representatives
    view: bool = False  # its fingerprints are of the spec's VIEW
    definition: str = ""  # Model.definition_digest(): the code that found its states
    fingerprint_bits: int = 64  # of its visited set's fingerprints

    @classmethod
    def of(cls, model, options, fingerprint_bits: int = 64) -> "RunIdentity":
        return cls(model.spec.name, model.json_constants(), list(options.invariants), bool(options.check_deadlock),
                   bool(options.symmetry), bool(model.view), model.definition_digest(), fingerprint_bits)

    def refusal(self, saved: "RunIdentity") -> str | None:
        """Why a checkpoint saved as ``saved`` cannot be resumed by this run, or None."""
        if saved == self:
            return None
        if replace(saved, definition=self.definition) == self:
            return (f"the checkpoint was saved by another definition of {self.spec} (its actions, invariants or "
                    f"variables differ from this run's code), so its states are not this spec's; it cannot be "
                    f"resumed")
        return f"the checkpoint is for {saved.describe()}, but this run is {self.describe()}"

    def describe(self) -> str:
        consts = " ".join(f"{k}={{{', '.join(v)}}}" if isinstance(v, list) else f"{k}={v}"
                          for k, v in self.constants.items())
        return f"{self.spec} ({consts}; invariants {', '.join(self.invariants)}" + \
               ("; deadlock checked" if self.check_deadlock else "") + ("; symmetry" if self.symmetry else "") + \
            ("; under the VIEW" if self.view else "") + \
            (f"; {self.fingerprint_bits}-bit fingerprints" if self.fingerprint_bits != 64 else "") + ")"


@dataclass
class SearchState:
    """Everything the fast engine needs to carry on after the last full level.

    ``level`` is the frontier: to save, a ``(words, n)`` array or a level
    on file (an object with ``path``, ``words`` and ``n``, its file state
    after state); resumed, its states mapped from the checkpoint, ``(n,
    words)``, from the file ``level_file``. ``visited``: to save, the
    visited fingerprints as chunks, in any order; resumed, the run's own
    visited set, built by the ``visited_set`` given to ``load``."""

    depth: int
    level: object
    level_start: int
    visited: object
    states: int
    parents: list[np.ndarray]
    actions: list[np.ndarray]
    generated: int
    sometimes: dict[str, int | None] = field(default_factory=dict)
    level_file: str | None = None


def path(directory: str) -> str:
    return os.path.join(directory, FILE)


def check_destination(directory: str, resuming: bool) -> None:
    """Refuse, before any work, a checkpoint directory that cannot be used.
    Resuming creates nothing: a mistyped --resume path is only reported."""
    option = "--resume" if resuming else "--checkpoint"
    if os.path.exists(directory) and not os.path.isdir(directory):
        raise InputError(f"{option} {directory} is a file, not a directory")
    earlier = os.path.exists(os.path.join(directory, EARLIER_FILE))
    if resuming and not os.path.lexists(path(directory)):
        if earlier:
            raise InputError(f"--resume {directory}: its {EARLIER_FILE} was saved by an earlier modelcheck, whose "
                             f"checkpoints this version cannot continue")
        where = "no checkpoint there" if os.path.isdir(directory) else "no such directory"
        raise InputError(f"--resume {directory}: {where} ({FILE} is missing)")
    if (os.path.lexists(path(directory)) or earlier) and not resuming:
        raise InputError(f"{directory} already holds a checkpoint; continue it with --resume {directory} "
                         f"or choose another directory")
    make_writable_dir(directory, option)


def _frontier_rows(level, rows: int) -> Iterable[np.ndarray]:
    """An in-memory ``(words, n)`` level as chunks of ``(k, words)``, state after state."""
    for start in range(0, level.shape[1], rows):
        yield transposed(level[:, start:start + rows])


def _save_arrays(data: str, state: SearchState, fingerprint_bits: int = 64) -> dict:
    out = ArrayWriter(data, dtypes(fingerprint_bits))
    out.write("level_sizes", [np.array([p.size for p in state.parents], dtype=np.int64)])
    out.write("parents", state.parents)
    out.write("actions", state.actions)
    out.write("visited", state.visited)
    words, n = state.level.shape
    if getattr(state.level, "path", None):  # a level on file: the same bytes
        out.link("frontier", state.level.path, (n, words))
    else:
        out.write("frontier", _frontier_rows(state.level, max(1, CHUNK // max(words, 1))), (words,))
    out.sync()
    return out.described


def save(directory: str, identity: RunIdentity, state: SearchState) -> float:
    """Write the checkpoint; returns the seconds it took."""
    started = time.perf_counter()
    data = tempfile.mkdtemp(prefix=DATA_PREFIX, dir=directory)
    try:
        os.chmod(data, 0o777 & ~current_umask())  # as an ordinary new directory would have (mkdtemp's is private)
        arrays = _save_arrays(data, state, identity.fingerprint_bits)
        if arrays["visited"]["shape"][0] != state.states:
            raise RuntimeError(f"the visited set gave {arrays['visited']['shape'][0]} fingerprints, "
                               f"not {state.states}")
        header = {"format": FORMAT, "version": VERSION, "modelcheck": __version__, "saved_at": time.time(),
                  "identity": identity.__dict__, "depth": state.depth, "level_start": state.level_start,
                  "generated": state.generated, "sometimes": state.sometimes, "levels": len(state.parents),
                  "states": int(state.states), "frontier": int(state.level.shape[1]),
                  "words": int(state.level.shape[0]), "data": os.path.basename(data), "arrays": arrays}
        header["digest"] = header_digest(header)
        # a second Ctrl-C, a full disk: the last complete checkpoint stays, and no partial directory
        write_atomically(path(directory), lambda f: f.write(json.dumps(header, indent=1)), replace=True)
    except BaseException:
        shutil.rmtree(data, ignore_errors=True)
        raise
    remove_other_data(directory, keep=os.path.basename(data))
    return time.perf_counter() - started


def remove_other_data(directory: str, keep: str) -> None:
    """Data directories the header no longer names: the checkpoint before,
    or a save cut short by a crash."""
    for name in os.listdir(directory):
        if name.startswith(DATA_PREFIX) and name != keep:
            shutil.rmtree(os.path.join(directory, name), ignore_errors=True)


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


def load(directory: str, identity: RunIdentity, max_depth: int | None = None,
         fingerprints: Callable[[np.ndarray], np.ndarray] | None = None, *,
         visited_set: Callable[[np.ndarray], object], words: int | None = None) -> SearchState:
    """The search saved in ``directory``, refused (``InputError``) if it is
    damaged, for another run, or deeper than ``max_depth``. ``fingerprints``:
    the run's own (``Packing.fingerprints``, which under a VIEW are of the
    view), by which its frontier must be visited; ``visited_set``: makes the
    run's visited set from the saved fingerprints (it must hold each once,
    have a length and an ``unseen(fps)`` mask); ``words``: the width of the
    run's packed states, which the checkpoint's must have."""
    refuse = f"--resume {directory}:"
    header = read_header(directory)
    try:
        data = os.path.join(directory, os.path.basename(str(header["data"])))
        bits = header["identity"].get("fingerprint_bits", 64) if isinstance(header["identity"], dict) else 64
        arrays = map_arrays(data, header["arrays"], refuse, dtypes(128 if bits == 128 else 64))
    except Damaged as e:
        raise InputError(f"{refuse} the checkpoint is damaged ({e}); it cannot be resumed") from None
    except KeyError:
        raise InputError(f"{refuse} the checkpoint is damaged (its header does not name its data)") from None
    problem = inconsistency(header, arrays)
    if problem:
        raise InputError(f"{refuse} the checkpoint is damaged ({problem}); it cannot be resumed")
    try:
        saved = RunIdentity(**header["identity"])
    except (KeyError, TypeError):
        raise InputError(f"{refuse} the checkpoint is damaged (its identity is unreadable)") from None
    if identity.refusal(saved):
        raise InputError(f"{refuse} {identity.refusal(saved)}")
    check_depth_limit(directory, header["depth"], max_depth)
    if words is not None and int(header["words"]) != words:
        raise InputError(f"{refuse} the checkpoint's states are {header['words']} words wide and this run's "
                         f"{words}: it was made by another version of {saved.spec}")
    # only now, the run known to be its own: its fingerprints are the run's (under a VIEW, of the view)
    visited = visited_set(arrays["visited"])
    if len(visited) != header["states"]:
        raise InputError(f"{refuse} the checkpoint is damaged (its visited set holds a fingerprint more than "
                         f"once); it cannot be resumed")
    if not frontier_visited(arrays["frontier"], visited, fingerprints):
        raise InputError(f"{refuse} the checkpoint is damaged (its frontier holds states that are not in "
                         f"its visited set); it cannot be resumed")
    bounds = np.cumsum(arrays["level_sizes"])[:-1]
    return SearchState(
        depth=header["depth"], level=arrays["frontier"], level_start=header["level_start"], visited=visited,
        states=header["states"], parents=list(np.split(arrays["parents"], bounds)),
        actions=list(np.split(arrays["actions"], bounds)), generated=header["generated"],
        sometimes=header["sometimes"], level_file=os.path.join(data, "frontier"))


def read_header(directory: str) -> dict:
    """The checkpoint's header, once its format, version and digest are found right."""
    refuse = f"--resume {directory}:"
    if not os.path.lexists(path(directory)):
        raise InputError(f"{refuse} no checkpoint there ({FILE} is missing)")
    try:
        header = json.loads(read_bytes(path(directory), refuse, HEADER_CAP))
    except (OSError, ValueError, RecursionError) as e:
        reason = " ".join(str(e).split())[:120] or type(e).__name__
        raise InputError(f"{refuse} {FILE} is damaged, not a readable checkpoint ({reason})") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise InputError(f"{refuse} {FILE} is not a modelcheck checkpoint")
    if header.get("version") != VERSION:
        raise InputError(f"{refuse} not a checkpoint of this modelcheck version" +
                         (" (it does not record the spec's definition it was made by)"
                          if header.get("version") == VERSION - 1 else ""))
    if header.get("digest") != header_digest(header):
        raise InputError(f"{refuse} {FILE} is damaged (its content does not match the digest saved with it); "
                         f"it cannot be resumed")
    return header


def inconsistency(header: dict, arrays: dict[str, np.ndarray]) -> str | None:
    """What is wrong with the structure a search leaves behind, or None.
    Arrays are read a chunk at a time: they may be larger than the memory."""
    try:
        sizes, parents, actions, visited, frontier = (arrays[k] for k in
                                                      ("level_sizes", "parents", "actions", "visited", "frontier"))
        states = int(header["states"])
        if visited.ndim != 1 or frontier.ndim != 2 or frontier.shape[1] != int(header["words"]):
            return "its arrays have the wrong shapes"
        if visited.size != states or int(sizes.sum()) != states or parents.size != states \
                or actions.size != states or sizes.size != int(header["levels"]) or sizes.size < 1:
            return "its visited set, state store and level sizes disagree"
        if int(header["depth"]) != sizes.size:
            return "its depth is not its number of levels"
        if not valid_reached(header["sometimes"], sizes.size):
            return "its reachability checks name depths it has not reached"
        if int(header["generated"]) < states:
            return "it generated fewer states than it holds"
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        if frontier.shape[0] != int(header["frontier"]) or int(header["level_start"]) != int(starts[-1]) \
                or frontier.shape[0] != int(sizes[-1]):
            return "its frontier is not its last level"
        if np.any(sizes < 1):
            return "a level of it is empty"
        if np.any(parents[:sizes[0]] != -1) or np.any(actions[:sizes[0]] >= 0):
            return "its first level is not made of initial states"
        for level in range(1, sizes.size):
            for lo in range(int(starts[level]), int(starts[level]) + int(sizes[level]), CHUNK):
                hi = min(lo + CHUNK, int(starts[level]) + int(sizes[level]))
                if parents[lo:hi].min() < starts[level - 1] or parents[lo:hi].max() >= starts[level] \
                        or actions[lo:hi].min() < 0:
                    return "a state's parent is not in the level before it"
    except (KeyError, TypeError, ValueError) as e:
        return f"its header is incomplete ({e})"
    return None


def frontier_visited(rows: np.ndarray, visited, fingerprints: Callable[[np.ndarray], np.ndarray] | None = None) -> bool:
    """Whether every frontier state (``rows``, ``(n, words)``) has its
    fingerprint, by the run's own ``fingerprints`` (the plain ones if not
    given), in ``visited``."""
    fingerprints = fingerprints or packed_fingerprints
    step = max(1, CHUNK // max(rows.shape[1], 1))
    for start in range(0, rows.shape[0], step):
        if visited.unseen(fingerprints(transposed(rows[start:start + step]))).any():
            return False
    return True


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
