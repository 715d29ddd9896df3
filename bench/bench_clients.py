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
import tempfile

from common import measure, modelcheck_command, print_run

CONSTS = ("--const", "LogSize=2", "--const", "MaxRecords=3")
HOLDING = ("--inv", "NoAckedWriteLost", "--inv", "NoMetadataRegression", "--inv", "NoSpuriousOutOfRange")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        row = measure(modelcheck_command("run", "kafka-clients", *CONSTS, *HOLDING, "--engine", "fast", "--json",
                                         "-q"), args.runs, tmp)
    print_run(row)


if __name__ == "__main__":
    main()
