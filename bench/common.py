"""Measuring whole commands: wall-clock seconds and peak RSS of each run.

Each run is a fresh process; ``os.wait4`` gives that child's own resource
usage, so peak RSS is the child's high-water mark and nothing else's.
Benchmarks report medians, and check only that every run gave the same
answer; they are not tests.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@dataclass
class RunFigures:
    seconds: float
    peak_rss_mib: float
    output: dict


def modelcheck_command(*args: str) -> list[str]:
    return [sys.executable, "-c", "from cli import main; main()", *args]


def measure_once(cmd: list[str], cwd: str, ok_codes: tuple[int, ...] = (0, 12), root: str = ROOT) -> RunFigures:
    """One run of ``cmd``, with the checkout ``root`` (this one by default) first on the path."""
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in ok_codes:
        raise SystemExit(f"benchmark command failed ({proc.returncode}): {' '.join(cmd)}")
    return RunFigures(seconds, usage.ru_maxrss / 1024.0, json.loads(out))


def measure(cmd: list[str], runs: int, cwd: str) -> dict:
    figures = [measure_once(cmd, cwd) for _ in range(runs)]
    answers = {(f.output["result"], f.output["distinct_states"], f.output["depth"]) for f in figures}
    if len(answers) != 1:
        raise SystemExit(f"runs disagree: {answers}")
    result, distinct, depth = answers.pop()
    seconds = statistics.median(f.seconds for f in figures)
    return {
        "command": " ".join(cmd[3:]),
        "result": result, "distinct_states": distinct, "depth": depth,
        "runs": runs,
        "median_seconds": round(seconds, 2),
        "median_states_per_second": round(distinct / seconds) if distinct else None,
        "median_peak_rss_mib": round(statistics.median(f.peak_rss_mib for f in figures), 1),
        "all_seconds": [round(f.seconds, 2) for f in figures],
    }


def tlc_once(classes: str, workers: int, directory: str, module: str, config: str = "M.cfg",
             heap: str | None = None) -> tuple[float, float, tuple]:
    """One TLC run of ``module`` with ``config``, both in ``directory``: seconds,
    peak RSS (MiB), and (verdict, distinct states, depth, trace length)."""
    cmd = ["java", *([f"-Xmx{heap}"] if heap else []), "-XX:+UseParallelGC", "-cp", classes, "tlc2.TLC", "-deadlock",
           "-workers", str(workers), "-metadir", os.path.join(directory, "states"), "-config", config, module]
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
    violated = "is violated" in out
    states = re.findall(r"^State (\d+):", out, re.M)
    answer = ("violation" if violated else "ok", int(distinct[-1].replace(",", "")), int(depth[-1]),
              int(states[-1]) if violated and states else None)
    return seconds, usage.ru_maxrss / 1024.0, answer


def machine() -> str:
    import platform
    return f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} cores"


def print_run(row: dict) -> None:
    """One measured command as the single-run benchmarks report it, then its JSON."""
    print(f"machine: {machine()}")
    print(f"modelcheck {row['command']}")
    print(f"  result           {row['result']}")
    print(f"  distinct states  {row['distinct_states']:,} (depth {row['depth']})")
    print(f"  median seconds   {row['median_seconds']}  (runs: {row['all_seconds']})")
    print(f"  median peak RSS  {row['median_peak_rss_mib']} MiB")
    print(json.dumps(row))
