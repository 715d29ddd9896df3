"""What the state graph for temporal properties costs: bytes per state and per step.

Runs the fast engine's search on kip320 with the recorder temporal
properties use, then measures the arrays it holds (``nbytes`` of each, not
an estimate): while the search runs (each level's packed states and
fingerprints; each distinct state-changing step, with its source, the
fingerprint of its target and its action instance, and under symmetry the
fingerprint of the genuine state it reaches) and once the graph is finished (the packed states, the
breadth-first tree, the fairness masks, and each distinct step's source,
target, instance and fair actions taken).

With ``--spill``, the graph is built as it is past ``--max-memory``: the
limit is set, once the search is complete, to the memory then in use plus
all that building the graph takes but half its edges, so that the edges go
to files in a temporary directory; it prints the bytes those files hold.

    python bench/bench_liveness_graph.py [--replicas 3] [--symmetry] [--specification Spec] [--spill]
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from modelcheck.search.canonical import EVERY_RENAMING  # noqa: E402
from modelcheck.engines.base import CheckOptions  # noqa: E402
from modelcheck.engines.fast import FastChecker  # noqa: E402
from modelcheck.runtime.limits import resident_bytes  # noqa: E402
from modelcheck.capabilities.liveness.check import graph_request  # noqa: E402
from modelcheck.loading.registry import load_model  # noqa: E402


def nbytes(arrays) -> int:
    return sum(a.nbytes for a in arrays)


def recorder_bytes(recorder) -> tuple[int, int, int]:
    """(bytes for states, bytes for the distinct steps recorded, successors generated) held while the search runs."""
    return nbytes(recorder.words) + nbytes(recorder.fps), recorder.steps.nbytes, recorder.generated


def graph_bytes(graph, words_per_state: int) -> tuple[int, int]:
    """(bytes for states, bytes for steps) of a finished graph."""
    states = graph.count * words_per_state * 8 + nbytes([graph.tree_parent, graph.tree_instance,
                                                         graph.fair_enabled, graph.initial, graph.indptr])
    return states, nbytes([graph.src, graph.dst, graph.instance, graph.fair_taken])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--replicas", type=int, default=3)
    parser.add_argument("--symmetry", action="store_true", help="the quotient by every renaming")
    parser.add_argument("--specification", default="Spec")
    parser.add_argument("--spill", action="store_true", help="build the graph on disk, as past --max-memory")
    args = parser.parse_args()
    model = load_model(("kip320", (("Replicas", tuple(f"r{i + 1}" for i in range(args.replicas))),
                                   ("LogSize", 2), ("MaxRecords", 2), ("MaxLeaderEpoch", 2))))
    group = EVERY_RENAMING if args.symmetry else None
    request = graph_request(model.spec.specification(args.specification), CheckOptions(()).limits, group)
    started = time.perf_counter()
    result = FastChecker().check(model, CheckOptions((), symmetry=group or False, graph=request))
    searched = time.perf_counter() - started
    recorder = result.graph
    s_bytes, e_bytes, generated = recorder_bytes(recorder)
    words = recorder.packing.words
    if args.spill:
        edges, rest = recorder.build_bytes()
        request.limits.max_memory = resident_bytes() + rest + edges // 2
    graph = recorder.finish(result.depth)
    finished = time.perf_counter() - started
    on_disk = sum(f.stat().st_size for f in request.store.directory.iterdir()) if request.store.spilled else 0
    g_states, g_steps = graph_bytes(graph, words)
    print(f"kip320, {args.replicas} replicas, {'symmetry' if args.symmetry else 'no symmetry'}, "
          f"{args.specification} ({len(request.fair_actions)} fair actions)")
    print(f"states {graph.count:,}  distinct steps {graph.edges:,}  successors generated {generated:,}  "
          f"packed words per state {words}")
    print(f"while searching: {s_bytes / graph.count:.1f} bytes per state, {e_bytes / graph.edges:.1f} bytes per "
          f"distinct step")
    print(f"finished graph:  {g_states / graph.count:.1f} bytes per state, {g_steps / graph.edges:.1f} bytes per "
          f"step; dtypes src {graph.src.dtype} dst {graph.dst.dtype} instance {graph.instance.dtype} "
          f"fair_taken {graph.fair_taken.dtype}")
    if request.store.spilled:
        print(f"spilled: {on_disk / graph.edges:.1f} bytes per step in files, "
              f"{graph_bytes(graph, words)[0] / graph.count:.1f} bytes per state in memory")
    request.close()
    print(f"search {searched:.1f} s, search and finish {finished:.1f} s, "
          f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
    assert np.all(graph.src[1:] >= graph.src[:-1])  # sorted by source, as the cycle search's row pointers need


if __name__ == "__main__":
    main()
