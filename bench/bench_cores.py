"""The fast engine's kernels and threads on the larger kip320 searches.

For each case, each configuration runs the whole `modelcheck run` command
--runs times (default 3) in a fresh process; the table gives the median
search seconds (the report's own "seconds": model built, kernels loaded,
search) and the median seconds of the whole command (interpreter start,
imports and report included), the median peak RSS, and the answer, which
must be the same for every configuration of a case.

Configurations: the compiled kernels on 2 threads and on 1, and the numpy
kernels. Before the timed runs, one run with an empty kernel cache measures
how long building the compiled kernel takes (it is then cached, as for
users).

    python bench/bench_cores.py [--runs 3] [--only NAME ...] [--configs compiled-2,compiled-1,numpy]

Cases (NAME): kip320-e3 (MaxLeaderEpoch=3), kip320-r4 (Replicas=4),
kip320-r5-sym (Replicas=5 --symmetry), first-try-r3 (kip320-first-try
Replicas=3, StrongIsr: a counterexample).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile

from common import machine, measure_once, modelcheck_command

CASES = {
    "kip320-e3": ("kip320", "--const", "MaxLeaderEpoch=3"),
    "kip320-r4": ("kip320", "--const", "Replicas=4"),
    "kip320-r5-sym": ("kip320", "--const", "Replicas=5", "--symmetry"),
    "first-try-r3": ("kip320-first-try", "--const", "Replicas=3", "--inv", "StrongIsr"),
}
CONFIGS = {
    "compiled-2": ("--kernels", "compiled", "--workers", "2"),
    "compiled-1": ("--kernels", "compiled", "--workers", "1"),
    "numpy": ("--kernels", "numpy"),
}


def run_config(case: tuple, config: tuple, runs: int, cwd: str) -> dict:
    cmd = modelcheck_command("run", *case, *config, "--json", "-q")
    figures = [measure_once(cmd, cwd) for _ in range(runs)]
    answers = {(f.output["result"], f.output["distinct_states"], f.output["depth"],
                (f.output["violation"] or {}).get("trace_length")) for f in figures}
    if len(answers) != 1:
        raise SystemExit(f"runs disagree: {answers}")
    return {
        "answer": answers.pop(),
        "search": statistics.median(f.output["seconds"] for f in figures),
        "command": statistics.median(f.seconds for f in figures),
        "rss": statistics.median(f.peak_rss_mib for f in figures),
        "all_search": [round(f.output["seconds"], 2) for f in figures],
        "all_command": [round(f.seconds, 2) for f in figures],
    }


def cold_build_seconds(case: tuple, cwd: str) -> float:
    """Whole-command seconds of one compiled run with an empty kernel cache, minus a warm one."""
    before = os.environ.get("MODELCHECK_KERNEL_CACHE")
    with tempfile.TemporaryDirectory() as cache:
        os.environ["MODELCHECK_KERNEL_CACHE"] = cache
        try:
            cold = measure_once(modelcheck_command("run", *case, "--json", "-q", "--max-states", "1"), cwd)
            warm = measure_once(modelcheck_command("run", *case, "--json", "-q", "--max-states", "1"), cwd)
        finally:
            if before is None:
                del os.environ["MODELCHECK_KERNEL_CACHE"]
            else:
                os.environ["MODELCHECK_KERNEL_CACHE"] = before
    return cold.seconds - warm.seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", nargs="*", choices=sorted(CASES), default=None)
    parser.add_argument("--configs", default=",".join(CONFIGS))
    args = parser.parse_args()
    configs = args.configs.split(",")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.only or list(CASES):
            case = CASES[name]
            build = cold_build_seconds(case, tmp) if any(c.startswith("compiled") for c in configs) else None
            measure_once(modelcheck_command("run", *case, "--json", "-q", "--max-states", "1"), tmp)  # warm the cache
            results = {c: run_config(case, CONFIGS[c], args.runs, tmp) for c in configs}
            if len({r["answer"] for r in results.values()}) != 1:
                raise SystemExit(f"{name}: configurations disagree: {results}")
            rows.append((name, case, build, results))
    print(f"machine: {machine()}; median of {args.runs} runs")
    print("| case | distinct states | depth | kernels | search s | whole command s | peak RSS | kernel build s |")
    print("|---|---|---|---|---|---|---|---|")
    for name, case, build, results in rows:
        for config, r in results.items():
            result, distinct, depth, trace = r["answer"]
            shown = f"{distinct:,}" + (f" ({result}, trace {trace})" if result == "violation" else "")
            build_cell = f"{build:.2f}" if build is not None and config.startswith("compiled") else "-"
            print(f"| {name} | {shown} | {depth} | {config} | {r['search']:.2f} | {r['command']:.2f} | "
                  f"{r['rss']:,.0f} MiB | {build_cell} |")
    for name, case, build, results in rows:
        print(json.dumps({"case": name, "args": case, "kernel_build_seconds": build,
                          "results": {c: {k: v for k, v in r.items() if k != "answer"} | {"answer": r["answer"]}
                                      for c, r in results.items()}}))


if __name__ == "__main__":
    main()
