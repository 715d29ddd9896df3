"""The standard output, guarded: a closed or full stdout never costs a verdict.

A report piped into ``head -1``, written to a full disk or to ``/dev/full``
fails to be written; that must not stop a search of hours, lose its trace
or replace its exit code (the verdict's, which scripts read) with an
internal error. While a command runs, ``sys.stdout`` is a ``GuardedOutput``:
the first write or flush that fails says so in one line on stderr, and
every later one is dropped quietly, while the command carries on to its
verdict. The file descriptor itself is pointed at ``/dev/null`` then, so
that nothing left in a buffer fails again when the interpreter exits.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys


class _Guard:
    """Whether the standard output failed, shared by its text and byte sides."""

    def __init__(self, stream):
        self.stream = stream
        self.failed: OSError | ValueError | None = None

    def fail(self, error: OSError | ValueError) -> None:
        if self.failed is not None:
            return
        self.failed = error
        if isinstance(error, OSError) and error.errno == errno.EPIPE:
            why = "was closed (nothing reads it any more)"
        elif isinstance(error, OSError):
            why = f"cannot be written ({error.strerror or error})"
        else:
            why = "is closed"
        try:
            sys.stderr.write(f"modelcheck: the standard output {why}; the rest of the report is not written, "
                             f"and the exit code still gives the verdict\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
        try:  # whatever is left in the stream's buffer goes nowhere, rather than failing again at exit
            devnull = os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(devnull, self.stream.fileno())
            finally:
                os.close(devnull)
        except (OSError, ValueError, AttributeError):
            pass

    def attempt(self, call, *args):
        if self.failed is not None:
            return None
        try:
            return call(*args)
        except (OSError, ValueError) as e:  # ValueError: the stream was closed under us
            self.fail(e)
            return None


class _GuardedBytes:
    def __init__(self, raw, guard: _Guard):
        self._raw, self._guard = raw, guard

    def write(self, data) -> int:
        self._guard.attempt(self._raw.write, data)
        return len(data)

    def flush(self) -> None:
        self._guard.attempt(self._raw.flush)

    def __getattr__(self, name):
        return getattr(self._raw, name)


class GuardedOutput:
    """A text stream that never raises on a write or a flush (see the module)."""

    def __init__(self, stream):
        self._stream = stream
        self._guard = _Guard(stream)
        self.encoding = getattr(stream, "encoding", None) or "utf-8"
        self.errors = getattr(stream, "errors", None) or "strict"

    @property
    def failed(self) -> OSError | ValueError | None:
        return self._guard.failed

    @property
    def buffer(self):
        return _GuardedBytes(self._stream.buffer, self._guard)

    def write(self, text: str) -> int:
        self._guard.attempt(self._stream.write, text)
        return len(text)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self._guard.attempt(self._stream.flush)

    def isatty(self) -> bool:
        try:
            return self._stream.isatty()
        except (OSError, ValueError):
            return False

    def __getattr__(self, name):
        return getattr(self._stream, name)


@contextlib.contextmanager
def guarded_stdout():
    """``sys.stdout`` guarded for the block (see the module); given back after."""
    original = sys.stdout
    if original is None or isinstance(original, GuardedOutput):
        yield original
        return
    guarded = sys.stdout = GuardedOutput(original)
    try:
        yield guarded
    finally:
        guarded.flush()
        if sys.stdout is guarded:
            sys.stdout = original
