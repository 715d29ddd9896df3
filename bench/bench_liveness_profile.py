"""Where a liveness check's time goes: exploration, graph building, and per
property case its conditions, strongly connected components and the rest of
the fair-cycle search.

Checks kip320 (LogSize = MaxRecords = MaxLeaderEpoch = 2) with the fast
engine as `modelcheck run --symmetry --prop` does, one quotient per group
of renamings the cases need (docs/liveness.md, "With symmetry"), timing
each phase in this process, in CPU seconds (this process's, which other
work on a shared machine changes less than it changes the wall clock), with
the process's peak RSS after it.

    python bench/bench_liveness_profile.py [--replicas 4] [--specification Spec] [--prop NAME ...]
        [--no-symmetry]
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from modelcheck.engines.base import CheckOptions  # noqa: E402
from modelcheck.engines.fast import FastChecker  # noqa: E402
from modelcheck.runtime.limits import Limits  # noqa: E402
from modelcheck.capabilities.liveness import check as temporal  # noqa: E402
from modelcheck.capabilities.liveness import search  # noqa: E402
from modelcheck.capabilities.liveness.symmetric import CaseGroup, case_groups  # noqa: E402
from modelcheck.runtime.progress import Silent  # noqa: E402
from modelcheck.loading.registry import load_model  # noqa: E402

SPENT = {"conditions": 0.0, "scc": 0.0}


def timed(name, fn):
    def wrapper(*args):
        started = time.process_time()
        try:
            return fn(*args)
        finally:
            SPENT[name] += time.process_time() - started
    return wrapper


def peak_mib() -> int:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--replicas", type=int, default=4)
    parser.add_argument("--specification", default="Spec")
    parser.add_argument("--prop", action="append")
    parser.add_argument("--no-symmetry", action="store_true")
    args = parser.parse_args()
    model = load_model(("kip320", (("Replicas", tuple(f"r{i + 1}" for i in range(args.replicas))),
                                   ("LogSize", 2), ("MaxRecords", 2), ("MaxLeaderEpoch", 2))))
    specification = model.spec.specification(args.specification)
    properties = args.prop or model.spec.property_names()
    temporal.conditions = timed("conditions", temporal.conditions)
    scc = timed("scc", search.scipy_scc)
    if args.no_symmetry:
        groups = [CaseGroup(None, "no symmetry", [c for p in properties for c in model.property_cases(p)])]
    else:
        groups = case_groups(model, properties, specification)
    total = {"exploration": 0.0, "graph building": 0.0, "conditions": 0.0, "scc": 0.0, "rest of the search": 0.0}
    for group in groups:
        request = temporal.graph_request(specification, Limits(), group.group)
        started = time.process_time()
        result = FastChecker().check(model, CheckOptions((), symmetry=group.group or False, graph=request))
        explored = time.process_time()
        graph = result.graph.finish(result.depth)
        graph.scc = scc
        built = time.process_time()
        total["exploration"] += explored - started
        total["graph building"] += built - explored
        print(f"{group.group or 'identity'}: {graph.count:,} states, {graph.edges:,} steps; exploration "
              f"{explored - started:.1f} s, graph building {built - explored:.1f} s, peak RSS {peak_mib()} MiB",
              flush=True)
        for case in group.cases:
            SPENT.update(conditions=0.0, scc=0.0)
            started = time.process_time()
            live = temporal.decide(model, graph, [], specification, Silent(), Limits(), "fast", cases=[case])
            spent = time.process_time() - started
            rest = spent - SPENT["conditions"] - SPENT["scc"]
            total["conditions"] += SPENT["conditions"]
            total["scc"] += SPENT["scc"]
            total["rest of the search"] += rest
            print(f"  {case.label}: {'holds' if live.verdicts[0].holds else 'violated'} in {spent:.1f} s "
                  f"(conditions {SPENT['conditions']:.1f}, SCC {SPENT['scc']:.1f}, rest {rest:.1f}), "
                  f"peak RSS {peak_mib()} MiB", flush=True)
        if hasattr(request, "close"):  # remove the graph's files, if it spilled to disk
            request.close()
    whole = sum(total.values())
    print(f"total {whole:.1f} CPU s: " + ", ".join(f"{k} {v:.1f} s ({100 * v / whole:.0f}%)" for k, v in total.items()))


if __name__ == "__main__":
    main()
