"""The fast engine against the reference engine and TLC on kip320 with 3 replicas.

For MaxLeaderEpoch 2 and 3 (Replicas=3, LogSize=2, MaxRecords=2), each engine
runs the whole `modelcheck run` command --runs times (default 3); the table
gives the distinct states, the median wall-clock seconds, states per second,
the median peak RSS, and the ratios to the reference engine (same run of this
script) and to TLC.

TLC's times are the reference figures this project measures itself against:
TLC with 2 workers on this 2-core machine class, 38.8 s at MaxLeaderEpoch 2
and 460.9 s at MaxLeaderEpoch 3. The targets are a tenth of those (3.9 s and
46 s) with peak RSS at most 2 GiB.

    python bench/bench_fast.py [--runs 3] [--reference-runs 3] [--only 2|3]
"""

from __future__ import annotations

import argparse
import json
import tempfile

from common import machine, measure, modelcheck_command

TLC_SECONDS = {2: 38.8, 3: 460.9}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--reference-runs", type=int, default=3)
    parser.add_argument("--only", type=int, choices=(2, 3))
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for epochs in ([args.only] if args.only else [2, 3]):
            base = ("run", "kip320", "--const", f"MaxLeaderEpoch={epochs}", "--json", "-q")
            fast = measure(modelcheck_command(*base, "--engine", "fast"), args.runs, tmp)
            reference = measure(modelcheck_command(*base, "--engine", "bfs"), args.reference_runs, tmp)
            if (fast["distinct_states"], fast["depth"]) != (reference["distinct_states"], reference["depth"]):
                raise SystemExit(f"engines disagree: fast {fast} vs reference {reference}")
            rows.append((epochs, fast, reference))
    print(f"machine: {machine()}")
    print("| MaxLeaderEpoch | distinct states | engine | median s | states/s | median peak RSS | vs reference | vs TLC |")
    print("|---|---|---|---|---|---|---|---|")
    for epochs, fast, reference in rows:
        for name, row in (("fast", fast), ("bfs", reference)):
            print(f"| {epochs} | {row['distinct_states']:,} | {name} | {row['median_seconds']} | "
                  f"{row['median_states_per_second']:,} | {row['median_peak_rss_mib']:,.0f} MiB | "
                  f"{row['median_seconds'] / reference['median_seconds']:.3f} | "
                  f"{row['median_seconds'] / TLC_SECONDS[epochs]:.3f} |")
    for epochs, fast, reference in rows:
        print(json.dumps({"max_leader_epoch": epochs, "fast": fast, "bfs": reference}))


if __name__ == "__main__":
    main()
