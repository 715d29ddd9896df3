"""What a Spark checkpoint vouches for: every file ``--resume`` reads.

A resumed search reads the visited runs of levels 1 to the checkpoint's
depth, in every partition (``modelcheck.spark.visited``), and the RDD files
of the checkpointed level. The manifest lists each of them with a SHA-256
digest, and ``verify`` checks them all in the driver before Spark starts:
a file missing, emptied, truncated or rewritten is refused with one line
naming it, never resumed into a wrong count.

A run's digest is of its content (each array's name, dtype, shape and
bytes), not of the file: Spark may run a level's task again after losing an
executor, which rewrites the run with the same content. Each run is hashed
once, by the driver, when the first checkpoint that holds its level is
written (``Ledger``). Runs are also checked for the structure a search
leaves: fingerprints sorted and distinct, each in the partition it names,
parents and actions beside them, initial states only in level 1, and as
many states in all as the checkpoint counts. The RDD files are written once
and hashed as files.
"""

from __future__ import annotations

import hashlib
import os
import zipfile

import numpy as np

from modelcheck.search import checkpoint_files
from modelcheck.runtime.reading import CHECKPOINT_CAP, Refused, check_file, open_regular
from modelcheck.spark import prints
from modelcheck.spark.visited import run_path

RUN_ARRAYS = (("fps", np.uint64), ("parents", np.uint64), ("actions", np.int32))
# a run of 128-bit fingerprints has the second words too (modelcheck.spark.prints)
WIDE_ARRAYS = (("fps_lo", np.uint64), ("parents_lo", np.uint64))


class Damaged(Exception):
    """A file of a checkpoint is not what its manifest says."""

    def __init__(self, path: str, problem: str):
        super().__init__(f"{path} {problem}")
        self.path, self.problem = path, problem


def run_name(partition: int, level: int) -> str:
    """A run's name in the manifest: its path inside the visited directory."""
    return os.path.relpath(run_path("", partition, level))


def run_arrays(path: str) -> dict[str, np.ndarray]:
    """A run's arrays, read from a regular file only; ``Damaged`` if unreadable."""
    try:
        with open_regular(path, "", CHECKPOINT_CAP) as f, np.load(f, allow_pickle=False) as data:
            names = [name for name, _ in RUN_ARRAYS + WIDE_ARRAYS if name in data.files]
            return {name: data[name] for name in names}
    except FileNotFoundError:
        raise Damaged(path, "is missing") from None
    except Refused as e:
        raise Damaged(path, e.problem) from None
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        raise Damaged(path, "is damaged, not a readable run of the visited set") from None


def content_digest(arrays: dict[str, np.ndarray]) -> str:
    h = hashlib.sha256()
    for name, _ in RUN_ARRAYS + WIDE_ARRAYS:
        if name not in arrays:
            continue
        a = np.ascontiguousarray(arrays[name])
        h.update(f"{name}:{a.dtype.str}:{a.shape};".encode())
        h.update(memoryview(a).cast("B"))
    return h.hexdigest()


def file_digest(path: str) -> list:
    """[size, SHA-256] of a file's bytes (as a manifest records them)."""
    return list(checkpoint_files.file_digest(path, CHECKPOINT_CAP))


class Ledger:
    """The digests of the visited runs the driver has hashed, by name; a
    resumed search starts from those its manifest vouched for."""

    def __init__(self, runs: dict[str, str] | None = None, levels: int = 0):
        self.runs = dict(runs or {})
        self.levels = levels

    def up_to(self, visited_dir: str, partitions: int, depth: int) -> dict[str, str]:
        """The digests of every run of levels 1..``depth``, hashing those not hashed yet."""
        for level in range(self.levels + 1, depth + 1):
            for p in range(partitions):
                self.runs[run_name(p, level)] = content_digest(run_arrays(run_path(visited_dir, p, level)))
        self.levels = max(self.levels, depth)
        wanted = {run_name(p, level) for level in range(1, depth + 1) for p in range(partitions)}
        return {name: digest for name, digest in self.runs.items() if name in wanted}


def level_files(rdd_dir: str) -> dict[str, list]:
    """[size, SHA-256] of each file of a checkpointed RDD."""
    return {name: file_digest(os.path.join(rdd_dir, name)) for name in sorted(os.listdir(rdd_dir))
            if os.path.isfile(os.path.join(rdd_dir, name))}


def verify(files: dict, visited_dir: str, rdd_dir: str, partitions: int, depth: int, total: int) -> None:
    """Check every file the manifest lists against it; ``Damaged`` names the first that is not right."""
    verify_runs(files.get("runs", {}), visited_dir, partitions, depth, total)
    verify_level(files.get("level", {}), rdd_dir, partitions)


def verify_runs(runs: dict[str, str], visited_dir: str, partitions: int, depth: int, total: int) -> None:
    counted = 0
    for level in range(1, depth + 1):
        for p in range(partitions):
            path = run_path(visited_dir, p, level)
            if run_name(p, level) not in runs:
                raise Damaged(path, "is not vouched for by the manifest")
            arrays = run_arrays(path)
            if content_digest(arrays) != runs[run_name(p, level)]:
                raise Damaged(path, "does not match the digest its checkpoint saved")
            problem = run_structure(arrays, p, partitions, level)
            if problem:
                raise Damaged(path, problem)
            counted += arrays["fps"].size
    if counted != total:
        raise Damaged(visited_dir, f"holds {counted:,} states, not the {total:,} its checkpoint counted")


def run_structure(arrays: dict[str, np.ndarray], partition: int, partitions: int, level: int) -> str | None:
    """What is wrong with a run's shape, or None."""
    if any(name not in arrays for name, _ in RUN_ARRAYS) or \
            sum(name in arrays for name, _ in WIDE_ARRAYS) not in (0, len(WIDE_ARRAYS)):
        return "lacks some of a run's arrays"
    if any(arrays[name].dtype != dtype or arrays[name].ndim != 1 for name, dtype in RUN_ARRAYS + WIDE_ARRAYS
           if name in arrays):
        return "has arrays of the wrong types"
    if len({arrays[name].size for name in arrays}) != 1:
        return "has fingerprints, parents and actions of different lengths"
    fps = prints.from_arrays(arrays, "fps")
    if not prints.is_sorted_and_distinct(fps):
        return "has fingerprints that are not sorted and distinct"
    if np.any(prints.partition_of(fps, partitions) != partition):
        return "holds states of another partition"
    actions = arrays["actions"]
    if np.any(actions < 0) if level > 1 else np.any(actions >= 0):
        return "mixes initial states and successors wrongly for its level"
    return None


def verify_level(listed: dict[str, list], rdd_dir: str, partitions: int) -> None:
    parts = [name for name in listed if name.startswith("part-")]
    if len(parts) != partitions:
        raise Damaged(rdd_dir, f"is vouched for with {len(parts)} partition files, not {partitions}")
    present = set(os.listdir(rdd_dir)) if os.path.isdir(rdd_dir) else set()
    extra = sorted(n for n in present - set(listed) if n.startswith("part-"))
    if extra:
        raise Damaged(os.path.join(rdd_dir, extra[0]), "is not vouched for by the manifest")
    for name, saved in listed.items():
        path = os.path.join(rdd_dir, name)
        if not os.path.lexists(path):
            raise Damaged(path, "is missing")
        try:
            check_file(path, "", CHECKPOINT_CAP)
            actual = file_digest(path)
        except Refused as e:
            raise Damaged(path, e.problem) from None
        except OSError as e:
            raise Damaged(path, f"cannot be read ({e.strerror or e})") from None
        if actual != saved:
            raise Damaged(path, "does not match the digest its checkpoint saved"
                          + (f" ({actual[0]:,} bytes, not {saved[0]:,})" if actual[0] != saved[0] else ""))
