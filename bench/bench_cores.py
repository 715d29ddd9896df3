"""The fast engine's kernels and threads on the larger kip320 searches, side
by side with TLC.

Each case runs in --runs rounds (default 3). A round runs the whole
`modelcheck run` command once per configuration, each in a fresh process,
then (with --tlc, for the cases TLC is compared on) TLC once. The table
gives the median search seconds (the report's own "seconds": model built,
kernels loaded, search), the median seconds of the whole command
(interpreter start, imports and report included; for TLC, its whole run,
JVM included), the median peak RSS, and the answer, which must be the same
for every configuration of a case and for TLC.

Configurations: the compiled kernels on 2 threads and on 1, and the numpy
kernels; with --baseline DIR (repeatable), also the fast engine of another
checkout (its own default kernels), run with this interpreter, to compare a
change in the same run. Before the timed runs, one run with an empty kernel cache
measures how long building the compiled kernel takes (it is then cached, as
for users).

    python bench/bench_cores.py [--runs 3] [--only NAME ...] [--configs compiled-2,compiled-1,numpy]
        [--baseline DIR] [--tlc CLASSES --upstream DIR [--tlc-workers 2] [--tlc-rounds N]]

--tlc gives TLC's compiled classes (tla2tools), --upstream a directory
holding the upstream modules (Kip320.tla and the modules it extends).
Without --tlc, TLC is left out.

Cases (NAME): kip320-e3 (MaxLeaderEpoch=3; TLC is compared here),
kip320-r4 (Replicas=4), kip320-r5-sym (Replicas=5 --symmetry),
first-try-r3 (kip320-first-try Replicas=3, StrongIsr: a counterexample),
kip320-r2 (Replicas=2: a few seconds, TLC compared too, to try the script).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile

from common import machine, measure_once, modelcheck_command, tlc_once

CASES = {
    "kip320-e3": ("kip320", "--const", "MaxLeaderEpoch=3"),
    "kip320-r4": ("kip320", "--const", "Replicas=4"),
    "kip320-r5-sym": ("kip320", "--const", "Replicas=5", "--symmetry"),
    "first-try-r3": ("kip320-first-try", "--const", "Replicas=3", "--inv", "StrongIsr"),
    "kip320-r2": ("kip320", "--const", "Replicas=2"),
}
# the cases TLC runs too: its configuration (kip320's defaults otherwise)
KIP320_CFG = ("CONSTANTS\n  Replicas = {{{replicas}}}\n  LogSize = 2\n  MaxRecords = 2\n  MaxLeaderEpoch = {epochs}\n"
              "SPECIFICATION Spec\nINVARIANTS WeakIsr StrongIsr\n")  # upstream TypeOk compares Nil with records: TLC stops on it
TLC_CONFIGS = {
    "kip320-e3": KIP320_CFG.format(replicas="r1, r2, r3", epochs=3),
    "kip320-r2": KIP320_CFG.format(replicas="r1, r2", epochs=2),
}
UPSTREAM_MODULES = ("Kip320", "Kip279", "Kip101", "KafkaReplication", "FiniteReplicatedLog", "IdSequence", "Util")
CONFIGS = {
    "compiled-2": ("--kernels", "compiled", "--workers", "2"),
    "compiled-1": ("--kernels", "compiled", "--workers", "1"),
    "numpy": ("--kernels", "numpy"),
}


def modelcheck_once(case: tuple, config: str, cwd: str, baseline: dict[str, str]) -> tuple:
    """One run: (search seconds, whole seconds, peak RSS MiB, answer)."""
    if config in baseline:
        f = measure_once(modelcheck_command("run", *case, "--json", "-q"), cwd, root=baseline[config])
    else:
        f = measure_once(modelcheck_command("run", *case, *CONFIGS[config], "--json", "-q"), cwd)
    answer = (f.output["result"], f.output["distinct_states"], f.output["depth"],
              (f.output["violation"] or {}).get("trace_length"))
    return f.output["seconds"], f.seconds, f.peak_rss_mib, answer


def summary(figures: list[tuple]) -> dict:
    answers = {f[3] for f in figures}
    if len(answers) != 1:
        raise SystemExit(f"runs disagree: {answers}")
    return {
        "answer": answers.pop(),
        "search": None if figures[0][0] is None else statistics.median(f[0] for f in figures),
        "command": statistics.median(f[1] for f in figures),
        "rss": statistics.median(f[2] for f in figures),
        "all_search": [None if f[0] is None else round(f[0], 2) for f in figures],
        "all_command": [round(f[1], 2) for f in figures],
    }


def tlc_directory(name: str, upstream: str, into: str) -> None:
    for module in UPSTREAM_MODULES:
        path = os.path.join(upstream, module + ".tla")
        if not os.path.exists(path):
            raise SystemExit(f"--upstream {upstream}: no {module}.tla there")
        shutil.copy(path, into)
    with open(os.path.join(into, "M.cfg"), "w") as f:
        f.write(TLC_CONFIGS[name])


def cold_build_seconds(case: tuple, cwd: str) -> float:
    """Whole-command seconds of one compiled run with an empty kernel cache, minus a warm one."""
    before = os.environ.get("MODELCHECK_KERNEL_CACHE")
    with tempfile.TemporaryDirectory() as cache:
        os.environ["MODELCHECK_KERNEL_CACHE"] = cache
        try:
            args = ("run", *case, "--kernels", "compiled", "--json", "-q", "--max-states", "1")
            cold = measure_once(modelcheck_command(*args), cwd)
            warm = measure_once(modelcheck_command(*args), cwd)
        finally:
            if before is None:
                del os.environ["MODELCHECK_KERNEL_CACHE"]
            else:
                os.environ["MODELCHECK_KERNEL_CACHE"] = before
    return cold.seconds - warm.seconds


def run_case(name: str, configs: list[str], args, tmp: str) -> tuple:
    case = CASES[name]
    build = cold_build_seconds(case, tmp) if any(c.startswith("compiled") for c in configs) else None
    measure_once(modelcheck_command("run", *case, "--kernels", "compiled", "--json", "-q", "--max-states", "1"),
                 tmp)  # warm the cache
    figures: dict[str, list] = {c: [] for c in configs}
    with_tlc = bool(args.tlc) and name in TLC_CONFIGS
    tlc_dir = os.path.join(tmp, "tlc-" + name)
    if with_tlc:
        os.makedirs(tlc_dir, exist_ok=True)
        tlc_directory(name, args.upstream, tlc_dir)
        figures["tlc"] = []
    for round_ in range(args.runs):
        for c in configs:
            figures[c].append(modelcheck_once(case, c, tmp, args.baseline))
        if with_tlc and round_ < args.tlc_rounds:
            seconds, rss, answer = tlc_once(args.tlc, args.tlc_workers, tlc_dir, "Kip320.tla")
            figures["tlc"].append((None, seconds, rss, answer[:3] + (None,)))
    results = {c: summary(f) for c, f in figures.items()}
    answers = {r["answer"][:3] for r in results.values()}  # TLC gives no trace length here
    if len(answers) != 1:
        raise SystemExit(f"{name}: configurations disagree: { {c: r['answer'] for c, r in results.items()} }")
    return name, case, build, results


def table(rows: list, args) -> None:
    tlc_note = f"; TLC: median of {args.tlc_rounds}" if args.tlc else ""
    print(f"machine: {machine()}; median of {args.runs} runs{tlc_note}")
    print("| case | distinct states | depth | kernels | search s | whole command s | peak RSS | kernel build s "
          "| search / TLC | whole / TLC |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, case, build, results in rows:
        tlc = results.get("tlc")
        for config, r in results.items():
            result, distinct, depth, trace = r["answer"]
            shown = f"{distinct:,}" + (f" ({result}, trace {trace})" if result == "violation" else "")
            build_cell = f"{build:.2f}" if build is not None and config.startswith("compiled") else "-"
            label = f"TLC, {args.tlc_workers} workers" if config == "tlc" else config
            search = "-" if r["search"] is None else f"{r['search']:.2f}"
            ratio_search = f"{r['search'] / tlc['command']:.4f}" if tlc and r["search"] is not None else "-"
            ratio_whole = f"{r['command'] / tlc['command']:.4f}" if tlc else "-"
            print(f"| {name} | {shown} | {depth} | {label} | {search} | {r['command']:.2f} | "
                  f"{r['rss']:,.0f} MiB | {build_cell} | {ratio_search} | {ratio_whole} |")
    for name, case, build, results in rows:
        print(json.dumps({"case": name, "args": case, "kernel_build_seconds": build,
                          "results": {c: {k: v for k, v in r.items() if k != "answer"} | {"answer": r["answer"]}
                                      for c, r in results.items()}}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", nargs="*", choices=sorted(CASES), default=None)
    parser.add_argument("--configs", default=",".join(CONFIGS))
    parser.add_argument("--baseline", action="append", default=[],
                        help="another checkout whose fast engine runs as one more configuration (repeatable)")
    parser.add_argument("--tlc", help="TLC's compiled classes (tla2tools): run TLC on the cases it is compared on")
    parser.add_argument("--upstream", help="a directory holding Kip320.tla and the modules it extends (with --tlc)")
    parser.add_argument("--tlc-workers", type=int, default=2)
    parser.add_argument("--tlc-rounds", type=int, default=None, help="TLC in the first N rounds only (default: all)")
    args = parser.parse_args()
    if args.tlc and not args.upstream:
        parser.error("--tlc needs --upstream")
    args.tlc_rounds = args.runs if args.tlc_rounds is None else args.tlc_rounds
    configs = args.configs.split(",")
    unknown = [c for c in configs if c not in CONFIGS]
    if unknown:
        parser.error(f"unknown configurations {unknown}; choose from {sorted(CONFIGS)}")
    baselines = {}
    for directory in args.baseline:
        if not os.path.exists(os.path.join(directory, "cli.py")):
            parser.error(f"--baseline {directory}: not a checkout (no cli.py)")
        baselines["baseline " + os.path.basename(os.path.abspath(directory))] = os.path.abspath(directory)
    configs += list(baselines)
    args.baseline = baselines
    with tempfile.TemporaryDirectory() as tmp:
        rows = [run_case(name, configs, args, tmp) for name in args.only or [n for n in CASES if n != "kip320-r2"]]
    table(rows, args)


if __name__ == "__main__":
    main()
