"""Shared libraries built from C by the system compiler, cached between
runs, and loaded only once they are checked.

The fast engine's kernels (``modelcheck.backends.compiled``) and the orbit
canonicaliser's routine (``modelcheck.search.canonical_c``) are both built
and loaded here. A library is named by its identity, a SHA-256 of the
compiler, its flags and the C source (which a kernel's source makes a
digest of the spec's expression trees and constants as well), and it
carries that identity twice:

* as the constant string ``mc_library_identity`` compiled into it, read
  once it is loaded;
* in a trailer appended to the file after the compiler wrote it: the
  identity, the size of the library before the trailer and the SHA-256 of
  those bytes.

Loading a cached library first reads the file (a regular file, of this
user) and checks the trailer against the identity wanted and the bytes
against their digest, and only then asks the system to load it; then it
reads the constant back. So a library copied over another's name, one cut
short (which the system would map, and fault on: SIGBUS), or any other file
left there is never loaded: it is built again, in its place, and the run
says so in one line. A new library is written in full, synced to disk and
only then renamed to its name, so a crash leaves the old one or the new
one, whole.

The cache directory is ``$MODELCHECK_KERNEL_CACHE``, else
``$XDG_CACHE_HOME/modelcheck/kernels`` (``~/.cache/modelcheck/kernels``),
used only if it is private to the user (``modelcheck.runtime.private``);
otherwise a private directory in the temporary directory, said in one line.
Because only the user can write there, a library checked there stays as it
was checked until it is loaded.

Two builders never write one library: a build holds an exclusive lock on
a hidden file beside the library (``.NAME.lock``) (``flock``: the system frees it when
its holder ends, however it ends), and whoever gets the lock looks in the
cache again before building. A build may run detached from the run that
asked for it (``modelcheck.backends.builder``): in a session of its own, so that a Ctrl-C
or a closed terminal does not stop it, at a low priority and within a time
limit, it builds the library into the cache even when the run has ended.

A quick compiler (TinyCC, ``tcc``, where it is installed: it builds the
largest kernel in under a second, into code that runs at about half the
speed) builds a first library in place of the optimising one, which is
built detached meanwhile (``quick_compiler``).

Anything that keeps a library from being built or loaded (no compiler, a
compiler error, a full disk, a directory that cannot be written) raises
``LibraryUnavailable``: the callers then compute with numpy, which gives
the same results, and say so once (``fall_back``).
"""

from __future__ import annotations

import ctypes
import fcntl
import hashlib
import os
import shutil
import signal
import stat
import subprocess
import tempfile
import time
from dataclasses import dataclass

from modelcheck.runtime import private
from modelcheck.runtime.private import tell_once

IDENTITY_SYMBOL = "mc_library_identity"
MAGIC = b"\nmodelcheck-library-1 "
# the trailer: MAGIC, the identity, the size of the library before the trailer and its SHA-256, in hex
TRAILER_SIZE = len(MAGIC) + 64 + 1 + 16 + 1 + 64 + 1
BLOCK = 1 << 20


class LibraryUnavailable(Exception):
    """No library could be built or loaded; the message says why."""


def fall_back(reason: str, what: str = "compiled kernels", instead: str = "searching with numpy") -> None:
    """Say once per process that numpy computes what C would have, and why."""
    tell_once(f"{what} unavailable ({reason}); {instead}")


def compiler() -> str:
    """The C compiler: $CC if set, else cc, gcc or clang, whichever is found first."""
    given = os.environ.get("CC")
    found = shutil.which(given) if given else (shutil.which("cc") or shutil.which("gcc") or shutil.which("clang"))
    if not found:
        raise LibraryUnavailable(f"the C compiler {given!r} was not found" if given
                                 else "no C compiler found (set CC, or install gcc)")
    return found


QUICK_FLAGS = ("-shared", "-fPIC", "-w")
# Where a translation unit of its own begins in a library's source: the
# units are compiled at once, one per core, and linked (a source holding
# none is compiled as it is). Read as one, the source is the same program.
UNIT = "/* modelcheck: a translation unit of its own */"


def quick_compiler() -> str | None:
    """The quick compiler: $MODELCHECK_QUICK_CC if set ("none" for none),
    else tcc, if found; None otherwise."""
    given = os.environ.get("MODELCHECK_QUICK_CC", "tcc")
    if given.strip() in ("", "none"):
        return None
    return shutil.which(given)


def preferred_cache_dir() -> str:
    """Where libraries are kept if it is private: $MODELCHECK_KERNEL_CACHE,
    else the user's cache directory."""
    given = os.environ.get("MODELCHECK_KERNEL_CACHE")
    if given:
        return given
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "modelcheck", "kernels")


_chosen: dict[str, str] = {}  # preferred directory -> the one used, once chosen in this process
_temporary: set[str] = set()  # the directories chosen that are removed at the end of this run


def cache_dir(given: str | None = None) -> str:
    """The directory libraries are kept in (``given``, or the preferred
    one), or a private one in its place (said once)."""
    preferred = os.path.abspath(given or preferred_cache_dir())
    chosen = _chosen.get(preferred)
    if chosen is None or private.problem_with(chosen) is not None:
        try:
            found = private.choose(preferred, "kernels", "the kernel cache")
        except OSError as e:
            raise LibraryUnavailable(f"no private directory to build it in ({e.strerror or e})") from None
        chosen = _chosen[preferred] = found.path
        if found.temporary:
            _temporary.add(found.path)
    return chosen


def kept_after_this_run(directory: str) -> bool:
    """Whether a cache directory ``cache_dir`` chose outlives this run."""
    return directory not in _temporary


def identity_of(cc: str, flags: tuple[str, ...], source: str) -> str:
    """What a library is: a SHA-256 of the compiler, its flags and the source
    (and of the form it is kept in, so that no library of an earlier form
    has its name)."""
    return hashlib.sha256("\0".join((MAGIC.decode().strip(), cc, *flags, source)).encode()).hexdigest()


def _path(prefix: str, identity: str, directory: str) -> str:
    return os.path.join(directory, f"{prefix}_{identity[:24]}.so")


def _trailer(identity: str, size: int, digest: str) -> bytes:
    return MAGIC + f"{identity} {size:016x} {digest}\n".encode()


class Unusable(Exception):
    """What is wrong with a library file, in a few words."""


def _read_checked(fd: int, identity: str) -> None:
    """That the open file is a regular file of this user holding the
    library ``identity`` names, whole, with its trailer (``Unusable``)."""
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise Unusable("is not a regular file")
    if info.st_uid != os.geteuid():
        raise Unusable(f"belongs to another user (uid {info.st_uid})")
    if info.st_size < TRAILER_SIZE:
        raise Unusable(f"is cut short ({info.st_size} bytes)")
    trailer = os.pread(fd, TRAILER_SIZE, info.st_size - TRAILER_SIZE)
    if not trailer.startswith(MAGIC):
        raise Unusable("is not a library modelcheck built, or is cut short")
    try:
        found, size, digest = trailer[len(MAGIC):].decode("ascii").split()
        size = int(size, 16)
    except ValueError:
        raise Unusable("has a damaged trailer") from None
    if found != identity:
        raise Unusable("was built from another source")
    if size != info.st_size - TRAILER_SIZE:
        raise Unusable("is not of the size it was built with")
    h, at = hashlib.sha256(), 0
    while at < size:
        block = os.pread(fd, min(BLOCK, size - at), at)
        if not block:
            raise Unusable("is cut short")
        h.update(block)
        at += len(block)
    if h.hexdigest() != digest:
        raise Unusable("does not match the digest it was built with")


def _checked_library(path: str, identity: str) -> ctypes.CDLL:
    """The library at ``path``, loaded only once found to be the one
    ``identity`` names, whole; raises ``Unusable`` otherwise."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise Unusable(f"cannot be opened ({e.strerror or e})") from None
    try:
        _read_checked(fd, identity)
    except OSError as e:
        raise Unusable(f"cannot be read ({e.strerror or e})") from None
    finally:
        os.close(fd)
    try:
        library = ctypes.CDLL(path)
    except OSError as e:
        raise Unusable(f"did not load ({e})") from None
    try:
        carried = (ctypes.c_char * 65).in_dll(library, IDENTITY_SYMBOL).value.decode("ascii", "replace")
    except ValueError:
        carried = None
    if carried != identity:
        raise Unusable("does not carry the identity it was built with")
    return library


@dataclass
class Built:
    """A loaded library, and how it was obtained."""

    library: ctypes.CDLL
    path: str
    seconds: float  # building it, or checking and loading it from the cache
    cached: bool


@dataclass
class CompilerRun:
    """A compiler at work. The driver (cc) runs its passes (cc1, as, ld) as
    processes of its own, which hold its output pipe. A build beside a
    search gets a process group of its own, so that stopping it stops every
    one of them, not the driver alone while cc1 compiles on (and so that a
    Ctrl-C meant for the search does not fail the build). A build the
    search waits for stays in the terminal's group: Ctrl-C stops it at once."""

    process: subprocess.Popen
    own_group: bool

    def stop(self) -> None:
        if self.process.returncode is not None:  # reaped: its id, and group, may be another's now
            return
        try:
            if self.own_group:
                os.killpg(self.process.pid, signal.SIGKILL)
            else:
                self.process.kill()
        except ProcessLookupError:
            pass


def with_identity(source: str, identity: str) -> str:
    """The source, with the constant that names the library it builds."""
    return f"{source}\nconst char {IDENTITY_SYMBOL}[65] = \"{identity}\";\n"


def is_cached(source: str, prefix: str, flags: tuple[str, ...], cache_dir_given: str | None = None,
              cc: str | None = None) -> bool:
    """Whether the cache seems to hold the library of ``source`` (its
    trailer names it; ``load`` checks the rest). False whenever it cannot tell."""
    try:
        identity = identity_of(cc or compiler(), flags, source)
        path = _path(prefix, identity, cache_dir(cache_dir_given))
        with open(path, "rb") as f:
            f.seek(-TRAILER_SIZE, os.SEEK_END)
            return f.read().startswith(MAGIC + identity.encode())
    except (OSError, LibraryUnavailable):
        return False


def _beside(path: str, what: str) -> str:
    """A hidden file kept beside the library at ``path``: its lock, or why its build failed."""
    directory, name = os.path.split(path)
    return os.path.join(directory, f".{name}.{what}")


LOCK_POLL = 0.05  # seconds between two tries at a library's lock held by another build


def _lock(path: str, wait: bool = True) -> int | None:
    """The library's lock (its file's descriptor, to be closed to release
    it), taken exclusively; without ``wait``, None when another holds it."""
    fd = os.open(_beside(path, "lock"), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o600)
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if not wait:
                os.close(fd)
                return None
            time.sleep(LOCK_POLL)  # polled, not blocked on: a Ctrl-C is seen at once


def is_building(source: str, prefix: str, flags: tuple[str, ...], cc: str,
                cache_dir_given: str | None = None) -> bool:
    """Whether a build of the library of ``source`` holds its lock now."""
    try:
        path = _path(prefix, identity_of(cc, flags, source), cache_dir(cache_dir_given))
        fd = _lock(path, wait=False)
    except (OSError, LibraryUnavailable):
        return False
    if fd is None:
        return True
    os.close(fd)
    return False


def load(source: str, prefix: str, flags: tuple[str, ...], cache_dir_given: str | None = None,
         started_compiler=None, cc: str | None = None) -> Built:
    """The library of ``source``: from the cache once checked, or built into
    it (again, in place of a cached file that fails the check); by ``cc``,
    else the C compiler. A build of it under way elsewhere (a detached one)
    is waited for. Raises ``LibraryUnavailable``. ``started_compiler(run)``
    is told of the ``CompilerRun`` (so that a build beside a search can be
    stopped when the search ends first)."""
    started = time.perf_counter()
    cc = cc or compiler()
    identity = identity_of(cc, flags, source)
    directory = cache_dir(cache_dir_given)
    path = _path(prefix, identity, directory)
    damaged = None
    if os.path.lexists(path):
        try:
            return Built(_checked_library(path, identity), path, time.perf_counter() - started, True)
        except Unusable as e:
            damaged = f"the cached library {path} {e}"
    try:
        lock = _lock(path)
    except OSError as e:
        raise LibraryUnavailable(_failure(e, directory)) from None
    try:
        if damaged is None and os.path.lexists(path):  # built by the holder of the lock meanwhile
            try:
                return Built(_checked_library(path, identity), path, time.perf_counter() - started, True)
            except Unusable as e:
                damaged = f"the cached library {path} {e}"
        _build(cc, flags, with_identity(source, identity), identity, path, started_compiler)
        library = _checked_library(path, identity)
    except (OSError, Unusable, LibraryUnavailable) as e:
        why = _failure(e, directory)
        raise LibraryUnavailable(f"{damaged}, and building it again failed: {why}" if damaged else why) from None
    finally:
        os.close(lock)
    if damaged:
        tell_once(f"{damaged}; it was built again")
    return Built(library, path, time.perf_counter() - started, False)


def _failure(error: Exception, directory: str) -> str:
    """Why a build failed, in a few words."""
    if isinstance(error, OSError):  # a full disk, a directory that cannot be written...
        return f"it could not be built in {directory}: {error.strerror or error}"
    if isinstance(error, Unusable):
        return f"the library just built {error}"
    return str(error)


def _build(cc: str, flags: tuple[str, ...], source: str, identity: str, path: str, started_compiler,
           timeout: float | None = None) -> None:
    """Compile ``source`` into ``path`` (the library's lock held): in a
    scratch directory beside it, the trailer appended, synced, then renamed
    into place (whole or not at all)."""
    directory = os.path.dirname(path)
    with tempfile.TemporaryDirectory(dir=directory, prefix=".build-") as scratch:
        so_file = os.path.join(scratch, "library.so")
        _compile(cc, flags, source, scratch, so_file, started_compiler, timeout)
        with open(so_file, "r+b") as f:
            h = hashlib.sha256()
            while block := f.read(BLOCK):
                h.update(block)
            size = f.tell()
            f.write(_trailer(identity, size, h.hexdigest()))
            f.flush()
            os.fsync(f.fileno())
        os.chmod(so_file, 0o600)
        os.replace(so_file, path)
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)  # the new name, on disk
    finally:
        os.close(fd)


def _jobs() -> int:
    """Compilers run at once: the cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


def _compile(cc: str, flags: tuple[str, ...], source: str, scratch: str, so_file: str, started_compiler,
             timeout: float | None = None) -> None:
    """``source`` built into ``so_file``: at once, or, when it is made of
    units (``UNIT``), each unit compiled on a core of its own and then linked."""
    units = source.split(UNIT)
    if len(units) == 1:
        c_file = os.path.join(scratch, "library.c")
        with open(c_file, "w") as f:
            f.write(source)
        _run([[cc, *flags, "-o", so_file, c_file]], started_compiler, timeout, 1, cc, scratch)
        return
    objects, commands = [], []
    for k, unit in enumerate(units):
        c_file, o_file = os.path.join(scratch, f"unit{k}.c"), os.path.join(scratch, f"unit{k}.o")
        with open(c_file, "w") as f:
            f.write(unit)
        commands.append([cc, *flags, "-c", "-o", o_file, c_file])
        objects.append(o_file)
    deadline = None if timeout is None else time.monotonic() + timeout
    _run(commands, started_compiler, timeout, _jobs(), cc, scratch)
    left = None if deadline is None else max(1.0, deadline - time.monotonic())
    _run([[cc, *flags, "-o", so_file, *objects]], started_compiler, left, 1, cc, scratch)


COMPILER_POLL = 0.02  # seconds between two looks at running compilers


def _run(commands: list[list[str]], started_compiler, timeout: float | None, jobs: int, cc: str,
         scratch: str) -> None:
    """Runs the compiler ``commands``, ``jobs`` at once; raises
    ``LibraryUnavailable`` with the first failure's first line, or when they
    take more than ``timeout`` seconds in all. Leaving early (an exception in
    this thread, a failure) stops every compiler still running."""
    beside = started_compiler is not None
    deadline = None if timeout is None else time.monotonic() + timeout
    waiting, running = list(commands), []
    # the compilers' own temporary files (gcc's assembly) in the build's scratch directory, which goes with
    # the build however it ends, not in $TMPDIR
    environment = {**os.environ, "TMPDIR": scratch}
    try:
        while waiting or running:
            while waiting and len(running) < jobs:
                errors = tempfile.TemporaryFile("w+", errors="replace")
                try:
                    process = subprocess.Popen(waiting.pop(0), stdout=subprocess.DEVNULL, stderr=errors,
                                               start_new_session=beside, env=environment)
                except OSError as e:
                    errors.close()
                    raise LibraryUnavailable(f"{cc} did not start: {e}") from None
                run = CompilerRun(process, own_group=beside)
                running.append((run, errors))
                if beside:
                    started_compiler(run)
            for entry in list(running):
                run, errors = entry
                if run.process.poll() is None:
                    continue
                running.remove(entry)
                if run.process.returncode != 0:
                    errors.seek(0)
                    first = (errors.read().strip().splitlines() or ["no message"])[0]
                    errors.close()
                    raise LibraryUnavailable(f"{cc} failed: {first}")
                errors.close()
            if deadline is not None and time.monotonic() > deadline:
                raise LibraryUnavailable(f"{cc} took more than {timeout:.0f} s")
            if running:
                time.sleep(COMPILER_POLL)
    finally:  # a failure, a time-out or an exception in this thread: no compiler left behind
        for run, errors in running:
            run.stop()
            run.process.wait()
            errors.close()
