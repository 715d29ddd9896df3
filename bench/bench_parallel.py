"""Threads or processes for the second core: one level of a kip320 search
expanded by the compiled kernel, three ways.

The fast engine splits each chunk of a level between threads running the
kernel's C code, which ctypes calls without the GIL (modelcheck/backends/
compiled.py). This script measures that choice against processes that
share memory, on the same states, the same visited set and the same C code:

* ``1 thread``: the whole level expanded on this thread (``mc_expand``);
* ``2 threads``: ``CompiledKernel.unvisited_successors`` with two worker
  threads, as the engine does;
* ``2 processes``: two forked children, each expanding its half of the
  level. A forked child sees the level and the visited set's tables
  without a copy (copy on write; they are only read), so only the unvisited
  successors have to travel: each child copies its part into a POSIX
  shared-memory segment, which the parent maps and concatenates as the
  threads' parts are concatenated. Forking per level is the cheapest
  process design here: a standing pool would also have to copy each level
  in and keep the growing hash tables mapped in every worker.

Each level is found by a breadth-first search with the same kernel (the
engine's order), then each way runs ``--runs`` times; the table gives the
median wall seconds and CPU seconds (this process's and its children's).
All three must give the same successors, in the same order. "Not visited
before" counts repeats within the level too, as the engine's expansion
hands them on.

    python bench/bench_parallel.py [--epochs 3] [--depth 16 22] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
from multiprocessing import resource_tracker, shared_memory

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np  # noqa: E402

from modelcheck.backends.compiled import Fresh, _ranges, compile_kernel, joined  # noqa: E402
from modelcheck.language.packing import Packing  # noqa: E402
from modelcheck.specs import get_spec  # noqa: E402


def levels_at(kernel, packing, model, depths: list[int]):
    """For each depth (the initial states are depth 1): the states first
    found there, in breadth-first order, and a copy of the visited set as
    the engine holds it when it expands that level (every state found
    through it)."""
    level = packing.pack_states(model.init_states)
    visited = kernel.fingerprint_set()
    visited.add(packing.fingerprints(level))
    kept = {}
    for depth in range(1, max(depths) + 1):
        if depth > 1:
            fresh = kernel.unvisited_successors(level, visited)
            new = visited.add(fresh.fps)
            level = np.ascontiguousarray(fresh.words[:, new])
        if depth in depths:
            kept[depth] = (level, kernel.fingerprint_set(visited.held()))
    return kept


def one_thread(kernel, level, visited) -> Fresh:
    """The whole level on this thread, with the engine's own range loop."""
    tables, caps = visited.lookup_tables()
    return joined([kernel._expand_range(level, 0, level.shape[1], tables, caps, visited.parts)])


def processes(kernel, level, visited, parts: int = 2) -> Fresh:
    """The level split between ``parts`` forked children, their unvisited
    successors sent back through shared memory."""
    tables, caps = visited.lookup_tables()
    children = []
    for lo, hi in _ranges(level.shape[1], parts):
        reader, writer = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: expand, copy out, leave without running the parent's exit handlers
            os.close(reader)
            status = 1
            try:
                _send(kernel._expand_range(level, lo, hi, tables, caps, visited.parts), writer)
                status = 0
            finally:
                os._exit(status)
        os.close(writer)
        children.append((pid, reader))
    runs = []
    for pid, reader in children:
        with os.fdopen(reader) as f:
            name, written, made, stuck = f.read().split()
        _, status = os.waitpid(pid, 0)
        if status != 0:
            sys.exit(f"a child exited with status {status}")
        runs.append((name, int(written), int(made), int(stuck)))
    return _received(runs, kernel.words)


def _send(run, writer: int) -> None:
    """A child's unvisited successors, copied into a new shared-memory
    segment whose name goes down the pipe (the parent unlinks it)."""
    words = np.concatenate([p[0] for p in run.pieces], axis=1)
    n = words.shape[1]
    segment = shared_memory.SharedMemory(create=True, size=max(1, n * (8 * words.shape[0] + 8 + 4 + 8)))
    resource_tracker.unregister(segment._name, "shared_memory")  # the parent unlinks it, not the tracker
    out = _views(segment, words.shape[0], n)
    out[0][...] = words
    out[1][...] = np.concatenate([p[1] for p in run.pieces])
    out[2][...] = np.concatenate([p[3] for p in run.pieces])
    out[3][...] = np.concatenate([p[2] for p in run.pieces])
    os.write(writer, f"{segment.name} {n} {run.made} {run.stuck}".encode())
    os.close(writer)
    segment.close()


def _views(segment, rows: int, n: int):
    """Words, parents, fingerprints and actions laid out in one segment."""
    offset, out = 0, []
    for shape, dtype in (((rows, n), np.uint64), ((n,), np.int64), ((n,), np.uint64), ((n,), np.int32)):
        view = np.ndarray(shape, dtype, buffer=segment.buf, offset=offset)
        offset += view.nbytes
        out.append(view)
    return out


def _received(runs, rows: int) -> Fresh:
    segments, parts = [], []
    for name, n, _, _ in runs:
        segment = shared_memory.SharedMemory(name=name)
        segments.append(segment)
        parts.append(_views(segment, rows, n))
    fresh = Fresh(np.concatenate([p[0] for p in parts], axis=1), np.concatenate([p[1] for p in parts]),
                  np.concatenate([p[3] for p in parts]), np.concatenate([p[2] for p in parts]),
                  sum(r[2] for r in runs), next((r[3] for r in runs if r[3] >= 0), -1))
    del parts
    for segment in segments:
        segment.close()
        segment.unlink()
    return fresh


def cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--epochs", type=int, default=3, help="kip320's MaxLeaderEpoch")
    parser.add_argument("--depth", type=int, nargs="+", default=[16, 22],
                        help="the levels to expand (the initial states are level 1)")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    spec = get_spec("kip320")
    model = spec.instantiate(spec.resolve_constants({"MaxLeaderEpoch": str(args.epochs)}))
    packing = Packing(model.schema)
    kernel = compile_kernel(model, packing, [], workers=2)
    print(f"load {' '.join(f'{x:.1f}' for x in os.getloadavg())}; kip320 MaxLeaderEpoch={args.epochs}; "
          f"median of {args.runs} runs of each way\n")
    print("| level | states in it | successors | not visited before | way | wall s | CPU s | speed-up over 1 thread |")
    print("|---|---|---|---|---|---|---|---|")
    for depth, (level, visited) in levels_at(kernel, packing, model, args.depth).items():
        ways = {"1 thread": lambda: one_thread(kernel, level, visited),
                "2 threads": lambda: kernel.unvisited_successors(level, visited),
                "2 processes": lambda: processes(kernel, level, visited)}
        answers, rows = {}, []
        for name, way in ways.items():
            walls, cpus = [], []
            for _ in range(args.runs):
                cpu, wall = cpu_seconds(), time.perf_counter()
                answers[name] = way()
                walls.append(time.perf_counter() - wall)
                cpus.append(cpu_seconds() - cpu)
            rows.append((name, statistics.median(walls), statistics.median(cpus)))
        first = answers["1 thread"]
        for name, fresh in answers.items():
            same = all(np.array_equal(getattr(first, f), getattr(fresh, f)) for f in ("words", "parents", "actions",
                                                                                      "fps"))
            if not same or fresh.generated != first.generated:
                sys.exit(f"{name} gave other successors than 1 thread at level {depth}")
        for name, wall, cpu in rows:
            print(f"| {depth} | {level.shape[1]:,} | {first.generated:,} | {first.fps.size:,} | {name} | {wall:.3f} | "
                  f"{cpu:.3f} | {rows[0][1] / wall:.2f} |")
        del answers


if __name__ == "__main__":
    main()
