"""Finding the Java runtime Spark will use, and saying plainly when there is none.

Spark's launch scripts take ``$JAVA_HOME/bin/java`` when JAVA_HOME is set and
``java`` from PATH otherwise; this looks in the same places, so what is
checked here is what Spark would run. Spark 4 needs Java 17 or newer.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from typing import Mapping

from modelcheck.errors import InputError

MINIMUM_JAVA = 17
INSTALL_HINT = "install a Java 17 runtime (e.g. apt-get install openjdk-17-jre-headless) or set JAVA_HOME"
_VERSION = re.compile(r'version "(\d+)(?:\.(\d+))?')


@dataclass(frozen=True)
class JavaRuntime:
    path: str
    major: int


def java_executable(env: Mapping[str, str] | None = None) -> str | None:
    env = os.environ if env is None else env
    home = env.get("JAVA_HOME")
    if home:
        candidate = os.path.join(home, "bin", "java")
        return candidate if os.access(candidate, os.X_OK) else None
    return shutil.which("java", path=env.get("PATH", os.defpath))


def parse_major(version_output: str) -> int | None:
    """The major version in ``java -version`` output ("1.8.0" is 8, "17.0.15" is 17)."""
    m = _VERSION.search(version_output)
    if not m:
        return None
    major = int(m.group(1))
    if major == 1 and m.group(2):
        major = int(m.group(2))
    return major


def require_java(env: Mapping[str, str] | None = None, timeout: float = 30.0) -> JavaRuntime:
    """The Java runtime Spark will use, or an ``InputError`` saying what is missing."""
    env = os.environ if env is None else env
    path = java_executable(env)
    if path is None:
        where = (f"JAVA_HOME={env['JAVA_HOME']} has no bin/java" if env.get("JAVA_HOME")
                 else "no 'java' on PATH and JAVA_HOME is not set")
        raise InputError(f"the spark engine needs Java {MINIMUM_JAVA} or newer, and none was found ({where}); "
                         f"{INSTALL_HINT}")
    try:
        done = subprocess.run([path, "-version"], capture_output=True, text=True, timeout=timeout, env=dict(env))
    except (OSError, subprocess.TimeoutExpired) as e:
        raise InputError(f"cannot run {path} -version ({e}); {INSTALL_HINT}") from None
    major = parse_major(done.stderr + done.stdout)
    if major is None:
        raise InputError(f"cannot tell the Java version of {path}; {INSTALL_HINT}")
    if major < MINIMUM_JAVA:
        raise InputError(f"the spark engine needs Java {MINIMUM_JAVA} or newer; {path} is Java {major}; "
                         f"{INSTALL_HINT}")
    return JavaRuntime(path, major)
