"""What a state shows in the trace viewers: cells, rows, groups and layouts.

The viewers (``modelcheck/presentation/viewer/``) draw a state as groups of rows of
cells. This is their vocabulary, kept apart from the viewers so that a spec
can declare its own layout with it (``SpecDefinition.layout``) without
importing the viewers: the spec hands the viewer a ``Layout``, and the
viewer draws it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from modelcheck.language.values import Record, show


@dataclass(frozen=True)
class Cell:
    key: str
    text: str
    kind: str = "text"  # "text", "set" (replica names), "log" (records by offset) or "placeholder" (says "none")
    data: Any = None  # structured form for the HTML viewer (JSON-ready)
    label: str | None = None  # shown before the value when the row is drawn on one line


@dataclass
class Row:
    group: str
    name: str
    cells: list[Cell]


@dataclass(frozen=True)
class Group:
    name: str
    title: str  # a line's label, or a table's first column header
    style: str  # "table": a header and a line per row; "line": each row on one line
    columns: tuple[tuple[str, str], ...] = ()  # (cell key, header) for tables
    heading: str = ""  # the section heading in the HTML viewer (default: the name)
    empty: str = ""  # what to say when the group has no rows in a state
    label_rows: bool = False  # a "line" group: start each line with its row's name, not the title
    row_title: str = ""  # how a row is named on a line of its own ("{name} replica"; default: its name)


@dataclass
class Layout:
    groups: list[Group]
    rows: Callable[[Any, tuple, dict], list[Row]]  # (model, state, values) -> rows
    variables: frozenset[str]
    # how its logs are written, for the viewers' legends (default: LOG_LEGEND)
    legend: str | None = None
    # (model, values before or None, values) -> sentences saying what the step did
    notes: Callable[[Any, dict | None, dict], list[str]] | None = None


LOG_LEGEND = "log: one record per offset as id@epoch, _ an empty slot, | the high watermark."


# --- building blocks ------------------------------------------------------------------

def names_text(members) -> str:
    return "{" + ", ".join(sorted(members)) + "}"


def set_cell(key: str, members, universe: Sequence[str], label: str | None = None) -> Cell:
    members = sorted(members, key=list(universe).index) if all(m in universe for m in members) else sorted(members)
    return Cell(key, names_text(members), "set", {"members": list(members), "universe": list(universe)},
                label or key)


def record_text(record) -> str:
    return f"id{record['id']}@{record['epoch']}"


def log_cell(key: str, slots: Sequence[Any], end: int, marker: int | None, marker_name: str,
             base: int = 0, text: Callable[[Any], str] = record_text) -> Cell:
    """A log drawn offset by offset: ``id0@2`` per record (or what ``text``
    makes of it), ``_`` per empty slot, and ``|`` where the marker (the high
    watermark) sits. ``slots`` start at offset ``base``; ``end`` and
    ``marker`` count slots from the first."""
    data = {"records": [{"id": r.get("id"), "epoch": r["epoch"], "text": text(r)}
                        if o < end and isinstance(r, Record) else None for o, r in enumerate(slots)],
            "end": end, "marker": marker, "marker_name": marker_name, "base": base}
    cell = Cell(key, "", "log", data, key)
    tokens = [text for text, _ in log_tokens(cell)]
    return Cell(key, " ".join(tokens) if tokens else "(empty)", "log", data, key)


def text_cell(key: str, value, label: str | None = None) -> Cell:
    return Cell(key, show(value), label=label or key)


def log_tokens(cell: Cell) -> list[tuple[str, int | None]]:
    """The log's text token by token, each with its offset (None for the marker):
    ``[("|", None), ("id0@2", 0), ("_", 1)]`` for ``| id0@2 _``."""
    data = cell.data
    tokens: list[tuple[str, int | None]] = [(r.get("text") or record_text(r) if r else "_", o)
                                            for o, r in enumerate(data["records"])]
    if data["marker"] is not None:
        tokens.insert(min(data["marker"], len(tokens)), ("|", None))
    return tokens
