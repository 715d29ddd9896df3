"""The canonicaliser's share of a symmetric search, and its cost per state.

* ``share``: ``modelcheck run kip320 --symmetry`` on the fast engine, in this
  process under cProfile: the search's seconds and the part spent in
  ``Canonicaliser.words`` (the representatives of each chunk's new
  successors), with the compiled routine or, with ``--numpy``, numpy alone.
  cProfile slows the Python around the C calls a little; the share is a
  proportion, not a timing to quote.
* ``batch``: the successors of one breadth-first level of kip320 (generated
  by the fast engine's expander from the representatives of the level
  before), canonicalised whole by the C routine on one thread and on two,
  and by numpy: CPU seconds per state (best of --runs) and wall seconds.

    python bench/bench_canonical.py share [--replicas 4] [--max-depth N] [--numpy]
    python bench/bench_canonical.py batch [--replicas 5] [--depth 12] [--runs 5]
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import numpy as np  # noqa: E402

from modelcheck.search.canonical import Canonicaliser  # noqa: E402
from modelcheck.specs import get_spec  # noqa: E402


def share(args) -> None:
    from modelcheck.commands.cli import main
    if args.numpy:
        Canonicaliser.compiled = lambda self: None
    command = ["run", "kip320", "--const", f"Replicas={args.replicas}", "--symmetry", "--engine", "fast", "-q"]
    if args.max_depth:
        command += ["--max-depth", str(args.max_depth)]
    profile = cProfile.Profile()
    start = time.perf_counter()
    try:
        profile.runcall(main, command)
    except SystemExit:
        pass
    seconds = time.perf_counter() - start
    stats = pstats.Stats(profile).stats
    canonical = sum(v[3] for k, v in stats.items() if k[0].endswith("canonical.py") and k[2] == "words")
    print(f"load {' '.join(f'{x:.1f}' for x in os.getloadavg())}; {' '.join(command)}"
          f"{' (numpy canonicaliser)' if args.numpy else ''}")
    print(f"whole command {seconds:.2f} s, Canonicaliser.words {canonical:.2f} s: {canonical / seconds:.0%}")


def level(m, canon: Canonicaliser, depth: int) -> np.ndarray:
    """Every successor (repeats included) of the representatives at ``depth``."""
    from modelcheck.search.expansion import Expander
    expander = Expander(m, canonical=canon)
    frontier = canon.words(canon.packing.pack_states(m.init_states))
    seen = set(canon.packing.fingerprints(frontier).tolist())
    for _ in range(depth - 1):
        found = expander.expand(frontier, 0)
        new = np.array([f not in seen for f in found.fps.tolist()], dtype=bool)
        seen.update(found.fps[new].tolist())
        frontier = found.words[:, new]
    return expander.successors(frontier)[0]


def timed(f, runs: int) -> tuple[float, float]:
    """Best CPU and best wall seconds of ``runs`` calls."""
    cpu, wall = [], []
    for _ in range(runs):
        c, w = time.process_time(), time.perf_counter()
        f()
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    return min(cpu), min(wall)


def batch(args) -> None:
    spec = get_spec("kip320")
    m = spec.instantiate(spec.resolve_constants({"Replicas": str(args.replicas)}))
    one, two = Canonicaliser(m, workers=1), Canonicaliser(m, workers=2)
    words = level(m, one, args.depth)
    n = words.shape[1]
    if one.compiled() is None:
        sys.exit("no C compiler: only numpy is there to measure")
    assert np.array_equal(one.words(words), one.words_numpy(words))
    print(f"load {' '.join(f'{x:.1f}' for x in os.getloadavg())}; kip320 Replicas={args.replicas}, "
          f"the {n:,} successors of the representatives at depth {args.depth}")
    for name, f, runs in (("C, 1 thread", lambda: one.words(words), args.runs),
                          ("C, 2 threads", lambda: two.words(words), args.runs),
                          ("numpy", lambda: one.words_numpy(words), 1)):
        cpu, wall = timed(f, runs)
        print(f"{name:13} {cpu / n * 1e6:6.3f} us CPU per state, {wall:6.2f} s wall for the batch")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="case", required=True)
    s = sub.add_parser("share")
    s.add_argument("--replicas", type=int, default=4)
    s.add_argument("--max-depth", type=int)
    s.add_argument("--numpy", action="store_true", help="canonicalise with numpy, as without a C compiler")
    b = sub.add_parser("batch")
    b.add_argument("--replicas", type=int, default=5)
    b.add_argument("--depth", type=int, default=12)
    b.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    (share if args.case == "share" else batch)(args)


if __name__ == "__main__":
    main()
