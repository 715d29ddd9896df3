"""The Spark engine against the fast engine, and a run bigger than one
executor's memory, in one run of this script.

``compare``: kip320 with MaxLeaderEpoch=3 (9,985,570 states) with the fast
engine, with Spark on ``local[2]`` and with Spark on a ``modelcheck cluster
start --workers 2 --cores 1`` cluster (with its default lead-in, and with
``--lead-in 0``: every level on the executors), each as the whole command
users type (JVM start included), alternating, ``--runs`` times; medians and
ratios.

``big``: kip320 with 4 replicas (71,885,361 states) on the 2-worker cluster
with ``spark.executor.memory=1g``: wall time against the fast engine's
whole command on the same model, run first in the same call (``--no-baseline``
skips it), and each executor's peak
memory (its JVM and its Python workers, sampled every second with psutil).
``--kill-at N`` kills one worker (and so its executor) when level N is
reported, and checks the count is still exact.

    nice python bench/bench_spark_scale.py compare [--runs 3]
    nice python bench/bench_spark_scale.py big [--kill-at 20] [--partitions 8] [--lead-in 0]

The machine's load average is printed before and after each run.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import tempfile
import threading
import time

import psutil

from bench_spark import levels, number, STARTED
from common import ROOT, machine, modelcheck_command

MEDIUM = ["kip320", "--const", "MaxLeaderEpoch=3"]
BIG = ["kip320", "--const", "Replicas=4"]


def load() -> str:
    return "load %.1f %.1f %.1f" % os.getloadavg()


class Cluster:
    """A ``modelcheck cluster`` for the benchmark, stopped on the way out."""

    def __init__(self, scratch: str, workers: int = 2, cores: int = 1, memory: str = "2g"):
        self.state_dir = os.path.join(scratch, "cluster")
        done = run(modelcheck_command("cluster", "start", "--workers", str(workers), "--cores", str(cores),
                                      "--memory", memory, "--state-dir", self.state_dir), scratch)
        self.url = done.stdout.strip().splitlines()[-1]

    def worker_pids(self) -> list[int]:
        with open(os.path.join(self.state_dir, "cluster.json")) as f:
            return [p["pid"] for p in json.load(f)["processes"] if p["role"].startswith("worker")]

    def stop(self, scratch: str) -> None:
        run(modelcheck_command("cluster", "stop", "--state-dir", self.state_dir), scratch, check=False)


def env() -> dict:
    return dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))


def run(cmd: list[str], cwd: str, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run(cmd, cwd=cwd, env=env(), capture_output=True, text=True)
    if check and done.returncode != 0:
        raise SystemExit(f"failed ({done.returncode}): {' '.join(cmd)}\n{done.stderr}")
    return done


class ExecutorMemory(threading.Thread):
    """Peak RSS of each executor JVM and of the Python workers under it."""

    def __init__(self, worker_pids: list[int]):
        super().__init__(daemon=True)
        self.worker_pids, self.peaks, self.done = worker_pids, {}, threading.Event()

    def run(self) -> None:
        while not self.done.wait(1.0):
            for w in self.worker_pids:
                try:
                    children = psutil.Process(w).children(recursive=True)
                except psutil.Error:
                    continue
                for jvm in children:
                    try:
                        if "CoarseGrainedExecutorBackend" not in " ".join(jvm.cmdline()):
                            continue
                        pythons = jvm.children(recursive=True)
                        java_mb = jvm.memory_info().rss / 2**20
                        python_mb = sum(p.memory_info().rss for p in pythons) / 2**20
                    except psutil.Error:
                        continue
                    peak = self.peaks.setdefault(jvm.pid, {"worker": w, "jvm_mb": 0.0, "python_mb": 0.0,
                                                           "total_mb": 0.0})
                    peak["jvm_mb"] = max(peak["jvm_mb"], java_mb)
                    peak["python_mb"] = max(peak["python_mb"], python_mb)
                    peak["total_mb"] = max(peak["total_mb"], java_mb + python_mb)


def timed(cmd: list[str], cwd: str, kill=None) -> tuple[float, dict, str]:
    """Seconds, JSON output and stderr of a command; ``kill`` is (marker, pid):
    SIGKILL pid once a stderr line holds marker."""
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    err = []

    def read_stderr():
        for line in proc.stderr:
            err.append(line)
            if kill and kill[0] in line:
                os.kill(kill[1], signal.SIGKILL)
                err.append(f"[bench] killed worker {kill[1]} after: {line}")
    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    out = proc.stdout.read()
    proc.wait()
    reader.join()
    seconds = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{''.join(err)}")
    return seconds, json.loads(out), "".join(err)


def spark(spec: list[str], master: str, *extra: str) -> list[str]:
    return modelcheck_command("run", *spec, "--engine", "spark", "--master", master, *extra, "--json")


def compare(args, scratch: str) -> None:
    fast_cmd = modelcheck_command("run", *MEDIUM, "--engine", "fast", "--json")
    cluster = Cluster(scratch)
    try:
        kinds = {"fast": fast_cmd, "spark local[2]": spark(MEDIUM, "local[2]"),
                 "spark cluster 2x1": spark(MEDIUM, cluster.url),
                 "cluster, no lead-in": spark(MEDIUM, cluster.url, "--lead-in", "0")}
        runs = {k: [] for k in kinds}
        for i in range(args.runs):  # back to back, so each sees about the same machine
            for kind, cmd in kinds.items():
                before = load()
                seconds, out, err = timed(cmd, scratch)
                runs[kind].append((seconds, out, err))
                print(f"run {i + 1} {kind:<20} {seconds:7.2f} s  ({before} before, {load()} after)", flush=True)
    finally:
        cluster.stop(scratch)
    answers = {(o["result"], o["distinct_states"], o["depth"]) for rs in runs.values() for _, o, _ in rs}
    if len(answers) != 1:
        raise SystemExit(f"the engines disagree: {answers}")
    print(f"machine: {machine()}; spec: {' '.join(MEDIUM)} {answers.pop()}")
    medians = {k: statistics.median(s for s, _, _ in rs) for k, rs in runs.items()}
    for kind, rs in runs.items():
        line = f"{kind:<20} median {medians[kind]:7.2f} s  runs {[round(s, 2) for s, _, _ in rs]}"
        if kind != "fast":
            line += f"  ratio to fast {medians[kind] / medians['fast']:.2f}"
            s, _, err = sorted(rs, key=lambda r: r[0])[len(rs) // 2]
            rows = levels(err)
            driven = [r for r in rows if r["driver"]]
            spark_rows = [r for r in rows if not r["driver"]]
            fixed, per_successor, per_visited = level_costs(spark_rows[1:])
            last = rows[-1]
            line += (f"\n{'':<20} started in {number(STARTED.search(err).group(1)):.2f} s; "
                     f"{len(driven)} levels in the driver ({sum(r['seconds'] for r in driven):.2f} s), "
                     f"{len(spark_rows)} on Spark, the first of them {spark_rows[0]['seconds']:.2f} s; a Spark level "
                     f"costs {fixed:.3f} s + {per_successor * 1e6:.2f} s per million successors shuffled + "
                     f"{per_visited * 1e6:.2f} s per million states visited so far; "
                     f"visited files {last['visited_mb'] * 1e6 / last['total']:.1f} bytes per state; "
                     f"shuffled {sum(r['shuffled'] for r in spark_rows):,.0f} successors, "
                     f"{sum(r['shuffled_mb'] for r in spark_rows):,.1f} MB")
        print(line)


def level_costs(rows: list[dict]) -> tuple[float, float, float]:
    """Least squares: a level's seconds ~ fixed + a * successors shuffled +
    b * states visited so far (the visited set is read and rewritten each level)."""
    import numpy as np
    x = np.array([[1.0, r["shuffled"], r["total"]] for r in rows])
    y = np.array([r["seconds"] for r in rows])
    fixed, a, b = np.linalg.lstsq(x, y, rcond=None)[0]
    return float(fixed), float(a), float(b)


def big(args, scratch: str) -> None:
    fast = None
    if not args.no_baseline:  # the fast engine on the same model, in the same call, before the cluster starts
        print(f"before the fast engine: {load()}", flush=True)
        fast_seconds, fast, _ = timed(modelcheck_command("run", *BIG, "--engine", "fast", "--fingerprint-bits",
                                                         args.fingerprint_bits, "--json"), scratch)
        print(f"fast engine: {fast['distinct_states']:,} states, depth {fast['depth']}, {fast_seconds:.1f} s "
              f"(whole command; {load()} after)", flush=True)
    cluster = Cluster(scratch, memory="2g")
    try:
        victim = cluster.worker_pids()[0]
        sampler = ExecutorMemory(cluster.worker_pids())
        sampler.start()
        extra = ["--spark-conf", "spark.executor.memory=1g", "--partitions", str(args.partitions),
                 "--fingerprint-bits", args.fingerprint_bits]
        if args.lead_in is not None:
            extra += ["--lead-in", str(args.lead_in)]
        kill = (f"level {args.kill_at:>3} ·", victim) if args.kill_at else None
        print(f"before: {load()}", flush=True)
        seconds, out, err = timed(spark(BIG, cluster.url, *extra), scratch, kill)
        sampler.done.set()
        print(err)
        print(f"after: {load()}")
    finally:
        cluster.stop(scratch)
    print(f"machine: {machine()}; spec: {' '.join(BIG)}; {' '.join(extra)}"
          + (f"; worker {victim} killed at level {args.kill_at}" if kill else ""))
    print(f"result {out['result']}, {out['distinct_states']:,} states, depth {out['depth']}, {seconds:.1f} s")
    if fast is not None:
        if (fast["result"], fast["distinct_states"], fast["depth"]) != (out["result"], out["distinct_states"], out["depth"]):
            raise SystemExit("the engines disagree")
        print(f"ratio spark / fast = {seconds / fast_seconds:.2f} (fast {fast_seconds:.1f} s)")
    rows = levels(err)
    spark_rows = [r for r in rows if not r["driver"]]
    fixed, per_successor, per_visited = level_costs(spark_rows[1:])
    shuffled = sum(r["shuffled"] for r in rows)
    print(f"{len(rows) - len(spark_rows)} levels in the driver; a Spark level costs {fixed:.3f} s + "
          f"{per_successor * 1e6:.3f} s per million successors shuffled + {per_visited * 1e6:.3f} s per million "
          f"states visited so far; {shuffled / out['distinct_states']:.2f} successors shuffled per state")
    for pid, peak in sorted(sampler.peaks.items()):
        print(f"executor {pid} (worker {peak['worker']}): peak JVM {peak['jvm_mb']:.0f} MiB, "
              f"Python workers {peak['python_mb']:.0f} MiB, together {peak['total_mb']:.0f} MiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["compare", "big"])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--kill-at", type=int, default=None, metavar="LEVEL")
    parser.add_argument("--no-baseline", action="store_true", help="big: skip the fast engine's run")
    parser.add_argument("--fingerprint-bits", default="64", choices=("64", "128"), help="big: both engines' width")
    parser.add_argument("--lead-in", type=int, default=None, metavar="N",
                        help="big: pass --lead-in N (0 gives every level to the executors, for the per-level fit)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        (compare if args.what == "compare" else big)(args, scratch)


if __name__ == "__main__":
    main()
