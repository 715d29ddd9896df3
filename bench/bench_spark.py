"""The Spark engine against an in-process engine (the fast engine by default), in one run.

By default: kip320 at its defaults (3 replicas; 737,794 states, 26 levels).
Each engine runs as the whole command users type, in a fresh process, so
the Spark figure includes starting the JVM. Reported:

* the median wall-clock seconds of each engine and their ratio;
* where the Spark run's tasks spent their seconds (its --json ``levels``:
  on the kernel, in the visited set, in the shuffle), against the levels'
  wall-clock seconds, so the gap to the baseline is visible;
* the Spark run's fixed costs: starting Spark, the first level (Python
  workers start), and the per-level overhead, as the intercept of a least-
  squares line through the other levels' seconds against the successors
  each shuffled;
* a partition-count sweep: seconds, shuffle payload and visited-file bytes per
  visited state for each ``--partitions``.

    python bench/bench_spark.py [--runs 3] [--master local[2]] [--sweep 1,2,4,8] [--baseline fast|bfs]
        [--fingerprint-bits 64|128|auto] [-- SPEC --const NAME=VALUE ...]

Both engines use 64-bit fingerprints unless ``--fingerprint-bits`` says
otherwise, so that the two do the same work.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import tempfile
import time

from common import ROOT, machine, modelcheck_command

LEVEL = re.compile(r"^level\s+(\d+) ·\s+([\d,]+) new ·\s+([\d,]+) total ·\s+([\d.]+) s · shuffled ([\d,]+) "
                   r"successors \(([\d.,]+) MB\) · visited files ([\d.,]+) MB")
STARTED = re.compile(r"started in ([\d.]+) s")


def timed(cmd: list[str], cwd: str) -> tuple[float, dict, str]:
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 12):
        raise SystemExit(f"benchmark command failed ({done.returncode}): {' '.join(cmd)}\n{done.stderr}")
    return seconds, json.loads(done.stdout), done.stderr


def number(text: str) -> float:
    return float(text.replace(",", ""))


def levels(stderr: str) -> list[dict]:
    out = []
    for line in stderr.splitlines():
        m = LEVEL.match(line)
        if m:
            out.append({"level": int(m.group(1)), "new": number(m.group(2)), "total": number(m.group(3)),
                        "seconds": number(m.group(4)), "shuffled": number(m.group(5)),
                        "shuffled_mb": number(m.group(6)), "visited_mb": number(m.group(7)),
                        "driver": line.endswith("· in the driver")})
    return out


def fixed_cost(rows: list[dict]) -> tuple[float, float]:
    """Intercept and slope of seconds ~ shuffled successors (least squares)."""
    xs, ys = [r["shuffled"] for r in rows], [r["seconds"] for r in rows]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else 0.0
    return my - slope * mx, slope


def task_seconds(out: dict) -> dict:
    """The Spark run's levels' wall-clock seconds and their tasks' seconds by phase (its --json ``levels``)."""
    levels = out.get("levels", [])
    sums = {k: round(sum(level["task_seconds"][k] for level in levels), 2)
            for k in ("arrive", "visited", "kernel", "route", "send")}
    sums["shuffle"] = round(sums["arrive"] + sums["route"] + sums["send"], 2)
    sums["levels"] = round(sum(level["seconds"] for level in levels), 2)
    return sums


def width(bits: str) -> list[str]:
    return [] if bits == "auto" else ["--fingerprint-bits", bits]


def spark_command(spec_args: list[str], master: str, partitions: int | None, bits: str = "64") -> list[str]:
    extra = (["--partitions", str(partitions)] if partitions else []) + width(bits)
    return modelcheck_command("run", *spec_args, "--engine", "spark", "--master", master, *extra, "--json")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--sweep", default="1,2,4,8", help="partition counts; empty to skip")
    parser.add_argument("--baseline", default="fast", choices=("fast", "bfs"), help="the in-process engine")
    parser.add_argument("--fingerprint-bits", default="64", choices=("64", "128", "auto"),
                        help="both engines' width (auto: each engine's default; Spark's then widens to 128 "
                             "past 6,074,004 states, starting again)")
    parser.add_argument("spec", nargs="*", default=["kip320"], help="spec and --const arguments")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        bfs_runs, spark_runs = [], []
        for _ in range(args.runs):  # alternate, so both see the same machine
            baseline_width = width(args.fingerprint_bits) if args.baseline == "fast" else []
            bfs_runs.append(timed(modelcheck_command("run", *args.spec, "--engine", args.baseline, *baseline_width,
                                                     "--json"), tmp))
            spark_runs.append(timed(spark_command(args.spec, args.master, None, args.fingerprint_bits), tmp))
        answers = {(o["result"], o["distinct_states"], o["depth"]) for _, o, _ in bfs_runs + spark_runs}
        if len(answers) != 1:
            raise SystemExit(f"the engines disagree: {answers}")
        bfs_s = statistics.median(s for s, _, _ in bfs_runs)
        spark_sorted = sorted(spark_runs, key=lambda r: r[0])
        spark_s, spark_out, spark_err = spark_sorted[len(spark_sorted) // 2]
        rows = [r for r in levels(spark_err) if not r["driver"]]  # the levels Spark ran
        startup = number(STARTED.search(spark_err).group(1))
        intercept, slope = fixed_cost(rows[1:])
        result, distinct, depth = answers.pop()
        print(f"machine: {machine()}")
        print(f"spec: {' '.join(args.spec)}  ({distinct:,} states, depth {depth}, {result})")
        print(f"{args.baseline:<6} median {bfs_s:6.2f} s   runs {[round(s, 2) for s, _, _ in bfs_runs]}")
        print(f"spark  median {spark_s:6.2f} s   runs {[round(s, 2) for s, _, _ in spark_runs]}  ({args.master})")
        print(f"ratio  spark / {args.baseline} = {spark_s / bfs_s:.2f}")
        phases = task_seconds(spark_out)
        print(f"spark's levels: {phases['levels']:.2f} s of wall clock; their tasks' seconds (summed over tasks): "
              f"kernel {phases['kernel']:.2f}, visited set {phases['visited']:.2f}, shuffle {phases['shuffle']:.2f} "
              f"(read {phases['arrive']:.2f}, route {phases['route']:.2f}, send {phases['send']:.2f})")
        print(f"spark fixed costs: starting Spark {startup:.2f} s, level 1 {rows[0]['seconds']:.2f} s, "
              f"per level {intercept:.3f} s (+ {slope * 1e6:.2f} s per million successors shuffled)")
        print(f"levels: {len(rows)} jobs, {sum(r['seconds'] for r in rows):.2f} s in all; smallest "
              f"{min(r['seconds'] for r in rows[1:]):.2f} s")
        sweep = []
        for n in [int(x) for x in args.sweep.split(",") if x.strip()]:
            seconds, out, err = timed(spark_command(args.spec, args.master, n, args.fingerprint_bits), tmp)
            rs = levels(err)
            if (out["distinct_states"], out["depth"]) != (distinct, depth):
                raise SystemExit(f"--partitions {n} disagrees: {out}")
            last = rs[-1]
            sweep.append({"partitions": n, "seconds": round(seconds, 2),
                          "peak_shuffle_mb": max(r["shuffled_mb"] for r in rs),
                          "total_shuffle_mb": round(sum(r["shuffled_mb"] for r in rs), 1),
                          "visited_mb": last["visited_mb"],
                          "visited_bytes_per_state": round(last["visited_mb"] * 1e6 / last["total"], 1),
                          "per_level_s": round(fixed_cost(rs[1:])[0], 3)})
        if sweep:
            print("partitions  seconds  per-level s  peak shuffle MB  total shuffle MB  visited MB  bytes/state")
            for r in sweep:
                print(f"{r['partitions']:>10}  {r['seconds']:>7}  {r['per_level_s']:>11}  {r['peak_shuffle_mb']:>15}"
                      f"  {r['total_shuffle_mb']:>16}  {r['visited_mb']:>9}  {r['visited_bytes_per_state']:>11}")
        print(json.dumps({"spec": args.spec, "distinct_states": distinct, "depth": depth, "master": args.master,
                          "baseline": args.baseline, "baseline_seconds": round(bfs_s, 2),
                          "spark_seconds": round(spark_s, 2), "spark_task_seconds": phases,
                          "ratio": round(spark_s / bfs_s, 2), "spark_startup_s": startup,
                          "level1_s": rows[0]["seconds"], "per_level_s": round(intercept, 3),
                          "sweep": sweep}))


if __name__ == "__main__":
    main()
