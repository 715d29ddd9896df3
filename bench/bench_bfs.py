"""The reference engine on kip320 at its defaults (Replicas=3, LogSize=2,
MaxRecords=2, MaxLeaderEpoch=2): distinct states, seconds and peak RSS, as the
median of 3 runs of the whole command.

    python bench/bench_bfs.py [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import tempfile

from common import machine, measure, modelcheck_command


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        row = measure(modelcheck_command("run", "kip320", "--engine", "bfs", "--json"), args.runs, tmp)
    assert row["result"] == "ok"
    print(f"machine: {machine()}")
    print(f"modelcheck {row['command']}")
    print(f"  distinct states  {row['distinct_states']:,} (depth {row['depth']})")
    print(f"  median seconds   {row['median_seconds']}  (runs: {row['all_seconds']})")
    print(f"  states/s         {row['median_states_per_second']:,}")
    print(f"  median peak RSS  {row['median_peak_rss_mib']} MiB")
    print(json.dumps(row))


if __name__ == "__main__":
    main()
