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
works on whole batches of bit-packed states (``modelcheck.language.packing``); the
batches of the batch engines go to a C routine that computes the same
function state by state (``modelcheck.search.canonical_c``), and to numpy
without a C compiler.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cached_property, lru_cache, partial

import numpy as np

from modelcheck.search import canonical_c
from modelcheck.language.codec import (BoolSlot, Const, Fn, IntSlot, KeyedSet, NilOr, Rec, ReplicaSetSlot, ReplicaSlot,
                                       StateCodec)
from modelcheck.errors import InputError
from modelcheck.language.packing import Packing, fingerprints
from modelcheck.language.renaming import symmetric_constant


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
    replica_slots: np.ndarray
    set_slots: np.ndarray

    def positions(self, slots: np.ndarray) -> np.ndarray:
        """The block positions j whose slots (for every replica) are among ``slots``."""
        return np.flatnonzero(np.isin(self.blocks[0], slots))

    def shared(self, slots: np.ndarray) -> np.ndarray:
        """Those of ``slots`` outside every replica's block."""
        return slots[~np.isin(slots, self.blocks)]

    # the same four lookups for every batch: worked out once per model
    @cached_property
    def named_positions(self) -> np.ndarray:
        return self.positions(self.replica_slots)

    @cached_property
    def set_positions(self) -> np.ndarray:
        return self.positions(self.set_slots)

    @cached_property
    def shared_replica_slots(self) -> np.ndarray:
        return self.shared(self.replica_slots)

    @cached_property
    def shared_set_slots(self) -> np.ndarray:
        return self.shared(self.set_slots)


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
                        np.array(replica_slots, dtype=np.int64), np.array(set_slots, dtype=np.int64))


def _same_replicas(got, names, where: str) -> None:
    if tuple(got) != names:
        raise InputError(f"--symmetry: {where} ranges over {', '.join(got)}, not the symmetric {', '.join(names)}")


def rename_columns(roles: ReplicaRoles, columns: np.ndarray, order: np.ndarray,
                   block: np.ndarray | None = None) -> np.ndarray:
    """The states of ``columns`` ((width, n) slot values) with the replicas
    renamed so that, in state k, replica ``order[k, i]`` becomes replica ``i``.
    ``block`` is ``columns[roles.blocks]`` when the caller has it already."""
    n = columns.shape[1]
    rank = np.empty_like(order)  # rank[k, r]: the new name of replica r
    np.put_along_axis(rank, order, np.arange(roles.replicas)[None, :], axis=1)
    new_name = rank.T  # (R, n)
    out = columns.copy()
    if roles.blocks.size:
        if block is None:
            block = columns[roles.blocks]
        moved = np.take_along_axis(block, order.T[:, None, :], axis=0)  # (R, m, n)
        out[roles.blocks.ravel()] = moved.reshape(-1, n)
    if roles.replica_slots.size:
        v = out[roles.replica_slots]
        out[roles.replica_slots] = np.where(v < 0, v, np.take_along_axis(new_name, np.maximum(v, 0), axis=0))
    if roles.set_slots.size:
        bits = (out[roles.set_slots][None] >> _replica_axis(roles)) & 1  # (R, S, n)
        out[roles.set_slots] = (bits << new_name[:, None, :]).sum(axis=0)
    return out


def _replica_axis(roles: ReplicaRoles) -> np.ndarray:
    return np.arange(roles.replicas, dtype=np.int64)[:, None, None]


_POPCOUNT = np.array([bin(i).count("1") for i in range(1 << 8)], dtype=np.int64)


def signatures(roles: ReplicaRoles, columns: np.ndarray, block: np.ndarray | None = None) -> np.ndarray:
    """(n, R) int64: for each state and replica, a hash of what the state
    says about that replica in terms a renaming preserves (its own slots;
    whether its replica-valued slots name none, itself or another; the size
    of its sets and whether it is in them; whether the shared replica slots
    name it and the shared sets hold it). Corresponding replicas of two
    members of an orbit get equal signatures, so sorting by signature orders
    every member's replicas alike up to ties. A collision only makes a tie.
    ``block`` is ``columns[roles.blocks]`` when the caller has it already."""
    me = _replica_axis(roles)
    if block is None:
        block = columns[roles.blocks]  # (R, m, n)
    named, sets = roles.named_positions, roles.set_positions
    plain_weights = _weights(block.shape[1], 0).copy()
    plain_weights[named] = 0  # a replica's name is not kept by renaming: only how it relates to r
    plain_weights[sets] = 0
    sig = np.einsum("rmn,m->nr", block, plain_weights)  # wraps around, as a hash may
    features = []
    if named.size:  # none, itself or another replica
        v = block[:, named]
        features.append(np.where(v < 0, 0, np.where(v == me, 1, 2)))
    if sets.size:  # how many, and whether itself
        v = block[:, sets]
        features.append(_POPCOUNT[v & 0xFF] * 2 + ((v >> me) & 1))
    shared = roles.shared_replica_slots
    if shared.size:
        features.append((columns[shared][None] == me).astype(np.int64))
    shared = roles.shared_set_slots
    if shared.size:
        features.append((columns[shared][None] >> me) & 1)
    if features:
        stacked = np.concatenate(features, axis=1)  # (R, k, n)
        sig += np.einsum("rkn,k->nr", stacked, _weights(stacked.shape[1], 1))
    return sig


@lru_cache(maxsize=None)
def _weights(k: int, stream: int) -> np.ndarray:
    """Fixed odd 64-bit weights for the linear signature hash."""
    return np.random.default_rng((320, stream)).integers(0, 1 << 62, size=k, dtype=np.int64) * 2 + 1


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


BATCH = 1 << 14  # states canonicalised at once


@dataclass(frozen=True)
class Stabiliser:
    """The renamings that keep each of the first ``fixed`` replicas where it
    is and permute the others freely (``fixed=0``: every renaming). It is
    the group a temporal property case about r1 is checked under: the case
    is unchanged by exactly those renamings that leave r1 alone."""

    fixed: int = 0

    def permutations(self, replicas: int) -> list[tuple[int, ...]]:
        """Its members, as tuples ``p`` with replica i renamed to ``p[i]``."""
        head = tuple(range(self.fixed))
        return [head + rest for rest in itertools.permutations(range(self.fixed, replicas))]

    def describe(self, names: tuple[str, ...]) -> str:
        if self.fixed == 0:
            return f"every renaming of {{{', '.join(names)}}}"
        kept = ", ".join(names[:self.fixed])
        rest = ", ".join(names[self.fixed:])
        return f"the renamings that fix {kept} (those of {{{rest}}})"


EVERY_RENAMING = Stabiliser(0)


def group_of(symmetry) -> Stabiliser:
    """The group a ``CheckOptions.symmetry`` asks for: True means every renaming."""
    return symmetry if isinstance(symmetry, Stabiliser) else EVERY_RENAMING


class Canonicaliser:
    """Maps batches of packed states to their orbit representatives, under
    every renaming of the replicas or under a ``Stabiliser``. ``workers``:
    the threads the C routine splits a batch between (default: the cores
    this process may use)."""

    def __init__(self, model, packing: Packing | None = None, group: Stabiliser = EVERY_RENAMING,
                 workers: int | None = None):
        self.model = model
        self.workers = workers
        self.roles = replica_roles(model)
        self.packing = packing or Packing(model.schema)
        self.group = group
        self._runs: dict[int, np.ndarray] = {}
        self._compiled = None  # the C routine (modelcheck.search.canonical_c), built on first use

    def words(self, words: np.ndarray) -> np.ndarray:
        """(words, n) packed states -> their representatives, column by column."""
        if words.shape[1] == 0:
            return words
        compiled = self.compiled()
        if compiled is not None:
            return compiled.words(words)
        return self.words_numpy(words)

    def compiled(self) -> canonical_c.CompiledCanonical | None:
        """The C routine that computes ``words`` (the same function), or None
        without a C compiler or with more replicas than it has tables for."""
        if self._compiled is None:
            library = canonical_c.load() if self.roles.replicas <= canonical_c.MAX_REPLICAS else None
            self._compiled = False if library is None else canonical_c.CompiledCanonical(
                library, *c_tables(self.roles, self.packing, self.group), workers=self.workers)
        return self._compiled or None

    def words_numpy(self, words: np.ndarray) -> np.ndarray:
        """``words`` computed with numpy, batch by batch."""
        if words.shape[1] == 0:
            return words
        if words.shape[1] <= BATCH:
            return self.packing.pack(self.columns(self.packing.unpack(words)))
        # in slices, so that the temporaries stay small enough to be reused
        return np.concatenate([self.words_numpy(words[:, i:i + BATCH]) for i in range(0, words.shape[1], BATCH)], axis=1)

    def states(self, states: list[tuple]) -> list[tuple]:
        """The representatives of some state tuples (for the reference engines)."""
        if not states:
            return []
        canon = self.columns(np.array(states, dtype=np.int64).T)
        return list(zip(*canon.tolist()))

    def columns(self, columns: np.ndarray) -> np.ndarray:
        """(width, n) slot values -> those of the representatives."""
        roles = self.roles
        block = columns[roles.blocks]
        sig = self._fix(signatures(roles, columns, block))
        order = np.argsort(sig, axis=1, kind="stable")
        ranked = np.take_along_axis(sig, order, axis=1)
        ties = np.zeros(columns.shape[1], dtype=np.int64)
        for i in range(roles.replicas - 1):
            ties |= (ranked[:, i] == ranked[:, i + 1]).astype(np.int64) << i
        out = rename_columns(roles, columns, order, block)
        tied = np.flatnonzero(ties)
        for pattern in np.unique(ties[tied]):
            rows = tied[ties[tied] == pattern]
            out[:, rows] = self._least_image(columns[:, rows], order[rows], int(pattern), out[:, rows])
        return out

    def _fix(self, sig: np.ndarray) -> np.ndarray:
        """Signatures under which the fixed replicas sort first, each alone:
        they then keep their own names, and only the others are permuted."""
        k = self.group.fixed
        if k:
            low = np.iinfo(np.int64).min
            sig = np.maximum(sig, low + k)
            sig[:, :k] = low + np.arange(k)
        return sig

    def _least_image(self, columns: np.ndarray, order: np.ndarray, ties: int, best: np.ndarray) -> np.ndarray:
        """Of the images that keep the signatures sorted, the least (slot by
        slot); ``best`` is the image under ``order`` itself."""
        states = np.arange(columns.shape[1])
        for q in self._within_runs(ties)[1:]:  # the first is the identity
            image = rename_columns(self.roles, columns, order[:, q])
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
        """How many distinct states each packed state's orbit holds (every renaming of the group tried)."""
        columns = self.packing.unpack(words)
        n, R = words.shape[1], self.roles.replicas
        images = [fingerprints(self.packing.pack(rename_columns(self.roles, columns,
                                                                np.broadcast_to(np.array(p), (n, R)))))
                  for p in self.group.permutations(R)]
        stacked = np.sort(np.stack(images), axis=0)
        return 1 + (stacked[1:] != stacked[:-1]).sum(axis=0)


    def rename(self, state: tuple, p: tuple[int, ...]) -> tuple:
        """``state`` with replica i renamed to ``p[i]``."""
        order = np.empty(len(p), np.int64)
        order[list(p)] = np.arange(len(p))
        renamed = rename_columns(self.roles, np.array(state, dtype=np.int64)[:, None], order[None, :])
        return tuple(renamed[:, 0].tolist())


def c_tables(roles: ReplicaRoles, packing: Packing, group: Stabiliser) -> tuple[dict, dict]:
    """What ``modelcheck.search.canonical_c`` needs to compute ``Canonicaliser.columns``:
    the slots' places in the words, the roles, the signature weights of
    ``signatures`` and, per tie pattern, the permutations ``_within_runs`` tries."""
    R = roles.replicas
    named, sets = roles.named_positions, roles.set_positions
    plain = _weights(roles.blocks.shape[1], 0).copy()
    plain[named] = 0
    plain[sets] = 0
    features = named.size + sets.size + roles.shared_replica_slots.size + roles.shared_set_slots.size
    perms = [_run_permutations(ties, R) for ties in range(1 << max(R - 1, 0))]
    i64 = partial(np.asarray, dtype=np.int64)
    tables = dict(
        slot_word=i64([s.word for s in packing.slots]), slot_shift=i64([s.shift for s in packing.slots]),
        slot_lo=i64([s.lo for s in packing.slots]),
        slot_mask=np.array([s.mask for s in packing.slots], dtype=np.uint64),
        blocks=i64(roles.blocks).ravel(), replica_slots=i64(roles.replica_slots), set_slots=i64(roles.set_slots),
        plain_weights=plain, named=i64(named), sets=i64(sets), shared_replica=i64(roles.shared_replica_slots),
        shared_set=i64(roles.shared_set_slots), feature_weights=_weights(features, 1),
        perm_start=i64(np.cumsum([0] + [len(p) for p in perms])),
        perms=i64([q for p in perms for q in p]).reshape(-1))
    assert (np.diff(tables["slot_word"]) >= 0).all()  # Packing fills the words in slot order, as the C code expects
    sizes = dict(width=len(packing.slots), words=packing.words, replicas=R, m=roles.blocks.shape[1],
                 fixed=group.fixed, n_replica_slots=roles.replica_slots.size, n_set_slots=roles.set_slots.size,
                 n_named=named.size, n_sets=sets.size, n_shared_replica=roles.shared_replica_slots.size,
                 n_shared_set=roles.shared_set_slots.size)
    return tables, sizes


# --- what the engines call ------------------------------------------------------

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


def symmetric_search(model, successors, group: Stabiliser = EVERY_RENAMING):
    """For a search over representatives: its successor function, its trace
    rebuilder (``rebuild(model, path)``) and its initial states."""
    canon = Canonicaliser(model, group=group)
    return canonical_successors(canon, successors), partial(genuine_trace, canon=canon), \
        canon.states(model.init_states)

