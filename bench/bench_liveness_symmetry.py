"""Every Kip320Live property under Spec, NoFairSpec and FairFetchSpec, with symmetry.

One whole `modelcheck run kip320 --symmetry --engine fast` per
(specification, property) at the given replica count (LogSize =
MaxRecords = MaxLeaderEpoch = 2), each under a wall-clock limit and
`--max-memory`; it prints a markdown table of the verdict, the seconds and
the peak RSS of each run (a run stopped by a limit says so instead of a
verdict). Each case is decided on the quotient by the renamings that leave
it alone (docs/liveness.md, "With symmetry").

With ``--lock FILE``, each run holds a shared ``flock`` on FILE (taken
before its clock starts), so that runs wanting the machine to themselves
wait between two of these runs, not during one.

    python bench/bench_liveness_symmetry.py [--replicas 4] [--seconds 600] [--max-memory 8GiB]
        [--specification NAME ...] [--prop NAME ...] [--lock FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import subprocess
import tempfile

from common import machine, measure_once, modelcheck_command

SPECIFICATIONS = ("Spec", "NoFairSpec", "FairFetchSpec")
PROPERTIES = ("LeaderEventuallyElected", "EpochsConverge", "WrittenLeadsToCommitted", "InSyncInfinitelyOften",
              "IsrSettles", "LeaderAdoptsItsRequest", "WritesWhenLed", "QuorumIsrStabilizes")


def one(replicas: int, specification: str, prop: str, seconds: int, memory: str, tmp: str) -> dict:
    cmd = ["timeout", "--preserve-status", "-s", "INT", str(seconds)] + modelcheck_command(
        "run", "kip320", "--const", f"Replicas={replicas}", "--symmetry", "--engine", "fast", "--prop", prop,
        "--specification", specification, "--max-memory", memory, "--json", "-q", "--overwrite",
        "--trace-out", f"{tmp}/lasso.itf.json")
    try:
        f = measure_once(cmd, tmp, ok_codes=(0, 13, 130))
    except SystemExit as failed:
        return {"specification": specification, "property": prop, "verdict": f"failed: {failed}"}
    out = f.output
    if out.get("stopped") == "interrupted":
        verdict = f"no verdict: stopped at the {seconds} s limit"
    elif out.get("stopped"):
        verdict = f"no verdict: stopped at --max-memory {memory}"
    else:
        verdict = "holds" if out["property_verdicts"][prop] else "violated"
    return {"specification": specification, "property": prop, "verdict": verdict, "orbits": out["distinct_states"],
            "seconds": round(f.seconds, 1), "peak_rss_mib": round(f.peak_rss_mib)}


@contextlib.contextmanager
def shared_lock(path: str | None):
    if path is None:
        yield
        return
    with open(path) as f:
        fcntl.flock(f, fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--replicas", type=int, default=4)
    parser.add_argument("--seconds", type=int, default=600)
    parser.add_argument("--max-memory", default="8GiB")
    parser.add_argument("--specification", action="append")
    parser.add_argument("--prop", action="append")
    parser.add_argument("--lock", help="hold a shared flock on this file during each run")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    print("| specification | property | verdict | states searched | seconds | peak RSS MiB |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for specification in args.specification or SPECIFICATIONS:
            for prop in args.prop or PROPERTIES:
                with shared_lock(args.lock):
                    row = one(args.replicas, specification, prop, args.seconds, args.max_memory, tmp)
                print(f"| {row['specification']} | {row['property']} | {row['verdict']} | "
                      f"{row.get('orbits', '')} | {row.get('seconds', '')} | {row.get('peak_rss_mib', '')} |",
                      flush=True)
    subprocess.run(["uptime"], check=False)


if __name__ == "__main__":
    main()
