"""Producer and consumer with every KIP on, on the fast engine.

kafka-clients at the consumer model's default sizes (Replicas=2, LogSize=2,
MaxRecords=3, MaxLeaderEpoch=2), every switch on but UncleanElection, checking
the three properties that hold there (NoWriteToStaleLeader does not: it stops
a search at once). Distinct states, median seconds and median peak RSS of
--runs runs of the whole command (default 3).

    python bench/bench_clients.py [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import tempfile

from common import machine, measure, modelcheck_command

CONSTS = ("--const", "LogSize=2", "--const", "MaxRecords=3")
HOLDING = ("--inv", "NoAckedWriteLost", "--inv", "NoMetadataRegression", "--inv", "NoSpuriousOutOfRange")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        row = measure(modelcheck_command("run", "kafka-clients", *CONSTS, *HOLDING, "--engine", "fast", "--json",
                                         "-q"), args.runs, tmp)
    print(f"machine: {machine()}")
    print(f"modelcheck {row['command']}")
    print(f"  result           {row['result']}")
    print(f"  distinct states  {row['distinct_states']:,} (depth {row['depth']})")
    print(f"  median seconds   {row['median_seconds']}  (runs: {row['all_seconds']})")
    print(f"  median peak RSS  {row['median_peak_rss_mib']} MiB")
    print(json.dumps(row))


if __name__ == "__main__":
    main()
