"""The detached builder: builds one library into the kernel cache, apart
from the run that started it (``modelcheck.backends.native.start_detached``).

It runs in a session of its own (a Ctrl-C at the terminal, or the terminal
closing, does not reach it), at a low priority (the search it was started
beside comes first), and stops its compiler after
``native.DETACHED_LIMIT`` seconds. A SIGTERM or SIGINT sent to it stops the
compiler's processes too and leaves nothing behind: no scratch directory,
no half-written library, and the library's lock freed for the next run.

Arguments: the file holding the source (removed once read), the library's
identity and path, the compiler and its flags.
"""

from __future__ import annotations

import os
import signal
import sys


def _stop(signum, frame) -> None:
    raise SystemExit(128 + signum)  # unwinds through the build: its compiler stopped, its scratch removed


def main(argv: list[str]) -> int:
    from modelcheck.backends import native
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    try:
        os.nice(native.DETACHED_NICE)
    except OSError:
        pass
    pending, identity, path, cc, *flags = argv
    return native.build_detached(pending, identity, path, cc, tuple(flags))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
