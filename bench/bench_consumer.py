"""Full KIP-320 on the consumer side with 3 replicas, on the fast engine.

kip320-consumer with every switch on, Replicas=3, LogSize=2, MaxRecords=2,
MaxLeaderEpoch=2: distinct states, median seconds and median peak RSS of
--runs runs of the whole command (default 3).

    python bench/bench_consumer.py [--runs 3]
"""

from __future__ import annotations

import argparse
import tempfile

from common import measure, modelcheck_command, print_run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    consts = ("--const", "Replicas=3", "--const", "MaxRecords=2")
    with tempfile.TemporaryDirectory() as tmp:
        row = measure(modelcheck_command("run", "kip320-consumer", *consts, "--engine", "fast", "--json", "-q"),
                      args.runs, tmp)
    print_run(row)


if __name__ == "__main__":
    main()
