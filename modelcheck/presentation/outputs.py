"""Where a run's files go, and how a finished search survives a failed write.

Counterexamples go to ``modelcheck-out/SPEC/`` under the current directory
(as Apalache writes to ``_apalache-out``), never among the files of the
directory itself, and never over an existing file unless ``--overwrite``.

Whatever can be checked about the destination is checked before the search
starts (``modelcheck/runtime/destinations.py``). What cannot (a file that appears at the chosen path during a run of
hours, a directory removed meanwhile) must not cost the verdict: the trace
goes to a fresh name beside the intended one, or failing that into a new
temporary directory, and the user is told where.
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass, field

from modelcheck.runtime.destinations import output_dir
from modelcheck.errors import InputError
from modelcheck.model.trace import Trace, render_text, write_trace


@dataclass
class SavedTrace:
    file: str | None  # where the trace is, None if nowhere
    problem: str | None = None  # why it is not where it was meant to go
    tried: list[str] = field(default_factory=list)  # when it is nowhere: each place tried, and why it failed

    def nowhere(self) -> str | None:
        """For the report, when no file holds the trace: where it was tried."""
        return f"not written: tried {'; '.join(self.tried)}" if self.file is None and self.tried else None


def save_trace(trace: Trace, path: str | None, overwrite: bool, stem: str | None = None) -> SavedTrace:
    """Write ``trace`` where asked (``path``, or the spec's output directory);
    if that fails, to a fresh name beside it, or into a new temporary
    directory. Never raises for a failed write (a full disk, a directory
    gone): the verdict is worth more."""
    default = output_dir(trace.spec)
    try:
        return SavedTrace(write_trace(trace, path, overwrite, default_dir=default, stem=stem))
    except InputError as e:
        problem = str(e)
    tried = [f"{path or default} ({_reason(problem)})"]
    for directory, fresh_stem in _fallbacks(trace, path, default, stem, tried):
        try:
            written = os.path.normpath(write_trace(trace, None, False, default_dir=directory, stem=fresh_stem))
        except (InputError, OSError) as e:
            tried.append(f"{directory} ({_reason(str(e))})")
            continue
        return SavedTrace(written, f"{problem}; the trace was written to {written} instead")
    return SavedTrace(None, f"{problem}; the trace could not be written anywhere (tried {'; '.join(tried)}); "
                            f"it is shown in the report", tried)


def _reason(message: str) -> str:
    """The cause at the end of a write error ("...: No space left on device")."""
    return message.rsplit(": ", 1)[-1]


def _fallbacks(trace: Trace, path: str | None, default: str, stem: str | None, tried: list[str]):
    """(directory, stem) pairs to try in turn after the intended place failed;
    a temporary directory that cannot even be made is added to ``tried``."""
    if path is not None and not os.path.isdir(path):
        name = os.path.basename(path)
        yield os.path.dirname(path) or ".", name.removesuffix(".json").removesuffix(".itf")
    else:
        yield path or default, stem
    try:
        fresh = tempfile.mkdtemp(prefix="modelcheck-out-")
    except OSError as e:
        tried.append(f"a new directory in {tempfile.gettempdir()} ({e.strerror or e})")
        return
    yield fresh, stem
    if not os.listdir(fresh):  # nothing went into it after all
        os.rmdir(fresh)


def story(trace: Trace, file: str | None, model=None) -> str:
    """The counterexample as a report prints it: read back from its file as
    ``modelcheck show --diff`` shows it, or, when no file could be written,
    the plain listing of its states. ``model``: the run's own model, used
    again rather than built a second time (a KRaft model takes seconds)."""
    if file is None:
        return render_text(trace)
    from modelcheck.presentation.viewer.terminal import story_text
    return story_text(file, model)


NUMBERED = re.compile(r"^(?P<stem>.+)-(?P<k>[0-9]+)\.itf\.json$")


def trace_line(file: str, trace_out: str | None) -> str:
    """How a report names the trace it wrote: its path, and how to show it.
    A trace named by default goes beside those of earlier runs under the
    next free number (``STEM.itf.json``, then ``STEM-2.itf.json``...): the
    line then says the file is this run's, and which of those are there."""
    earlier = [] if trace_out is not None and not os.path.isdir(trace_out) else earlier_traces(file)
    if not earlier:
        return f"{file}  (modelcheck show {file})"
    if len(earlier) == 1:
        said = f"{earlier[0]} is an earlier run's"
    else:
        said = f"{' and '.join(earlier) if len(earlier) == 2 else f'{earlier[0]} to {earlier[-1]}'} are earlier runs'"
    return f"{file}  (new; {said}; modelcheck show {file})"


def earlier_traces(file: str) -> list[str]:
    """The files of earlier runs a trace named ``STEM-K.itf.json`` was numbered
    past, those still there: ``STEM.itf.json``, ``STEM-2.itf.json``..., up to K - 1."""
    m = NUMBERED.match(os.path.basename(file))
    if m is None:
        return []
    directory, stem = os.path.dirname(file), m.group("stem")
    names = [f"{stem}.itf.json"] + [f"{stem}-{k}.itf.json" for k in range(2, int(m.group("k")))]
    return [name for name in names if os.path.exists(os.path.join(directory, name))]
