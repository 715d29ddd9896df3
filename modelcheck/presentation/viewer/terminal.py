"""``modelcheck show TRACE``: the trace as text, one block per state.

Each block starts with the state number and the action that produced it,
then the groups of the spec's layout: tables (a line per replica) and
single lines (the quorum, the requests, the counters). On a terminal,
values that changed in the step are drawn in colour; in plain text (piped,
or ``--no-color``) they carry a trailing ``*``, so the output still reads
well in a file or an email. In a log, only the slots that changed are
marked. ``--diff`` prints, after the first state in full, only what each
step changed (``old -> new``); ``modelcheck run`` prints a counterexample
this way (``story_lines``).
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from modelcheck.presentation.viewer import TraceView
from modelcheck.presentation.viewer.layout import Cell, Frame, Group, Row, log_change, log_tokens, previous_cell, previous_text


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


CHANGES = {"plain": "A trailing * marks what the step changed.",
           "colour": "Colour marks what the step changed.",
           "diff": "After state 1, each step shows only what it changed (old -> new; + a new row)."}


def render(view: TraceView, diff: bool = False, color: bool = False, width: int = 100) -> str:
    from modelcheck.model.trace import states_text
    style = Style(color)
    model = view.model
    doc = view.trace.document
    out = [style.heading(f"{model.spec.name} · {doc.path} · {states_text(len(view.frames))}"),
           f"spec       {model.spec.source()}",
           f"constants  {model.describe_constants()}",
           style.dim(" ".join(filter(None, (view.legend, CHANGES['diff' if diff else 'colour' if color else 'plain']))))]
    if view.lasso is not None:  # what the lasso shows, before the states that show it
        out.extend(["", style.alarm(view.lasso.headline())])
    out.extend(story_lines(view, style, diff))
    out.append("")
    out.extend(summary_lines(view, style, width))
    return "\n".join(out)


def story_lines(view: TraceView, style: Style, diff: bool, markers: bool = True) -> list[str]:
    """Every state, each after a blank line: in full, or (``diff``, after the
    first) only what its step changed. ``markers`` flags the state where an
    invariant breaks."""
    out: list[str] = []
    for index, frame in enumerate(view.frames):
        out.append("")
        out.extend(frame_lines(view, index, frame, style, diff and index > 0))
        if markers:
            out.extend(style.alarm(f"  !! {b.invariant} is violated in state {frame.number}")
                       for b in view.breakages_at(index))
    if view.lasso is not None:  # a lasso goes on forever: say how
        out.append(style.alarm(f"  -> {view.lasso.phrase}"))
    return out


def frame_lines(view: TraceView, index: int, frame: Frame, style: Style, only_changes: bool) -> list[str]:
    head = f"State {frame.number}: {frame.label}"
    lines = [style.alarm(head) if index in view.illegal else style.heading(head)]
    lines.extend(f"  » {note}" for note in frame.notes)
    if only_changes:
        lines.extend(change_lines(view, index, frame, style) or ["  (no change)"])
        return lines
    for group in view.groups:
        rows = [r for r in frame.rows if r.group == group.name]
        if not rows:
            if group.empty:
                lines.append("  " + style.dim(group.empty))
            continue
        if group.style == "table":
            lines.extend(table_lines(view, index, group, rows, style))
        else:
            lines.extend(line_of(view, index, group, row, style) for row in rows)
    return lines


def shown_cell(view: TraceView, index: int, row: Row, cell: Cell, style: Style) -> tuple[str, str]:
    """A cell as drawn, and its visible text (for padding): what changed is
    marked, in a log only the slots that changed (and the high watermark if it moved)."""
    frame = view.frames[index]
    if not frame.is_changed(row, cell):
        return cell.text, cell.text
    if cell.kind == "log" and cell.data["records"]:
        change = log_change(previous_cell(view.frames, index, row, cell), cell)
        marked = [(text, change.marker_moved if offset is None else offset in change.offsets)
                  for text, offset in log_tokens(cell)]
        if any(m for _, m in marked):
            shown = " ".join(style.changed(t) if m else t for t, m in marked)
            plain = " ".join(t + ("*" if m and not style.color else "") for t, m in marked)
            return shown, plain
    return style.changed(cell.text), cell.text + ("" if style.color else "*")


def table_lines(view: TraceView, index: int, group: Group, rows: list[Row], style: Style) -> list[str]:
    """A header and one line per row, columns padded to their widest value
    (measured without colour codes)."""
    keys = [k for k, _ in group.columns]
    header = [group.title] + [h for _, h in group.columns]
    drawn = [[(row.name, row.name)] + [shown_cell(view, index, row, _cell(row, k), style) for k in keys]
             for row in rows]
    widths = [max(len(x) for x in column) for column in zip(header, *([p for _, p in r] for r in drawn))]
    lines = ["  " + style.dim("  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip())]
    for cells in drawn:
        padded = [shown + " " * (w - len(plain)) for (shown, plain), w in zip(cells, widths)]
        lines.append("  " + "  ".join(padded).rstrip())
    return lines


def _cell(row: Row, key: str) -> Cell:
    for c in row.cells:
        if c.key == key:
            return c
    return Cell(key, "")


def line_of(view: TraceView, index: int, group: Group, row: Row, style: Style) -> str:
    """A one-line group: ``quorum  leader r1 · epoch 2 · isr {r1, r2}``."""
    label = row.name if group.label_rows or group.name in ("variables", "messages") else group.title
    shown = [shown_cell(view, index, row, c, style)[0] for c in row.cells]
    parts = [f"{c.label} {text}" if c.label else text for c, text in zip(row.cells, shown)]
    return f"  {style.dim(label)}  " + " · ".join(parts)


def row_label(group: Group | None, row: Row) -> str:
    """A row named on its own line: ``r2``, ``quorum``, ``request epoch 1``
    (a request's epoch must not read like a replica's)."""
    if group is not None and group.row_title:
        return group.row_title.format(name=row.name)
    if group is None or group.name != "requests":
        return row.name
    return f"{group.title} {row.name}"


def change_lines(view: TraceView, index: int, frame: Frame, style: Style) -> list[str]:
    """What the step changed, one line per row: ``r2  epoch 0 -> 1 · log ... -> ...``;
    a row that is new in this step (a request just sent) is listed whole, and
    one that is gone (a message received) too, after a ``-``."""
    groups = {g.name: g for g in view.groups}
    out = []
    for row in frame.rows:
        before = {c.key: previous_text(view.frames, index, row, c) for c in row.cells}
        if row.cells and all(b is None for b in before.values()):
            cells = " · ".join(f"{c.label} {c.text}" if c.label else c.text for c in row.cells)
            out.append(f"  + {row_label(groups.get(row.group), row)}: {style.fresh(cells)}")
            continue
        changes = []
        for c in row.cells:
            if frame.is_changed(row, c):
                name = f"{c.label} " if c.label else ""
                new = style.fresh(c.text)
                changes.append(f"+ {name}{new}" if before[c.key] is None else f"{name}{before[c.key]} -> {new}")
        if changes:
            out.append(f"  {row_label(groups.get(row.group), row)}  " + " · ".join(changes))
    for row in frame.removed:  # a message taken off the network, say
        cells = " · ".join(f"{c.label} {c.text}" if c.label else c.text for c in row.cells)
        out.append(style.dim(f"  - {row_label(groups.get(row.group), row)}: {cells}"))
    return out


def summary_lines(view: TraceView, style: Style, width: int) -> list[str]:
    lines = []
    for b in view.breakages:  # the state is flagged where it breaks: here, only why
        lines.extend(style.alarm(line) for line in textwrap.wrap(b.explanation, width, subsequent_indent="  "))
    if view.lasso is not None and view.lasso.explanation:
        lines.extend(style.alarm(line) if i == 0 else line
                     for i, line in enumerate(view.lasso.explanation.splitlines()))
    elif not view.breakages:
        lines.append("No invariant checked here is violated in this trace.")
    for k in view.illegal:
        lines.append(style.alarm(f"State {k + 1} does not follow from state {k} by any action of "
                                 f"{view.model.spec.name} (modelcheck replay shows the closest legal step)."))
    return lines


def story_text(path: str, model=None) -> str:
    """A written counterexample as ``modelcheck run`` prints it: exactly the
    states of ``modelcheck show --diff PATH``, in plain text, without the
    page heading (the report has its own) and without flagging the broken
    invariant (the report says it once, above)."""
    from modelcheck.presentation.viewer import load_view
    return "\n".join(story_lines(load_view(path, model=model), Style(False), diff=True, markers=False)).strip("\n")
