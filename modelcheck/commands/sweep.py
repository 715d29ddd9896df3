"""``modelcheck sweep``: one spec checked across combinations of constant values.

Runs are given as explicit ``--row "NAME=V NAME=V"`` assignments, as
``--vary NAME=V1,V2`` products, or both (each row is crossed with the
products). Besides constants, rows and products may set ``symmetry=on`` or
``symmetry=off``, so one table can compare runs with and without it. Every run is a full ``run`` (same engine, invariants and limits)
and becomes one line of a table, as text, markdown or JSON, whose first
columns are the constants the rows and products name. Counterexamples are
written into a trace directory under names that say which run produced them.

With ``each_invariant`` every line checks each invariant in a run of its own
and has a column per invariant: whether it holds, or the length of its
shortest counterexample, so one table shows which switch breaks what.

Ctrl-C stops the run under way with its partial result (as ``run`` does) and
then the sweep: the table holds the runs done, the interrupted one marked
``interrupted``. A second Ctrl-C aborts at once.
"""

from __future__ import annotations

import itertools
import os
import re
from dataclasses import dataclass, field
from typing import Any

from modelcheck import exitcodes
from modelcheck.runtime.destinations import make_writable_dir
from modelcheck.errors import InputError
from modelcheck.runtime.limits import INTERRUPTED, StopRequest, interrupt_requests
from modelcheck.runtime.progress import Progress
from modelcheck.runs.run import RunOutcome, RunRequest, execute, prepare

INTERRUPTED_RESULT = "interrupted"


@dataclass
class SweepRow:
    varied: dict[str, str]
    outcome: RunOutcome
    shared: dict[str, str] = field(default_factory=dict)  # the --const values every run shares

    def outcomes(self) -> list[RunOutcome]:
        return [self.outcome]

    def cells(self, shared: bool = False) -> dict[str, Any]:
        r = self.outcome.result
        v = r.violation
        named = {**self.varied, **(self.shared if shared else {})}
        if self.outcome.liveness is not None and v is None:
            return {**named, **property_cells(self.outcome), "distinct_states": r.distinct_states,
                    "depth": r.depth, "trace_file": self.outcome.trace_file, "seconds": round(r.seconds, 2)}
        result = f"{v.invariant} violated" if r.result == "violation" else r.result
        return {**named,
                "result": INTERRUPTED_RESULT if r.stopped == INTERRUPTED else result,
                "distinct_states": r.distinct_states, "depth": r.depth,
                "trace_length": v.length if v else None, "trace_file": self.outcome.trace_file,
                "seconds": round(r.seconds, 2)}


@dataclass
class EachInvariantRow:
    varied: dict[str, str]
    by_invariant: dict[str, RunOutcome]  # each invariant checked alone
    shared: dict[str, str] = field(default_factory=dict)

    def outcomes(self) -> list[RunOutcome]:
        return list(self.by_invariant.values())

    def cells(self, shared: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {**self.varied, **(self.shared if shared else {})}
        for name, outcome in self.by_invariant.items():
            r = outcome.result
            out[name] = (f"violated ({r.violation.length} states)" if r.violation else
                         "holds" if r.result == "ok" else r.result)
        out["seconds"] = round(sum(o.result.seconds for o in self.by_invariant.values()), 2)
        return out


def property_cells(outcome: RunOutcome) -> dict[str, str]:
    """A column per temporal property: "holds", or how the first violated one fails."""
    live = outcome.liveness
    violated = live.violated
    cells = {}
    for name, ok in live.property_verdicts().items():
        if ok:
            cells[name] = "holds"
        elif violated is not None and violated.case.property == name:
            lasso = violated.lasso
            cells[name] = "violated (" + ("stutters" if lasso.stutters else "cycle") + ")"
        else:
            cells[name] = "violated"
    return cells


def parse_vary(texts: tuple[str, ...]) -> list[tuple[str, list[str]]]:
    out = []
    for text in texts:
        if "=" not in text:
            raise InputError(f"--vary expects NAME=V1,V2,..., got {text!r}")
        name, values = text.split("=", 1)
        items = [v.strip() for v in re.split(r",(?![^{]*})", values) if v.strip()]
        if not items:
            raise InputError(f"--vary {name}: no values")
        if name.strip() in (n for n, _ in out):
            raise InputError(f"--vary {name}: given twice")
        out.append((name.strip(), items))
    return out


def parse_rows(texts: tuple[str, ...]) -> list[dict[str, str]]:
    rows = []
    for text in texts:
        row: dict[str, str] = {}
        for item in re.findall(r"[^\s=]+=(?:\{[^}]*\}|\S+)", text):
            name, value = item.split("=", 1)
            if name in row:
                raise InputError(f"--row {text!r}: {name} is given twice")
            row[name] = value
        leftover = re.sub(r"[^\s=]+=(?:\{[^}]*\}|\S+)", "", text).strip()
        if leftover or not row:
            raise InputError(f"--row expects NAME=VALUE assignments separated by spaces, got {text!r}")
        rows.append(row)
    return rows


NAMED_IN_FULL = 120  # characters of a trace name's constants; past them, a hash stands for the rest


def trace_name(spec: str, varied: dict[str, str]) -> str:
    """The file a run's counterexample goes to, named after what the run
    varied. A row of many constants would pass the file system's limit on a
    name (255 bytes), with the invariant and a number still to come: its
    name keeps the first constants whole and a hash of them all."""
    parts = "-".join(f"{k}={v}" for k, v in varied.items())
    safe = re.sub(r"[^A-Za-z0-9_.=,-]", "", parts)
    if len(safe) > NAMED_IN_FULL:
        import hashlib
        cut = safe.rfind("-", 0, NAMED_IN_FULL)
        safe = f"{safe[:cut if cut > 0 else NAMED_IN_FULL]}-{hashlib.sha256(safe.encode()).hexdigest()[:8]}"
    return f"{spec}-{safe}.itf.json"


def combinations(rows: list[dict[str, str]], vary: list[tuple[str, list[str]]]) -> list[dict[str, str]]:
    if not rows and not vary:
        raise InputError("sweep needs at least one --row or --vary")
    names = [n for n, _ in vary]
    out = []
    for row in rows or [{}]:
        for values in itertools.product(*(vs for _, vs in vary)):
            clash = set(row) & set(names)
            if clash:
                raise InputError(f"{', '.join(sorted(clash))} is set by both --row and --vary")
            out.append({**row, **dict(zip(names, values))})
    return out


def free_path(path: str, overwrite: bool, taken: set[str]) -> str:
    """``path``, or with a numeric suffix if a file is already there (unless
    replacing it was asked for) or another run of the sweep is to write it
    (``taken``, the paths given out so far, to which the one chosen is added)."""
    stem, k = path.removesuffix(".itf.json"), 2
    while path in taken or (not overwrite and os.path.exists(path)):
        path, k = f"{stem}-{k}.itf.json", k + 1
    taken.add(path)
    return path


SYMMETRY = "symmetry"  # a run setting that rows and products may name beside the constants


def _symmetry_setting(given: dict[str, str], default: bool) -> bool:
    text = given.get(SYMMETRY)
    if text is None:
        return default
    if text not in ("on", "off"):
        raise InputError(f"{SYMMETRY}={text}: expected on or off")
    return text == "on"


# when runs end differently, the sweep exits with the most serious: an
# invariant broken before a deadlock, before a temporal property
SEVERITY = (exitcodes.INVARIANT_VIOLATED, exitcodes.DEADLOCK, exitcodes.PROPERTY_VIOLATED)


@dataclass
class SweepOutcome:
    rows: list[SweepRow | EachInvariantRow]  # the runs done, in order
    planned: int  # how many runs the sweep was to make
    interrupted: bool = False
    stop_signal: int | None = None  # the signal that interrupted it (Ctrl-C or SIGTERM)

    @property
    def exit_code(self) -> int:
        """run's code for the worst row: 0 only when every row holds; 130
        (143 for SIGTERM) when interrupted, whatever the rows done found."""
        if self.interrupted:
            return exitcodes.interrupted(self.stop_signal)
        codes = {o.exit_code for r in self.rows for o in r.outcomes()}
        return next((c for c in SEVERITY if c in codes), exitcodes.OK)

    def trace_files(self) -> list[str]:
        return [o.trace_file for r in self.rows for o in r.outcomes() if o.trace_file]

    def runs_complete(self) -> int:
        """The rows whose runs were not cut short by the interrupt."""
        return sum(1 for r in self.rows if not any(o.result.stopped == INTERRUPTED for o in r.outcomes()))


def sweep(base: RunRequest, runs: list[dict[str, str]], trace_dir: str,
          progress: Progress, specifications: tuple[str, ...] = (),
          each_invariant: bool = False) -> SweepOutcome:
    """One run per combination of constants, crossed with each named
    specification when temporal properties are checked."""
    columns = list(dict.fromkeys(name for run in runs for name in run))
    taken: set[str] = set()  # trace paths given out: two runs never share one
    requests = []
    for given in runs:
        for specification in specifications or (base.specification,):
            consts = tuple(c for c in base.consts if c.split("=", 1)[0].strip() not in given)
            consts += tuple(f"{k}={v}" for k, v in given.items() if k != SYMMETRY)
            named = {**given, **({"specification": specification} if specifications else {})}
            trace_out = free_path(os.path.join(trace_dir, trace_name(base.spec, named)), base.overwrite, taken)
            request = RunRequest(**{**base.__dict__, "consts": consts, "trace_out": trace_out,
                                    "specification": specification,
                                    "symmetry": _symmetry_setting(given, base.symmetry)})
            prepared = prepare(request)  # all input is checked before the first run
            shown = _shown_constants(prepared, columns)
            if specifications:
                shown["specification"] = specification
            shared = _shown_constants(prepared, [c.split("=", 1)[0].strip() for c in base.consts
                                                 if c.split("=", 1)[0].strip() not in given])
            requests.append((shown, shared, prepared))
    outcome = SweepOutcome([], len(requests))
    stop = StopRequest()  # one for the whole sweep: a Ctrl-C between runs counts too
    with interrupt_requests(stop):
        for shown, shared, prepared in requests:
            if stop.requested:
                break
            if each_invariant:
                outcome.rows.append(_each_invariant_row(shown, shared, prepared, progress, stop, taken))
                continue
            progress.note("sweep: " + " ".join(f"{k}={v}" for k, v in shown.items()))
            outcome.rows.append(SweepRow(shown, execute(prepared, progress, stop), shared))
    outcome.interrupted, outcome.stop_signal = stop.requested, stop.signum
    return outcome


def make_trace_dir(trace_dir: str) -> None:
    """Create the trace directory before any run, or refuse it with one line."""
    make_writable_dir(trace_dir, "--trace-dir")


def _each_invariant_row(shown, shared, prepared, progress: Progress, stop: StopRequest,
                        taken: set[str]) -> EachInvariantRow:
    """One line of a sweep with --each-inv: each invariant checked in a run of its own."""
    outcomes = {}
    request = prepared.request
    for name in prepared.invariants:
        if stop.requested:
            break
        progress.note("sweep: " + " ".join(f"{k}={v}" for k, v in shown.items()) + f" {name}")
        trace_out = free_path(request.trace_out.removesuffix(".itf.json") + f"-{name}.itf.json", request.overwrite,
                              taken)
        alone = RunRequest(**{**request.__dict__, "invariants": (name,), "trace_out": trace_out})
        outcomes[name] = execute(prepare(alone), progress, stop)
    return EachInvariantRow(shown, outcomes, shared)


def _shown_constants(prepared, columns: list[str]) -> dict[str, str]:
    """Each column's value in this run, as the user would write it."""
    from modelcheck.language.constants import format_value
    kinds = {d.name: d.kind for d in prepared.spec.constants}
    values = dict(prepared.model.constants.items())
    values[SYMMETRY] = "on" if prepared.symmetry else "off"
    return {name: format_value(kinds[name], values[name]) if name in kinds else values[name] for name in columns}


def render(rows: list[SweepRow | EachInvariantRow], fmt: str, columns: list[str] | None = None) -> str:
    """The table. A JSON row also names the constants every run shares
    (--const), so that each row says in full what was checked."""
    if not rows:
        return "[]" if fmt == "json" else "no run was completed"
    table = [row.cells(shared=fmt == "json") for row in rows]
    # rows of different shapes (an invariant broken before the properties were
    # checked) share the union of the columns
    every = list(dict.fromkeys(k for r in table for k in r))
    table = [{k: r.get(k) for k in every} for r in table]
    if columns:
        unknown = [c for c in columns if c not in table[0]]
        if unknown:
            raise InputError(f"--columns: no column {', '.join(unknown)} (columns: {', '.join(table[0])})")
        table = [{c: r[c] for c in columns} for r in table]
    if fmt == "json":
        import json
        return json.dumps(table, indent=1)
    headers = list(table[0])

    def show(v: Any) -> str:
        if v is None:
            return "-"
        if isinstance(v, int) and not isinstance(v, bool):
            return f"{v:,}"
        return str(v)

    cells = [[show(r[h]) for h in headers] for r in table]
    if fmt == "markdown":
        lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
        lines += ["| " + " | ".join(c) + " |" for c in cells]
        return "\n".join(lines)
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)) for row in cells]
    return "\n".join(lines)


def written_text(outcome: SweepOutcome) -> str:
    """What follows the table: the trace files written, and an interruption."""
    files = outcome.trace_files()
    lines = ["", f"traces written ({len(files)}):", *(f"  {f}" for f in files)] if files else []
    if outcome.interrupted:
        done = outcome.runs_complete()
        if done < len(outcome.rows):
            said = f"Interrupted during run {len(outcome.rows)} of {outcome.planned}"
            said += f" ({done} complete)." if done else "."
        else:
            said = f"Interrupted after {done} of {outcome.planned} runs."
        lines += ["", said]
    return "\n".join(lines)
