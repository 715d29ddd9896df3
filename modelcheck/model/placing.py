"""Placing a mistake in a spec's definition: the part of the spec it was
found in (an action with its parameters, an invariant, Init) and the file
and line of the spec's code, for one line of error (exit 2).

May import: the errors.
"""

from __future__ import annotations

import os
import sysconfig
import traceback
from contextlib import contextmanager

from modelcheck.errors import InputError, SpecDefinitionError

_PACKAGE = os.path.realpath(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_BUILT_IN_SPECS = os.path.realpath(os.path.join(_PACKAGE, "specs"))


def _library_dirs() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Python's own library, and where installed packages go."""
    paths = sysconfig.get_paths()
    own = {os.path.realpath(paths[k]) for k in ("stdlib", "platstdlib") if k in paths}
    installed = {os.path.realpath(paths[k]) for k in ("purelib", "platlib") if k in paths}
    return tuple(own), tuple(installed)


def _under(path: str, dirs) -> bool:
    return any(path == d or path.startswith(d + os.sep) for d in dirs)


def spec_location(tb) -> str | None:
    """file:line of the innermost frame of a spec's code in a traceback: a
    built-in spec's, or any file outside modelcheck's machinery and Python's
    library (an installed package's only when no other frame is)."""
    own, installed = _library_dirs()
    best = fallback = None
    for frame, line in traceback.walk_tb(tb):
        path = frame.f_code.co_filename
        if path.startswith("<"):
            continue
        real = os.path.realpath(path)
        if not real.startswith(_BUILT_IN_SPECS + os.sep) and (_under(real, (_PACKAGE,)) or _under(real, own)):
            continue
        where = f"{_shown_path(path)}:{line}"
        if _under(real, installed) and not real.startswith(_BUILT_IN_SPECS + os.sep):
            fallback = where
        else:
            best = where
    return best or fallback


def _shown_path(path: str) -> str:
    relative = os.path.relpath(path)
    return relative if not relative.startswith("..") else path


class _Located(SpecDefinitionError):
    """A mistake in a spec definition, already placed (name, part, file:line)."""


def _defined_at(fn) -> str | None:
    """file:line where a function of a spec is defined."""
    code = getattr(fn, "__code__", None)
    if code is None or not _is_spec_file(code.co_filename):
        return None
    return f"{_shown_path(code.co_filename)}:{code.co_firstlineno}"


def _is_spec_file(path: str) -> bool:
    real = os.path.realpath(path)
    return real.startswith(_BUILT_IN_SPECS + os.sep) or not real.startswith(_PACKAGE + os.sep)


@contextmanager
def defining(spec, what: str, passthrough: tuple | type = (), fn=None):
    """Run a part of a spec's definition (an action, an invariant, Init...)
    so that a mistake in it is reported as one line naming the spec, the
    part and the file:line of the spec's code where it happened. Python's
    own errors raised in the spec's code (a TypeError, a KeyError) are
    mistakes of the definition too; those raised elsewhere are not. ``fn``:
    the spec's function run, whose definition is named when the mistake is
    found in what it returned (a field declared twice)."""
    try:
        yield
    except _Located:
        raise
    except passthrough:  # type: ignore[misc]
        raise
    except SpecDefinitionError as e:
        where = spec_location(e.__traceback__) or (_defined_at(fn) if fn is not None else None)
        raise _Located(f"{spec.name}: {what}: {e}" + (f" ({where})" if where else "")) from None
    except (InputError, KeyboardInterrupt, MemoryError, RecursionError):
        raise
    except Exception as e:
        where = spec_location(e.__traceback__)
        if where is None:
            raise
        raise _Located(f"{spec.name}: {what}: {type(e).__name__}: {e} ({where})") from None
