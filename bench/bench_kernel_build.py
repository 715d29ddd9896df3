"""Build time against search speed, per way of building a C kernel.

For each configuration below, the kernel's C source is generated once and
built with each choice, into a kernel cache of its own (the build timed by
itself, ``--builds`` times, median); then the search runs on that kernel
(``modelcheck run ... --kernels compiled --json``, ``--runs`` times, the
median of the search's own seconds, ``timings.search``). The choices:

* ``gcc -O1``: the optimised build (``modelcheck.backends.c_codegen.FLAGS``;
  a large kernel's assignments are left at -O0 by a pragma, its guards and
  predicates optimised);
* ``gcc -O0``: the same, unoptimised (a wrapper that appends -O0);
* ``tcc``: TinyCC, the quick compiler ``--kernels auto`` builds a first
  kernel with (``modelcheck.backends.native.quick_compiler``).

    python bench/bench_kernel_build.py [--only NAME ...] [--runs 3] [--builds 1]

Every search of a configuration must give the same result, count and
depth, whichever build it ran on; the script stops otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.common import ROOT, modelcheck_command  # noqa: E402

KRAFT_SMALL = ["--const", "BrokerCount=2", "--const", "InitReplicationFactor=2", "--const", "MinISR=1",
               "--const", "InitIsrSize=1", "--const", "UncleanShutdownLimit=0", "--const", "FenceBrokerLimit=0"]
KRAFT_V12 = ["--const", "BrokerCount=3", "--const", "InitReplicationFactor=3", "--const", "MinISR=2",
             "--const", "InitIsrSize=3", "--const", "UncleanShutdownLimit=1", "--const", "FenceBrokerLimit=0"]
CONFIGS = {
    "kip320": ["kip320"],
    "paxos": [os.path.join(ROOT, "examples", "paxos", "paxos.py")],
    "kraft-3.5 v01": ["kraft-3.5", *KRAFT_SMALL],
    "kraft-3.5 v12": ["kraft-3.5", *KRAFT_V12],
    # the module's own .cfg: the whole search takes hours, so its first 200,000 states
    "kraft-3.5 .cfg": ["kraft-3.5", "--max-states", "200000"],
}
CHOICES = ("gcc -O1", "gcc -O0", "tcc")


def compiler_for(choice: str, scratch: str) -> str:
    """The $CC that builds with ``choice``."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if choice == "tcc":
        found = shutil.which("tcc")
        if not found:
            raise SystemExit("tcc is not installed (apt-get install tcc)")
        return found
    if choice == "gcc -O0":
        wrapper = os.path.join(scratch, "cc-O0")
        with open(wrapper, "w") as f:
            f.write(f'#!/bin/sh\nexec {cc} "$@" -O0\n')
        os.chmod(wrapper, 0o755)
        return wrapper
    return cc


def source_of(args: list[str]) -> str:
    """The kernel source the run of ``args`` builds, caught as it is handed to the compiler."""
    code = ("import sys\n"
            "from modelcheck.backends import native\n"
            "target = sys.argv[1]\n"
            "def caught(cc, flags, source, scratch, so_file, started, timeout=None):\n"
            "    open(target, 'w').write(source); raise native.LibraryUnavailable('caught')\n"
            "native._compile = caught\n"
            "from modelcheck.commands.cli import main\n"
            "sys.argv = ['modelcheck'] + sys.argv[2:]\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n")
    with tempfile.TemporaryDirectory() as scratch:
        out = os.path.join(scratch, "kernel.c")
        env = dict(os.environ, MODELCHECK_KERNEL_CACHE=os.path.join(scratch, "cache"), MODELCHECK_QUICK_CC="none",
                   PYTHONPATH=ROOT)
        done = subprocess.run([sys.executable, "-c", code, out, "run", *args, "--kernels", "compiled",
                               "--max-states", "1", "-q"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True, check=False, cwd=scratch)
        if not os.path.exists(out):
            raise SystemExit(f"no kernel source for {' '.join(args)}:\n{done.stderr}")
        with open(out) as f:  # as generated: without the line naming the library it was built into
            return f.read().rsplit("\nconst char mc_library_identity", 1)[0]


def build_seconds(cc: str, source: str, builds: int) -> float:
    from modelcheck.backends import native
    from modelcheck.backends.c_codegen import FLAGS
    times = []
    for _ in range(builds):
        with tempfile.TemporaryDirectory() as cache:
            os.chmod(cache, 0o700)
            started = time.perf_counter()
            native.load(source, "kernel", FLAGS, cache, cc=cc)
            times.append(time.perf_counter() - started)
    return statistics.median(times)


def search(args: list[str], cc: str, cache: str, runs: int) -> tuple[float, tuple]:
    env = dict(os.environ, CC=cc, MODELCHECK_KERNEL_CACHE=cache, PYTHONPATH=ROOT)
    times, answers = [], set()
    for _ in range(runs + 1):  # the first builds the kernel into the cache
        done = subprocess.run(modelcheck_command("run", *args, "--kernels", "compiled", "--json", "-q"), env=env,
                              capture_output=True, text=True, cwd=cache)
        if done.returncode not in (0, 12):
            raise SystemExit(f"failed: {' '.join(args)}\n{done.stderr}")
        out = json.loads(done.stdout)
        answers.add((out["result"], out["distinct_states"], out["depth"]))
        times.append(out["timings"]["search"])
    if len(answers) != 1:
        raise SystemExit(f"runs disagree: {answers}")
    return statistics.median(times[1:]), answers.pop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", choices=sorted(CONFIGS))
    parser.add_argument("--choices", nargs="*", choices=CHOICES, default=list(CHOICES))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--builds", type=int, default=1)
    a = parser.parse_args()
    print(f"| configuration | C source | build | build s | search s (median of {a.runs}) | states "
          "| search vs gcc -O1 |")
    print("|---|---|---|---|---|---|---|")
    for name in a.only or CONFIGS:
        args = CONFIGS[name]
        source = source_of(args)
        answers, base = set(), None
        with tempfile.TemporaryDirectory() as scratch:
            for choice in a.choices:
                cc = compiler_for(choice, scratch)
                built = build_seconds(cc, source, a.builds)
                cache = os.path.join(scratch, choice.replace(" ", ""))
                os.makedirs(cache, mode=0o700)
                seconds, answer = search(args, cc, cache, a.runs)
                answers.add(answer)
                base = seconds if choice == "gcc -O1" else base
                ratio = f"{seconds / base:.2f}x" if base else "-"
                print(f"| {name} | {len(source) / 1e6:.2f} MB | {choice} | {built:.2f} | {seconds:.2f} | "
                      f"{answer[1]:,} | {ratio} |", flush=True)
        if len(answers) != 1:
            raise SystemExit(f"{name}: the builds disagree: {answers}")


if __name__ == "__main__":
    main()
