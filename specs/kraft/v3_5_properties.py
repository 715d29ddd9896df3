"""v3_5_properties: the safety properties (and the helpers they share with
the actions), carried over from the upstream module of that name."""

from __future__ import annotations

from modelcheck.language.bounded import within_capacity
from modelcheck.model.explain import Account
from modelcheck.language.expr import TRUE, all_of, and_, any_of, eq, implies, le, lt, member, ne, not_, or_, subset_of
from modelcheck.model.spec import invariant, sometimes
from modelcheck.specs.kraft.v3_5_functions import hwm_of, leo_of, log_of, log_offsets, pending_alter_partition_response
from modelcheck.specs.kraft.v3_5_types import (FENCED, FOLLOWER, LEADER, NO_LEADER, RUNNING, UNFENCED, brokers,
                                               shutdown_limits)


def converged(s, leader, follower):
    """Converged(leader, follower): the leader knows the follower is fully caught up."""
    dl, df = s.partition_data[leader], s.partition_data[follower]
    peer = s.partition_replica_state[leader][follower]
    return and_(eq(dl.leo, df.leo), eq(dl.hwm, df.hwm), eq(peer.leo, df.leo),
                eq(peer.broker_epoch, s.broker_state[follower].broker_epoch))


def is_non_stale_leader(s, b):
    """IsNonStaleLeader(b): a leader on the controller's leader epoch."""
    return and_(eq(s.partition_status[b], LEADER),
                eq(s.partition_metadata[b].leader_epoch, s.con_partition_metadata.leader_epoch))


# --- explanations, in Kafka's terms ----------------------------------------------------------


def _values_text(probe, mask: int) -> str:
    names = [v for i, v in enumerate(probe.c.Values) if mask >> i & 1]
    return ", ".join(names)


def _broker_text(probe, b: int) -> str:
    v = probe.values
    status = v["broker_state"][b + 1]["status"]
    role = v["partition_status"][b + 1]
    return f"broker {b + 1} ({status.lower().replace('_', ' ')}, {'no role' if role == 'Nil' else role.lower()})"


def _log_text(probe, b: int) -> str:
    log = probe.values["partition_data"][b + 1]["log"]
    if not log:
        return "an empty log"
    return "the log " + ", ".join(f"{r['value']}@{r['offset']}" for r in log)


def _missing_slots(probe, k: int, hwm: int) -> tuple[tuple[str, str, int], ...]:
    """The slots of broker k's log (as the KRaft layout draws it: row
    "broker k", offsets from 1, slot 0 holding offset 1) from its log end up
    to the committed offset: the committed records it does not have."""
    leo = probe.values["partition_data"][k]["leo"]
    width = len(probe.c.Values)  # the layout draws this many slots
    return tuple((f"broker {k}", "log", o - 1) for o in range(leo, hwm) if o - 1 < width)


def _held_slots(probe, k: int, offsets) -> tuple[tuple[str, str, int], ...]:
    """The slots of broker k's log that hold a record at these offsets."""
    log = probe.values["partition_data"][k]["log"]
    return tuple((f"broker {k}", "log", o - 1) for o in offsets if o <= len(log))


def explain_leader_completeness(probe) -> Account | None:
    v = probe.values
    md = v["con_partition_metadata"]
    leader = md["leader"]
    if leader == "NoLeader":
        return None
    b = leader - 1
    hwm = v["inv_true_hwm"]
    acked = probe.state[probe.model.schema.slot("inv_pos_acked")]
    missing = [x for i, x in enumerate(probe.c.Values) if acked >> i & 1
               and not any(r["value"] == x for r in v["partition_data"][leader]["log"])]
    lost = f"; acknowledged value(s) {', '.join(missing)} missing" if missing else ""
    return Account(f"the controller's leader (epoch {md['leader_epoch']}) is {_broker_text(probe, b)} with "
                   f"{_log_text(probe, b)}, ending before the committed offset (high watermark {hwm}){lost}",
                   _missing_slots(probe, leader, hwm))


def explain_candidate_completeness(probe) -> Account | None:
    """Each running ISR (or ELR) member short of the committed offset; the
    focus is its missing slots, and the same offsets in the logs of the
    brokers that have them."""
    v = probe.values
    hwm = v["inv_true_hwm"]
    md = v["con_partition_metadata"]
    members = list(md["isr"]) + list(md.get("elr", ()))
    short = [k for k in members
             if v["partition_data"][k]["leo"] < hwm and v["broker_state"][k]["status"] == "RUNNING"]
    if not short:
        return None
    text = "; ".join(f"{_broker_text(probe, k - 1)} is in the controller's {'ISR' if k in md['isr'] else 'ELR'} "
                     f"with {_log_text(probe, k - 1)}, "
                     f"short of the committed offset (high watermark {hwm})" for k in short)
    offsets = sorted({o for k in short for o in range(v["partition_data"][k]["leo"], hwm)})
    focus = [slot for k in short for slot in _missing_slots(probe, k, hwm)]
    focus += [slot for k in v["partition_data"] if k not in short for slot in _held_slots(probe, k, offsets)]
    return Account(text, tuple(dict.fromkeys(focus)))


def explain_quorum_superset(probe) -> str | None:
    """Under KIP-966 the controller's ELR counts with its ISR, once the
    leader's ISR has MinISR members."""
    v = probe.values
    con = v["con_partition_metadata"]
    elr = set(con["elr"]) if "elr" in con else set()

    def members(xs):
        return "{" + ", ".join(str(x) for x in sorted(xs)) + "}"
    for k, md in v["partition_metadata"].items():
        if v["partition_status"][k] != "Leader" or md["leader_epoch"] != con["leader_epoch"]:
            continue
        quorum = "elr" not in con or len(md["isr"]) >= probe.c.MinISR
        outside = sorted((set(con["isr"]) | elr) - set(md["maximal_isr"])) if quorum else []
        if outside:
            held = f"ISR {members(con['isr'])}" + (f" and ELR {members(elr)}" if elr else "")
            return (f"the controller's {held} (partition epoch {con['partition_epoch']}) has "
                    f"{f'broker {outside[0]}' if len(outside) == 1 else f'brokers {members(outside)}'} outside leader "
                    f"broker {k}'s "
                    f"maximal ISR {members(md['maximal_isr'])}: the leader advances the high watermark without "
                    f"{'it' if len(outside) == 1 else 'them'}, yet the controller may elect "
                    f"{'it' if len(outside) == 1 else 'them'}")
        if v["partition_pending_ap"][k]["epoch"] <= md["partition_epoch"] and set(md["maximal_isr"]) != set(md["isr"]):
            return (f"leader broker {k} has no AlterPartition request pending, yet its maximal ISR "
                    f"{members(md['maximal_isr'])} differs from its ISR {members(md['isr'])}")
    return None


def explain_committed_lost(probe) -> str | None:
    acked = probe.state[probe.model.schema.slot("inv_pos_acked")]
    logs = probe.values["partition_data"]
    gone = [x for i, x in enumerate(probe.c.Values)
            if acked >> i & 1 and not any(r["value"] == x for k in logs for r in logs[k]["log"])]
    if not gone:
        return None
    return f"value {', '.join(gone)} was acknowledged to the producer and is now in no replica's log"


@invariant
def TypeOK(s):
    """Every variable holds a value of its type: as the port encodes them,
    every state slot lies within its declared range."""
    from modelcheck.language.expr import var
    schema = s._schema
    return all_of(and_(le(lo, var(k)), le(var(k), hi)) for k, (lo, hi) in enumerate(zip(schema.lo, schema.hi)))


@invariant
def ValidBrokerState(s):
    """A running broker is registered."""
    return all_of(or_(ne(s.broker_state[b].status, RUNNING), s.broker_state[b].registered) for b in brokers(s.c))


@invariant
def ValidReplicaState(s):
    """A leader replica believes itself leader; the log end offset is one past
    the log's last entry, and each entry records its own offset."""
    def valid(b):
        log = log_of(s, b)
        return and_(implies(eq(s.partition_status[b], LEADER), eq(s.partition_metadata[b].leader, b)),
                    eq(leo_of(s, b), log.len + 1),
                    all_of(implies(here, eq(log.at(o).offset, o)) for o, here in log_offsets(s, b)))
    return all_of(valid(b) for b in brokers(s.c))


@invariant
def ValidFetcherState(s):
    """No broker fetches the partition from two brokers; a leader fetches it
    from none, a follower from one."""
    bs = list(brokers(s.c))

    def added(b, k):
        return s.broker_fetchers[b][k].added

    def valid(b):
        others = [k for k in bs if k != b]
        two = any_of(and_(added(b, k), added(b, j)) for k in others for j in bs if j != k)
        return and_(not_(two),
                    implies(eq(s.partition_status[b], LEADER), not_(any_of(added(b, k) for k in others))),
                    implies(eq(s.partition_status[b], FOLLOWER), any_of(added(b, k) for k in others)))
    return all_of(valid(b) for b in bs)


@invariant
def ValidControllerState(s):
    """The controller's fenced statuses agree with its unfenced set; a fenced
    broker is in the ISR only as its sole member; the ISR is never empty."""
    from modelcheck.language.expr import cardinality
    md = s.con_partition_metadata
    consistent, fenced_in_isr = controller_status_agrees(s), fenced_isr_member(s)
    return and_(consistent, implies(lt(1, cardinality(md.isr, s.c.BrokerCount)), not_(fenced_in_isr)), ne(md.isr, 0))


def controller_status_agrees(s):
    """The controller's fenced statuses agree with its unfenced set (both
    modules' ValidControllerState)."""
    bs = list(brokers(s.c))
    status = [s.con_broker_reg[b].status for b in bs]
    return not_(any_of(or_(and_(eq(status[b], FENCED), member(s.con_unfenced, b)),
                           and_(eq(status[b], UNFENCED), not_(member(s.con_unfenced, b))))
                       for b in bs))


def fenced_isr_member(s):
    """Some replica in the controller's ISR is fenced."""
    md = s.con_partition_metadata
    return any_of(and_(member(md.replicas, b), eq(s.con_broker_reg[b].status, FENCED), member(md.isr, b))
                  for b in brokers(s.c))


@invariant(explain=explain_quorum_superset)
def ReplicationQuorumSupersetProperty(s):
    """A leader on the current leader epoch advances its high watermark on a
    maximal ISR that contains the controller's ISR (and equals its own ISR
    when no AlterPartition request is pending)."""
    con_isr = s.con_partition_metadata.isr

    def holds(b):
        md = s.partition_metadata[b]
        return implies(is_non_stale_leader(s, b),
                       and_(implies(not_(pending_alter_partition_response(s, b)), eq(md.maximal_isr, md.isr)),
                            subset_of(con_isr, md.maximal_isr)))
    return all_of(holds(b) for b in brokers(s.c))


@invariant(explain=explain_candidate_completeness)
def LeaderCandidateCompletenessProperty(s):
    """Once something is committed, every running member of the controller's
    ISR has the whole committed log (its log end offset is at least the true
    high watermark)."""
    isr = s.con_partition_metadata.isr
    short = any_of(and_(member(isr, b), lt(leo_of(s, b), s.inv_true_hwm), eq(s.broker_state[b].status, RUNNING))
                   for b in brokers(s.c))
    return implies(lt(1, s.inv_true_hwm), not_(short))


def _has_value(s, b, v):
    """\\E offset \\in LogOffsets(b) : the record at offset holds value v."""
    return any_of(and_(here, eq(log_of(s, b).at(o).value, v)) for o, here in log_offsets(s, b))


@invariant(explain=explain_leader_completeness)
def LeaderCompletenessProperty(s):
    """Once something is committed, a running leader the controller has
    chosen has the whole committed log and every positively acknowledged value."""
    leader = s.con_partition_metadata.leader

    def complete(b):
        return and_(le(s.inv_true_hwm, leo_of(s, b)),
                    all_of(implies(member(s.inv_pos_acked, v), _has_value(s, b, v)) for v in range(len(s.c.Values))))

    checkable = [and_(eq(leader, b), eq(s.broker_state[b].status, RUNNING)) for b in brokers(s.c)]
    return implies(lt(1, s.inv_true_hwm),
                   all_of(implies(here, complete(b)) for b, here in zip(brokers(s.c), checkable)))


@invariant
def LogMatchingProperty(s):
    """Below both replicas' high watermarks, two logs hold the same values."""
    bs = list(brokers(s.c))

    def differs(b1, b2, o):
        return and_(lt(o, leo_of(s, b1)), lt(o, leo_of(s, b2)), lt(o, hwm_of(s, b1)), lt(o, hwm_of(s, b2)),
                    ne(log_of(s, b1).at(o).value, log_of(s, b2).at(o).value))
    return all_of(not_(any_of(differs(b1, b2, o) for b1 in bs for b2 in bs if b1 != b2))
                  for o in range(1, len(s.c.Values) + 1))


@invariant
def MetadataLogMatchingProperty(s):
    """Every broker's copy of the metadata log agrees with the controller's."""
    con = s.con_metadata_log

    def differs(b, o):
        mine = s.broker_metadata_log[b]
        return and_(le(o, mine.len), not_(mine.at(o).equals(con.at(o))))
    return all_of(implies(le(o, con.len), not_(any_of(differs(b, o) for b in brokers(s.c))))
                  for o in range(1, con.capacity + 1))


@invariant(explain=explain_committed_lost)
def NoCommittedRecordLostGlobally(s):
    """Every positively acknowledged value is still in some replica's log."""
    return all_of(implies(member(s.inv_pos_acked, v), any_of(_has_value(s, b, v) for b in brokers(s.c)))
                  for v in range(len(s.c.Values)))


@invariant
def ConsistentReadProperty(s):
    """A leader on the current leader epoch still holds every record
    consumers have read, at the offset they read it."""
    consumed = s.inv_consumed

    def holds(b):
        log = log_of(s, b)
        return implies(is_non_stale_leader(s, b),
                       all_of(implies(here, and_(le(o, log.len), log.at(o).equals(record)))
                              for o, here, record in consumed.entries()))
    return all_of(holds(b) for b in brokers(s.c))


@invariant
def TestInv(s):
    """Upstream's placeholder invariant: TRUE."""
    return TRUE


def explain_capacity(probe) -> str | None:
    """Which set or sequence overflowed, and what to do about it."""
    schema = probe.model.schema
    for name, container in schema.compounds.items():
        if not any(probe.state[slot] for slot in getattr(container, "overflow_slots", lambda _: [])(schema)):
            continue
        if "alter" in name:
            capacity = container.capacity
            return (f"{name} needs room for more than {capacity} AlterPartition messages with these constants; "
                    f"run again with --const AlterPartitionCapacity={2 * capacity}")
        return (f"{name} outgrew the capacity {container.capacity} the port derives from the limits "
                f"(a bug in the port's bounds; please report it)")
    return None


@invariant(explain=explain_capacity)
def WithinCapacity(s):
    """The port's own check, not upstream's: no bounded set or sequence has
    been asked to hold more than the capacity the limits give it (see
    specs/kraft/v3_5_types.py, ``bounds``). It is checked in every run; a
    violation means a capacity was derived too small, not a protocol bug."""
    return within_capacity(s)


def explain_evaluation(probe) -> str | None:
    code = probe.state[probe.model.schema.slot("evaluation_error")]
    if not code:
        return None
    return f"TLC cannot evaluate the next step either: {probe.model.failure_messages[code - 1]}"


@invariant(explain=explain_evaluation)
def Evaluable(s):
    """The port's own check, not upstream's: every step the spec allows can be
    evaluated (TLC stops with an error where it cannot, as where a sequence is
    read outside its domain)."""
    return eq(s.evaluation_error, 0)


@sometimes
def RecordCommitted(s):
    """Some record is committed (the true high watermark advances)."""
    return lt(1, s.inv_true_hwm)


def faults(c) -> int:
    """The fencings and shutdowns the limits allow: each takes at most one broker out of the ISR."""
    return c.FenceBrokerLimit + sum(shutdown_limits(c))


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{'no' if n == 0 else n} {word}s"


def leader_stays(c) -> str | None:
    """Why broker 1 stays the only leader: nothing can move it."""
    if faults(c) or c.ReassignmentLimit:
        return None
    return "no fencing, shutdown or reassignment is allowed, so broker 1 stays the leader"


def isr_never_empties(c) -> str | None:
    """Why the partition always keeps a leader: too few faults to take every
    ISR member out. Each fencing or shutdown takes at most one broker out of
    the ISR, and without faults or reassignments it only grows; a leader's
    ISR shrink can leave the leader alone in it, which one fault then takes
    out. A reassignment can take several replicas out at once: then nothing is said."""
    if c.ReassignmentLimit:
        return None
    if c.LeaderShrinkIsrLimit:
        if faults(c):
            return None
        return "a leader's ISR shrink keeps the leader, and no fencing or shutdown is allowed to take it out"
    if faults(c) >= c.InitIsrSize:
        return None
    return (f"the limits allow {_plural(faults(c), 'fencing or shutdown')}, each taking at most one broker "
            f"out of the ISR, which starts with {c.InitIsrSize}")


@sometimes(unreachable=leader_stays)
def LeaderChanged(s):
    """The controller elects a leader other than broker 1, or none."""
    return ne(s.con_partition_metadata.leader, 0)


@sometimes(unreachable=isr_never_empties)
def NoLeaderAtAll(s):
    """The partition is left without a leader."""
    return eq(s.con_partition_metadata.leader, NO_LEADER)


INVARIANTS = (TypeOK, ValidBrokerState, ValidReplicaState, ValidFetcherState, ValidControllerState,
              ReplicationQuorumSupersetProperty, LeaderCandidateCompletenessProperty, LeaderCompletenessProperty,
              LogMatchingProperty, MetadataLogMatchingProperty, NoCommittedRecordLostGlobally,
              ConsistentReadProperty, TestInv, WithinCapacity, Evaluable)
# The committed .cfg's INVARIANT list, in its order (TLC checks them in that order).
CFG_INVARIANTS = ("LeaderCompletenessProperty", "LeaderCandidateCompletenessProperty",
                  "ReplicationQuorumSupersetProperty", "LogMatchingProperty", "MetadataLogMatchingProperty",
                  "ConsistentReadProperty", "NoCommittedRecordLostGlobally")
SOMETIMES = (RecordCommitted, LeaderChanged, NoLeaderAtAll)
