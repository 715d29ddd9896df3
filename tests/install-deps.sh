#!/bin/sh
# Installs what the test suite needs on a fresh Debian machine: a virtual
# environment .venv holding the package (editable) with its [test] extra,
# Debian's chromium (browser tests), a Java 17+ runtime (Spark tests), a C
# compiler (the compiled kernels) and TinyCC (a first kernel in well under a
# second, while the optimised one is built in the background).
# Safe to run again: it skips what is present.
set -eu
cd "$(dirname "$0")/.."

need_apt=""
# Debian's python3 has no ensurepip (so no venv) without python3-venv
python3 -c "import ensurepip" >/dev/null 2>&1 || need_apt="$need_apt python3-venv"
command -v chromium >/dev/null 2>&1 || need_apt="$need_apt chromium"
# the fast engine's compiled kernels are built by the system C compiler (without one it falls back to numpy)
command -v cc >/dev/null 2>&1 || need_apt="$need_apt gcc libc6-dev"
command -v tcc >/dev/null 2>&1 || need_apt="$need_apt tcc"
if ! java -version >/dev/null 2>&1; then
    need_apt="$need_apt openjdk-17-jre-headless"
fi
if [ -n "$need_apt" ]; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "install-deps: need root to install:$need_apt (or install them yourself)" >&2
        exit 1
    fi
    echo "install-deps: apt-get install$need_apt" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need_apt >/dev/null
fi

java_major=$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1)
if [ -z "$java_major" ] || [ "$java_major" -lt 17 ]; then
    echo "install-deps: Spark needs Java 17 or newer; found '${java_major:-none}'" >&2
    exit 1
fi

[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
