"""Where a command may write: every destination check, defined once.

Each check runs before any work, so that a run of hours never ends on an
unwritable path, and each refuses in one line (exit 2) naming the option.
Nothing is replaced without ``--overwrite``, which replaces regular files
only (never a device, a FIFO or a socket), and checking creates nothing,
except the directories a command is asked to write into (``--trace-dir``,
a checkpoint directory, a cluster's state directory).
"""

from __future__ import annotations

import os
import stat

from modelcheck.errors import InputError

OUTPUT_ROOT = "modelcheck-out"


def output_dir(spec: str) -> str:
    """The default directory of a spec's run outputs, relative to the current directory."""
    return os.path.join(OUTPUT_ROOT, spec)


def check_new_file(path: str, overwrite: bool, option: str, formats: tuple[str, ...] = ()) -> None:
    """A file to create at ``path`` (given as ``option``): not a directory,
    not an existing file unless ``overwrite``, in a writable directory; with
    ``formats``, its extension says which format to write."""
    check_named(path, option)
    if os.path.islink(path) and not os.path.exists(path):
        raise InputError(f"{option} {path} is a symbolic link to {os.readlink(path)}, which does not exist; "
                         f"name a file to write")
    if formats and os.path.splitext(path)[1].lower() not in formats:
        raise InputError(f"{option} {path}: the format comes from the extension; use one of {', '.join(formats)}")
    if os.path.isdir(path):
        raise InputError(f"{option} {path} is a directory; name the file to write")
    kind = not_a_file(path)
    if kind:  # --overwrite replaces regular files only: never /dev/null, a FIFO or a socket
        raise InputError(f"{option} {path} is {kind}, not a regular file; name a file to write")
    if os.path.exists(path) and not overwrite:
        raise InputError(f"{option} {path} already exists (pass --overwrite to replace it)")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise InputError(f"cannot write {option} {path}: directory {parent} does not exist")
    check_writable(parent, f"{option} {path}")


def not_a_file(path: str) -> str | None:
    """What ``path`` is when it exists and is neither a regular file nor a
    directory (through symbolic links): "a FIFO", "a character device"...;
    else None."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    for test, kind in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return kind
    return None if stat.S_ISREG(mode) or stat.S_ISDIR(mode) else "not a file"


def check_named(path: str, option: str) -> None:
    """An empty name is no file at all (a script's unset variable, as a rule)."""
    if not path.strip():
        raise InputError(f"{option} needs a name; it was given {path!r}")


def check_writable(directory: str, what: str) -> None:
    """That a file can be created in ``directory`` (tried, and removed)."""
    probe = os.path.join(directory, f".modelcheck-write-test-{os.getpid()}")
    try:
        fd = os.open(probe, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise InputError(f"cannot write {what}: {e.strerror or e}") from None


def check_trace_destination(path: str | None, overwrite: bool = False) -> None:
    """``--trace-out PATH``: a file to create, or a directory to write a new file into."""
    if path is None:
        return
    check_named(path, "--trace-out")
    if os.path.isdir(path):
        check_writable(path, f"--trace-out {path}")
        return
    check_new_file(path, overwrite, "--trace-out")


def check_output_destination(path: str | None, overwrite: bool, spec: str) -> None:
    """Where a command's trace will go: ``--trace-out``, or the spec's output
    directory, created only when a trace is written."""
    if path is not None:
        check_trace_destination(path, overwrite)
        return
    directory = output_dir(spec)
    existing = directory
    while existing and not os.path.exists(existing):
        existing = os.path.dirname(existing)
    existing = existing or "."
    if not os.path.isdir(existing):
        raise InputError(f"cannot write traces into {directory}: {existing} is a file, not a directory "
                         f"(give --trace-out, or move it)")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise InputError(f"cannot write traces into {directory}: {existing} is not writable (give --trace-out)")


def make_writable_dir(directory: str, option: str) -> None:
    """Create ``directory`` if need be, or refuse it in one line (``option``
    names where it came from, e.g. ``--state-dir``)."""
    if os.path.exists(directory) and not os.path.isdir(directory):
        raise InputError(f"{option} {directory} is a file, not a directory")
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as e:
        raise InputError(f"{option} {directory}: cannot create it ({e.strerror or e})") from None
    if not os.access(directory, os.W_OK | os.X_OK):
        raise InputError(f"{option} {directory}: not writable")
