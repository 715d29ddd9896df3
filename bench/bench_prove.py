"""How long `modelcheck prove` takes to prove Kip320's StrongIsr with the lemmas.

    python bench/bench_prove.py [--runs 1] [--only tiny|two|three]

Three models, each proving TypeOk /\\ StrongIsr /\\ the 20 lemmas of
specs/kip320_lemmas.py by k-induction (k = 1, 2, ... up to --k; the verdict
gives the least k whose step holds):

- tiny:  Replicas=2, LogSize=1, MaxRecords=1, MaxLeaderEpoch=1
- two:   Replicas=2 and the other constants at their defaults (the model the
         calibration figures use)
- three: the defaults (Replicas=3, LogSize=2, MaxRecords=2, MaxLeaderEpoch=2)

It also times StrongIsr alone at the defaults, which is not inductive (exit
20, a counterexample to induction). Each run is the whole command in a
fresh process; the table gives median seconds and peak RSS.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile

from common import machine, measure_once, modelcheck_command

MODELS = {
    "tiny": (["--const", "Replicas=2", "--const", "LogSize=1", "--const", "MaxRecords=1",
              "--const", "MaxLeaderEpoch=1"], 4),
    "two": (["--const", "Replicas=2"], 8),
    "three": ([], 20),
}
TARGET = ["--inv", "TypeOk", "--inv", "StrongIsr", "--lemmas"]


def timed(args: list[str], runs: int, cwd: str) -> dict:
    cmd = modelcheck_command("prove", "kip320", *args, "--json", "--trace-out", "cti.itf.json", "--overwrite")
    figures = [measure_once(cmd, cwd, ok_codes=(0, 20)) for _ in range(runs)]
    verdicts = {(f.output["result"], f.output["proved_at_k"]) for f in figures}
    if len(verdicts) != 1:
        raise SystemExit(f"runs disagree: {verdicts}")
    result, k = verdicts.pop()
    return {"command": " ".join(cmd[3:-4]), "result": result, "proved_at_k": k,
            "median_seconds": round(statistics.median(f.seconds for f in figures), 2),
            "median_peak_rss_mib": round(statistics.median(f.peak_rss_mib for f in figures), 1),
            "all_seconds": [round(f.seconds, 2) for f in figures]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--only", choices=sorted(MODELS))
    args = parser.parse_args()
    print(f"machine: {machine()}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        rows.append(timed(["--inv", "StrongIsr"], args.runs, tmp))
        for name, (consts, k) in MODELS.items():
            if args.only in (None, name):
                rows.append(timed([*consts, *TARGET, "--k", str(k)], args.runs, tmp))
                print(f"  {name:<6} {rows[-1]['result']:<14} k={rows[-1]['proved_at_k']}  "
                      f"{rows[-1]['median_seconds']} s  {rows[-1]['median_peak_rss_mib']} MiB", flush=True)
    for row in rows:
        print(f"modelcheck {row['command']}\n  {row['result']}, k = {row['proved_at_k']}; median "
              f"{row['median_seconds']} s of {row['all_seconds']}, peak RSS {row['median_peak_rss_mib']} MiB")
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
