"""``modelcheck show TRACE --html OUT.html``: the trace as one self-contained page.

The page needs nothing but itself: the stylesheet and script are inlined,
there are no fonts, images or requests to fetch, and a Content-Security-Policy
forbids any. The view (frames drawn by modelcheck/presentation/viewer/layout.py) and the
trace file itself are embedded as JSON; the script puts every string on the
page as text, and the JSON is written so that no ``<``, ``>`` or ``&`` in a
trace can close the script block that holds it.
"""

from __future__ import annotations

import html
import json
import os
import re
from importlib import resources
from typing import Any

from modelcheck import __version__
from modelcheck.runtime.atomic import write_atomically
from modelcheck.errors import InputError
from modelcheck.presentation.viewer import TraceView, title
from modelcheck.presentation.viewer.layout import controller_epoch, log_change, previous_cell, previous_text, stale_actors

LEGEND = "| marks the high watermark; highlighted values changed in this step (hover for the old value)"
FOCUS_LEGEND = "; on the state that breaks an invariant, a red outline marks the record it is about"


CHANGED_LEGEND = "Highlighted values changed in this step (hover for the old value)"


def legend(view: TraceView) -> str:
    """The page's legend; the high watermark only for a spec whose layout
    draws logs, the outline only when an explanation names a record."""
    if not view.legend:
        return CHANGED_LEGEND + "."
    return LEGEND + (FOCUS_LEGEND if any(b.focus for b in view.breakages) else "") + "."


def asset(name: str) -> str:
    return resources.files("modelcheck.presentation.viewer").joinpath("assets", name).read_text(encoding="utf-8")


def script_json(value: Any) -> str:
    """JSON that is safe inside a <script> element: ASCII only, and the
    characters that could end the element or open a comment escaped."""
    text = json.dumps(value, ensure_ascii=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


LABEL = re.compile(r"^(\w+)\((.*)\)$")


def label_parts(label: str) -> dict[str, Any]:
    """A step's label as its action and parameters, so the timeline can put
    them on two lines and wrap only between parameters:
    ``"LeaderWrite(replica=r1)"`` -> ``{"action": "LeaderWrite", "params": ["replica=r1"]}``.
    A label of another shape (Init, "A or B", an illegal step) stays whole."""
    match = LABEL.match(label)
    if not match:
        return {"action": label, "params": []}
    return {"action": match.group(1), "params": re.split(r", (?=\w+=)", match.group(2))}


def cell_payload(view: TraceView, index: int, row, cell) -> dict[str, Any]:
    frame = view.frames[index]
    changed = frame.is_changed(row, cell)
    out = {"key": cell.key, "text": cell.text, "kind": cell.kind, "data": cell.data, "label": cell.label,
           "changed": changed, "before": previous_text(view.frames, index, row, cell) if changed else None}
    if changed and cell.kind == "log":  # which slots changed, and whether the marker moved
        change = log_change(previous_cell(view.frames, index, row, cell), cell)
        out["changed_offsets"], out["marker_moved"] = sorted(change.offsets), change.marker_moved
    return out


def view_payload(view: TraceView) -> dict[str, Any]:
    frames = []
    epochs: set[int] = set()
    for index, frame in enumerate(view.frames):
        rows = []
        for row in frame.rows:
            for cell in row.cells:
                if cell.kind == "log":
                    epochs.update(r["epoch"] for r in cell.data["records"] if r)
            rows.append({"group": row.group, "name": row.name,
                         "cells": [cell_payload(view, index, row, cell) for cell in row.cells]})
        removed = [{"group": row.group, "name": row.name, "text": " · ".join(
                        f"{c.label} {c.text}" if c.label else c.text for c in row.cells)} for row in frame.removed]
        frames.append({"number": frame.number, "label": frame.label, **label_parts(frame.label), "rows": rows,
                       "notes": frame.notes, "removed": removed,
                       "epoch": controller_epoch(frame), "illegal": index in view.illegal,
                       "stale": [{"name": name, "epoch": epoch} for name, epoch in stale_actors(frame)],
                       "breakages": [b.invariant for b in view.breakages_at(index)]})
    model = view.model
    return {
        "spec": model.spec.name,
        "module": model.spec.module,
        "constants": model.describe_constants(),
        "groups": [{"name": g.name, "title": g.title, "style": g.style, "columns": [list(c) for c in g.columns],
                    "heading": g.heading or g.name, "empty": g.empty, "label_rows": g.label_rows}
                   for g in view.groups],
        "frames": frames,
        "breakages": [{"invariant": b.invariant, "state": b.state, "explanation": b.explanation,
                       "focus": [list(f) for f in b.focus]} for b in view.breakages],
        "epochs": sorted(epochs),
        "legend": legend(view),
        "lasso": None if view.lasso is None else lasso_payload(view.lasso),
    }


def lasso_payload(lasso) -> dict[str, Any]:
    return {"start": lasso.start, "phrase": lasso.phrase, "headline": lasso.headline(), "stutters": lasso.stutters,
            "closing": None if lasso.closing is None else label_parts(lasso.closing),
            "explanation": lasso.explanation}


def changed_constants(model) -> str:
    """The constants set away from the spec's defaults, as ``NAME=VALUE`` words
    (the page lists them all below, folded: a spec may have two dozen)."""
    from modelcheck.language.constants import format_value
    decls = {d.name: d for d in model.spec.constants}
    changed = [f"{k}={format_value(decls[k].kind, v)}" for k, v in model.constants.items()
               if k in decls and format_value(decls[k].kind, v) != format_value(decls[k].kind, decls[k].default)]
    return " ".join(changed) or "the spec's default constants"


def render_html(view: TraceView) -> str:
    from modelcheck.model.trace import states_text
    model, doc = view.model, view.trace.document
    heading = title(view)
    subtitle = (f"{model.spec.source()} · {changed_constants(model)} · {states_text(len(view.frames))} · "
                f"{os.path.basename(doc.path)}")
    values = {
        "TITLE": html.escape(heading),
        "HEADING": html.escape(heading),
        "SUBTITLE": html.escape(subtitle),
        "CONSTANTS": html.escape(model.describe_constants()),
        "VERSION": html.escape(__version__),
        "CSS": asset("viewer.css"),
        "JS": asset("viewer.js"),
        "VIEW": script_json(view_payload(view)),
        "TRACE": script_json(doc.raw),
    }
    # one pass, so text inserted for one placeholder is never read as another
    return re.sub(r"__([A-Z]+)__", lambda m: values.get(m.group(1), m.group(0)), asset("viewer.html"))


def write_html(view: TraceView, path: str, overwrite: bool = False) -> None:
    text = render_html(view)
    try:
        write_atomically(path, lambda f: f.write(text), replace=overwrite)
    except FileExistsError:
        raise InputError(f"--html {path} already exists (pass --overwrite to replace it)") from None
    except OSError as e:
        raise InputError(f"cannot write {path}: {e.strerror or e}") from None
