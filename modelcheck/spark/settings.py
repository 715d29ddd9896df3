"""The Spark engine's settings, parsed and checked before Spark starts.

Everything the user can get wrong (a malformed master URL, a partition count
of zero, a checkpoint directory that is a file) is reported here as an
``InputError``, so a bad command fails in well under a second instead of
after a JVM has started.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from typing import Any, Mapping

from modelcheck.errors import InputError
from modelcheck.language.fingerprint import pair_collision_probability

DEFAULT_MASTER = "local[*]"
DEFAULT_CHECKPOINT_LEVELS = 5
DEFAULT_EXECUTOR_WAIT = 60.0
DEFAULT_CONNECT_TIMEOUT = 5.0
DEFAULT_LEAD_IN = 2_000_000  # successor candidates of a level the driver may run (modelcheck.spark.lead)
MAX_PARTITIONS = 10_000
# Where a search whose fingerprint width was not chosen starts again with 128 bits: the number of states
# at which two of them sharing a 64-bit fingerprint becomes more likely than one in a million (6,074,004)
COLLISION_TOLERATED = 1e-6


def _widen_at() -> int:
    n = math.isqrt(int(2 * 2 ** 64 * COLLISION_TOLERATED))
    while pair_collision_probability(n) <= COLLISION_TOLERATED:
        n += 1
    return n


WIDEN_AT = _widen_at()

_LOCAL = re.compile(r"^local(\[(\*|[1-9][0-9]*)(,[1-9][0-9]*)?\])?$")
_STANDALONE = re.compile(r"^spark://(.+)$")
_HOST_PORT = re.compile(r"^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9_.-]+):([0-9]{1,5})$")
MASTER_FORMS = "local, local[N], local[*] or spark://HOST:PORT"


@dataclass(frozen=True)
class SparkSettings:
    """How to run one search on Spark.

    ``master`` None means: the master spark-submit configured, if the run
    was launched through spark-submit, else ``local[*]``. ``partitions``
    None means Spark's default parallelism (the cores it has). A
    ``checkpoint_dir`` given by the user is kept after the run; the default
    temporary one is removed.
    """

    master: str | None = None
    partitions: int | None = None
    checkpoint_dir: str | None = None
    checkpoint_levels: int = DEFAULT_CHECKPOINT_LEVELS
    resume: str | None = None  # a checkpoint directory to continue the search from (modelcheck.spark.resume)
    verbose: bool = False
    executor_wait: float = DEFAULT_EXECUTOR_WAIT
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
    lead_in: int = DEFAULT_LEAD_IN
    conf: tuple[tuple[str, str], ...] = field(default_factory=tuple)
    kernels: str = "auto"  # the executors' kernels, as the fast engine's (modelcheck.spark.kernels)
    # of the visited set's fingerprints: 64, or 128 (modelcheck.spark.prints); None, not chosen: 64 until
    # a search grows past WIDEN_AT states, then 128 from the start again (a resumed run: its checkpoint's)
    fingerprint_bits: int | None = None

    def __post_init__(self):
        if self.master is not None:
            check_master(self.master)
        if self.partitions is not None and not 1 <= self.partitions <= MAX_PARTITIONS:
            raise InputError(f"--partitions must be between 1 and {MAX_PARTITIONS:,}, got {self.partitions}")
        if self.checkpoint_levels < 1:
            raise InputError(f"--checkpoint-levels must be at least 1, got {self.checkpoint_levels}")
        if self.executor_wait <= 0:
            raise InputError(f"--executor-wait must be positive, got {self.executor_wait}")
        if self.lead_in < 0:
            raise InputError(f"--lead-in must be 0 (off) or more, got {self.lead_in}")
        if self.fingerprint_bits not in (None, 64, 128):
            raise InputError(f"--fingerprint-bits must be 64 or 128, not {self.fingerprint_bits}")
        if self.kernels not in ("auto", "compiled", "numpy"):
            raise InputError(f"--kernels must be auto, compiled or numpy, not {self.kernels!r}")
        if self.connect_timeout <= 0:
            raise InputError(f"the connection timeout must be positive, got {self.connect_timeout}")
        if self.resume is not None:
            if self.checkpoint_dir is not None and os.path.abspath(self.checkpoint_dir) != os.path.abspath(self.resume):
                raise InputError("--resume continues the run in its own --checkpoint-dir; drop --checkpoint-dir "
                                 "or give the same directory")
            if is_url(self.resume):
                raise InputError(f"--resume {self.resume}: resuming needs a checkpoint directory on a mounted "
                                 f"file system")
            # a resumed run goes on checkpointing where it was checkpointed
            object.__setattr__(self, "checkpoint_dir", self.resume)
        if self.checkpoint_dir is not None:
            check_checkpoint_dir(self.checkpoint_dir)

    @classmethod
    def of(cls, given: Any) -> "SparkSettings":
        """``given`` as settings: itself, or built from a mapping of its fields."""
        return given if isinstance(given, cls) else cls.from_engine_options(given or {})

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> "SparkSettings":
        return cls.from_engine_options(options)

    @classmethod
    def saving_into(cls, directory: str) -> "SparkSettings":
        """The checkpoint capability's settings: checkpoint every level into ``directory``."""
        return cls(checkpoint_dir=directory, checkpoint_levels=1)

    @classmethod
    def resuming_from(cls, directory: str) -> "SparkSettings":
        """The checkpoint capability's settings: continue the search checkpointed in ``directory``."""
        return cls(resume=directory)

    def check(self) -> None:
        """The checks that need the file system, made before Spark starts: a
        resumed run's checkpoint is there, and a fresh run does not start in
        a directory holding one (that would replace it without being asked)."""
        from modelcheck.spark.resume import check_resumable
        check_resumable(self)

    @classmethod
    def from_engine_options(cls, options: Mapping[str, Any]) -> "SparkSettings":
        known = {f for f in cls.__dataclass_fields__}
        unknown = sorted(set(options) - known)
        if unknown:
            flag = "--" + unknown[0].replace("_", "-")
            raise InputError(f"{flag} does not apply to --engine spark (for spark, see docs/spark.md)")
        given = {k: v for k, v in options.items() if v is not None}
        if "conf" in given:
            given["conf"] = parse_conf(given["conf"])
        return cls(**given)


def check_master(master: str) -> None:
    """Accept the master URLs this engine knows how to check: local mode and
    standalone clusters (other cluster managers go through spark-submit)."""
    if _LOCAL.match(master):
        return
    m = _STANDALONE.match(master)
    if m:
        for address in m.group(1).split(","):
            hp = _HOST_PORT.match(address)
            if not hp or not 0 < int(hp.group(2)) < 65536:
                raise InputError(f"--master {master}: {address!r} is not HOST:PORT")
        return
    raise InputError(f"--master {master}: expected {MASTER_FORMS} "
                     f"(for YARN or Kubernetes, launch modelcheck through spark-submit)")


def standalone_addresses(master: str) -> list[tuple[str, int]]:
    """The (host, port) pairs of a spark:// URL (several for a standby setup)."""
    m = _STANDALONE.match(master)
    if not m:
        return []
    out = []
    for address in m.group(1).split(","):
        hp = _HOST_PORT.match(address)
        out.append((hp.group(1).strip("[]"), int(hp.group(2))))
    return out


def is_loopback_master(master: str) -> bool:
    """Local mode, or a standalone master on this machine's loopback address:
    then the driver can bind to 127.0.0.1 and need not guess its hostname."""
    if _LOCAL.match(master):
        return True
    addresses = standalone_addresses(master)
    return bool(addresses) and all(h in ("127.0.0.1", "localhost", "::1") for h, _ in addresses)


def is_url(path: str) -> bool:
    """hdfs://..., s3a://..., file://...: for Spark to resolve, not this machine."""
    return re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", path) is not None


def check_checkpoint_dir(path: str) -> None:
    if is_url(path):
        raise InputError(f"--checkpoint-dir {path}: the Spark engine keeps its visited set in files there, which "
                         f"every executor opens by path; give a directory mounted on the driver and every executor")
    if os.path.exists(path) and not os.path.isdir(path):
        raise InputError(f"--checkpoint-dir {path} exists and is not a directory")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise InputError(f"--checkpoint-dir {path}: directory {parent} does not exist")


def parse_conf(items) -> tuple[tuple[str, str], ...]:
    """``KEY=VALUE`` strings (or pairs) as a tuple of pairs."""
    out = []
    for item in items:
        if isinstance(item, tuple):
            key, value = item
        else:
            key, sep, value = str(item).partition("=")
            if not sep or not key.strip():
                raise InputError(f"--spark-conf {item!r}: expected KEY=VALUE, e.g. spark.executor.memory=2g")
        key = key.strip()
        if not key.startswith("spark."):
            raise InputError(f"--spark-conf {key}: Spark settings start with 'spark.'")
        out.append((key, value.strip()))
    return tuple(out)
