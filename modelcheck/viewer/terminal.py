"""``modelcheck show TRACE``: the trace as text, one block per state.

Each block starts with the state number and the action that produced it,
then the groups of the spec's layout: tables (a line per replica) and
single lines (the quorum, the requests, the counters). On a terminal,
values that changed in the step are drawn in colour; in plain text (piped,
or ``--no-color``) they carry a trailing ``*``, so the output still reads
well in a file or an email. ``--diff`` prints, after the first state in
full, only what each step changed (``old -> new``).
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from modelcheck.viewer import TraceView
from modelcheck.viewer.layout import Cell, Frame, Group, Row, previous_text


@dataclass(frozen=True)
class Style:
    """ANSI styling, or none at all."""

    color: bool

    def _wrap(self, code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.color else text

    def heading(self, text: str) -> str:
        return self._wrap("1;36", text)

    def dim(self, text: str) -> str:
        return self._wrap("2", text)

    def changed(self, text: str) -> str:
        return self._wrap("1;33", text) if self.color else text + "*"

    def fresh(self, text: str) -> str:
        """A new value in a ``old -> new`` line (which needs no star)."""
        return self._wrap("1;33", text)

    def alarm(self, text: str) -> str:
        return self._wrap("1;31", text)


LEGEND = ("log: one record per offset as id@epoch, _ an empty slot, | the high watermark. "
          "{} marks a value changed by the step.")


def render(view: TraceView, diff: bool = False, color: bool = False, width: int = 100) -> str:
    style = Style(color)
    model = view.model
    doc = view.trace.document
    out = [style.heading(f"{model.spec.name} ({model.spec.module}.tla) · {doc.path} · {len(view.frames)} states"),
           f"constants  {model.describe_constants()}"]
    out.append(style.dim(LEGEND.format("colour" if color else "a trailing *")))
    for index, frame in enumerate(view.frames):
        out.append("")
        out.extend(frame_lines(view, index, frame, style, diff and index > 0))
        for b in view.breakages_at(index):
            out.append(style.alarm(f"  !! {b.invariant} is violated in state {frame.number}"))
    if view.lasso is not None:
        out.append(style.alarm(f"  -> {view.lasso.phrase}"))
    out.append("")
    out.extend(summary_lines(view, style, width))
    return "\n".join(out)


def frame_lines(view: TraceView, index: int, frame: Frame, style: Style, only_changes: bool) -> list[str]:
    head = f"State {frame.number}: {frame.label}"
    lines = [style.alarm(head) if index in view.illegal else style.heading(head)]
    if only_changes:
        lines.extend(change_lines(view, index, frame, style) or ["  (no change)"])
        return lines
    for group in view.groups:
        rows = [r for r in frame.rows if r.group == group.name]
        if not rows:
            continue
        if group.style == "table":
            lines.extend(table_lines(group, rows, frame, style))
        else:
            lines.extend(line_of(group, row, frame, style) for row in rows)
    return lines


def cell_text(frame: Frame, row: Row, cell: Cell, style: Style) -> str:
    return style.changed(cell.text) if frame.is_changed(row, cell) else cell.text


def table_lines(group: Group, rows: list[Row], frame: Frame, style: Style) -> list[str]:
    """A header and one line per row, columns padded to their widest value
    (measured without colour codes)."""
    keys = [k for k, _ in group.columns]
    header = [group.title] + [h for _, h in group.columns]
    plain = [[row.name] + [_cell(row, k).text + ("*" if not style.color and frame.is_changed(row, _cell(row, k))
                                                 else "") for k in keys] for row in rows]
    widths = [max(len(x) for x in column) for column in zip(header, *plain)]
    lines = ["  " + style.dim("  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip())]
    for row, texts in zip(rows, plain):
        shown = [row.name] + [cell_text(frame, row, _cell(row, k), style) for k in keys]
        padded = [s + " " * (w - len(t)) for s, t, w in zip(shown, texts, widths)]
        lines.append("  " + "  ".join(padded).rstrip())
    return lines


def _cell(row: Row, key: str) -> Cell:
    for c in row.cells:
        if c.key == key:
            return c
    return Cell(key, "")


def line_of(group: Group, row: Row, frame: Frame, style: Style) -> str:
    """A one-line group: ``quorum  leader r1 · epoch 2 · isr {r1, r2}``."""
    label = row.name if group.name in ("variables", "messages") else group.title
    parts = [f"{c.label} {cell_text(frame, row, c, style)}" if c.label else cell_text(frame, row, c, style)
             for c in row.cells]
    return f"  {style.dim(label)}  " + " · ".join(parts)


def change_lines(view: TraceView, index: int, frame: Frame, style: Style) -> list[str]:
    """What the step changed, one line per row: ``r2  epoch 0 -> 1 · log ... -> ...``;
    a row that is new in this step (a request just sent) is listed whole."""
    titles = {g.name: g.title for g in view.groups}
    out = []
    for row in frame.rows:
        before = {c.key: previous_text(view.frames, index, row, c) for c in row.cells}
        if row.cells and all(b is None for b in before.values()):
            cells = " · ".join(f"{c.label} {c.text}" if c.label else c.text for c in row.cells)
            out.append(f"  + {titles.get(row.group, row.group)} {row.name}: {style.fresh(cells)}")
            continue
        changes = []
        for c in row.cells:
            if frame.is_changed(row, c):
                name = f"{c.label} " if c.label else ""
                new = style.fresh(c.text)
                changes.append(f"+ {name}{new}" if before[c.key] is None else f"{name}{before[c.key]} -> {new}")
        if changes:
            out.append(f"  {row.name}  " + " · ".join(changes))
    return out


def summary_lines(view: TraceView, style: Style, width: int) -> list[str]:
    lines = []
    for b in view.breakages:
        lines.append(style.alarm(f"Invariant {b.invariant} is violated in state {b.state + 1}:"))
        lines.extend(textwrap.wrap(b.explanation, width, initial_indent="  ", subsequent_indent="  "))
    if view.lasso is not None and view.lasso.explanation:
        lines.extend(style.alarm(line) if i == 0 else line
                     for i, line in enumerate(view.lasso.explanation.splitlines()))
    elif not view.breakages:
        lines.append("No invariant checked here is violated in this trace.")
    for k in view.illegal:
        lines.append(style.alarm(f"State {k + 1} does not follow from state {k} by any action of "
                                 f"{view.model.spec.name} (modelcheck replay shows the closest legal step)."))
    return lines
