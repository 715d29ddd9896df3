"""What the adversarial tests need to act as an attacker would: other users
(real uids, which needs root: without it those tests are skipped, saying
why), a directory every user may write to (as /tmp is), and a shared
library that leaves a mark when it is loaded."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from functools import lru_cache

import pytest

from support import ROOT

ATTACKER, VICTIM = 1, 65534  # daemon and nobody on Debian: two users besides root


def _site_packages() -> str:
    return sysconfig.get_paths()["purelib"]


@lru_cache(maxsize=None)
def python_for_others() -> str | None:
    """An interpreter of this Python version that other users may run with
    this environment's packages (this one may sit in a directory only root
    can enter), or None."""
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    for candidate in (sys.executable, os.path.join("/usr/bin", version), shutil.which(version) or ""):
        if candidate and os.path.exists(candidate):
            done = subprocess.run(["setpriv", f"--reuid={VICTIM}", f"--regid={VICTIM}", "--clear-groups",
                                   candidate, "-c", "import numpy, click"],
                                  env=_environment({}), cwd="/", capture_output=True, timeout=60)
            if done.returncode == 0:
                return candidate
    return None


def _environment(extra: dict) -> dict:
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8",
           "PYTHONPATH": os.pathsep.join((ROOT, _site_packages()))}
    env.update(extra)
    return env


def need_other_users() -> str:
    """The interpreter to run other users' processes with; skips the test
    when this process cannot run any (not root, or no interpreter they may run)."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root (and setpriv) to run processes as other users")
    python = python_for_others()
    if python is None:
        pytest.skip("no Python interpreter of this version that other users may run")
    return python


def as_user(uid: int, *args, env: dict, cwd: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """``modelcheck ARGS`` run by user ``uid`` (and its group, and no other),
    with only the environment given (and a PATH)."""
    python = need_other_users()
    return subprocess.run(["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", python, "-c",
                           "from cli import main; main()", *args], env=_environment(env), cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)


def shared_directory() -> str:
    """A new directory every user may create files in, sticky as /tmp is
    (the caller removes it)."""
    path = tempfile.mkdtemp(prefix="modelcheck-shared-", dir="/tmp")
    os.chmod(path, 0o1777)
    return path


PLANTED = r"""
#include <stdio.h>
__attribute__((constructor)) static void planted(void) {
    FILE *f = fopen("%s", "w");
    if (f) { fputs("the planted library ran\n", f); fclose(f); }
}
"""


def planted_library(path: str, marker: str) -> None:
    """A shared library at ``path`` whose constructor writes ``marker``."""
    with tempfile.TemporaryDirectory() as scratch:
        source = os.path.join(scratch, "planted.c")
        with open(source, "w") as f:
            f.write(PLANTED % marker)
        subprocess.run(["cc", "-shared", "-fPIC", "-o", path, source], check=True, capture_output=True)


def give(path: str, uid: int, mode: int) -> None:
    os.chown(path, uid, uid)
    os.chmod(path, mode)
