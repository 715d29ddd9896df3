"""Stable state fingerprints: a 64-bit blake2b digest of the packed state.

The packed encoding is canonical (equal TLA+ states pack to equal bytes), so
equal states get equal fingerprints in every process and on every machine,
which is what partitioning work across processes or Spark executors needs.
Python's own ``hash()`` is salted per process and cannot serve.
"""

from __future__ import annotations

from hashlib import blake2b


def fingerprinter(schema):
    """A function state -> fingerprint for one schema (its packer bound in)."""
    pack = schema._packer.pack

    def fingerprint(state: tuple) -> int:
        return int.from_bytes(blake2b(pack(*state), digest_size=8).digest(), "little")
    return fingerprint


def collision_probability(distinct: int, generated: int) -> float:
    """The chance that two distinct states shared a fingerprint, the optimistic
    estimate TLC reports: n * m / 2^64 for n distinct states among m generated."""
    return distinct * max(generated - distinct, 0) / 2.0 ** 64
