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

It prints the distinct states and depth each found (they must agree, or it
stops; at a violation found by more than one TLC worker only the depth is
compared, since the count then depends on how the workers interleave), the
median wall-clock seconds, states per second and peak RSS of each, and the
ratio of the fast engine's median to TLC's. TLC is not needed to run the fast
engine's half (leave --tlc-classes out).

    python bench/bench_clients.py [--config tla/cfg/log2-all-on-all.cfg] [--runs 3]
        [--tlc-classes DIR --upstream DIR [--tlc-workers 2] [--tlc-runs 1]]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import time

from common import ROOT, machine, measure, modelcheck_command

DEFAULT_CONFIG = os.path.join(ROOT, "tla", "cfg", "log2-all-on-all.cfg")
UPSTREAM_MODULES = ("Kip320", "Kip279", "Kip101", "KafkaReplication", "FiniteReplicatedLog", "IdSequence", "Util")
WRITTEN_HERE = ("KafkaClients", "Kip320Consumer")


def modelcheck_row(config: str, runs: int, tmp: str) -> dict:
    extra = () if "INVARIANT" in open(config).read() else ("--inv", "TypeOk")  # TLC counts every state then
    return measure(modelcheck_command("run", "kafka-clients", "--config", config, *extra, "--engine", "fast",
                                      "--json", "-q"), runs, tmp)


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


def tlc_once(classes: str, workers: int, directory: str) -> tuple[float, float, int, int, bool]:
    """One TLC run: seconds, peak RSS (MiB), distinct states, depth, whether an invariant was violated."""
    cmd = ["java", "-XX:+UseParallelGC", "-cp", classes, "tlc2.TLC", "-deadlock", "-workers", str(workers),
           "-metadir", os.path.join(directory, "states"), "-config", "M.cfg", "KafkaClients.tla"]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=directory, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    shutil.rmtree(os.path.join(directory, "states"), ignore_errors=True)
    distinct = re.findall(r"([\d,]+) distinct states found", out)
    depth = re.findall(r"depth of the complete state graph search is (\d+)", out)
    if os.waitstatus_to_exitcode(status) not in (0, 12) or not distinct or not depth:
        raise SystemExit("TLC failed:\n" + out[-2000:])
    return (seconds, usage.ru_maxrss / 1024.0, int(distinct[-1].replace(",", "")), int(depth[-1]),
            "is violated" in out)


def tlc_row(config: str, classes: str, upstream: str, workers: int, runs: int) -> dict:
    with tempfile.TemporaryDirectory() as directory:
        tlc_directory(config, upstream, directory)
        figures = [tlc_once(classes, workers, directory) for _ in range(runs)]
    answers = {(d, depth) if workers == 1 or not violated else depth for _, _, d, depth, violated in figures}
    if len(answers) != 1:
        raise SystemExit(f"TLC runs disagree: {answers}")
    distinct, depth = figures[0][2], figures[0][3]
    seconds = statistics.median(f[0] for f in figures)
    return {"distinct_states": distinct, "depth": depth, "median_seconds": round(seconds, 2),
            "median_states_per_second": round(distinct / seconds),
            "median_peak_rss_mib": round(statistics.median(f[1] for f in figures), 1),
            "all_seconds": [round(f[0], 2) for f in figures], "runs": runs,
            "exact_count": workers == 1 or not figures[0][4]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default=DEFAULT_CONFIG)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tlc-classes", help="TLC's compiled classes (tla2tools), for the TLC half")
    parser.add_argument("--upstream", help="a directory holding the upstream modules (Kip320.tla, ...)")
    parser.add_argument("--tlc-workers", type=int, default=2)
    parser.add_argument("--tlc-runs", type=int, default=1)
    args = parser.parse_args()
    if args.tlc_classes and not args.upstream:
        parser.error("--tlc-classes needs --upstream")
    with tempfile.TemporaryDirectory() as tmp:
        fast = modelcheck_row(os.path.abspath(args.config), args.runs, tmp)
    tlc = tlc_row(os.path.abspath(args.config), args.tlc_classes, args.upstream, args.tlc_workers,
                  args.tlc_runs) if args.tlc_classes else None
    compared = (lambda r: (r["distinct_states"], r["depth"])) if tlc and tlc["exact_count"] else (lambda r: r["depth"])
    if tlc and compared(tlc) != compared(fast):
        raise SystemExit(f"TLC and modelcheck disagree: TLC {tlc['distinct_states']}/{tlc['depth']}, "
                         f"modelcheck {fast['distinct_states']}/{fast['depth']}")
    print(f"machine: {machine()}")
    print(f"configuration: {os.path.relpath(os.path.abspath(args.config), ROOT)}, "
          f"{fast['distinct_states']:,} distinct states, depth {fast['depth']}, {fast['result']}")
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
