#!/bin/sh
# Installs what the test suite needs on a fresh Debian machine: the package
# with its [test] extra, Debian's chromium (browser tests) and a Java 17+
# runtime (Spark tests). Safe to run again: it skips what is present.
set -eu

need_apt=""
command -v chromium >/dev/null 2>&1 || need_apt="$need_apt chromium"
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

python3 -m pip install --quiet --disable-pip-version-check -e '.[test]'
