"""One representative per orbit of interchangeable replicas, for the explicit engines.

When a spec declares its replicas symmetric (``SpecDefinition.symmetry``),
renaming them maps every behaviour onto a behaviour, so a search need keep
only one state per orbit, as TLC does with ``SYMMETRY Permutations(Replicas)``.
TLC keeps the member with the least fingerprint; the distinct-state count is
then the number of reachable orbits, whichever member stands for it.

How a renaming acts on a state is read once per model from its codecs
(``ReplicaRoles``): a function over the replicas moves its values along with
its keys, a replica-valued slot has its value renamed and a set of replicas
(a bitmask) has its bits moved.

The canonical form of a state is found without trying every permutation:
each replica gets a *signature* of what the state says about it that any
renaming carries along (its own slots, whether it leads, whether it is in an
ISR...), the replicas are sorted by signature, and only the orderings of
replicas with equal signatures are tried; of those images the least, slot by
slot, is kept. Since the images tried are the same set for every
member of an orbit, every member gets the same representative. Everything
works on whole batches of bit-packed states (``modelcheck.packing``).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import partial

import numpy as np

from modelcheck.codec import (BoolSlot, Const, Fn, IntSlot, KeyedSet, NilOr, Rec, ReplicaSetSlot, ReplicaSlot,
                              StateCodec)
from modelcheck.constants import REPLICA
from modelcheck.errors import InputError
from modelcheck.packing import Packing, fingerprints
from modelcheck.symmetry import symmetric_constant

_SIGNATURE_SEED = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xFF51AFD7ED558CCD)
_S33 = np.uint64(33)


@dataclass(frozen=True)
class ReplicaRoles:
    """Which state slots a renaming of the replicas touches, and how.

    ``blocks[r, j]`` is the j-th slot that belongs to replica ``r`` (its entries
    in the functions over the replicas, in the same order for every replica);
    ``replica_slots`` hold a replica (or -1 for none) and ``set_slots`` a set
    of replicas as a bitmask, wherever they sit.
    """

    replicas: int
    blocks: np.ndarray  # (R, m) int
    replica_slots: tuple[int, ...]
    set_slots: tuple[int, ...]


def replica_roles(model) -> ReplicaRoles:
    """The roles of the slots of ``model`` under renamings of its symmetric constant."""
    constant = symmetric_constant(model)
    if constant is None:
        raise InputError(f"--symmetry: {model.spec.name} declares no symmetric constant")
    names = tuple(getattr(model.constants, constant))
    rows: list[list[int]] = [[] for _ in names]
    replica_slots: list[int] = []
    set_slots: list[int] = []

    def walk(codec, where: str, inside_block: bool) -> None:
        if isinstance(codec, (IntSlot, BoolSlot, Const)):
            return
        if isinstance(codec, ReplicaSlot):
            _same_replicas(codec.names, names, where)
            replica_slots.append(codec.slot)
        elif isinstance(codec, ReplicaSetSlot):
            _same_replicas(codec.names, names, where)
            set_slots.append(codec.slot)
        elif isinstance(codec, Rec):
            for k, c in codec.fields.items():
                walk(c, f"{where}.{k}", inside_block)
        elif isinstance(codec, NilOr):
            walk(codec.inner, where, inside_block)
        elif isinstance(codec, KeyedSet):
            for key, (_present, c) in codec.entries.items():
                walk(c, f"{where}[{key}]", inside_block)
        elif isinstance(codec, Fn) and tuple(codec.keys) == names:
            if inside_block:
                raise InputError(f"--symmetry: {model.spec.name}: {where} is a function over {constant} inside "
                                 f"another one, which renaming does not support")
            for r, c in enumerate(codec.values):
                rows[r].extend(c.slots())
                walk(c, f"{where}[{names[r]}]", True)
        elif isinstance(codec, Fn):
            for k, c in zip(codec.keys, codec.values):
                walk(c, f"{where}[{k}]", inside_block)
        else:
            raise InputError(f"--symmetry: {model.spec.name}: cannot rename {constant} in {where} "
                             f"({type(codec).__name__})")

    codec: StateCodec = model.codec
    for name, c in codec.variables.items():
        walk(c, name, False)
    fields = model.schema.slot_field
    if len({len(r) for r in rows}) > 1 or any([fields[s].name for s in row] != [fields[s].name for s in rows[0]]
                                              for row in rows):
        raise InputError(f"--symmetry: {model.spec.name}: the replicas' entries differ in shape")
    return ReplicaRoles(len(names), np.array(rows, dtype=np.int64).reshape(len(names), -1),
                        tuple(replica_slots), tuple(set_slots))


def _same_replicas(got, names, where: str) -> None:
    if tuple(got) != names:
        raise InputError(f"--symmetry: {where} ranges over {', '.join(got)}, not the symmetric {', '.join(names)}")


def rename_columns(roles: ReplicaRoles, columns: np.ndarray, order: np.ndarray) -> np.ndarray:
    """The states of ``columns`` ((width, n) slot values) with the replicas
    renamed so that, in state k, replica ``order[k, i]`` becomes replica ``i``."""
    n = columns.shape[1]
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(roles.replicas)[None, :], axis=1)
    out = columns.copy()
    if roles.blocks.size:
        block = columns[roles.blocks]  # (R, m, n)
        moved = np.take_along_axis(block, order.T[:, None, :], axis=0)
        out[roles.blocks.ravel()] = moved.reshape(-1, n)
    states = np.arange(n)
    for s in roles.replica_slots:
        v = out[s]
        out[s] = np.where(v < 0, v, rank[states, np.maximum(v, 0)])
    for s in roles.set_slots:
        mask = out[s]
        renamed = np.zeros(n, dtype=np.int64)
        for r in range(roles.replicas):
            renamed |= ((mask >> r) & 1) << rank[:, r]
        out[s] = renamed
    return out


def _mix(h: np.ndarray, v: np.ndarray) -> np.ndarray:
    h = (h ^ v.astype(np.uint64)) * _M1
    return h ^ (h >> _S33)


def signatures(roles: ReplicaRoles, columns: np.ndarray) -> np.ndarray:
    """(n, R) uint64: for each state and replica, a hash of what the state
    says about that replica in terms a renaming preserves. Equal states under
    a renaming give equal signatures to corresponding replicas, so sorting by
    signature is the same up to ties for every member of an orbit."""
    R, n = roles.replicas, columns.shape[1]
    replica_valued, set_valued = set(roles.replica_slots), set(roles.set_slots)
    own = frozenset(int(s) for s in roles.blocks.ravel())
    shared_replica = [s for s in roles.replica_slots if s not in own]
    shared_sets = [s for s in roles.set_slots if s not in own]
    with np.errstate(over="ignore"):
        out = np.empty((n, R), dtype=np.uint64)
        for r in range(R):
            h = np.full(n, _SIGNATURE_SEED, dtype=np.uint64)
            for j, first in enumerate(roles.blocks[0].tolist()):
                v = columns[roles.blocks[r, j]]
                if first in replica_valued:  # none, itself or another replica
                    v = np.where(v < 0, 0, np.where(v == r, 1, 2))
                elif first in set_valued:  # how many, and whether itself
                    v = _popcount(v) * 2 + ((v >> r) & 1)
                h = _mix(h, v)
            for s in shared_replica:
                h = _mix(h, columns[s] == r)
            for s in shared_sets:
                h = _mix(h, (columns[s] >> r) & 1)
            out[:, r] = h
    return out


def _popcount(v: np.ndarray) -> np.ndarray:
    count = np.zeros_like(v)
    while True:
        nonzero = v != 0
        if not nonzero.any():
            return count
        count += nonzero
        v = v & (v - 1)


def _run_permutations(ties: int, replicas: int) -> list[tuple[int, ...]]:
    """Permutations of sorted positions that keep each run of equal
    signatures in place; bit i of ``ties`` says positions i and i+1 tie."""
    runs, start = [], 0
    for i in range(replicas):
        if i == replicas - 1 or not ties >> i & 1:
            runs.append(range(start, i + 1))
            start = i + 1
    out = []
    for choice in itertools.product(*(itertools.permutations(run) for run in runs)):
        out.append(tuple(p for run in choice for p in run))
    return out


class Canonicaliser:
    """Maps batches of packed states to their orbit representatives."""

    def __init__(self, model, packing: Packing | None = None):
        self.model = model
        self.roles = replica_roles(model)
        self.packing = packing or Packing(model.schema)
        self._runs: dict[int, np.ndarray] = {}

    def words(self, words: np.ndarray) -> np.ndarray:
        """(words, n) packed states -> their representatives, column by column."""
        if words.shape[1] == 0:
            return words
        return self.packing.pack(self.columns(self.packing.unpack(words)))

    def states(self, states: list[tuple]) -> list[tuple]:
        """The representatives of some state tuples (for the reference engines)."""
        if not states:
            return []
        canon = self.columns(np.array(states, dtype=np.int64).T)
        return list(zip(*canon.tolist()))

    def columns(self, columns: np.ndarray) -> np.ndarray:
        """(width, n) slot values -> those of the representatives."""
        roles = self.roles
        sig = signatures(roles, columns)
        order = np.argsort(sig, axis=1, kind="stable")
        ranked = np.take_along_axis(sig, order, axis=1)
        ties = np.zeros(columns.shape[1], dtype=np.int64)
        for i in range(roles.replicas - 1):
            ties |= (ranked[:, i] == ranked[:, i + 1]).astype(np.int64) << i
        if not ties.any():
            return rename_columns(roles, columns, order)
        out = np.empty_like(columns)
        for pattern in np.unique(ties):
            rows = np.flatnonzero(ties == pattern)
            out[:, rows] = self._least_image(columns[:, rows], order[rows], int(pattern))
        return out

    def _least_image(self, columns: np.ndarray, order: np.ndarray, ties: int) -> np.ndarray:
        """Of the images that keep the signatures sorted, the least (slot by slot)."""
        best = None
        states = np.arange(columns.shape[1])
        for q in self._within_runs(ties):
            image = rename_columns(self.roles, columns, order[:, q])
            if best is None:
                best = image
                continue
            differ = image != best
            first = np.argmax(differ, axis=0)  # the first slot where they differ
            better = differ[first, states] & (image[first, states] < best[first, states])
            best[:, better] = image[:, better]
        return best

    def _within_runs(self, ties: int) -> np.ndarray:
        if ties not in self._runs:
            self._runs[ties] = np.array(_run_permutations(ties, self.roles.replicas), dtype=np.int64)
        return self._runs[ties]

    def orbit_sizes(self, words: np.ndarray) -> np.ndarray:
        """How many distinct states each packed state's orbit holds (all R! renamings tried)."""
        columns = self.packing.unpack(words)
        n, R = words.shape[1], self.roles.replicas
        images = [fingerprints(self.packing.pack(rename_columns(self.roles, columns,
                                                                np.broadcast_to(np.array(p), (n, R)))))
                  for p in itertools.permutations(range(R))]
        stacked = np.sort(np.stack(images), axis=0)
        return 1 + (stacked[1:] != stacked[:-1]).sum(axis=0)


# --- what the engines call ------------------------------------------------------

EXPLICIT_ENGINES = ("bfs", "fast")


def check_symmetry_request(model, engine: str = "bfs") -> None:
    """Refuse --symmetry, before any search, where it would be unsound or meaningless."""
    spec = model.spec
    if engine not in EXPLICIT_ENGINES:
        raise InputError(f"--symmetry works with the engines {' and '.join(EXPLICIT_ENGINES)}, not {engine}"
                         + (" (z3 prunes by symmetry on its own)" if engine == "z3" else ""))
    constant = symmetric_constant(model)
    if constant is None:
        raise InputError(f"--symmetry: {spec.name} declares none of its constants symmetric, "
                         f"so there is nothing to permute")
    named = [d.name for d in spec.constants if d.kind == REPLICA]
    if named:
        raise InputError(f"--symmetry: {spec.name}'s constant {named[0]} names one of the {constant} "
                         f"specifically, so they are not interchangeable")
    replica_roles(model)  # a state the renaming cannot reach is refused here


def symmetry_from_config(cfg, model, notes: list[str]) -> bool:
    """Whether a .cfg's SYMMETRY lines ask for symmetry, with a note on how each is read.

    TLC's SYMMETRY names a definition in the .tla, which modelcheck does not
    read; it is taken to be the permutations of the spec's symmetric
    constant. ``Permutations(C)`` is accepted too, for a symmetric C.
    """
    if cfg is None or not cfg.symmetry:
        return False
    spec = model.spec
    constant = symmetric_constant(model)
    for text, line in cfg.symmetry:
        where = f"{cfg.path}:{line}: SYMMETRY {text}"
        if constant is None:
            raise InputError(f"{where}: {spec.name} declares none of its constants symmetric")
        if text.startswith("Permutations(") and text.endswith(")"):
            named = text[len("Permutations("):-1]
            if named != constant:
                raise InputError(f"{where}: {named} is not a symmetric constant of {spec.name} "
                                 f"(only {constant} is); use Permutations({constant})")
            notes.append(f"{where}: one state per orbit under renamings of {constant}")
            continue
        if not text.isidentifier():
            raise InputError(f"{where}: expected the name of a permutation set, such as Permutations({constant})")
        if text in {d.name for d in spec.constants}:
            raise InputError(f"{where}: {text} is a constant, not a set of permutations; "
                             f"use Permutations({constant})")
        notes.append(f"{where}: taken to mean Permutations({constant}) (the .tla's definition is not read): "
                     f"one state per orbit under renamings of {constant}")
    return True


def canonical_successors(canon: Canonicaliser, successors):
    """``successors`` (state -> [(instance, state)]) with every successor
    replaced by its representative."""
    def step(state: tuple) -> list[tuple[int, tuple]]:
        found = successors(state)
        return list(zip((i for i, _ in found), canon.states([t for _, t in found])))
    return step


def genuine_trace(model, path: list[int], canon: Canonicaliser) -> tuple[list[tuple], list[int | None]]:
    """A behaviour of the spec itself along a path recorded between representatives.

    ``path`` is an initial-state entry then the action instances the search
    took, each from the representative of the state before. Step k of the
    genuine behaviour is a successor of its state k-1 in the orbit of the
    search's state k: one exists because the renaming that maps the
    representative onto the genuine state maps its step onto a step. The
    result has the same length and breaks the same invariant (the invariants
    are symmetric too).
    """
    state = model.init_states[-1 - path[0]]
    representative = canon.states([state])[0]
    states, actions = [state], [None]
    for index in path[1:]:
        matches = [t for i, t in model.successors(representative) if i == index]
        if not matches:
            raise RuntimeError(f"trace replay failed: {model.instances[index].label()} is not enabled")
        representative = canon.states(matches[:1])[0]
        found = model.successors(state)
        images = canon.states([t for _, t in found])
        k = images.index(representative)  # exists, by symmetry
        state = found[k][1]
        states.append(state)
        actions.append(found[k][0])
    return states, actions


def symmetric_search(model, successors):
    """For a search over representatives: its successor function, its trace
    rebuilder (``rebuild(model, path)``) and its initial states."""
    canon = Canonicaliser(model)
    return canonical_successors(canon, successors), partial(genuine_trace, canon=canon), \
        canon.states(model.init_states)


def symmetry_note(model) -> str:
    constant = symmetric_constant(model)
    return (f"symmetry: distinct states count orbits under renamings of {constant}; "
            f"a trace is mapped back to a genuine behaviour")
