"""kafka-clients on the fast engine and on TLC, side by side.

The largest configuration of docs/kafka-clients.md's TLC comparison (by
default tla/cfg/log2-all-on-all.cfg: Replicas=2, LogSize=2, MaxRecords=2,
MaxLeaderEpoch=2, every mechanism on, clean elections, the whole state space)
is run --runs times (default 3) as `modelcheck run kafka-clients --config FILE
--engine fast`, and, when --tlc-classes is given, --tlc-runs times (default 1)
by TLC in a scratch directory holding tla/KafkaClients.tla, tla/Kip320Consumer.tla
and the upstream modules they extend (from --upstream, a directory with
Kip320.tla and the modules below it, from github.com/hachikuji/kafka-specification):

    java -XX:+UseParallelGC -cp CLASSES tlc2.TLC -deadlock -workers N -config FILE KafkaClients.tla

It prints the verdict, distinct states, depth and (at a violation) trace length
each found, which must be equal, or it stops; the median wall-clock seconds,
states per second and peak RSS of each; and the ratio of the fast engine's
median to TLC's. With one worker (the default) TLC's search is breadth first in
a fixed order, so even the count at a violation is exact. With more workers it
is not, so more than one worker is refused for a configuration that names an
invariant. TLC is not needed to run the fast engine's half (leave
--tlc-classes out).

    python bench/bench_clients.py [--config tla/cfg/log2-all-on-all.cfg] [--runs 3]
        [--tlc-classes DIR --upstream DIR [--tlc-workers 1] [--tlc-runs 1]]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile

from common import ROOT, machine, measure_once, modelcheck_command, tlc_once

DEFAULT_CONFIG = os.path.join(ROOT, "tla", "cfg", "log2-all-on-all.cfg")
UPSTREAM_MODULES = ("Kip320", "Kip279", "Kip101", "KafkaReplication", "FiniteReplicatedLog", "IdSequence", "Util")
WRITTEN_HERE = ("KafkaClients", "Kip320Consumer")


def names_an_invariant(config: str) -> bool:
    return "INVARIANT" in open(config).read()


def summary(figures: list[tuple[float, float, tuple]], runs: int) -> dict:
    """The answer every run gave, and the medians of their times and peak RSS."""
    answers = {answer for _, _, answer in figures}
    if len(answers) != 1:
        raise SystemExit(f"runs disagree: {answers}")
    result, distinct, depth, trace_length = answers.pop()
    seconds = statistics.median(f[0] for f in figures)
    return {"result": result, "distinct_states": distinct, "depth": depth, "trace_length": trace_length,
            "runs": runs, "median_seconds": round(seconds, 2), "median_states_per_second": round(distinct / seconds),
            "median_peak_rss_mib": round(statistics.median(f[1] for f in figures), 1),
            "all_seconds": [round(f[0], 2) for f in figures]}


def modelcheck_row(config: str, runs: int, tmp: str) -> dict:
    extra = () if names_an_invariant(config) else ("--inv", "TypeOk")  # TLC counts every state then
    cmd = modelcheck_command("run", "kafka-clients", "--config", config, *extra, "--engine", "fast", "--json", "-q",
                             "--overwrite")
    figures = []
    for _ in range(runs):
        run = measure_once(cmd, tmp)
        out = run.output
        violation = out.get("violation") or {}
        figures.append((run.seconds, run.peak_rss_mib, (out["result"], out["distinct_states"], out["depth"],
                                                        violation.get("trace_length"))))
    return summary(figures, runs)


def tlc_directory(config: str, upstream: str, into: str) -> None:
    """The modules TLC needs, and the configuration, in one directory."""
    for name in UPSTREAM_MODULES:
        path = os.path.join(upstream, name + ".tla")
        if not os.path.exists(path):
            raise SystemExit(f"--upstream {upstream}: no {name}.tla there")
        shutil.copy(path, into)
    for name in WRITTEN_HERE:
        shutil.copy(os.path.join(ROOT, "tla", name + ".tla"), into)
    shutil.copy(config, os.path.join(into, "M.cfg"))


def tlc_row(config: str, classes: str, upstream: str, workers: int, runs: int) -> dict:
    with tempfile.TemporaryDirectory() as directory:
        tlc_directory(config, upstream, directory)
        return summary([tlc_once(classes, workers, directory, "KafkaClients.tla") for _ in range(runs)], runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default=DEFAULT_CONFIG)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tlc-classes", help="TLC's compiled classes (tla2tools), for the TLC half")
    parser.add_argument("--upstream", help="a directory holding the upstream modules (Kip320.tla, ...)")
    parser.add_argument("--tlc-workers", type=int, default=1)
    parser.add_argument("--tlc-runs", type=int, default=1)
    args = parser.parse_args()
    if args.tlc_classes and not args.upstream:
        parser.error("--tlc-classes needs --upstream")
    if args.tlc_classes and args.tlc_workers != 1 and names_an_invariant(args.config):
        parser.error("--tlc-workers above 1 makes TLC's count at a violation depend on how its workers "
                     "interleave; compare a configuration that names an invariant with one worker")
    with tempfile.TemporaryDirectory() as tmp:
        fast = modelcheck_row(os.path.abspath(args.config), args.runs, tmp)
    tlc = tlc_row(os.path.abspath(args.config), args.tlc_classes, args.upstream, args.tlc_workers,
                  args.tlc_runs) if args.tlc_classes else None
    compared = ("result", "distinct_states", "depth", "trace_length")
    if tlc and [tlc[k] for k in compared] != [fast[k] for k in compared]:
        raise SystemExit(f"TLC and modelcheck disagree on {compared}: TLC {[tlc[k] for k in compared]}, "
                         f"modelcheck {[fast[k] for k in compared]}")
    print(f"machine: {machine()}")
    length = f", trace length {fast['trace_length']}" if fast["trace_length"] else ""
    print(f"configuration: {os.path.relpath(os.path.abspath(args.config), ROOT)}, "
          f"{fast['distinct_states']:,} distinct states, depth {fast['depth']}, {fast['result']}{length}"
          + (" (TLC: the same)" if tlc else ""))
    print("| checker | runs | median s | all s | states/s | median peak RSS |")
    print("|---|---|---|---|---|---|")
    rows = [("modelcheck --engine fast", fast)]
    if tlc:
        rows.append((f"TLC, {args.tlc_workers} worker{'s' if args.tlc_workers > 1 else ''}", tlc))
    for name, r in rows:
        print(f"| {name} | {r['runs']} | {r['median_seconds']} | {r['all_seconds']} | "
              f"{r['median_states_per_second']:,} | {r['median_peak_rss_mib']} MiB |")
    if tlc:
        print(f"fast engine / TLC: {fast['median_seconds'] / tlc['median_seconds']:.3f} of TLC's time")


if __name__ == "__main__":
    main()
