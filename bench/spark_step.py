"""One large level of the Spark engine's step, timed in process (no Spark):
the driver's own levels (``modelcheck.spark.lead.run_level``) up to the level
before ``--level``, then that level timed, ``--runs`` times from scratch, on
the C kernel (the executors' default) or numpy. ``--profile`` prints
cProfile's account of the last run. Several trees can be compared by running
this script from each (``--tree`` puts another checkout first on the path).

    python bench/spark_step.py [--runs 3] [--level 18] [--partitions 2] [--kernel c|numpy]
        [--bits 64|128] [--profile] [--tree DIR] [-- SPEC --const NAME=VALUE ...]

By default: kip320 with MaxLeaderEpoch=3, level 18 (about 1.9 million
successor candidates) on 2 partitions.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import shutil
import statistics
import sys
import tempfile
import time


def level_seconds(model, args, plan) -> float:
    from modelcheck.language.packing import Packing
    from modelcheck.spark import blocks, lead

    directory = tempfile.mkdtemp(prefix="modelcheck-step-")
    try:
        words, report = Packing(model.schema, args.bits).words, lead.Report()
        view = bool(model.view)

        def config(level):
            return blocks.StepConfig(model.key(), args.partitions, level, directory,
                                     tuple(model.spec.default_invariants), tuple(model.sometimes), False, False,
                                     ordered=view, instances=len(model.instances), kernel=plan,
                                     fingerprint_bits=args.bits)
        frontier = lead.initial_frontier(model, args.partitions, bits=args.bits)
        for level in range(1, args.level):
            frontier = lead.run_level(config(level), report, frontier, words)
        profiler = cProfile.Profile() if args.profile else None
        started, cpu = time.perf_counter(), time.process_time()
        if profiler:
            profiler.enable()
        lead.run_level(config(args.level), report, frontier, words)
        seconds = time.perf_counter() - started
        new = sum(s.new for key, s in report.value.items() if key[0] == args.level and hasattr(s, "new"))
        print(f"level {args.level}: {new:,} new states, {seconds:.2f} s, {time.process_time() - cpu:.2f} s of CPU "
              f"({(time.process_time() - cpu) / max(new, 1) * 1e6:.1f} us a new state)", flush=True)
        if profiler:
            profiler.disable()
            pstats.Stats(profiler).sort_stats("tottime").print_stats(15)
        return seconds
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def c_kernel(model, bits: int):
    """The run's kernel plan as the driver makes it (built, or from the cache)."""
    from modelcheck.backends.compiled import kernel_source_of
    from modelcheck.spark.kernels import DriverKernel

    names = tuple(model.spec.default_invariants) + tuple(model.sometimes)
    driver = DriverKernel(model, names, "compiled", bits, lambda m, p, n, stopped: kernel_source_of(m, p, n))
    driver.start(stopped=None)
    return driver.plan()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--level", type=int, default=18)
    parser.add_argument("--partitions", type=int, default=2)
    parser.add_argument("--kernel", choices=("c", "numpy"), default="c")
    parser.add_argument("--bits", type=int, choices=(64, 128), default=64)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--tree", help="a checkout whose modelcheck to time (default: this one)")
    parser.add_argument("spec", nargs="*", default=["kip320", "--const", "MaxLeaderEpoch=3"])
    args = parser.parse_args()
    if args.tree:
        sys.path.insert(0, args.tree)
    else:
        from common import ROOT
        sys.path.insert(0, ROOT)
    from modelcheck.loading.registry import by_ref

    name, given = args.spec[0], dict(a.split("=", 1) for a in args.spec[2::2])
    spec = by_ref(name)
    model = spec.instantiate(spec.resolve_constants(given))
    plan = c_kernel(model, args.bits) if args.kernel == "c" else None
    runs = [level_seconds(model, args, plan) for _ in range(args.runs)]
    import modelcheck
    print(f"{modelcheck.__file__}: {' '.join(args.spec)}, level {args.level} on {args.partitions} partitions, "
          f"{args.kernel} kernel, {args.bits}-bit, in process: median {statistics.median(runs):.2f} s, "
          f"runs {[round(r, 2) for r in runs]}")


if __name__ == "__main__":
    main()
