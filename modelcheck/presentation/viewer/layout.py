"""What each state of a trace shows: groups of rows of cells (their
vocabulary is modelcheck/model/display.py), and what changed.

The terminal and HTML viewers draw the same ``Frame`` per state, so what a
reader sees is decided here once. A layout is picked by the TLA+ variables a
spec has:

* the replication family (replicaLog, replicaState, ...): a row per replica
  (its leader, epoch, high watermark, ISR and log), the quorum state, the
  LeaderAndIsr requests and the two counters;
* kip320-consumer adds a consumer row: the leader and epoch it believes in,
  its position, what it delivered, and whether validation is pending;
* kafka-clients adds a producer row the same way (its leader and epoch, the
  acks=all request in flight, what was acknowledged, the newest leader epoch
  that served it), the group's committed offset and the clients' flags;
* a spec may declare its own layouts (``SpecDefinition.layout``), as
  AsyncIsr and the KRaft specs do; those are drawn first, and the viewer
  needs to know nothing of the spec's modules;
* any variable no layout claims is shown whole, so nothing is hidden.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

# the vocabulary of layouts (modelcheck/model/display.py), also read from here by the viewers
from modelcheck.model.display import (LOG_LEGEND, Cell, Group, Layout, Row, log_cell, log_tokens, names_text,  # noqa: F401
                                      record_text, set_cell, text_cell)
from modelcheck.language.values import Function, show

NIL = -1


@dataclass
class Frame:
    number: int  # 1-based state number
    label: str  # "Init" or the action with its parameters
    rows: list[Row]
    changed: set[tuple[str, str, str]] = field(default_factory=set)  # (group, row, cell key)
    removed: list[Row] = field(default_factory=list)  # rows of the frame before that are gone (messages taken)
    notes: list[str] = field(default_factory=list)  # what the step did, in the protocol's words (if the layout says)

    def is_changed(self, row: Row, cell: Cell) -> bool:
        return (row.group, row.name, cell.key) in self.changed


# --- the replication family ----------------------------------------------------------------

REPLICATION_VARIABLES = frozenset({"replicaLog", "replicaState", "nextRecordId", "nextLeaderEpoch",
                                   "leaderAndIsrRequests", "quorumState"})

REPLICATION_GROUPS = [
    Group("replicas", "replica", "table",
          (("leader", "leader"), ("epoch", "epoch"), ("hw", "hw"), ("isr", "isr"), ("log", "log"))),
    Group("quorum", "quorum", "line"),
    Group("requests", "request", "table", (("leader", "leader"), ("isr", "isr"), ("pending", "pending for")),
          "LeaderAndIsr requests", "no LeaderAndIsr request yet"),
    Group("counters", "counters", "line"),
]


def request_row(request, replica_states, replicas) -> Row:
    """A LeaderAndIsr request, and the replicas still on an older epoch, for
    which it is pending (requests stay in the set; a replica acts on one only
    if its epoch is newer than its own)."""
    epoch = request["leaderEpoch"]
    pending = [name for name, rs in replica_states.items() if rs["leaderEpoch"] < epoch]
    return Row("requests", f"epoch {epoch}", [
        text_cell("leader", request["leader"]),
        set_cell("isr", request["isr"], replicas),
        Cell("pending", ", ".join(pending) or "-", "text", {"pending": pending}, "pending for"),
    ])


def replication_rows(model, state, values) -> list[Row]:
    replicas = list(values["replicaState"])
    rows = []
    for name in replicas:
        rs, log = values["replicaState"][name], values["replicaLog"][name]
        leader = rs["leader"]
        slots = list(log["records"].values())
        rows.append(Row("replicas", name, [
            Cell("leader", "self" if leader == name else show(leader), "text",
                 {"leader": leader, "self": leader == name}, "leader"),
            text_cell("epoch", rs["leaderEpoch"]),
            text_cell("hw", rs["hw"]),
            set_cell("isr", rs["isr"], replicas),
            log_cell("log", slots, log["endOffset"], rs["hw"], "hw"),
        ]))
    q = values["quorumState"]
    rows.append(Row("quorum", "quorum", [text_cell("leader", q["leader"]), text_cell("epoch", q["leaderEpoch"]),
                                         set_cell("isr", q["isr"], replicas)]))
    requests = sorted(values["leaderAndIsrRequests"], key=lambda r: r["leaderEpoch"])
    rows.extend(request_row(r, values["replicaState"], replicas) for r in requests)
    rows.append(Row("counters", "counters", [text_cell("nextRecordId", values["nextRecordId"]),
                                             text_cell("nextLeaderEpoch", values["nextLeaderEpoch"])]))
    return rows


# --- the consumer of kip320-consumer -------------------------------------------------------

CONSUMER_VARIABLES = frozenset({"consumerLeader", "consumerEpoch", "consumerPosition", "consumerLastEpoch",
                                "consumerLog", "consumerValidated", "divergentDelivery"})

# a single consumer: one line (a table would name it in its header and again in its row)
CONSUMER_GROUPS = [Group("consumer", "consumer", "line")]


def consumer_rows(model, state, values) -> list[Row]:
    delivered = list(values["consumerLog"].values())
    position = values["consumerPosition"]
    return [Row("consumer", "consumer", [
        text_cell("leader", values["consumerLeader"]),
        text_cell("epoch", values["consumerEpoch"]),
        text_cell("position", position),
        text_cell("lastEpoch", values["consumerLastEpoch"], "last epoch"),
        Cell("validation", "done" if values["consumerValidated"] else "pending", label="validation"),
        log_cell("delivered", delivered, position, None, "position"),
        Cell("divergent", "YES" if values["divergentDelivery"] else "no", label="divergent"),
    ])]


# --- the producer of kafka-clients ---------------------------------------------------------

PRODUCER_VARIABLES = frozenset({"producerLeader", "producerEpoch", "producerPending", "acked", "staleWrite",
                                "committed", "producerActedEpoch", "consumerActedEpoch", "leaderRegression",
                                "spuriousOutOfRange"})

PRODUCER_GROUPS = [
    Group("producer", "producer", "table",
          (("leader", "leader"), ("epoch", "epoch"), ("pending", "pending"), ("acked", "acknowledged"),
           ("actedEpoch", "served up to epoch"), ("staleWrite", "stale write"))),
    Group("group", "group", "line"),
    Group("history", "clients", "line", heading="clients"),
]


def pending_text(pending) -> str:
    """The acks=all request in flight: its record, offset and leader."""
    if pending["leader"] == "NONE":
        return "-"
    return f"{record_text(pending['record'])} at {pending['offset']} on {pending['leader']}"


def committed_text(committed) -> str:
    """The group's committed offset and the leader epoch stored with it."""
    epoch = committed["leaderEpoch"]
    return f"{committed['offset']}" + (" (no epoch)" if epoch == NIL else f" in epoch {epoch}")


def producer_rows(model, state, values) -> list[Row]:
    acked = [f"id{i} at {a['offset']} (leader epoch {a['leaderEpoch']})"
             for i, a in values["acked"].items() if a["offset"] != NIL]
    return [Row("producer", "producer", [
        text_cell("leader", values["producerLeader"]),
        text_cell("epoch", values["producerEpoch"]),
        Cell("pending", pending_text(values["producerPending"]), label="pending"),
        Cell("acked", ", ".join(acked) or "-", label="acknowledged"),
        text_cell("actedEpoch", values["producerActedEpoch"], "served up to epoch"),
        Cell("staleWrite", "YES" if values["staleWrite"] else "no", label="stale write"),
    ]), Row("group", "group", [
        Cell("committed", committed_text(values["committed"]), label="committed"),
        text_cell("actedEpoch", values["consumerActedEpoch"], "consumer served up to epoch"),
    ]), Row("history", "clients", [
        Cell("leaderRegression", "YES" if values["leaderRegression"] else "no", label="leader regression"),
        Cell("spuriousOutOfRange", "YES" if values["spuriousOutOfRange"] else "no", label="spurious out of range"),
    ])]


# --- anything else ---------------------------------------------------------------------------

OTHER_GROUP = Group("variables", "variables", "line")


def other_rows(values: dict, names: Sequence[str]) -> list[Row]:
    rows = []
    for var in names:
        value = values[var]
        if isinstance(value, Function):
            cells = [Cell(show(k), show(v), label=f"[{show(k)}]") for k, v in value.items()]
        else:
            cells = [Cell("value", show(value))]
        rows.append(Row("variables", var, cells))
    return rows


LAYOUTS = [
    Layout(REPLICATION_GROUPS, replication_rows, REPLICATION_VARIABLES, LOG_LEGEND),
    Layout(CONSUMER_GROUPS, consumer_rows, CONSUMER_VARIABLES, LOG_LEGEND),
    Layout(PRODUCER_GROUPS, producer_rows, PRODUCER_VARIABLES, LOG_LEGEND),
]


def declared_layouts(spec) -> list[Layout]:
    """The layouts a spec declares for itself (``SpecDefinition.layout``)."""
    declare = getattr(spec, "layout", None)
    return list(declare()) if declare is not None else []


def layouts_for(variables: Sequence[str], declared: Sequence[Layout] = ()) -> tuple[list[Layout], list[str]]:
    """The layouts to draw: those the spec declares, then the built-in ones
    whose variables the spec has (and no declared layout claims), and the
    variables left over."""
    have = set(variables)
    chosen = [layout for layout in declared if layout.variables <= have]
    claimed = set().union(*(layout.variables for layout in chosen)) if chosen else set()
    chosen += [layout for layout in LAYOUTS if layout.variables <= have - claimed]
    claimed = set().union(*(layout.variables for layout in chosen)) if chosen else set()
    return chosen, [v for v in variables if v not in claimed]


def groups_for(variables: Sequence[str], declared: Sequence[Layout] = ()) -> list[Group]:
    chosen, rest = layouts_for(variables, declared)
    groups = [g for layout in chosen for g in layout.groups]
    return groups + ([OTHER_GROUP] if rest else [])


def legend_for(variables: Sequence[str], declared: Sequence[Layout] = ()) -> str:
    """How the chosen layouts write logs: the first legend a layout gives
    (none for a spec whose layouts draw no log, or that has no layout)."""
    chosen, _ = layouts_for(variables, declared)
    return next((layout.legend for layout in chosen if layout.legend), "")


def rows_for(model, state: tuple) -> list[Row]:
    values = model.codec.encode(state)
    chosen, rest = layouts_for(list(values), declared_layouts(model.spec))
    rows = [row for layout in chosen for row in layout.rows(model, state, values)]
    return rows + other_rows(values, rest)


def notes_for(model, before: tuple | None, state: tuple) -> list[str]:
    """What a step did, as the chosen layouts tell it (nothing for layouts
    that do not say)."""
    values = model.codec.encode(state)
    chosen, _ = layouts_for(list(values), declared_layouts(model.spec))
    old = None if before is None else model.codec.encode(before)
    return [note for layout in chosen if layout.notes is not None for note in layout.notes(model, old, values)]


def state_line(model, state: tuple) -> str:
    """A whole state on one line, as the viewers write it: ``r1: leader self ·
    epoch 2 · hw 1 · isr {r1, r2} · log id0@2 | _; ...; quorum: leader r1 · ...``."""
    parts = []
    titles = {g.name: g.row_title for g in groups_for(model.codec.names, declared_layouts(model.spec))}
    for row in rows_for(model, state):
        name = f"request {row.name}" if row.group == "requests" else row.name
        if titles.get(row.group):  # "broker 1 replica", not a second "broker 1"
            name = titles[row.group].format(name=row.name)
        parts.append(f"{name}: " + " · ".join(f"{c.label} {c.text}" if c.label else c.text for c in row.cells))
    return "; ".join(parts)


def gone_rows(before: Sequence[Row], rows: Sequence[Row]) -> list[Row]:
    """What a step took away: the rows of the frame before that are gone
    (a message received), and of the others, the cells that are gone (a
    request no longer pending), each row with just those cells."""
    here = {(r.group, r.name): {c.key for c in r.cells} for r in rows}
    out = []
    for row in before:
        keys = here.get((row.group, row.name))
        cells = [c for c in row.cells if (keys is None or c.key not in keys) and c.kind != "placeholder"]
        if cells:
            out.append(Row(row.group, row.name, cells))
    return out


def build_frames(model, states: Sequence[tuple], labels: Sequence[str]) -> list[Frame]:
    """One frame per state, each marking the cells that differ from the frame before."""
    frames: list[Frame] = []
    previous: dict[tuple[str, str, str], str] | None = None
    before: tuple | None = None
    for number, (state, label) in enumerate(zip(states, labels), start=1):
        rows = rows_for(model, state)
        texts = {(r.group, r.name, c.key): c.text for r in rows for c in r.cells}
        changed = set() if previous is None else {k for k, t in texts.items() if previous.get(k) != t}
        removed = gone_rows(frames[-1].rows, rows) if frames else []
        frames.append(Frame(number, label, rows, changed, removed, notes_for(model, before, state)))
        previous, before = texts, state
    return frames


# Rows that stand for a party acting on a leader epoch of its own: a
# replica (the epoch of the last LeaderAndIsr request it took), or a
# client (the epoch of the metadata it holds).
ACTOR_GROUPS = ("replicas", "consumer", "producer")


def controller_epoch(frame: Frame) -> int | None:
    """The leader epoch the controller has reached in a state (the quorum's)."""
    for row in frame.rows:
        if row.group in ("quorum", "controller"):
            for cell in row.cells:
                if cell.key == "epoch" and cell.text.lstrip("-").isdigit():
                    return int(cell.text)
    return None


def stale_actors(frame: Frame) -> list[tuple[str, int]]:
    """The parties a step moved while on an older leader epoch than the
    controller's, each with the epoch it is on after the step: the replica
    that takes a stale LeaderAndIsr request, fetches or truncates as a
    follower of an old epoch, or the client that acts on old metadata.
    These are the steps a stale-epoch bug is made of."""
    current = controller_epoch(frame)
    if current is None:
        return []
    out = []
    for row in frame.rows:
        if row.group not in ACTOR_GROUPS or not any(frame.is_changed(row, c) for c in row.cells):
            continue
        epoch = next((c.text for c in row.cells if c.key == "epoch"), "")
        if epoch.isdigit() and int(epoch) < current:  # -1: on no epoch yet, which is not stale
            out.append((row.name, int(epoch)))
    return out


def previous_cell(frames: Sequence[Frame], index: int, row: Row, cell: Cell) -> Cell | None:
    """The cell as it was in the frame before ``index`` (None if it was not there)."""
    if index == 0:
        return None
    for r in frames[index - 1].rows:
        if r.group == row.group and r.name == row.name:
            for c in r.cells:
                if c.key == cell.key:
                    return c
    return None


def previous_text(frames: Sequence[Frame], index: int, row: Row, cell: Cell) -> str | None:
    """What a cell showed in the frame before ``index`` (None if it was not there)."""
    before = previous_cell(frames, index, row, cell)
    return None if before is None else before.text


@dataclass(frozen=True)
class LogChange:
    """What a step changed in a log: the offsets whose slot changed, and
    whether the marker (the high watermark) moved."""

    offsets: frozenset[int]
    marker_moved: bool


def log_change(before: Cell | None, after: Cell) -> LogChange:
    """Compare a log cell with the one before, slot by slot."""
    if before is None or before.kind != "log" or after.kind != "log":
        return LogChange(frozenset(range(len(after.data["records"]))), True)
    old, new = before.data["records"], after.data["records"]
    offsets = {o for o in range(max(len(old), len(new)))
               if (old[o] if o < len(old) else None) != (new[o] if o < len(new) else None)}
    return LogChange(frozenset(o for o in offsets if o < len(new)), before.data["marker"] != after.data["marker"])
