"""The commands README.md and docs/*.md show, as a newcomer would copy them.

``commands()`` extracts every ``modelcheck ...`` command line (and a
``$ python3 -c`` line making a command's input) from their fenced code blocks (a ``$ `` prompt dropped, ``\\`` continuations joined,
a trailing ``# comment`` cut), leaving out synopses (``SPEC``, ``[--opt]``,
``A|B``). Run as a script, it runs each in an empty directory of its own
and prints its exit code and time, for checking by hand that every one
does what its page says:

    python tests/doc_commands.py [--timeout 300] [--only TEXT] [--skip TEXT ...] [--list]
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FENCE = re.compile(r"^\s*```")
PLACEHOLDER = re.compile(r"\b(SPEC|NAME|FILE|TRACE|PATH|CONFIG|ENGINE|URL|DIR|SIZE|KEY|VALUE)\b|\[--|\|\w|\.\.\.")


def pages() -> list[str]:
    docs = os.path.join(ROOT, "docs")
    return [os.path.join(ROOT, "README.md")] + sorted(os.path.join(docs, n) for n in os.listdir(docs)
                                                       if n.endswith(".md"))


def commands() -> list[tuple[str, int, str, int]]:
    """(page, line, command, block) for each runnable modelcheck command in a
    fenced block; ``block`` numbers the blocks of a page (the commands of one
    block may build on each other: a run writes the trace the next replays)."""
    out = []
    for page in pages():
        with open(page, encoding="utf-8") as f:
            lines = f.read().splitlines()
        fenced, k, block = False, 0, 0
        while k < len(lines):
            line = lines[k]
            if FENCE.match(line):
                fenced = not fenced
                block += 1
                k += 1
                continue
            start = k + 1
            text = line.strip()
            prompted = text.startswith("$ ")
            if prompted:
                text = text[2:]
            # a modelcheck command, or a `$ python3 -c` line that makes its input (docs/viewer.md)
            if fenced and (text.startswith("modelcheck ") or prompted and text.startswith("python3 -c ")):
                while text.endswith("\\") and k + 1 < len(lines):
                    k += 1
                    text = text[:-1].rstrip() + " " + lines[k].strip()
                text = re.sub(r"\s+#.*$", "", text)
                if not PLACEHOLDER.search(text) and "·" not in text:  # a report's header line is output
                    out.append((os.path.relpath(page, ROOT), start, text, block))
            k += 1
    return out


INLINE = re.compile(r"`(modelcheck [^`]+)`")


def inline_commands() -> list[tuple[str, int, str]]:
    """(page, line, command) for each whole command quoted in the prose
    (`modelcheck run kip320 --const Replicas=2`), not a mere mention of a
    command or an option (`modelcheck show --diff`)."""
    out = []
    for page in pages():
        with open(page, encoding="utf-8") as f:
            text = f.read()
        for m in INLINE.finditer(text):
            command = " ".join(m.group(1).split())
            words = command.split()
            if len(words) < 3 or words[2].startswith("-") or PLACEHOLDER.search(command) or "SWITCH" in command:
                continue
            out.append((os.path.relpath(page, ROOT), text.count("\n", 0, m.start()) + 1, command))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--only", default="", help="only the commands containing this text")
    parser.add_argument("--skip", action="append", default=[], help="leave out the commands containing this text")
    parser.add_argument("--list", action="store_true", help="list the commands, run none")
    args = parser.parse_args()
    exe = os.path.join(os.path.dirname(sys.executable), "modelcheck")
    places: dict[tuple[str, int], str] = {}
    with tempfile.TemporaryDirectory(prefix="modelcheck-doc-") as scratch:
        for page, line, command, block in commands():
            if args.only not in command or any(text in command for text in args.skip):
                continue
            if args.list:
                print(f"{page}:{line}: {command}")
                continue
            where = places.get((page, block))
            if where is None:  # a directory per block, holding the clone's traces/, tla/, examples/, tests/
                where = places[(page, block)] = tempfile.mkdtemp(dir=scratch)
                for name in ("traces", "tla", "examples", "tests"):
                    os.symlink(os.path.join(ROOT, name), os.path.join(where, name))
            run(exe, page, line, command, where, args.timeout)
    return 0


def run(exe: str, page: str, line: int, command: str, where: str, timeout: float) -> None:
    """Run one command as written, in ``where``; print its exit code, time and last line on stderr."""
    started = time.monotonic()
    try:
        words = shlex.split(command)
        program = exe if words[0] == "modelcheck" else sys.executable
        done = subprocess.run([program, *words[1:]], cwd=where, capture_output=True, text=True, timeout=timeout)
        code, last = done.returncode, (done.stderr.strip().splitlines() or [""])[-1]
    except subprocess.TimeoutExpired:
        code, last = "timeout", ""
    print(f"{page}:{line}: exit {code} in {time.monotonic() - started:.1f} s: {command}"
          + (f"\n    stderr: {last}" if last else ""), flush=True)

if __name__ == "__main__":
    sys.exit(main())
