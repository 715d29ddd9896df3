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
from dataclasses import dataclass
from typing import Any

from modelcheck import exitcodes
from modelcheck.destinations import make_writable_dir
from modelcheck.errors import InputError
from modelcheck.limits import INTERRUPTED, StopRequest, interrupt_requests
from modelcheck.progress import Progress
from modelcheck.run import RunOutcome, RunRequest, execute, prepare

INTERRUPTED_RESULT = "interrupted"


@dataclass
class SweepRow:
    varied: dict[str, str]
    outcome: RunOutcome

    def cells(self) -> dict[str, Any]:
        r = self.outcome.result
        v = r.violation
        if self.outcome.liveness is not None and v is None:
            return {**self.varied, **property_cells(self.outcome), "distinct_states": r.distinct_states,
                    "depth": r.depth, "trace_file": self.outcome.trace_file, "seconds": round(r.seconds, 2)}
        result = f"{v.invariant} violated" if r.result == "violation" else r.result
        return {**self.varied,
                "result": INTERRUPTED_RESULT if r.stopped == INTERRUPTED else result,
                "distinct_states": r.distinct_states, "depth": r.depth,
                "trace_length": v.length if v else None, "trace_file": self.outcome.trace_file,
                "seconds": round(r.seconds, 2)}


@dataclass
class EachInvariantRow:
    varied: dict[str, str]
    outcomes: dict[str, RunOutcome]  # by invariant, each checked alone

    def cells(self) -> dict[str, Any]:
        out: dict[str, Any] = dict(self.varied)
        for name, outcome in self.outcomes.items():
            r = outcome.result
            out[name] = (f"violated ({r.violation.length} states)" if r.violation else
                         "holds" if r.result == "ok" else r.result)
        out["seconds"] = round(sum(o.result.seconds for o in self.outcomes.values()), 2)
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


def trace_name(spec: str, varied: dict[str, str]) -> str:
    """The file a run's counterexample goes to, named after what the run varied."""
    parts = "-".join(f"{k}={v}" for k, v in varied.items())
    safe = re.sub(r"[^A-Za-z0-9_.=,-]", "", parts)
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


def free_path(path: str, overwrite: bool) -> str:
    """``path``, or with a numeric suffix if a file is already there (unless
    replacing it was asked for)."""
    if overwrite or not os.path.exists(path):
        return path
    stem = path.removesuffix(".itf.json")
    k = 2
    while os.path.exists(f"{stem}-{k}.itf.json"):
        k += 1
    return f"{stem}-{k}.itf.json"


SYMMETRY = "symmetry"  # a run setting that rows and products may name beside the constants


def _symmetry_setting(given: dict[str, str], default: bool) -> bool:
    text = given.get(SYMMETRY)
    if text is None:
        return default
    if text not in ("on", "off"):
        raise InputError(f"{SYMMETRY}={text}: expected on or off")
    return text == "on"


@dataclass
class SweepOutcome:
    rows: list[SweepRow]  # the runs done, in order
    planned: int  # how many runs the sweep was to make
    interrupted: bool = False
    stop_signal: int | None = None  # the signal that interrupted it (Ctrl-C or SIGTERM)

    @property
    def exit_code(self) -> int:
        return exitcodes.interrupted(self.stop_signal) if self.interrupted else exitcodes.OK

    def trace_files(self) -> list[str]:
        outcomes = [o for r in self.rows for o in (r.outcomes.values() if isinstance(r, EachInvariantRow)
                                                     else [r.outcome])]
        return [o.trace_file for o in outcomes if o.trace_file]


def sweep(base: RunRequest, runs: list[dict[str, str]], trace_dir: str,
          progress: Progress, specifications: tuple[str, ...] = (),
          each_invariant: bool = False) -> SweepOutcome:
    """One run per combination of constants, crossed with each named
    specification when temporal properties are checked."""
    columns = list(dict.fromkeys(name for run in runs for name in run))
    requests = []
    for given in runs:
        for specification in specifications or (base.specification,):
            consts = tuple(c for c in base.consts if c.split("=", 1)[0].strip() not in given)
            consts += tuple(f"{k}={v}" for k, v in given.items() if k != SYMMETRY)
            named = {**given, **({"specification": specification} if specifications else {})}
            trace_out = free_path(os.path.join(trace_dir, trace_name(base.spec, named)), base.overwrite)
            request = RunRequest(**{**base.__dict__, "consts": consts, "trace_out": trace_out,
                                    "specification": specification,
                                    "symmetry": _symmetry_setting(given, base.symmetry)})
            prepared = prepare(request)  # all input is checked before the first run
            shown = _shown_constants(prepared, columns)
            if specifications:
                shown["specification"] = specification
            requests.append((shown, prepared))
    outcome = SweepOutcome([], len(requests))
    stop = StopRequest()  # one for the whole sweep: a Ctrl-C between runs counts too
    with interrupt_requests(stop):
        for shown, prepared in requests:
            if stop.requested:
                break
            if each_invariant:
                outcome.rows.append(_each_invariant_row(shown, prepared, progress, stop))
                continue
            progress.note("sweep: " + " ".join(f"{k}={v}" for k, v in shown.items()))
            outcome.rows.append(SweepRow(shown, execute(prepared, progress, stop)))
    outcome.interrupted, outcome.stop_signal = stop.requested, stop.signum
    return outcome


def make_trace_dir(trace_dir: str) -> None:
    """Create the trace directory before any run, or refuse it with one line."""
    make_writable_dir(trace_dir, "--trace-dir")


def _each_invariant_row(shown, prepared, progress: Progress, stop: StopRequest) -> EachInvariantRow:
    """One line of a sweep with --each-inv: each invariant checked in a run of its own."""
    outcomes = {}
    for name in prepared.invariants:
        if stop.requested:
            break
        progress.note("sweep: " + " ".join(f"{k}={v}" for k, v in shown.items()) + f" {name}")
        trace_out = prepared.request.trace_out.removesuffix(".itf.json") + f"-{name}.itf.json"
        alone = RunRequest(**{**prepared.request.__dict__, "invariants": (name,), "trace_out": trace_out})
        outcomes[name] = execute(prepare(alone), progress, stop)
    return EachInvariantRow(shown, outcomes)


def _shown_constants(prepared, columns: list[str]) -> dict[str, str]:
    """Each column's value in this run, as the user would write it."""
    from modelcheck.constants import format_value
    kinds = {d.name: d.kind for d in prepared.spec.constants}
    values = dict(prepared.model.constants.items())
    values[SYMMETRY] = "on" if prepared.symmetry else "off"
    return {name: format_value(kinds[name], values[name]) if name in kinds else values[name] for name in columns}


def render(rows: list[SweepRow], fmt: str, columns: list[str] | None = None) -> str:
    if not rows:
        return "[]" if fmt == "json" else "no run was completed"
    table = [row.cells() for row in rows]
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
        lines += ["", f"Interrupted after {len(outcome.rows)} of {outcome.planned} runs."]
    return "\n".join(lines)
