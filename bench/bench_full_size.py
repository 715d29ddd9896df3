"""The full-size tests: the ones CI leaves out for their size.

Each test marked ``full_size`` (listed, with what the suite keeps of it, in
tests/conftest.py) takes a minute or more in CI, or searches a million
states: a KRaft counterexample's shortest-length search, z3 to the longer
violations, the reference engine over kip320's defaults, Spark's lead-in
and signal soak. They are real tests, with the same assertions as the rest;
this runs them, one after the other in this process's pytest, and prints
each one's outcome and seconds, so that their cost is known and they are
run before a release or after a change to what they cover.

    python bench/bench_full_size.py [-k EXPRESSION] [--spark | --no-spark]

``--no-spark`` leaves out the tests that start Spark (the [spark] extra and
Java). The exit code is pytest's: 0 when every test passed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

from common import ROOT, machine


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-k", dest="expression", help="only the full-size tests pytest's -k selects")
    parser.add_argument("--spark", action=argparse.BooleanOptionalAction, default=True,
                        help="include the tests that start Spark (default: yes)")
    args = parser.parse_args()
    marker = "full_size" if args.spark else "full_size and not spark"
    command = [sys.executable, "-m", "pytest", "-m", marker, "-n", "0", "-v", "--durations=0"]
    if args.expression:
        command += ["-k", args.expression]
    print(f"machine: {machine()}")
    print("command:", " ".join(command[1:]))
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT))
    print(f"full-size tests: exit {done.returncode}, {time.perf_counter() - started:.1f} s in all")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
