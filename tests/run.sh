#!/bin/sh
# The test command of the README, and what CI runs (.ci/run): installs what
# the tests need (tests/install-deps.sh: the package, editable, with its
# [test] extra into .venv; chromium and Java through apt-get if missing) and
# runs pytest from .venv. Arguments go to pytest.
#
# --quick (first argument): the quick tier, the tests not marked slow. It
# still touches every module, in a couple of minutes; CI runs everything.
set -eu
cd "$(dirname "$0")/.."
sh tests/install-deps.sh
if [ "${1:-}" = "--quick" ]; then
    shift
    exec .venv/bin/python -m pytest -m "not slow" "$@"
fi
exec .venv/bin/python -m pytest "$@"
