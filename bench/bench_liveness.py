"""Temporal properties on kip320 with 3 replicas: the fast engine, the reference engine, and TLC's figure.

Checks LeaderAdoptsItsRequest under Spec (kip320 defaults: Replicas=3,
LogSize=MaxRecords=MaxLeaderEpoch=2; 737,794 states) as whole commands:
median seconds and median peak RSS of --runs runs on the fast engine, and
(with --bfs) one run on the reference engine for the ratio. The target is
at most 30 s and 2 GiB on the fast engine; TLC (tlaplus/tlaplus cc6b616,
2 workers) took 527 s and 3.5 GB for the same check on this machine class.

    python bench/bench_liveness.py [--runs 3] [--bfs] [--prop NAME] [--specification NAME]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile

from common import machine, measure_once, modelcheck_command

TLC_SECONDS, TLC_PEAK_GB = 527.0, 3.5  # the figure this check is compared with (given, not measured here)


def figures(engine: str, prop: str, specification: str, runs: int, tmp: str) -> dict:
    cmd = modelcheck_command("run", "kip320", "--prop", prop, "--specification", specification,
                             "--engine", engine, "--json", "-q")
    done = [measure_once(cmd, tmp, ok_codes=(0, 13)) for _ in range(runs)]
    answers = {(f.output["result"], f.output["distinct_states"]) for f in done}
    if len(answers) != 1:
        raise SystemExit(f"runs disagree: {answers}")
    result, states = answers.pop()
    return {"engine": engine, "result": result, "distinct_states": states, "runs": runs,
            "median_seconds": round(statistics.median(f.seconds for f in done), 2),
            "all_seconds": [round(f.seconds, 2) for f in done],
            "median_peak_rss_mib": round(statistics.median(f.peak_rss_mib for f in done), 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--bfs", action="store_true", help="also one run on the reference engine")
    parser.add_argument("--prop", default="LeaderAdoptsItsRequest")
    parser.add_argument("--specification", default="Spec")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        rows.append(figures("fast", args.prop, args.specification, args.runs, tmp))
        if args.bfs:
            rows.append(figures("bfs", args.prop, args.specification, 1, tmp))
    print(f"machine: {machine()}")
    print(f"kip320, 3 replicas: {args.prop} under {args.specification}")
    fast = rows[0]["median_seconds"]
    for r in rows:
        print(f"  {r['engine']:<5} {r['result']:<9} {r['distinct_states']:,} states  "
              f"median {r['median_seconds']} s (runs {r['all_seconds']})  peak RSS {r['median_peak_rss_mib']} MiB"
              + ("" if r is rows[0] else f"  ({r['median_seconds'] / fast:.1f} x fast)"))
    print(f"  TLC   (given: {TLC_SECONDS:.0f} s, {TLC_PEAK_GB} GB): fast is {fast / TLC_SECONDS:.3f} of TLC's time")
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
