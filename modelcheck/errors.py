"""The two kinds of failure modelcheck tells apart.

``InputError`` is the user's to fix (an unknown spec, a bad constant, a
malformed file). The CLI prints its message as one line and exits with 2.
``SpecDefinitionError`` means a spec module is written wrongly; it surfaces
when the spec is loaded, before any state is explored.
"""


class InputError(Exception):
    """Bad input from the user: reported as one line, exit code 2."""


class SpecDefinitionError(Exception):
    """A mistake in a spec definition, caught when the spec is built."""


class TraceFormatError(InputError):
    """A trace file that cannot be read as a trace of the given spec."""


def make_writable_dir(directory: str, option: str) -> None:
    """Create ``directory`` if need be, or refuse it in one line (``option``
    names where it came from, e.g. ``--state-dir``)."""
    import os
    if os.path.exists(directory) and not os.path.isdir(directory):
        raise InputError(f"{option} {directory} is a file, not a directory")
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as e:
        raise InputError(f"{option} {directory}: cannot create it ({e.strerror or e})") from None
    if not os.access(directory, os.W_OK | os.X_OK):
        raise InputError(f"{option} {directory}: not writable")
