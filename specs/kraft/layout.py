"""How the trace viewers draw a state of the KRaft specs (``kraft-3.5`` and
``kraft-kip966``), in a Kafka engineer's terms.

* brokers: each broker's process (running, starting, shut down cleanly or
  uncleanly), whether the controller has it fenced, its broker epoch, and
  how much of the metadata log it has applied;
* partition replicas: what each broker holds of the partition: its role,
  the leader and epochs it knows, its ISR, high watermark and log;
* fetching and ISR changes: the followers' fetchers, what a leader knows of
  its followers, and its AlterPartition request waiting for an answer;
* the controller's partition state (leader, ISR, ELR under KIP-966, leader
  and partition epochs, replicas) and its metadata log, record by record;
* the messages in flight, each in one line;
* the producer and consumer (sent, acknowledged, committed, consumed) and
  the state-space limits used so far.

Each step is also told in words (``specs/kraft/story.py``). The viewer
reads this through ``SpecDefinition.layout``.
"""

from __future__ import annotations

from modelcheck.model.display import Cell, Group, Layout, Row, log_cell, set_cell, text_cell
from modelcheck.language.values import Function, Record, show
from modelcheck.specs.kraft.story import broker_name, entry_text, isr_text, leader_text, names, notes, records_text

INT_MAX = 10000  # how the module writes "no write awaits acknowledgement" (IntMax)

STATUS = {"STARTING": "starting", "RUNNING": "running", "OFFLINE_CLEAN": "shut down cleanly",
          "OFFLINE_DIRTY": "shut down uncleanly"}
# KIP-966 names its shutdowns by whether the log survives (a no-data-loss one may still lose the epoch on file)
STATUS_KIP_966 = {**STATUS, "OFFLINE_CLEAN": "shut down, log kept", "OFFLINE_DIRTY": "shut down, log lost"}
ROLE = {"Leader": "leader", "Follower": "follower", "Nil": "-"}

LEGEND = ("log: one record per offset (from offset 1) as value@leader epoch, _ an empty slot, "
          "| the high watermark.")


def groups(elr: bool) -> list[Group]:
    """The groups drawn; the ELR columns only for KIP-966."""
    return [
        Group("brokers", "broker", "table",
              (("status", "status"), ("controller", "controller"), ("brokerEpoch", "broker epoch"),
               ("metadata", "metadata applied"))),
        Group("replicas", "replica", "table",
              (("role", "role"), ("leader", "leader"), ("leaderEpoch", "leader epoch"),
               ("partitionEpoch", "partition epoch"), ("isr", "isr"), ("hw", "hw"), ("log", "log")),
              "partition replicas", row_title="{name} replica"),
        Group("replication", "replication", "line", heading="fetching and ISR changes",
              empty="no fetch or ISR change under way", label_rows=True, row_title="{name} replication"),
        Group("controller", "controller", "line", heading="controller"),
        Group("metadata", "record", "table",
              (("leader", "leader"), ("leaderEpoch", "leader epoch"), ("partitionEpoch", "partition epoch"),
               ("isr", "isr")) + ((("elr", "elr"),) if elr else ()) + (("replicas", "replicas"),
                                                                      ("appliedBy", "applied by")),
              "metadata log", "the metadata log is empty", row_title="metadata record at {name}"),
        Group("network", "in flight", "line", heading="in flight", empty="no message in flight", label_rows=True),
        Group("clients", "clients", "line", heading="producer and consumer"),
        Group("limits", "limits", "line", heading="limits used"),
    ]


VARIABLES = frozenset({
    "con_unfenced", "con_broker_reg", "con_partition_metadata", "con_metadata_log", "broker_state",
    "broker_fetchers", "broker_metadata_log", "partition_status", "partition_metadata", "partition_data",
    "partition_leso", "partition_replica_state", "partition_pending_ap", "messages", "messages_discard",
    "aux_broker_epoch", "aux_ctrs", "aux_flo", "inv_sent", "inv_pos_acked", "inv_neg_acked", "inv_true_hwm",
    "inv_consumed"})


# --- small pieces -------------------------------------------------------------------------

def broker_set(key: str, members, brokers, label: str | None = None) -> Cell:
    return set_cell(key, names(members), [str(b) for b in brokers], label)


# --- rows --------------------------------------------------------------------------------

def broker_rows(values) -> list[Row]:
    rows = []
    known = len(values["con_metadata_log"])
    statuses = STATUS_KIP_966 if "elr" in values["con_partition_metadata"] else STATUS
    for b, state in values["broker_state"].items():
        reg = values["con_broker_reg"][b]
        status = statuses.get(state["status"], show(state["status"]))
        if state["status"] == "RUNNING" and not state["registered"]:
            status += ", unregistered"
        epoch = str(state["broker_epoch"])
        if reg["broker_epoch"] != state["broker_epoch"]:
            epoch += f" (controller: {reg['broker_epoch']})"
        rows.append(Row("brokers", broker_name(b), [
            Cell("status", status, label="status"),
            Cell("controller", "unfenced" if b in values["con_unfenced"] else "fenced", label="controller"),
            Cell("brokerEpoch", epoch, label="broker epoch"),
            Cell("metadata", f"{len(values['broker_metadata_log'][b])} of {known}", label="metadata applied"),
        ]))
    return rows


def replica_rows(model, values) -> list[Row]:
    brokers = list(values["broker_state"])
    width = len(model.constants.Values)  # each value is written at most once: a log never holds more
    rows = []
    for b in brokers:
        meta, data = values["partition_metadata"][b], values["partition_data"][b]
        log = list(data["log"])
        rows.append(Row("replicas", broker_name(b), [
            Cell("role", ROLE.get(values["partition_status"][b], show(values["partition_status"][b])),
                 label="role"),
            Cell("leader", leader_text(meta["leader"]), label="leader"),
            text_cell("leaderEpoch", meta["leader_epoch"], "leader epoch"),
            text_cell("partitionEpoch", meta["partition_epoch"], "partition epoch"),
            broker_set("isr", meta["isr"], brokers),
            text_cell("hw", data["hwm"]),
            log_cell("log", log + [None] * (width - len(log)), len(log), data["hwm"] - 1, "hw", base=1,
                     text=entry_text),
        ]))
    return rows


def fetcher_cells(values, b) -> list[Cell]:
    cells = []
    for leader, fetcher in values["broker_fetchers"][b].items():
        partition = fetcher["partition"]
        if not isinstance(partition, Record):
            continue
        state = [what for what, held in (("awaiting response", fetcher["pending_response"]),
                                         ("backing off", partition["delayed"])) if held]
        cells += [text_cell(f"fetch{leader}", partition["fetch_offset"], f"fetches from {leader} at offset"),
                  text_cell(f"lastEpoch{leader}", partition["last_fetched_epoch"], "last fetched epoch"),
                  Cell(f"fetchState{leader}", ", ".join(state) or "idle", label="fetch")]
    return cells


def leader_cells(values, b) -> list[Cell]:
    """What broker b, as a leader, knows: its followers' log end offsets (and
    broker epochs), its maximal ISR, its epoch start offset, the writes
    awaiting acknowledgement and its AlterPartition request in flight."""
    cells = []
    meta = values["partition_metadata"][b]
    for peer, known in values["partition_replica_state"][b].items():
        if peer != b and (known["leo"] != "Nil" or known["broker_epoch"] != 0):
            leo = "unknown" if known["leo"] == "Nil" else known["leo"]
            cells.append(Cell(f"follower{peer}", f"log end {leo}, broker epoch {known['broker_epoch']}",
                              label=f"follower {peer}"))
    if values["partition_status"][b] == "Leader" and set(meta["maximal_isr"]) != set(meta["isr"]):
        cells.append(Cell("maximalIsr", isr_text(meta["maximal_isr"]), label="maximal isr"))
    if values["partition_leso"][b] != "Nil":
        cells.append(text_cell("leso", values["partition_leso"][b], "epoch start offset"))
    if values["aux_flo"][b] != INT_MAX:
        cells.append(text_cell("flo", values["aux_flo"][b], "acks pending from offset"))
    request = values["partition_pending_ap"][b]["request"]
    if isinstance(request, Record):
        cells.append(Cell("pendingAp", f"isr {isr_text(request['isr'])} at partition epoch "
                                       f"{request['partition_epoch']}", label="AlterPartition awaiting answer"))
    return cells


def replication_rows(values) -> list[Row]:
    rows = []
    for b in values["broker_state"]:
        cells = fetcher_cells(values, b) + leader_cells(values, b)
        if cells:
            rows.append(Row("replication", broker_name(b), cells))
    return rows


def controller_row(values) -> Row:
    part = values["con_partition_metadata"]
    brokers = list(values["broker_state"])
    cells = [Cell("leader", leader_text(part["leader"]), label="leader"),
             text_cell("epoch", part["leader_epoch"], "leader epoch"),
             text_cell("partitionEpoch", part["partition_epoch"], "partition epoch"),
             broker_set("isr", part["isr"], brokers)]
    if "elr" in part:  # KIP-966's eligible leader replicas
        cells += [broker_set("elr", part["elr"], brokers), broker_set("lastKnownElr", part["last_known_elr"],
                                                                       brokers, "last known elr")]
    cells.append(broker_set("replicas", part["replicas"], brokers))
    for key in ("adding", "removing"):
        if part[key]:
            cells.append(broker_set(key, part[key], brokers))
    return Row("controller", "controller", cells)


def metadata_rows(values) -> list[Row]:
    brokers = list(values["broker_state"])
    rows = []
    for k, record in enumerate(values["con_metadata_log"], start=1):
        applied = [b for b in brokers if len(values["broker_metadata_log"][b]) >= k]
        cells = [Cell("leader", leader_text(record["leader"]), label="leader"),
                 text_cell("leaderEpoch", record["leader_epoch"], "leader epoch"),
                 text_cell("partitionEpoch", record["partition_epoch"], "partition epoch"),
                 broker_set("isr", record["isr"], brokers)]
        if "elr" in record:
            cells.append(broker_set("elr", record["elr"], brokers))
        cells += [broker_set("replicas", record["replicas"], brokers),
                  Cell("appliedBy", ", ".join(map(str, applied)) or "-", label="applied by")]
        rows.append(Row("metadata", f"offset {k}", cells))
    return rows


# --- messages -------------------------------------------------------------------------------

def fetch_response_text(p) -> str:
    if p["error"] != "Nil":
        return f"error {p['error']}, leader epoch {p['leader_epoch']}"
    parts = [f"records {records_text(p['records'])}" if p["records"] else "no records",
             f"high watermark {p['hwm']}", f"leader epoch {p['leader_epoch']}", f"fetch offset {p['fetch_offset']}"]
    diverging = p["diverging_epoch"]
    if isinstance(diverging, Record):  # the follower's last fetched epoch ends earlier on the leader
        parts.append(f"diverging: leader epoch {diverging['epoch']} ends at offset {diverging['offset']}")
    return ", ".join(parts)


def alter_request_text(m) -> str:
    epochs = m["isr_and_epochs"]
    with_epochs = ", ".join(f"{b}: {epochs[b]}" for b in sorted(epochs)) if isinstance(epochs, Function) else ""
    return (f"isr {isr_text(m['isr'])}" + (f" (broker epochs {with_epochs})" if with_epochs else "")
            + f", leader epoch {m['leader_epoch']}, partition epoch {m['partition_epoch']}")


def message_line(m) -> tuple[str, str]:
    """A message as (what and where, its content), in Kafka's words."""
    kind, src, dst = m["type"], show(m["source"]), show(m["dest"])
    route = f"{src} → {dst}".replace("Controller", "controller")
    if kind == "FetchRequest":
        p = m["partition"]
        return (f"Fetch {route}", f"fetch offset {p['fetch_offset']}, last fetched epoch "
                f"{p['last_fetched_epoch']}, leader epoch {p['leader_epoch']}, broker epoch {m['broker_epoch']}")
    if kind == "FetchResponse":
        return f"Fetch response {route}", fetch_response_text(m["partition"])
    if kind == "RegisterBrokerRequest":
        text = f"incarnation {m['incarnation_id']}"
        if "broker_epoch" in m:  # KIP-966: the broker epoch kept on file (0: none)
            text += f", broker epoch on file {m['broker_epoch'] or 'none'}"
        return f"BrokerRegistration {route}", text
    if kind == "RegisterBrokerResponse":
        return (f"BrokerRegistration response {route}", f"broker epoch {m['broker_epoch']}, incarnation "
                f"{m['incarnation_id']}, metadata offset {m['metadata_offset']}")
    if kind == "AlterPartitionRequest":
        return f"AlterPartition {route}", alter_request_text(m)
    if kind == "AlterPartitionResponse":
        if m["error"] != "Nil":
            return f"AlterPartition response {route}", f"rejected ({m['error']}): {alter_request_text(m['request'])}"
        return (f"AlterPartition response {route}", f"accepted: isr {isr_text(m['isr'])}, leader {m['leader']}, "
                f"leader epoch {m['leader_epoch']}, partition epoch {m['partition_epoch']}")
    return f"{kind} {route}", show(m)


def network_rows(values) -> list[Row]:
    rows, seen = [], {}
    for name, text in sorted(message_line(m) for m in values["messages"]):
        seen[name] = seen.get(name, 0) + 1
        key = name if seen[name] == 1 else f"{name} ({seen[name]})"
        rows.append(Row("network", key, [Cell("message", text)]))
    return rows


# --- clients and limits --------------------------------------------------------------------

def client_row(values) -> Row:
    consumed = values["inv_consumed"]
    return Row("clients", "clients", [
        Cell("sent", ", ".join(sorted(values["inv_sent"])) or "-", label="sent"),
        Cell("acked", ", ".join(sorted(values["inv_pos_acked"])) or "-", label="acknowledged"),
        Cell("failed", ", ".join(sorted(values["inv_neg_acked"])) or "-", label="failed"),
        text_cell("trueHwm", values["inv_true_hwm"], "true high watermark"),
        Cell("consumed", records_text(consumed) if consumed else "-", label="consumed"),
    ])


COUNTERS = (("unclean_shutdown_ctr", "UncleanShutdownLimit", "unclean shutdowns"),
            ("data_loss_shutdown_ctr", "DataLossShutdownLimit", "data-loss shutdowns"),
            ("clean_shutdown_ctr", "CleanShutdownLimit", "clean shutdowns"),
            ("no_data_loss_shutdown_ctr", "NoDataLossShutdownLimit", "no-data-loss shutdowns"),
            ("fence_broker_ctr", "FenceBrokerLimit", "fencings"),
            ("leader_shrink_isr_ctr", "LeaderShrinkIsrLimit", "ISR shrinks"),
            ("reassignment_ctr", "ReassignmentLimit", "reassignments"))


def limit_row(model, values) -> Row:
    constants = dict(model.constants.items())
    counters = values["aux_ctrs"]
    cells = [text_cell(key, f"{counters[key]} of {constants[limit]}", label)
             for key, limit, label in COUNTERS if key in counters and constants.get(limit)]
    cells += [text_cell("incarnations", counters["incarn_ctr"] - 1, "incarnations"),
              text_cell("brokerEpoch", values["aux_broker_epoch"], "last broker epoch"),
              # the port keeps, of the messages received, the AlterPartition requests (all the spec reads)
              text_cell("discarded", len(values["messages_discard"]), "AlterPartition requests received")]
    return Row("limits", "limits", cells)


def rows(model, state, values) -> list[Row]:
    return (broker_rows(values) + replica_rows(model, values) + replication_rows(values)
            + [controller_row(values)] + metadata_rows(values) + network_rows(values)
            + [client_row(values), limit_row(model, values)])


V3_5 = Layout(groups(elr=False), rows, VARIABLES, LEGEND, notes)
KIP_966 = Layout(groups(elr=True), rows, VARIABLES, LEGEND, notes)
