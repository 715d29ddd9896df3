"""Checkpoints of the fast engine's search, taken at level boundaries.

A checkpoint is one file, ``DIR/checkpoint.npz``, holding the visited
fingerprints, every state's parent and action, the frontier, and a JSON
header naming the spec, constants, invariants and deadlock setting it was
made for. It is written to a temporary name and renamed into place, so a
crash while saving leaves the previous checkpoint intact. Resuming under any
other spec, constants or checks is refused: its states were checked against
those and only those.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field

import numpy as np

from modelcheck import __version__
from modelcheck.errors import InputError

FILE = "checkpoint.npz"
FORMAT = "modelcheck-fast-checkpoint"
VERSION = 1


@dataclass
class RunIdentity:
    """What a checkpoint must match to be resumed."""

    spec: str
    constants: dict
    invariants: list[str]
    check_deadlock: bool
    symmetry: bool = False  # its states are orbit representatives

    @classmethod
    def of(cls, model, options) -> "RunIdentity":
        return cls(model.spec.name, model.json_constants(), list(options.invariants), bool(options.check_deadlock),
                   bool(options.symmetry))

    def describe(self) -> str:
        consts = " ".join(f"{k}={{{', '.join(v)}}}" if isinstance(v, list) else f"{k}={v}"
                          for k, v in self.constants.items())
        return f"{self.spec} ({consts}; invariants {', '.join(self.invariants)}" + \
               ("; deadlock checked" if self.check_deadlock else "") + ("; symmetry" if self.symmetry else "") + ")"


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
    """Refuse, before any work, a checkpoint directory that cannot be used."""
    if os.path.exists(directory) and not os.path.isdir(directory):
        raise InputError(f"--checkpoint {directory} is a file, not a directory")
    if os.path.exists(path(directory)) and not resuming:
        raise InputError(f"{directory} already holds a checkpoint; continue it with --resume {directory} "
                         f"or choose another directory")
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as e:
        raise InputError(f"cannot create checkpoint directory {directory}: {e.strerror or e}") from None
    if not os.access(directory, os.W_OK):
        raise InputError(f"cannot write checkpoints into {directory}")


def save(directory: str, identity: RunIdentity, state: SearchState) -> float:
    """Write the checkpoint; returns the seconds it took."""
    started = time.perf_counter()
    header = {"format": FORMAT, "version": VERSION, "modelcheck": __version__, "saved_at": time.time(),
              "identity": identity.__dict__, "depth": state.depth, "level_start": state.level_start,
              "generated": state.generated, "sometimes": state.sometimes, "levels": len(state.parents)}
    sizes = np.array([p.size for p in state.parents], dtype=np.int64)
    tmp = os.path.join(directory, f".{FILE}.{os.getpid()}.tmp")
    with open(tmp, "wb") as f:
        np.savez(f, header=np.array(json.dumps(header)), level_words=state.level_words, visited=state.visited,
                 level_sizes=sizes,
                 parents=np.concatenate(state.parents) if state.parents else np.zeros(0, np.int64),
                 actions=np.concatenate(state.actions) if state.actions else np.zeros(0, np.int32))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path(directory))
    return time.perf_counter() - started


def load(directory: str, identity: RunIdentity) -> SearchState:
    file = path(directory)
    if not os.path.exists(file):
        raise InputError(f"--resume {directory}: no checkpoint there ({FILE} is missing)")
    try:
        with np.load(file, allow_pickle=False) as data:
            header = json.loads(str(data["header"]))
            arrays = {k: data[k] for k in ("level_words", "visited", "level_sizes", "parents", "actions")}
    except (OSError, ValueError, KeyError) as e:
        raise InputError(f"--resume {directory}: {FILE} is not a readable checkpoint ({e})") from None
    if header.get("format") != FORMAT or header.get("version") != VERSION:
        raise InputError(f"--resume {directory}: not a checkpoint of this modelcheck version")
    saved = RunIdentity(**header["identity"])
    if saved != identity:
        raise InputError(f"--resume {directory}: the checkpoint is for {saved.describe()}, "
                         f"but this run is {identity.describe()}")
    bounds = np.cumsum(arrays["level_sizes"])[:-1]
    return SearchState(
        depth=header["depth"], level_words=arrays["level_words"], level_start=header["level_start"],
        visited=arrays["visited"], parents=list(np.split(arrays["parents"], bounds)),
        actions=list(np.split(arrays["actions"], bounds)), generated=header["generated"],
        sometimes=header["sometimes"])
