#!/bin/sh
# The test command of the README, and what CI runs (.ci/run): installs what
# the tests need (tests/install-deps.sh: the package, editable, with its
# [test] extra into .venv; chromium and Java through apt-get if missing) and
# runs pytest from .venv. Arguments go to pytest.
#
# --quick (first argument): the quick tier, the tests not marked slow. It
# still touches every module, in a couple of minutes; CI runs every test
# but the full-size runs (marked full_size in tests/conftest.py), which
# bench/bench_full_size.py runs and times.
#
# The tests run on one process per core (pytest-xdist, at most 4: each may
# start Spark, chromium or a 2-thread search), each taking the next test as
# it finishes one; the slow tests come first (tests/conftest.py). `-n 0`
# after the command runs them in this one process.
set -eu
cd "$(dirname "$0")/.."
sh tests/install-deps.sh
PARALLEL="-n auto --maxprocesses 4 --dist load"
if [ "${1:-}" = "--quick" ]; then
    shift
    exec .venv/bin/python -m pytest $PARALLEL -m "not slow and not full_size" "$@"
fi
exec .venv/bin/python -m pytest $PARALLEL -m "not full_size" "$@"
