"""``modelcheck sweep``: one spec checked across combinations of constant values.

Each ``--vary NAME=V1,V2`` multiplies the combinations; every combination is a
full ``run`` (same engine, invariants and limits) and becomes one row of a
table, as text, markdown or JSON. Counterexamples are written into a trace
directory under names that say which combination produced them.
"""

from __future__ import annotations

import itertools
import os
import re
from dataclasses import dataclass
from typing import Any

from modelcheck.errors import InputError
from modelcheck.progress import Progress
from modelcheck.run import RunOutcome, RunRequest, execute, prepare


@dataclass
class SweepRow:
    varied: dict[str, str]
    outcome: RunOutcome

    def cells(self) -> dict[str, Any]:
        r = self.outcome.result
        v = r.violation
        return {**self.varied,
                "result": r.result if r.result != "violation" else f"{v.invariant} violated",
                "distinct_states": r.distinct_states, "depth": r.depth,
                "trace_length": v.length if v else None, "trace_file": self.outcome.trace_file,
                "seconds": round(r.seconds, 2)}


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
    if not out:
        raise InputError("sweep needs at least one --vary NAME=V1,V2")
    return out


def trace_name(spec: str, varied: dict[str, str]) -> str:
    parts = "-".join(f"{k}={v}" for k, v in varied.items())
    safe = re.sub(r"[^A-Za-z0-9_.=,-]", "", parts)
    return f"{spec}-{safe}.itf.json"


def sweep(base: RunRequest, vary: list[tuple[str, list[str]]], trace_dir: str | None,
          progress: Progress) -> list[SweepRow]:
    names = [n for n, _ in vary]
    requests = []
    for values in itertools.product(*(vs for _, vs in vary)):
        varied = dict(zip(names, values))
        consts = tuple(c for c in base.consts if c.split("=", 1)[0].strip() not in varied)
        consts += tuple(f"{k}={v}" for k, v in varied.items())
        trace_out = os.path.join(trace_dir, trace_name(base.spec, varied)) if trace_dir else None
        request = RunRequest(**{**base.__dict__, "consts": consts, "trace_out": trace_out})
        requests.append((varied, prepare(request)))  # all input is checked before the first run
    rows = []
    for varied, prepared in requests:
        progress.note("sweep: " + " ".join(f"{k}={v}" for k, v in varied.items()))
        rows.append(SweepRow(varied, execute(prepared, progress)))
    return rows


def render(rows: list[SweepRow], fmt: str) -> str:
    table = [row.cells() for row in rows]
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
