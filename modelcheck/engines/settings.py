"""The fast engine's own settings, filled from its options (see the registry).

An engine reads its settings from ``CheckOptions.engine_options``, which
holds the typed settings the request built, or, from code that calls an
engine directly (the tests, the benches), a plain mapping of the same
fields; ``of`` accepts either.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, fields
from typing import Any, Mapping

from modelcheck.errors import InputError


def settings_of(cls, given: Any):
    """``given`` as the settings type ``cls``: itself, or built from a mapping."""
    if isinstance(given, cls):
        return given
    return cls.from_options(dict(given or {}))


def from_mapping(cls, values: Mapping[str, Any], engine: str):
    """``cls(**values)``, with a field it does not have reported as bad input."""
    known = {f.name for f in fields(cls)}
    unknown = sorted(set(values) - known)
    if unknown:
        raise InputError(f"--{unknown[0].replace('_', '-')} does not apply to --engine {engine}")
    return cls(**{k: v for k, v in values.items() if v is not None})


# Threads beyond the cores only wait their turn, each with its own hash tables and buffers: a few per core
# may hide a stall, but a thousand took 80 times as long as two, and ten thousand could not be started.
WORKERS_PER_CORE = 4


def max_workers() -> int:
    """The most --workers taken: ``WORKERS_PER_CORE`` per core this process may run on."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return WORKERS_PER_CORE * max(1, cores)


@dataclass(frozen=True)
class FastSettings:
    """``checkpoint``: a directory to save the search into at level
    boundaries (at most every ``checkpoint_every`` seconds) and when a limit
    or Ctrl-C stops it; ``resume``: a directory to continue from (and go on
    saving into); ``orbit_sizes``: under symmetry, add up how many states
    the representatives stand for (a complete search's sum is the count
    without symmetry); ``kernels``: "auto" (C built from the spec's
    expression trees, taken up once built; ``modelcheck.engines.kernels``),
    "compiled" (built before the search) or "numpy"; ``workers``: the threads the compiled
    kernel splits each chunk between (default: the cores available);
    ``fingerprint_bits``: 64, or 128 to tell states apart by 128-bit
    fingerprints (the visited set then takes twice the memory per slot)."""

    checkpoint: str | None = None
    checkpoint_every: float = 60.0
    resume: str | None = None
    orbit_sizes: bool = False
    kernels: str = "auto"
    workers: int | None = None
    fingerprint_bits: int = 64

    def __post_init__(self):
        if self.kernels not in ("auto", "compiled", "numpy"):
            raise InputError(f"--kernels must be auto, compiled or numpy, not {self.kernels!r}")
        if self.fingerprint_bits not in (64, 128):
            raise InputError(f"--fingerprint-bits must be 64 or 128, not {self.fingerprint_bits}")
        if self.workers is not None and int(self.workers) < 1:
            raise InputError("--workers must be at least 1")
        if self.workers is not None and int(self.workers) > max_workers():
            raise InputError(f"--workers {self.workers} is more than this machine can use: at most "
                             f"{max_workers()} ({WORKERS_PER_CORE} per core available; the default is one per core)")
        if not math.isfinite(float(self.checkpoint_every)) or float(self.checkpoint_every) <= 0:
            raise InputError("--checkpoint-every must be a positive number of seconds")
        if self.checkpoint and self.resume and os.path.abspath(self.checkpoint) != os.path.abspath(self.resume):
            raise InputError("--resume continues saving into its own directory; drop --checkpoint or give the "
                             "same one")

    @classmethod
    def from_options(cls, values: Mapping[str, Any]) -> "FastSettings":
        return from_mapping(cls, values, "fast")

    @classmethod
    def of(cls, given: Any) -> "FastSettings":
        return settings_of(cls, given)

    @classmethod
    def saving_into(cls, directory: str) -> "FastSettings":
        """The checkpoint capability's settings: save the search into ``directory``."""
        return cls(checkpoint=directory)

    @classmethod
    def resuming_from(cls, directory: str) -> "FastSettings":
        """The checkpoint capability's settings: continue the search saved in ``directory``."""
        return cls(resume=directory)

    @property
    def directory(self) -> str | None:
        """Where the search is saved: the resumed directory, or --checkpoint."""
        return self.resume or self.checkpoint

    def check(self) -> None:
        """Refuse, before any search, a checkpoint directory that cannot be used."""
        if self.directory:
            from modelcheck.search.checkpoint import check_destination
            check_destination(self.directory, resuming=bool(self.resume))
