#!/bin/sh
# The test command of the README, and what CI runs (.ci/run): installs what
# the tests need (tests/install-deps.sh: the package, editable, with its
# [test] extra into .venv; chromium and Java through apt-get if missing) and
# runs pytest from .venv. Arguments go to pytest.
set -eu
cd "$(dirname "$0")/.."
sh tests/install-deps.sh
exec .venv/bin/python -m pytest "$@"
