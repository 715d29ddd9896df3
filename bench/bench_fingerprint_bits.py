"""What 128-bit fingerprints cost the fast engine: memory per state and speed.

For each case, ``modelcheck run ... --kernels compiled --json`` runs with
``--fingerprint-bits 64`` and ``128`` alternately, --runs times each, in fresh
processes (the kernel cache warmed first, so no run builds its kernel); the
table gives the median seconds of the search (the report's ``seconds``),
the median peak RSS of the process, and their ratios, 128 to 64. Then one
run of each in this process gives the visited set's own bytes per state
(its hash tables, ``FingerprintSet.nbytes``, over the states they hold):
what the fingerprints' size changes. Every run must find the same states.

    python bench/bench_fingerprint_bits.py [--runs 3] [--only NAME] [--workers 2]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile

from common import ROOT, machine, measure_once, modelcheck_command

sys.path.insert(0, ROOT)

from kraft_configs import TLC  # noqa: E402

CASES = {
    "kip320": ("kip320", {}),
    "kip320-e3": ("kip320", {"MaxLeaderEpoch": 3}),
    "kraft-3.5-v13": ("kraft-3.5", TLC["v13"][0]),
}


def args_of(spec: str, consts: dict) -> list[str]:
    out = ["run", spec]
    for k, v in consts.items():
        out += ["--const", f"{k}={v}"]
    return out


def visited_bytes(spec: str, consts: dict, bits: int, workers: int) -> tuple[int, int]:
    """(states, bytes of the visited set's tables) of one search in this process."""
    from modelcheck.engines.base import CheckOptions
    from modelcheck.engines.fast import _Search
    from modelcheck.specs import get_spec
    definition = get_spec(spec)
    model = definition.instantiate(definition.resolve_constants({k: str(v) for k, v in consts.items()}))
    options = CheckOptions(tuple(definition.default_invariants),
                           engine_options={"kernels": "compiled", "workers": workers, "fingerprint_bits": bits})
    search = _Search(model, options)
    try:
        result = search.run()
    finally:
        search.kernels.close()
        search.frontier.close()
    return result.distinct_states, search.visited.nbytes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", choices=sorted(CASES))
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in [args.only] if args.only else list(CASES):
            spec, consts = CASES[name]
            base = args_of(spec, consts) + ["--kernels", "compiled", "--workers", str(args.workers), "--json", "-q"]
            runs = {64: [], 128: []}
            for bits in (64, 128):  # warm the kernel cache: no measured run builds its kernel
                measure_once(modelcheck_command(*base, "--fingerprint-bits", str(bits)), tmp)
            for _ in range(args.runs):
                for bits in (64, 128):
                    runs[bits].append(measure_once(modelcheck_command(*base, "--fingerprint-bits", str(bits)), tmp))
            answers = {(f.output["result"], f.output["distinct_states"], f.output["depth"])
                       for figures in runs.values() for f in figures}
            if len(answers) != 1:
                raise SystemExit(f"{name}: runs disagree: {answers}")
            states = answers.pop()[1]
            row = {"case": name, "command": " ".join(base), "distinct_states": states}
            for bits, figures in runs.items():
                row[f"seconds_{bits}"] = round(statistics.median(f.output["seconds"] for f in figures), 2)
                row[f"all_seconds_{bits}"] = [f.output["seconds"] for f in figures]
                row[f"peak_rss_mib_{bits}"] = round(statistics.median(f.peak_rss_mib for f in figures), 1)
                found, table_bytes = visited_bytes(spec, consts, bits, args.workers)
                assert found == states, (name, bits, found, states)
                row[f"visited_bytes_per_state_{bits}"] = round(table_bytes / states, 1)
            row["time_ratio"] = round(row["seconds_128"] / row["seconds_64"], 3)
            row["rss_ratio"] = round(row["peak_rss_mib_128"] / row["peak_rss_mib_64"], 3)
            row["extra_rss_bytes_per_state"] = round((row["peak_rss_mib_128"] - row["peak_rss_mib_64"]) * 2 ** 20
                                                     / states, 1)
            rows.append(row)
    print(f"machine: {machine()}, --workers {args.workers}, medians of {args.runs} runs each")
    print("| case | distinct states | search s, 64 / 128 bits | ratio | peak RSS MiB, 64 / 128 | ratio | "
          "visited set bytes/state, 64 / 128 |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['case']} | {r['distinct_states']:,} | {r['seconds_64']} / {r['seconds_128']} | "
              f"{r['time_ratio']:.2f} | {r['peak_rss_mib_64']:,.0f} / {r['peak_rss_mib_128']:,.0f} | "
              f"{r['rss_ratio']:.2f} | {r['visited_bytes_per_state_64']} / {r['visited_bytes_per_state_128']} |")
    for r in rows:
        print(json.dumps(r))


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
