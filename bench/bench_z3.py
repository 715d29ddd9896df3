"""Bounded model checking with z3 to the kip320-first-try data-loss bug
(Replicas=3, StrongIsr, a 13-state counterexample), next to the breadth-first
engine on the same run.

    python bench/bench_z3.py [--z3-runs 3] [--bfs-runs 3] [--profile] [--profile-depth 10]

Each z3 run is the whole command, with stderr on a pseudo-terminal so that its
per-depth progress lines (solver seconds per depth) are captured as a user
sees them. ``--profile`` then times the unrolling to ``--profile-depth`` once
per encoding choice (action selectors, partial-order and symmetry
reductions, invariant lemmas), in this process.
"""

from __future__ import annotations

import argparse
import json
import os
import pty
import re
import subprocess
import sys
import tempfile
import time

from common import ROOT, machine, measure, modelcheck_command

SPEC_ARGS = ["kip320-first-try", "--const", "Replicas=3", "--inv", "StrongIsr"]
TARGET_SECONDS = 60.0
DEPTH_LINE = re.compile(r"depth\s+(\d+)\s+(.*?)\s+solver\s+([\d.]+) s")


def run_on_terminal(cmd: list[str], cwd: str) -> tuple[float, str, dict]:
    """Wall seconds, stderr as a terminal shows it, and the JSON on stdout."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    master, slave = pty.openpty()
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    out = proc.stdout.read()
    proc.wait()
    seconds = time.perf_counter() - started
    os.close(master)
    if proc.returncode not in (0, 12):
        raise SystemExit(f"benchmark command failed ({proc.returncode}): {' '.join(cmd)}")
    return seconds, seen.decode(errors="replace"), json.loads(out)


def per_depth(stderr: str) -> list[tuple[int, str, float]]:
    return [(int(d), verdict.strip(), float(s)) for d, verdict, s in DEPTH_LINE.findall(stderr.replace("\r", "\n"))]


def profile(depth: int) -> list[tuple[str, float]]:
    """Cumulative seconds to show no violation within ``depth`` states, per encoding choice."""
    sys.path.insert(0, ROOT)
    from modelcheck.engines.bmc import BmcSettings, run_bmc
    from modelcheck.specs import get_spec

    spec = get_spec("kip320-first-try")
    model = spec.instantiate(spec.resolve_constants({"Replicas": "3"}))
    variants = [
        ("default (one-hot, partial order window 2, symmetry, lemmas)", BmcSettings()),
        ("without symmetry", BmcSettings(symmetry=False)),
        ("partial order on adjacent steps only (window 1)", BmcSettings(partial_order_window=1)),
        ("without partial-order reduction", BmcSettings(partial_order_window=0)),
        ("without invariant lemmas", BmcSettings(invariant_lemmas=False)),
        ("binary action index instead of one-hot", BmcSettings(selectors="binary")),
        ("none of them (binary index, no reductions)",
         BmcSettings(selectors="binary", partial_order_window=0, symmetry=False, invariant_lemmas=False)),
    ]
    rows = []
    for label, settings in variants:
        started = time.perf_counter()
        outcome = run_bmc(model, ["StrongIsr"], depth, settings)
        assert outcome.result == "bounded-ok", label
        rows.append((label, time.perf_counter() - started))
        print(f"  {label:<52} {rows[-1][1]:8.2f} s", flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--z3-runs", type=int, default=3)
    parser.add_argument("--bfs-runs", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="also time each encoding choice")
    parser.add_argument("--profile-depth", type=int, default=10)
    args = parser.parse_args()
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory() as tmp:
        z3_cmd = modelcheck_command("run", *SPEC_ARGS, "--engine", "z3", "--max-depth", "13", "--json")
        z3_runs = []
        for _ in range(args.z3_runs):
            z3_runs.append(run_on_terminal(z3_cmd, tmp))
            for name in os.listdir(os.path.join(tmp, "traces")):
                os.remove(os.path.join(tmp, "traces", name))
        # the per-depth figures shown are those of the median run
        z3_runs.sort(key=lambda run: run[0])
        seconds, stderr, out = z3_runs[len(z3_runs) // 2]
        bfs = measure(modelcheck_command("run", *SPEC_ARGS, "--engine", "bfs", "--json"), args.bfs_runs, tmp)
    assert out["result"] == "violation" and out["violation"]["trace_length"] == 13, out
    assert bfs["result"] == "violation" and bfs["depth"] == 13, bfs
    depths = per_depth(stderr)
    print(f"modelcheck {' '.join(z3_cmd[3:])}")
    print("  depth  verdict                   solver s")
    for d, verdict, s in depths:
        print(f"  {d:>5}  {verdict:<24} {s:9.2f}")
    print(f"  solver total {sum(s for _, _, s in depths):.2f} s; whole command {seconds:.2f} s, the median of "
          f"{len(z3_runs)} (runs: {[round(run[0], 2) for run in z3_runs]}) "
          f"(target {TARGET_SECONDS:.0f} s: {'met' if seconds <= TARGET_SECONDS else 'missed'})")
    print(f"modelcheck {bfs['command']}")
    print(f"  {bfs['distinct_states']:,} distinct states, depth {bfs['depth']}; median {bfs['median_seconds']} s "
          f"(runs: {bfs['all_seconds']})")
    if args.profile:
        print(f"profile: kip320-first-try Replicas=3 StrongIsr, no violation within {args.profile_depth} states")
        profile(args.profile_depth)
    print(f"z3 / bfs = {seconds / bfs['median_seconds']:.1f}")
    print(json.dumps({"z3_seconds": round(seconds, 2), "z3_all_seconds": [round(run[0], 2) for run in z3_runs],
                      "z3_depths": depths, "bfs": bfs}))


if __name__ == "__main__":
    main()
