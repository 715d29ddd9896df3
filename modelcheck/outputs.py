"""Where a run's files go, and how a finished search survives a failed write.

Counterexamples go to ``modelcheck-out/SPEC/`` under the current directory
(as Apalache writes to ``_apalache-out``), never among the files of the
directory itself, and never over an existing file unless ``--overwrite``.

Whatever can be checked about the destination is checked before the search
starts (``modelcheck/destinations.py``). What cannot (a file that appears at the chosen path during a run of
hours, a directory removed meanwhile) must not cost the verdict: the trace
goes to a fresh name beside the intended one, or failing that into a new
temporary directory, and the user is told where.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass

from modelcheck.destinations import output_dir
from modelcheck.errors import InputError
from modelcheck.trace import Trace, render_text, write_trace


@dataclass
class SavedTrace:
    file: str | None  # where the trace is, None if nowhere
    problem: str | None = None  # why it is not where it was meant to go


def save_trace(trace: Trace, path: str | None, overwrite: bool, stem: str | None = None) -> SavedTrace:
    """Write ``trace`` where asked (``path``, or the spec's output directory);
    if that fails, to a fresh name beside it, or into a new temporary
    directory. Never raises for a failed write: the verdict is worth more."""
    default = output_dir(trace.spec)
    try:
        return SavedTrace(write_trace(trace, path, overwrite, default_dir=default, stem=stem))
    except InputError as e:
        problem = str(e)
    for directory, fresh_stem in _fallbacks(trace, path, default, stem):
        try:
            written = os.path.normpath(write_trace(trace, None, False, default_dir=directory, stem=fresh_stem))
        except (InputError, OSError):
            continue
        return SavedTrace(written, f"{problem}; the trace was written to {written} instead")
    return SavedTrace(None, f"{problem}; the trace could not be written anywhere (it is shown in the report)")


def _fallbacks(trace: Trace, path: str | None, default: str, stem: str | None):
    """(directory, stem) pairs to try in turn after the intended place failed."""
    if path is not None and not os.path.isdir(path):
        name = os.path.basename(path)
        yield os.path.dirname(path) or ".", name.removesuffix(".json").removesuffix(".itf")
    else:
        yield path or default, stem
    try:
        yield tempfile.mkdtemp(prefix="modelcheck-out-"), stem
    except OSError:
        return


def story(trace: Trace, file: str | None) -> str:
    """The counterexample as a report prints it: read back from its file as
    ``modelcheck show --diff`` shows it, or, when no file could be written,
    the plain listing of its states."""
    if file is None:
        return render_text(trace)
    from modelcheck.viewer.terminal import story_text
    return story_text(file)
