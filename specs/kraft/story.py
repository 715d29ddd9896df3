"""Each step of a KRaft trace told in a Kafka engineer's words, for the
trace viewers (``specs/kraft/layout.py``): a broker shut down uncleanly and
lost its log, the controller elected broker 1, a committed record is on no
broker. Read from what the step changed in the state, not from its
action's name, so that it says what happened whichever action did it.
"""

from __future__ import annotations

from typing import Any


def broker_name(b) -> str:
    return f"broker {b}"


def names(members) -> list[str]:
    return [str(m) for m in sorted(members)]


def leader_text(leader) -> str:
    return "none" if leader == "NoLeader" else str(leader)


def entry_text(record) -> str:
    """A log record: its value and the leader epoch it was written in (``A@1``)."""
    return f"{record['value']}@{record['epoch']}"


def records_text(records) -> str:
    return ", ".join(f"{entry_text(r)} at offset {r['offset']}" for r in records) or "nothing"


def isr_text(members) -> str:
    return "{" + ", ".join(names(members)) + "}"


def broker_notes(before, values, b) -> list[str]:
    old, new = before["broker_state"][b], values["broker_state"][b]
    name = broker_name(b)
    out = []
    if old["status"] != new["status"]:
        if new["status"] == "OFFLINE_DIRTY":
            lost = before["partition_data"][b]["log"]
            how = "shuts down and loses its log (a data-loss shutdown)" if "elr" in values["con_partition_metadata"] \
                else "shuts down uncleanly and loses its log"
            out.append(f"{name} {how}" + (f": {records_text(lost)}" if lost else ", which was empty"))
        elif new["status"] == "OFFLINE_CLEAN":
            out.append(f"{name} shuts down, keeping its log")
        elif new["status"] == "STARTING":
            out.append(f"{name} starts again (incarnation {new['incarnation_id']}) and asks the controller "
                       "to register it")
        elif new["status"] == "RUNNING":
            out.append(f"{name} is registered, with broker epoch {new['broker_epoch']}")
    fenced_before, fenced_now = b not in before["con_unfenced"], b not in values["con_unfenced"]
    if fenced_now != fenced_before:
        out.append(f"the controller {'fences' if fenced_now else 'unfences'} {name}")
    role_before, role = before["partition_status"][b], values["partition_status"][b]
    meta, old_meta = values["partition_metadata"][b], before["partition_metadata"][b]
    new_epoch = (meta["leader"], meta["leader_epoch"]) != (old_meta["leader"], old_meta["leader_epoch"])
    if (role != role_before or new_epoch) and new["status"] == "RUNNING":
        if role == "Leader":
            if role == role_before:
                out.append(f"{name} stays the leader, in leader epoch {meta['leader_epoch']}")
                out.extend(stale_follower_notes(before, values, b))
            else:
                out.append(f"{name} becomes the leader (leader epoch {meta['leader_epoch']})")
        elif role == "Follower":
            out.append(f"{name} follows broker {leader_text(meta['leader'])} (leader epoch {meta['leader_epoch']})"
                       + still_awaiting(before, values, b, meta["leader"]))
    out.extend(stale_response_notes(before, values, b))
    out.extend(log_notes(before, values, b))
    return out


def is_deleted(before, values, b) -> bool:
    """Whether the step takes ``b`` out of the replicas it knows of: it
    deletes its replica (DeletePartition)."""
    return b in before["partition_metadata"][b]["replicas"] and b not in values["partition_metadata"][b]["replicas"]


def stale_follower_notes(before, values, b) -> list[str]:
    """What a leader, re-elected in a new leader epoch, still holds of
    followers outside its ISR: kept from an earlier epoch, it may no longer
    be true (ResetStaleFollowerState off)."""
    isr, known = values["partition_metadata"][b]["isr"], values["partition_replica_state"][b]
    return [f"broker {b} keeps what it knew of broker {k}, which is outside its ISR: log end {peer['leo']}"
            for k, peer in known.items() if k != b and k not in isr and peer["leo"] != "Nil"
            and peer == before["partition_replica_state"][b][k]]


def still_awaiting(before, values, b, leader) -> str:
    """A fetcher added for ``leader`` while a response to an earlier fetch
    from it may still come (the pending flag outlives the fetcher)."""
    fetcher = values["broker_fetchers"][b][leader] if leader != "NoLeader" else None
    if fetcher is None or fetcher["partition"] == "Nil" or not fetcher["pending_response"]:
        return ""
    return f", still awaiting the response to an earlier fetch from broker {leader}"


def stale_response_notes(before, values, b) -> list[str]:
    """A fetch response of another leader epoch than the follower's, taken
    and acted on (FetchResponseMatchesEpoch off)."""
    epoch = values["partition_metadata"][b]["leader_epoch"]
    changed = before["partition_data"][b] != values["partition_data"][b]
    return [f"broker {b}, in leader epoch {epoch}, acts on broker {m['source']}'s fetch response of leader epoch "
            f"{m['partition']['leader_epoch']}"
            for m in sorted(set(before["messages"]) - set(values["messages"]), key=str)
            if m["type"] == "FetchResponse" and m["dest"] == b and changed
            and m["partition"]["leader_epoch"] != epoch]


def log_notes(before, values, b) -> list[str]:
    """Records a broker appended or truncated, and its high watermark moving
    (a shutdown's lost log is told with the shutdown)."""
    if values["broker_state"][b]["status"] == "OFFLINE_DIRTY" != before["broker_state"][b]["status"]:
        return []
    old, new = before["partition_data"][b], values["partition_data"][b]
    name = broker_name(b)
    out = []
    kept = 0
    while kept < min(len(old["log"]), len(new["log"])) and old["log"][kept] == new["log"][kept]:
        kept += 1
    if kept < len(old["log"]):
        if is_deleted(before, values, b):
            out.append(f"{name} is no longer a replica and deletes its log: {records_text(old['log'][kept:])}")
        else:
            out.append(f"{name} truncates its log, dropping {records_text(old['log'][kept:])}")
    if kept < len(new["log"]):
        how = "appends" if values["partition_status"][b] == "Leader" else "copies from the leader"
        out.append(f"{name} {how} {records_text(new['log'][kept:])}")
    if new["hwm"] > old["hwm"]:
        committed = [r for r in new["log"] if old["hwm"] <= r["offset"] < new["hwm"]]
        leading = values["partition_status"][b] == "Leader"
        out.append(f"{name} advances its high watermark to {new['hwm']}"
                   + (f": {records_text(committed)} committed" if committed and leading else "")
                   + (f" (its ISR: {isr_text(values['partition_metadata'][b]['isr'])})" if leading else ""))
    return out


def controller_notes(before, values) -> list[str]:
    old, new = before["con_partition_metadata"], values["con_partition_metadata"]
    out = []
    if (old["leader"], old["leader_epoch"]) != (new["leader"], new["leader_epoch"]):
        if new["leader"] == "NoLeader":
            out.append(f"the controller leaves the partition without a leader (leader epoch {new['leader_epoch']}, "
                       f"isr {isr_text(new['isr'])})")
        else:
            verb = "keeps" if new["leader"] == old["leader"] else "elects"
            out.append(f"the controller {verb} broker {new['leader']} as leader in leader epoch "
                       f"{new['leader_epoch']} (isr {isr_text(new['isr'])})")
    elif set(old["isr"]) != set(new["isr"]):
        out.append(f"the controller changes the ISR to {isr_text(new['isr'])} (partition epoch "
                   f"{new['partition_epoch']})")
    moving = [f"{key} {isr_text(new[key])}" for key in ("adding", "removing") if new[key]]
    if set(old["replicas"]) == set(new["replicas"]) and not moving and (old["adding"] or old["removing"]):
        out.append(f"the reassignment completes (replicas {isr_text(new['replicas'])})")
    elif any(set(old[key]) != set(new[key]) for key in ("replicas", "adding", "removing")):
        out.append(f"the partition's replicas become {isr_text(new['replicas'])}"
                   + (f" ({', '.join(moving)})" if moving else ""))
    if "elr" in new and set(old["elr"]) != set(new["elr"]):
        out.append(f"the ELR becomes {isr_text(new['elr'])}")
    return out


def has_record(values, b, record) -> bool:
    log = values["partition_data"][b]["log"]
    return any(r["offset"] == record["offset"] and r["value"] == record["value"] for r in log)


def loss_notes(before, values) -> list[str]:
    """A committed record this step leaves on no broker, and a new leader
    without it: the data loss, said when it happens."""
    out = []
    brokers = list(values["broker_state"])
    for record in values["inv_consumed"]:
        here = [b for b in brokers if has_record(values, b, record)]
        was = [b for b in brokers if has_record(before, b, record)]
        if was and not here:
            out.append(f"committed record {entry_text(record)} (offset {record['offset']}) is now on no broker")
    leader = values["con_partition_metadata"]["leader"]
    if leader != "NoLeader" and leader != before["con_partition_metadata"]["leader"]:
        missing = [r for r in values["inv_consumed"] if not has_record(values, leader, r)]
        if missing:
            out.append(f"the new leader, broker {leader}, does not have committed {records_text(missing)}")
    return out


def isr_join_notes(before, values) -> list[str]:
    """A broker the controller adds to the ISR without the committed records."""
    old, new = before["con_partition_metadata"]["isr"], values["con_partition_metadata"]["isr"]
    out = []
    for b in sorted(set(new) - set(old)):
        missing = [r for r in values["inv_consumed"] if not has_record(values, b, r)]
        if missing:
            out.append(f"broker {b} joins the ISR without committed {records_text(missing)}")
    return out


def answer_notes(before, values) -> list[str]:
    """AlterPartition requests and the controller's answers, as they are sent."""
    out = []
    for m in set(values["messages"]) - set(before["messages"]):
        if m["type"] == "AlterPartitionRequest":
            out.append(f"broker {m['source']} asks the controller to make the ISR {isr_text(m['isr'])} "
                       "(AlterPartition)")
        if m["type"] == "AlterPartitionResponse":
            out.append(f"the controller rejects broker {m['dest']}'s AlterPartition ({m['error']})"
                       if m["error"] != "Nil" else f"the controller accepts broker {m['dest']}'s AlterPartition")
    return sorted(out)


def client_notes(before, values) -> list[str]:
    out = [f"the producer's write of {v} is acknowledged"
            for v in sorted(set(values["inv_pos_acked"]) - set(before["inv_pos_acked"]))]
    out += [f"the producer's write of {v} fails"
            for v in sorted(set(values["inv_neg_acked"]) - set(before["inv_neg_acked"]))]
    return out


def notes(model, before: dict[str, Any] | None, values: dict[str, Any]) -> list[str]:
    if before is None:
        part = values["con_partition_metadata"]
        fenced = [b for b in values["broker_state"] if b not in values["con_unfenced"]]
        return [f"broker {leader_text(part['leader'])} leads in leader epoch {part['leader_epoch']} with isr "
                f"{isr_text(part['isr'])}" + (f"; fenced: broker {', '.join(map(str, fenced))}" if fenced else "")]
    out = []
    for b in values["broker_state"]:
        out.extend(broker_notes(before, values, b))
    return (out + controller_notes(before, values) + answer_notes(before, values) + client_notes(before, values)
            + isr_join_notes(before, values) + loss_notes(before, values))
