"""Stopping a long search cleanly: state and memory bounds, Ctrl-C and SIGTERM.

Engines poll ``Limits.reached()`` between units of work (every few
thousand states, or every chunk) and ``Limits.reached(states)`` between
levels, where alone the state bound applies. Ctrl-C does not raise inside an engine: the
CLI's signal handler only records the request, and the engine stops at its
next poll with everything it has counted so far, so partial statistics and a
final checkpoint are always consistent. A second Ctrl-C interrupts at once.

SIGTERM (``kill``, a scheduler or service manager stopping the run) takes
the same path as Ctrl-C: the first stops the search with its partial report
and final checkpoint, a second aborts at once; the exit code says which
signal it was (130 for SIGINT, 143 for SIGTERM, 128 + the signal as shells
count). Outside a search, SIGTERM raises ``Terminated`` as Ctrl-C raises
KeyboardInterrupt, so what is being written is removed on the way out.

A full disk under a search's own files (the fast engine's levels) stops it
too, as a limit does: ``DISK_FULL``, with the levels found whole.
"""

from __future__ import annotations

import errno
import os
import re
import select
import signal
import sys
import threading
import time
from contextlib import contextmanager
from typing import Callable
from dataclasses import dataclass, field

from modelcheck import exitcodes
from modelcheck.errors import InputError

MAX_STATES, MAX_MEMORY, INTERRUPTED = "max-states", "max-memory", "interrupted"
# the disk that holds a search's own files (levels, the state graph's edges) has no room left
DISK_FULL = "disk-full"
_FULL = (errno.ENOSPC, errno.EDQUOT)

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


class SearchInterrupted(Exception):
    """Raised inside a search that honours a Ctrl-C by unwinding (the z3
    engines); caught where the partial result is put together."""


class SearchStopped(Exception):
    """Raised by work that follows a search and is cut short by a limit or
    Ctrl-C (marking the state graph, the cycle search): ``reason`` is one of
    the reasons above. Caught where the partial result is put together."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


# the signals that ask a search to stop: Ctrl-C, and the polite request to end a process
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Terminated(KeyboardInterrupt):
    """SIGTERM's abort, as KeyboardInterrupt is Ctrl-C's: raised by the
    handler outside a search and by the second signal within one, so every
    ``finally`` and ``except BaseException`` on the way out runs."""


def out_of_room(error: BaseException) -> bool:
    """Whether ``error`` is a write refused for want of room (a full disk,
    or a user's quota): a limit the search meets, not a fault in it."""
    return isinstance(error, OSError) and error.errno in _FULL


@contextmanager
def room_on_disk():
    """A write, within, that finds the disk full (or the quota used up)
    stops the search as a limit does, ``SearchStopped(DISK_FULL)``, rather
    than failing the run."""
    try:
        yield
    except OSError as e:
        if out_of_room(e):
            raise SearchStopped(DISK_FULL) from e
        raise


def abort_for(signum: int | None) -> KeyboardInterrupt:
    """What aborting on ``signum`` raises."""
    return Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()


class StopRequest:
    """Set from a signal handler, read by the engine; ``signum`` is the
    signal that asked (SIGINT or SIGTERM), for the exit code."""

    def __init__(self):
        self.requested = False
        self.signum: int | None = None

    def request(self, signum: int = signal.SIGINT) -> None:
        if not self.requested:
            self.signum = signum
        self.requested = True

    @property
    def exit_code(self) -> int:
        """The exit code of a run this request stopped."""
        return exitcodes.interrupted(self.signum)


def resident_bytes() -> int:
    """This process's memory in use: its resident pages, less those backed
    by a file (program text, and the files a state graph spilled to disk
    maps, which the system writes back and drops as it needs the memory).
    Where /proc is missing (not Linux), the peak resident size instead:
    never less than the current one, so a limit still holds, at worst a
    little early."""
    try:
        with open("/proc/self/statm") as f:
            fields = f.read().split()
            return (int(fields[1]) - int(fields[2])) * _PAGE
    except OSError:
        import resource
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024  # macOS counts bytes, others KiB


@dataclass
class Limits:
    max_states: int | None = None
    max_memory: int | None = None
    stop: StopRequest = field(default_factory=StopRequest)
    memory_poll_seconds: float = 0.2
    _last_poll: float = 0.0

    def reached(self, states: int | None = None) -> str | None:
        """Why the search must stop now, or None. ``states`` is given only
        between levels: --max-states stops a search at the end of the level
        that reaches it, on every engine, so that every engine reports the
        same count and depth and every state counted has been checked."""
        if self.stop.requested:
            return INTERRUPTED
        if states is not None and self.max_states is not None and states >= self.max_states:
            return MAX_STATES
        if self.max_memory is not None:
            now = time.monotonic()
            if now - self._last_poll >= self.memory_poll_seconds:
                self._last_poll = now
                if resident_bytes() >= self.max_memory:
                    return MAX_MEMORY
        return None

    def would_pass(self, nbytes: int) -> bool:
        """Whether ``nbytes`` more would take the memory in use past --max-memory."""
        return self.max_memory is not None and resident_bytes() + nbytes > self.max_memory

    def make_room(self, nbytes: int) -> None:
        """Stops the search (``SearchStopped(MAX_MEMORY)``) if ``nbytes`` more
        would pass --max-memory: asked before a large allocation, which a
        poll between chunks would see only once it is made."""
        if self.would_pass(nbytes):
            raise SearchStopped(MAX_MEMORY)


_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kb": 1000, "kib": 1 << 10, "m": 1 << 20, "mb": 1000 ** 2,
          "mib": 1 << 20, "g": 1 << 30, "gb": 1000 ** 3, "gib": 1 << 30, "t": 1 << 40, "tb": 1000 ** 4,
          "tib": 1 << 40}


def parse_size(text: str) -> int:
    """'2G', '512MiB', '1500MB', '1073741824' -> bytes (K/M/G alone are binary)."""
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)\s*", text)
    if not m or m.group(2).lower() not in _UNITS:
        raise InputError(f"--max-memory expects a size such as 2G, 512M or 1500MB, got {text!r}")
    size = int(float(m.group(1)) * _UNITS[m.group(2).lower()])
    if size < (16 << 20):
        raise InputError(f"--max-memory {text} is below the 16 MiB the checker itself needs")
    return size


def describe_size(n: int) -> str:
    for unit, factor in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= factor:
            return f"{n / factor:.1f} {unit}"
    return f"{n} B"


@contextmanager
def interrupt_requests(stop: StopRequest):
    """While active, the first Ctrl-C or SIGTERM asks the engine to stop;
    the second interrupts immediately."""
    def handler(signum, frame):
        if stop.requested:
            raise abort_for(signum)
        stop.request(signum)

    with _handling(STOP_SIGNALS, handler) as installed:
        yield installed


@contextmanager
def _handling(signals, handler):
    """``handler`` for each of ``signals`` while active, then the previous
    ones back; nothing (False) outside the main thread, where Python cannot
    set handlers."""
    if threading.current_thread() is not threading.main_thread():
        yield False
        return
    previous = {s: signal.signal(s, handler) for s in signals}
    try:
        yield True
    finally:
        for s, old in previous.items():
            signal.signal(s, old)


def terminating_as_interrupts():
    """SIGTERM, outside a search, unwinds as Ctrl-C does (``Terminated``)
    instead of ending the process where it stands."""
    def handler(signum, frame):
        raise Terminated

    return _handling((signal.SIGTERM,), handler)


@contextmanager
def interrupts_outside_python(stop: StopRequest, interrupt: Callable[[], None], tick: float = 0.1):
    """Ctrl-C for work done mostly in native code (the z3 solver).

    A Python signal handler runs only between bytecodes of the main thread,
    so it would wait for a solver call to return, and a KeyboardInterrupt
    raised from it can land inside a ctypes call or a finaliser, where it is
    lost or turned into another error. Instead, while this is active, the
    handler does nothing in the main thread: every SIGINT, whichever thread
    the kernel gives it to, is also written to a wakeup pipe that a watcher
    thread reads. The first records the request and calls ``interrupt``
    (which must be safe from another thread, as z3's ``Context.interrupt``
    is) every ``tick`` seconds until the work ends, so that a solver call
    started just after it stops too; the second ends the process at once
    (exit 130). The native code must leave SIGINT's handler alone."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    previous_handlers = {s: signal.signal(s, lambda signum, frame: None) for s in STOP_SIGNALS}
    previous_fd = signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    done = threading.Event()

    def watch():
        while not done.is_set():
            ready, _, _ = select.select([read_end], [], [], tick)
            for signum in (os.read(read_end, 512) if ready else b""):
                if signum not in STOP_SIGNALS:
                    continue
                if stop.requested:
                    sys.stderr.write("\nmodelcheck: interrupted\n")
                    sys.stderr.flush()
                    os._exit(exitcodes.interrupted(signum))
                stop.request(signum)
            if stop.requested:
                interrupt()

    watcher = threading.Thread(target=watch, name="modelcheck-interrupts", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        watcher.join()
        signal.set_wakeup_fd(previous_fd)
        for s, old in previous_handlers.items():
            signal.signal(s, old)
        os.close(read_end)
        os.close(write_end)
