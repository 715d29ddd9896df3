"""Bit-packed states for batch engines: a few uint64 words per state.

Each slot gets just enough bits for its range (``hi - lo + 1`` values) and
never straddles two words, so packing, unpacking and overwriting one slot are
each a shift and a mask over a whole column of states. The packing is
injective, so two states are equal exactly when their words are equal.

Fingerprints of packed states are a vectorised 64-bit mix of the words
(murmur3's finaliser, chained). Like TLC's fingerprints they can in principle
collide; ``pair_collision_probability`` in modelcheck.language.fingerprint
estimates how likely that was for a run. A 128-bit fingerprint (``bits=128``)
adds a second 64-bit mix of the same words from another seed: the pair is a
record of two words (``FP128``), ``hi`` the 64-bit fingerprint itself (which
picks a hash table's slot) and ``lo`` the second mix, ordered as a pair.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

WORD_BITS = 64
_M1 = np.uint64(0xFF51AFD7ED558CCD)
_M2 = np.uint64(0xC4CEB9FE1A85EC53)
_SEED = np.uint64(0x9E3779B97F4A7C15)
_SEED2 = np.uint64(0xD6E8FEB86659FD93)  # the second word of a 128-bit fingerprint starts here
_S33 = np.uint64(33)
FINGERPRINT_BITS = (64, 128)
FP128 = np.dtype([("hi", "<u8"), ("lo", "<u8")])


def fingerprint_dtype(bits: int = 64) -> np.dtype:
    """The numpy type of one fingerprint of ``bits`` bits."""
    return np.dtype(np.uint64) if bits == 64 else FP128


@dataclass(frozen=True)
class SlotLayout:
    word: int
    shift: int
    bits: int
    lo: int

    @property
    def mask(self) -> int:
        return (1 << self.bits) - 1


class Packing:
    """Where each slot of a schema lives in the packed words."""

    def __init__(self, schema, fingerprint_bits: int = 64):
        self.schema = schema
        if fingerprint_bits not in FINGERPRINT_BITS:
            raise ValueError(f"fingerprints are 64 or 128 bits, not {fingerprint_bits}")
        self.fingerprint_bits = fingerprint_bits
        self.fingerprint_dtype = fingerprint_dtype(fingerprint_bits)
        layouts: list[SlotLayout] = []
        word, used = 0, 0
        for lo, hi in zip(schema.lo, schema.hi):
            bits = max(1, (hi - lo).bit_length())
            if used + bits > WORD_BITS:
                word, used = word + 1, 0
            layouts.append(SlotLayout(word, used, bits, lo))
            used += bits
        self.slots = tuple(layouts)
        self.words = word + 1
        # Under a VIEW, the bits of the slots it keeps: only they are fingerprinted.
        self.view_mask = None
        if getattr(schema, "view_slots", None) is not None:
            mask = [0] * self.words
            for j in schema.view_slots:
                s = layouts[j]
                mask[s.word] |= s.mask << s.shift
            self.view_mask = np.array(mask, dtype=np.uint64).reshape(self.words, 1)

    def fingerprints(self, words: np.ndarray) -> np.ndarray:
        """Each state's fingerprint (of ``fingerprint_bits``); under a VIEW,
        the fingerprint of its view."""
        if self.view_mask is not None:
            words = words & self.view_mask
        return fingerprints(words) if self.fingerprint_bits == 64 else fingerprints128(words)

    def pack(self, columns: np.ndarray) -> np.ndarray:
        """(width, n) int64 columns -> (words, n) uint64."""
        n = columns.shape[1]
        out = np.zeros((self.words, n), dtype=np.uint64)
        for j, s in enumerate(self.slots):
            out[s.word] |= (columns[j] - s.lo).astype(np.uint64) << np.uint64(s.shift)
        return out

    def unpack(self, words: np.ndarray) -> np.ndarray:
        """(words, n) uint64 -> (width, n) int64 columns."""
        n = words.shape[1]
        out = np.empty((len(self.slots), n), dtype=np.int64)
        for j, s in enumerate(self.slots):
            column = (words[s.word] >> np.uint64(s.shift)) & np.uint64(s.mask)
            out[j] = column.astype(np.int64) + s.lo
        return out

    def pack_states(self, states: list[tuple]) -> np.ndarray:
        return self.pack(np.array(states, dtype=np.int64).T.reshape(len(self.slots), len(states)))

    def unpack_state(self, words: np.ndarray) -> tuple:
        """One state's tuple from its words (shape (words,))."""
        return tuple(int(c) for c in self.unpack(words.reshape(self.words, 1))[:, 0])

    def overwrite(self, words: np.ndarray, slot: int, values: np.ndarray) -> None:
        """Set one slot, in place, for every state of ``words``."""
        s = self.slots[slot]
        keep = np.uint64(~(s.mask << s.shift) & ((1 << WORD_BITS) - 1))
        words[s.word] = (words[s.word] & keep) | ((values - s.lo).astype(np.uint64) << np.uint64(s.shift))


TRANSPOSE_BLOCK = 2048  # states per block: a block of 2048 states of a few dozen words stays in cache


def transposed(a: np.ndarray) -> np.ndarray:
    """``a.T`` as a C-contiguous array of its own: states by rows (as level
    files and checkpoints keep them) to states by columns (as the engine
    computes on them), or back. A plain copy of one into the other strides
    through memory a word at a time; copied a block of states at a time it
    stays in cache, which on levels of millions took about half the time."""
    out = np.empty(a.shape[::-1], a.dtype)
    if a.shape[0] >= a.shape[1]:  # states by rows, most likely (either way the copy is the same)
        for start in range(0, a.shape[0], TRANSPOSE_BLOCK):
            out[:, start:start + TRANSPOSE_BLOCK] = a[start:start + TRANSPOSE_BLOCK].T
    else:
        for start in range(0, a.shape[1], TRANSPOSE_BLOCK):
            out[start:start + TRANSPOSE_BLOCK] = a[:, start:start + TRANSPOSE_BLOCK].T
    return out


def _fmix(h: np.ndarray) -> np.ndarray:
    h = h ^ (h >> _S33)
    h = h * _M1
    h = h ^ (h >> _S33)
    h = h * _M2
    return h ^ (h >> _S33)


def fingerprints(words: np.ndarray, seed: np.uint64 = _SEED) -> np.ndarray:
    """A 64-bit fingerprint per packed state (column of ``words``)."""
    with np.errstate(over="ignore"):
        h = np.full(words.shape[1], seed, dtype=np.uint64)
        for w in words:
            h = _fmix(h ^ w) + seed
        return h


def fingerprints128(words: np.ndarray) -> np.ndarray:
    """A 128-bit fingerprint per packed state: the 64-bit one, and a second
    mix of the same words from another seed (``FP128``)."""
    out = np.empty(words.shape[1], FP128)
    out["hi"] = fingerprints(words)
    out["lo"] = fingerprints(words, _SEED2)
    return out
