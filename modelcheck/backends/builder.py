"""Detached builds: a library built into the kernel cache apart from the
run that asked for it (``start_detached``), which it outlives.

It runs in a session of its own (a Ctrl-C at the terminal, or the terminal
closing, does not reach it), at a low priority (the search it was started
beside comes first), and stops its compiler after
``DETACHED_LIMIT`` seconds. A SIGTERM or SIGINT sent to it stops the
compiler's processes too and leaves nothing behind: no scratch directory,
no half-written library, and the library's lock freed for the next run.
The builder process (``main``) is given the file holding the source
(removed once read), the library's identity and path, the compiler and its
flags.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile

from modelcheck.backends import native

DETACHED_NICE = 10  # a detached build yields the cores to the search it runs beside
DETACHED_LIMIT = 1800.0  # seconds a detached build may take before it is stopped


def failed_build(path: str) -> str | None:
    """Why the last detached build of the library at ``path`` failed, if it did."""
    try:
        with open(native._beside(path, "failed")) as f:
            return f.read().strip() or "no reason given"
    except OSError:
        return None


# the builder's command: this copy of modelcheck, imported from where this module was
BUILDER = ("import sys; sys.path.insert(0, sys.argv[1]); from modelcheck.backends.builder import main; "
           "sys.exit(main(sys.argv[2:]))")


def start_detached(source: str, prefix: str, flags: tuple[str, ...], cc: str | None = None,
                   cache_dir_given: str | None = None) -> tuple[str, int | None]:
    """Starts building the library of ``source`` into the cache in a
    detached process (``main``) that outlives this one, unless the library is cached, being built, or failed to build
    before, or the cache is removed at the end of this run. Returns
    "cached", "building", "started", "temporary" or, for a build that
    failed, why; and the builder's process id when one was started. Raises
    ``native.LibraryUnavailable``."""
    cc = cc or native.compiler()
    identity = native.identity_of(cc, flags, source)
    directory = native.cache_dir(cache_dir_given)
    path = native._path(prefix, identity, directory)
    if native.is_cached(source, prefix, flags, directory, cc):
        return "cached", None
    if not native.kept_after_this_run(directory):  # nothing built there would outlive the run
        return "temporary", None
    failed = failed_build(path)
    if failed is not None:
        return failed, None
    if native.is_building(source, prefix, flags, cc, directory):
        return "building", None
    pending = None
    try:
        fd, pending = tempfile.mkstemp(dir=directory, prefix=".pending-", suffix=".c")
        with os.fdopen(fd, "w") as f:
            f.write(native.with_identity(source, identity))
        builder = subprocess.Popen([sys.executable, "-c", BUILDER, _package_root(), pending, identity, path, cc,
                                    *flags],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   start_new_session=True, close_fds=True, cwd=directory)
    except OSError as e:
        if pending is not None and os.path.exists(pending):
            os.unlink(pending)
        raise native.LibraryUnavailable(f"a build could not be started in {directory}: {e.strerror or e}") from None
    return "started", builder.pid


def _package_root() -> str:
    """The directory holding the modelcheck package (for the builder's imports)."""
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def build_detached(pending: str, identity: str, path: str, cc: str, flags: tuple[str, ...]) -> int:
    """The detached builder's work: the source in the file ``pending``
    (removed whatever happens) built into ``path``, under the library's lock;
    nothing if another build holds it or the library is there. A failure is
    kept beside the library (``failed_build``), so that later runs do not
    try again. Returns an exit code."""
    try:
        with open(pending) as f:
            source = f.read()
    finally:
        try:
            os.unlink(pending)
        except OSError:
            pass
    lock = native._lock(path, wait=False)
    if lock is None:
        return 0
    try:
        if os.path.lexists(path):
            try:
                native._checked_library(path, identity)
                return 0
            except native.Unusable:
                pass
        try:
            native._build(cc, flags, source, identity, path, lambda run: None, timeout=DETACHED_LIMIT)
        except (OSError, native.LibraryUnavailable) as e:
            with open(native._beside(path, "failed"), "w") as f:
                f.write(native._failure(e, os.path.dirname(path)) + "\n")
            return 1
        return 0
    finally:
        os.close(lock)


def _stop(signum, frame) -> None:
    raise SystemExit(128 + signum)  # unwinds through the build: its compiler stopped, its scratch removed


def main(argv: list[str]) -> int:
    """The builder process: ``build_detached`` of its arguments."""
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    try:
        os.nice(DETACHED_NICE)
    except OSError:
        pass
    pending, identity, path, cc, *flags = argv
    return build_detached(pending, identity, path, cc, tuple(flags))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
