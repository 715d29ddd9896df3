"""Symmetry reduction (--symmetry) on the fast engine, side by side with the same runs without it.

Cases (kip320 and kip320-first-try, LogSize = MaxRecords = MaxLeaderEpoch = 2):

* ``four``: kip320 with 4 replicas, with symmetry (--runs times) and without
  (--plain-runs times). TLC with SYMMETRY Permutations(Replicas) explores the
  same 3,054,035 orbits in 11 minutes on this machine class; the target is
  30 s.
* ``first-try``: kip320-first-try with 4 replicas, StrongIsr, with symmetry:
  the shortest violation (--runs times), and without (--plain-runs times).
* ``five``: kip320 with 5 replicas, with symmetry, once (target: 15 minutes,
  8 GiB peak RSS). Without symmetry (about 7 billion states) it is out of
  reach, and is not run.
* ``orbits``: kip320 with 3 replicas, with symmetry and the orbit sizes added
  up, against the count without symmetry (737,794).

Medians of wall-clock seconds and peak RSS of whole `modelcheck run` commands
(bench/common.py). The machine may be shared: the load average before and
after each case is printed with it.

    python bench/bench_symmetry.py [--runs 3] [--plain-runs 1] [--only four|first-try|five|orbits]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile

from common import machine, measure, modelcheck_command

CASES = ("orbits", "four", "first-try", "five")
BASE = ("--engine", "fast", "--json", "-q")


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def row(case: str, symmetry: bool, figures: dict, load_before: str) -> dict:
    return {"case": case, "symmetry": symmetry, **figures, "load_before": load_before, "load_after": load()}


def run_case(case: str, runs: int, plain_runs: int, tmp: str) -> list[dict]:
    out = []
    if case == "orbits":
        import sys
        sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        from modelcheck.engines.base import CheckOptions
        from modelcheck.engines.fast import FastChecker
        from modelcheck.specs import get_spec
        spec = get_spec("kip320")
        m = spec.instantiate(spec.resolve_constants({"Replicas": "3"}))
        before = load()
        sym = FastChecker().check(m, CheckOptions(spec.default_invariants, symmetry=True,
                                                  engine_options={"orbit_sizes": True}))
        plain = FastChecker().check(m, CheckOptions(spec.default_invariants))
        out.append({"case": case, "orbits": sym.distinct_states, "depth": sym.depth, "note": sym.notes[0],
                    "without_symmetry": plain.distinct_states, "load_before": before, "load_after": load()})
        return out
    if case == "five":
        args = ("run", "kip320", "--const", "Replicas=5", *BASE, "--symmetry")
        before = load()
        out.append(row(case, True, measure(modelcheck_command(*args), 1, tmp), before))
        return out
    if case == "four":
        args = ("run", "kip320", "--const", "Replicas=4", *BASE)
    else:
        args = ("run", "kip320-first-try", "--const", "Replicas=4", "--inv", "StrongIsr", *BASE)
    before = load()
    out.append(row(case, True, measure(modelcheck_command(*args, "--symmetry"), runs, tmp), before))
    if plain_runs:
        before = load()
        out.append(row(case, False, measure(modelcheck_command(*args), plain_runs, tmp), before))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--plain-runs", type=int, default=1)
    parser.add_argument("--only", choices=CASES)
    args = parser.parse_args()
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory() as tmp:
        for case in ([args.only] if args.only else CASES):
            for r in run_case(case, args.runs, args.plain_runs, tmp):
                print(json.dumps(r), flush=True)


if __name__ == "__main__":
    main()
