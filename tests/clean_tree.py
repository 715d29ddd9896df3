"""The suite leaves the repository as it found it: every test runs in a
temporary directory of its own (conftest.py), and at the end of the session
the tree is compared with what it was at the start, so a test that writes
into the repository (a trace in modelcheck-out/, a stray file) fails the run.

Only the tools' own caches are left out of the comparison: the virtual
environment, pytest's, hypothesis' and Python's bytecode.
"""

from __future__ import annotations

import subprocess

# pathspecs git leaves out of the comparison
TOOL_CACHES = (":(exclude).venv", ":(exclude).pytest_cache", ":(exclude).hypothesis",
               ":(exclude,glob)**/__pycache__/**", ":(exclude)*.egg-info")


def tree_state(root: str) -> set[str] | None:
    """Every path git sees as changed, untracked or ignored under ``root``,
    file by file (so a new file in an existing ignored folder shows too);
    None when ``root`` is not a git checkout."""
    done = subprocess.run(["git", "status", "--porcelain", "--ignored", "--untracked-files=all", "--", ".",
                           *TOOL_CACHES], cwd=root, capture_output=True, text=True)
    if done.returncode != 0:
        return None
    return set(done.stdout.splitlines())


def left_behind(before: set[str] | None, after: set[str] | None) -> list[str]:
    """What appeared or changed in the tree between two ``tree_state``s."""
    if before is None or after is None:
        return []
    return sorted(after - before)
