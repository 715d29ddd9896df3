"""What each state of a trace shows: groups of rows of cells, and what changed.

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
* AsyncIsr: the controller's and the leader's ISR state, each replica's
  offset and ISR membership, and the request and update messages;
* any variable no layout claims is shown whole, so nothing is hidden.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from modelcheck.values import Function, Record, show

NIL = -1


@dataclass(frozen=True)
class Cell:
    key: str
    text: str
    kind: str = "text"  # "text", "set" (replica names) or "log" (records by offset)
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


@dataclass
class Frame:
    number: int  # 1-based state number
    label: str  # "Init" or the action with its parameters
    rows: list[Row]
    changed: set[tuple[str, str, str]] = field(default_factory=set)  # (group, row, cell key)

    def is_changed(self, row: Row, cell: Cell) -> bool:
        return (row.group, row.name, cell.key) in self.changed


@dataclass
class Layout:
    groups: list[Group]
    rows: Callable[[Any, tuple, dict], list[Row]]  # (model, state, values) -> rows
    variables: frozenset[str]


# --- building blocks ------------------------------------------------------------------

def names_text(members) -> str:
    return "{" + ", ".join(sorted(members)) + "}"


def set_cell(key: str, members, universe: Sequence[str], label: str | None = None) -> Cell:
    members = sorted(members, key=list(universe).index) if all(m in universe for m in members) else sorted(members)
    return Cell(key, names_text(members), "set", {"members": list(members), "universe": list(universe)},
                label or key)


def record_text(record) -> str:
    return f"id{record['id']}@{record['epoch']}"


def log_cell(key: str, slots: Sequence[Any], end: int, marker: int | None, marker_name: str) -> Cell:
    """A log drawn offset by offset: ``id0@2`` per record, ``_`` per empty
    slot, and ``|`` where the marker (the high watermark) sits."""
    data = {"records": [{"id": r["id"], "epoch": r["epoch"]} if o < end and isinstance(r, Record) else None
                        for o, r in enumerate(slots)],
            "end": end, "marker": marker, "marker_name": marker_name}
    cell = Cell(key, "", "log", data, key)
    tokens = [text for text, _ in log_tokens(cell)]
    return Cell(key, " ".join(tokens) if tokens else "(empty)", "log", data, key)


def text_cell(key: str, value, label: str | None = None) -> Cell:
    return Cell(key, show(value), label=label or key)


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


# --- AsyncIsr ------------------------------------------------------------------------------

ASYNC_ISR_VARIABLES = frozenset({"controllerState", "leaderState", "requests", "updates"})

ASYNC_ISR_GROUPS = [
    Group("controller", "controller", "line"),
    Group("leader", "leader", "line"),
    Group("replicas", "replica", "table",
          (("offset", "offset"), ("controllerIsr", "in controller ISR"), ("leaderIsr", "in leader ISR"),
           ("pending", "in pending ISR"))),
    Group("messages", "messages", "line"),
]


def async_isr_rows(model, state, values) -> list[Row]:
    from modelcheck.explain import Probe
    from specs.async_isr import high_watermark  # the spec's own operator, not a copy of it
    controller, leader = values["controllerState"], values["leaderState"]
    replicas = list(leader["offsets"])
    hw = Probe(model, state).value(high_watermark(Probe(model, state).s))
    rows = [
        Row("controller", "controller", [set_cell("isr", controller["isr"], replicas),
                                         text_cell("version", controller["version"])]),
        Row("leader", "leader", [set_cell("isr", leader["isr"], replicas), text_cell("version", leader["version"]),
                                 set_cell("pendingIsr", leader["pendingIsr"], replicas, "pending isr"),
                                 text_cell("pendingVersion", leader["pendingVersion"], "pending version"),
                                 text_cell("highWatermark", hw, "high watermark")]),
    ]
    for name in replicas:
        rows.append(Row("replicas", name, [
            text_cell("offset", leader["offsets"][name]),
            Cell("controllerIsr", "yes" if name in controller["isr"] else "no", label="in controller ISR"),
            Cell("leaderIsr", "yes" if name in leader["isr"] else "no", label="in leader ISR"),
            Cell("pending", "yes" if name in leader["pendingIsr"] else "no", label="in pending ISR"),
        ]))
    for var in ("requests", "updates"):
        messages = sorted(values[var], key=lambda m: (m["version"], sorted(m["isr"])))
        rows.append(Row("messages", var, [Cell(f"v{m['version']}:{','.join(sorted(m['isr']))}",
                                               f"v{m['version']} {names_text(m['isr'])}") for m in messages]
                        or [Cell("none", "none")]))
    return rows


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
    Layout(REPLICATION_GROUPS, replication_rows, REPLICATION_VARIABLES),
    Layout(CONSUMER_GROUPS, consumer_rows, CONSUMER_VARIABLES),
    Layout(PRODUCER_GROUPS, producer_rows, PRODUCER_VARIABLES),
    Layout(ASYNC_ISR_GROUPS, async_isr_rows, ASYNC_ISR_VARIABLES),
]


def layouts_for(variables: Sequence[str]) -> tuple[list[Layout], list[str]]:
    """The layouts whose variables the spec has, and the variables left over."""
    have = set(variables)
    chosen = [layout for layout in LAYOUTS if layout.variables <= have]
    claimed = set().union(*(layout.variables for layout in chosen)) if chosen else set()
    return chosen, [v for v in variables if v not in claimed]


def groups_for(variables: Sequence[str]) -> list[Group]:
    chosen, rest = layouts_for(variables)
    groups = [g for layout in chosen for g in layout.groups]
    return groups + ([OTHER_GROUP] if rest else [])


def rows_for(model, state: tuple) -> list[Row]:
    values = model.codec.encode(state)
    chosen, rest = layouts_for(list(values))
    rows = [row for layout in chosen for row in layout.rows(model, state, values)]
    return rows + other_rows(values, rest)


def state_line(model, state: tuple) -> str:
    """A whole state on one line, as the viewers write it: ``r1: leader self ·
    epoch 2 · hw 1 · isr {r1, r2} · log id0@2 | _; ...; quorum: leader r1 · ...``."""
    parts = []
    for row in rows_for(model, state):
        name = f"request {row.name}" if row.group == "requests" else row.name
        parts.append(f"{name}: " + " · ".join(f"{c.label} {c.text}" if c.label else c.text for c in row.cells))
    return "; ".join(parts)


def build_frames(model, states: Sequence[tuple], labels: Sequence[str]) -> list[Frame]:
    """One frame per state, each marking the cells that differ from the frame before."""
    frames: list[Frame] = []
    previous: dict[tuple[str, str, str], str] | None = None
    for number, (state, label) in enumerate(zip(states, labels), start=1):
        rows = rows_for(model, state)
        texts = {(r.group, r.name, c.key): c.text for r in rows for c in r.cells}
        changed = set() if previous is None else {k for k, t in texts.items() if previous.get(k) != t}
        frames.append(Frame(number, label, rows, changed))
        previous = texts
    return frames


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


def log_tokens(cell: Cell) -> list[tuple[str, int | None]]:
    """The log's text token by token, each with its offset (None for the marker):
    ``[("|", None), ("id0@2", 0), ("_", 1)]`` for ``| id0@2 _``."""
    data = cell.data
    tokens: list[tuple[str, int | None]] = [(record_text(r) if r else "_", o) for o, r in enumerate(data["records"])]
    if data["marker"] is not None:
        tokens.insert(min(data["marker"], len(tokens)), ("|", None))
    return tokens
