"""Where a command's CPU time goes: the command itself, the JVMs it starts
and the Python workers under them, sampled with psutil while it runs.

    python bench/cpu_split.py -- python3 cli.py run kip320 --engine spark --master 'local[2]' --json

It was written to see how much of a local Spark run the driver JVM costs.
A sample every 0.2 s keeps each process' last CPU reading, so processes that
end between samples are undercounted by at most that much.
"""

from __future__ import annotations

import subprocess
import sys
import time

import psutil


def role(p: psutil.Process, root: int) -> str:
    if p.pid == root:
        return "command"
    name = p.name()
    if "java" in name:
        return "jvm"
    return "python workers" if "python" in name else name


def main() -> None:
    args = sys.argv[1:]
    if args[:1] == ["--"]:
        args = args[1:]
    if not args:
        raise SystemExit(__doc__)
    start = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    root = psutil.Process(proc.pid)
    last: dict[int, tuple[str, float]] = {}
    while proc.poll() is None:
        try:
            family = [root] + root.children(recursive=True)
        except psutil.Error:
            family = []
        for p in family:
            try:
                t = p.cpu_times()
                last[p.pid] = (role(p, proc.pid), t.user + t.system + t.children_user + t.children_system)
            except psutil.Error:
                pass
        time.sleep(0.2)
    wall = time.perf_counter() - start
    totals: dict[str, float] = {}
    for name, cpu in last.values():
        totals[name] = totals.get(name, 0.0) + cpu
    print(f"wall {wall:.1f} s, exit {proc.returncode}; CPU seconds: "
          + ", ".join(f"{k} {v:.1f}" for k, v in sorted(totals.items())) + f"; total {sum(totals.values()):.1f}")


if __name__ == "__main__":
    main()
