"""v3_5_functions: the operators several actions share.

Each function carries over the upstream operator it is named after (in
snake case). Functions that change the state take the next-state builder
``n``; the others return expressions. A broker ``b`` is a parameter (a
plain index), as are the brokers a message names, bound by an equality in
the action's guard.
"""

from __future__ import annotations

from modelcheck.language.expr import (TRUE, Expr, all_of, and_, any_of, bit_and, bit_or, bit_xor, cardinality, eq, ite, le,
                                      lift, lt, member, ne, not_, or_, set_with, set_without)
from modelcheck.language.records import RecordView, record_ite
from modelcheck.specs.kraft.v3_5_types import (FENCED_LEADER_EPOCH, INELIGIBLE_REPLICA, LEADER, NIL, NO_ERROR, NO_LEADER,
                                    UNFENCED, bounds, brokers, int_max_code, types)

# --- helpers -------------------------------------------------------------------------


def size(s) -> int:
    return s.c.BrokerCount


def log_of(s, b):
    """LogOf(b): the replica's log (a sequence view)."""
    return s.partition_log[b]


def leo_of(s, b) -> Expr:
    return s.partition_data[b].leo


def hwm_of(s, b) -> Expr:
    return s.partition_data[b].hwm


def log_entry(s, b, offset) -> RecordView:
    """LogEntry(b, offset)."""
    return log_of(s, b).at(offset)


def log_offsets(s, b) -> list[tuple[int, Expr]]:
    """DOMAIN of the log: (offset, offset is in the log) for every offset the log can hold."""
    log = log_of(s, b)
    return [(o, lt(o - 1, log.len)) for o in range(1, log.capacity + 1)]


def blank_fetch_state(s) -> RecordView:
    """BlankFetchState: no partition, no pending response."""
    return types(s.c).fetcher.new()


def blank_replica_state(s) -> RecordView:
    """BlankReplicaState: leo Nil, broker epoch 0."""
    return types(s.c).peer.new()


def blank_metadata(s) -> RecordView:
    """BlankMetadata."""
    return types(s.c).replica_partition.new()


def reset_all_follower_state(s, n, b) -> None:
    """ResetAllFollowerState(b)."""
    for k in brokers(s.c):
        n.partition_replica_state[b][k].set(blank_replica_state(s))


def floor_leader_offset(s, b) -> Expr:
    return s.aux_flo[b]


def reset_pending_acks(s, n, b) -> None:
    """ResetPendingAcks(b): aux_flo[b] = IntMax."""
    n.aux_flo[b] = int_max_code(s.c)


def reset_pending_alter_partition(s, n, b) -> None:
    """ResetPendingAlterPartition(b)."""
    n.partition_pending_ap[b].set(types(s.c).pending_alter.new())


def pending_alter_partition_response(s, b) -> Expr:
    """PendingAlterPartitionResponse(b): waiting for a higher partition epoch."""
    return lt(s.partition_metadata[b].partition_epoch, s.partition_pending_ap[b].epoch)


def is_leader_epoch_bump(s, b, md_offset) -> Expr:
    return lt(s.partition_metadata[b].leader_epoch, s.con_metadata_log.at(md_offset).leader_epoch)


def reassignment_in_progress(s) -> Expr:
    md = s.con_partition_metadata
    return or_(ne(md.adding, 0), ne(md.removing, 0))


# --- metadata replication -----------------------------------------------------------------


def unreplicated_offset(s, b, md_offset: int) -> Expr:
    """md_offset \\in UnreplicatedOffsets(b)."""
    return and_(lt(s.broker_metadata_log[b].len, md_offset), le(md_offset, s.con_metadata_log.len))


def partition_needs_action(s, b, md_offset: int) -> Expr:
    """PartitionNeedsAction(b, md_offset)."""
    md = s.partition_metadata[b]
    return or_(eq(s.partition_status[b], LEADER),
               and_(member(md.replicas, b), is_leader_epoch_bump(s, b, md_offset)),
               and_(not_(member(md.replicas, b)), member(s.con_metadata_log.at(md_offset).replicas, b)))


# --- commit offsets and the high watermark ---------------------------------------------------


def is_committed(s, b, maximal_isr, replica_state, offset: int) -> Expr:
    """IsCommitted(b, maximal_isr, replica_state, offset); ``replica_state(k)`` is the follower's record."""
    return all_of(or_(not_(member(maximal_isr, k)), k == b,
                      and_(ne(replica_state(k).leo, NIL), lt(offset, replica_state(k).leo)))
                  for k in brokers(s.c))


def choose(candidates, predicate, otherwise) -> Expr:
    """CHOOSE x \\in candidates : predicate(x), for candidates in the order TLC
    enumerates them (an interval in ascending order): the first that satisfies
    it. ``otherwise`` is the value where none does, which a guard must rule
    out (TLC stops with an error there)."""
    result = lift(otherwise)
    for x in reversed(list(candidates)):
        result = ite(predicate(x), x, result)
    return result


def get_commit_offset(s, b, maximal_isr, leo, replica_state) -> Expr:
    """GetCommitOffset(b, maximal_isr, leo, replica_state): the highest offset
    below ``leo`` replicated to the whole maximal ISR, or 0."""
    top = bounds(s.c).values
    offsets = range(1, top + 1)

    def committed(o):
        return and_(lt(o, leo), is_committed(s, b, maximal_isr, replica_state, o))

    some = any_of(committed(o) for o in offsets)
    highest = choose(offsets, lambda o: and_(committed(o), not_(any_of(committed(o1) for o1 in offsets if o1 > o))),
                     0)
    return ite(eq(leo_of(s, b), 1), 0, ite(some, highest, 0))


def current_replica_state(s, b):
    return lambda k: s.partition_replica_state[b][k]


def commit_offset_on_fetch(s, b, replica_state) -> Expr:
    return get_commit_offset(s, b, s.partition_metadata[b].maximal_isr, leo_of(s, b), replica_state)


def commit_offset_on_update(s, b, maximal_isr) -> Expr:
    return get_commit_offset(s, b, maximal_isr, leo_of(s, b), current_replica_state(s, b))


def commit_offset_on_write(s, b, new_leo) -> Expr:
    return get_commit_offset(s, b, s.partition_metadata[b].maximal_isr, new_leo, current_replica_state(s, b))


def acks_for(s, b, lower, higher) -> Expr:
    """The set SendAcksFor(b, lower, higher, _) acknowledges: values sent,
    not yet acknowledged either way, written at an offset in lower..higher at
    or above the floor leader offset."""
    c = s.c
    mask: Expr = lift(0)
    for v in range(len(c.Values)):
        written = any_of(and_(le(lower, o), le(o, higher), here, eq(log_entry(s, b, o).value, v),
                              le(floor_leader_offset(s, b), o))
                         for o, here in log_offsets(s, b))
        chosen = and_(member(s.inv_sent, v), not_(member(s.inv_pos_acked, v)), not_(member(s.inv_neg_acked, v)),
                      written)
        mask = bit_or(mask, ite(chosen, 1 << v, 0))
    return mask


def acks_fail(s, b, lower, higher) -> Expr:
    """Where TLC cannot evaluate SendAcksFor(b, lower, higher, _): for some
    value sent and not acknowledged, the search for its offset in
    lower..higher finds none inside the log before it reads past the log's end."""
    log = log_of(s, b)
    c = s.c

    def found(v):
        return any_of(and_(le(lower, o), le(o, higher), here, eq(log_entry(s, b, o).value, v),
                           le(floor_leader_offset(s, b), o))
                      for o, here in log_offsets(s, b))
    past_end = and_(le(lower, higher), lt(log.len, higher))
    return and_(past_end, any_of(and_(member(s.inv_sent, v), not_(member(s.inv_pos_acked, v)),
                                      not_(member(s.inv_neg_acked, v)), not_(found(v)))
                                 for v in range(len(c.Values))))


def update_hwm_invariant_vars(s, n, b, old_hwm, new_hwm, ack_type, when=TRUE) -> None:
    """UpdateHwmInvariantVars(b, old_hwm, new_hwm, ack_type), taking effect
    only ``when`` it holds (the callers' IF). ``ack_type`` may be a condition."""
    ack = lift(ack_type)
    log = log_of(s, b)
    positive = acks_for(s, b, old_hwm, new_hwm - 1)
    negative = acks_for(s, b, old_hwm, leo_of(s, b) - 1)
    n.fails_if(and_(when, ite(ack, acks_fail(s, b, old_hwm, new_hwm - 1), acks_fail(s, b, old_hwm, leo_of(s, b) - 1))),
               "SendAcksFor reads LogEntry(b, offset) past the end of the leader's log")
    n.fails_if(and_(when, lt(s.inv_true_hwm, new_hwm),
                    or_(lt(log.len, s.inv_true_hwm), lt(log.len, new_hwm - 1))),
               "SubSeq(LogOf(b), inv_true_hwm, new_hwm-1) in UpdateHwmInvariantVars reaches past the end of the "
               "leader's log (it reads the log before this step's append)")
    n.inv_pos_acked = ite(and_(when, ack), bit_or(s.inv_pos_acked, positive), s.inv_pos_acked)
    n.inv_neg_acked = ite(and_(when, not_(ack)), bit_or(s.inv_neg_acked, negative), s.inv_neg_acked)
    advanced = and_(when, lt(s.inv_true_hwm, new_hwm))
    n.inv_true_hwm = ite(advanced, new_hwm, s.inv_true_hwm)
    consumed = n.inv_consumed
    before = consumed.now
    consumed.extend(log_of(s, b), s.inv_true_hwm, new_hwm - 1)
    after = consumed.now
    _keep_unless(consumed, before, after, advanced)


def _keep_unless(writer, before, after, cond) -> None:
    """Make a sequence writer's change conditional: the change stands only where ``cond`` holds."""
    from modelcheck.language.bounded import Contents
    c = lift(cond)
    writer._contents = Contents(ite(c, after.contents.size, before.contents.size),
                                [{p: ite(c, a[p], z[p]) for p in a}
                                 for a, z in zip(after.contents.slots, before.contents.slots)],
                                or_(before.contents.overflow, and_(c, after.contents.overflow)))


def safe_to_advance_hwm(s, isr) -> Expr:
    """KIP-966's SafeToAdvanceHwm(b, isr): the ISR (not the maximal ISR) has MinISR members."""
    return le(s.c.MinISR, cardinality(isr, size(s)))


def can_advance_hwm(s, isr, old_hwm, new_hwm) -> Expr:
    """CanAdvanceHwm: a higher high watermark, and (KIP-966) an ISR of at least MinISR members."""
    if types(s.c).elr:
        return and_(lt(old_hwm, new_hwm), safe_to_advance_hwm(s, isr))
    return lt(old_hwm, new_hwm)


def maybe_advance_high_watermark(s, n, b, old_hwm, new_hwm, ack_type, isr=None) -> None:
    """MaybeAdvanceHighWatermark(b, [isr,] old_hwm, new_hwm, ack_type); KIP-966
    advances only on an ISR of MinISR members or more."""
    advance = can_advance_hwm(s, isr, old_hwm, new_hwm)
    n.partition_data[b].update(hwm=ite(advance, new_hwm, hwm_of(s, b)))
    update_hwm_invariant_vars(s, n, b, old_hwm, new_hwm, ack_type, when=advance)


def fail_pending_writes(s, b) -> Expr:
    """The values FailPendingWrites(b) negatively acknowledges."""
    return acks_for(s, b, hwm_of(s, b), leo_of(s, b) - 1)


def maybe_fail_pending_writes(s, n, b, isr, leader) -> None:
    """MaybeFailPendingWrites(b, part_state) for a partition state with this ISR and leader."""
    fail = and_(lt(hwm_of(s, b), leo_of(s, b)),
                or_(lt(cardinality(isr, size(s)), s.c.MinISR), ne(leader, b)))
    n.inv_neg_acked = ite(fail, bit_or(s.inv_neg_acked, fail_pending_writes(s, b)), s.inv_neg_acked)


def maybe_update_hwm_and_ack_on_partition_change(s, n, b, maximal_isr, isr=None) -> None:
    """MaybeUpdateHwmAndAckOnPartitionChange(b, part_md, _), for a partition
    state with this maximal ISR (and ISR, which KIP-966 checks)."""
    new_hwm = commit_offset_on_update(s, b, maximal_isr) + 1
    ack_type = le(s.c.MinISR, cardinality(maximal_isr, size(s)))
    maybe_advance_high_watermark(s, n, b, hwm_of(s, b), new_hwm, ack_type, isr)


# --- partition changes on the controller ---------------------------------------------------------


def apply_partition_change(s, n, replicas, leader, isr, leader_epoch, partition_epoch, adding, removing,
                           when=TRUE, elr=None) -> None:
    """ApplyPartitionChange(...), taking effect only ``when`` it holds. Under
    KIP-966 it also sets the ELR and the last known ELR: emptied once the ISR
    has MinISR members, else growing by the replicas that left the ELR."""
    t = types(s.c)
    extra = {}
    if t.elr:
        con = s.con_partition_metadata
        left_elr = bit_and(con.elr, bit_xor(elr, (1 << size(s)) - 1))
        last_known = ite(le(s.c.MinISR, cardinality(isr, size(s))), 0,
                         bit_or(con.last_known_elr, bit_and(replicas, left_elr)))
        extra = {"elr": elr, "last_known_elr": last_known}
    md = t.controller_partition.new(replicas=replicas, isr=isr, leader=leader, leader_epoch=leader_epoch,
                                    partition_epoch=partition_epoch, adding=adding, removing=removing, **extra)
    n.con_partition_metadata.set(record_ite(when, md, s.con_partition_metadata))
    n.con_metadata_log.append_if(when, t.change_record.new(
        replicas=replicas, isr=isr, leader=leader, leader_epoch=leader_epoch, partition_epoch=partition_epoch,
        adding=adding, removing=removing, full=True, **extra))


def update_elr(s, elr, original_isr, proposed_isr, replicas) -> Expr:
    """KIP-966's UpdateElr: empty once the proposed ISR has MinISR members,
    else the ELR (still replicas) plus the replicas leaving the ISR."""
    removed = bit_and(bit_and(original_isr, replicas), bit_xor(proposed_isr, (1 << size(s)) - 1))
    return ite(le(s.c.MinISR, cardinality(proposed_isr, size(s))), 0, bit_or(bit_and(elr, replicas), removed))


def update_elr_on_isr_or_replica_change(s, proposed_isr, replicas) -> Expr:
    """UpdateElrOnIsrOrReplicaChange(proposed_isr, replicas)."""
    con = s.con_partition_metadata
    return update_elr(s, con.elr, con.isr, proposed_isr, replicas)


def maybe_remove_broker_from_isr(s, isr, b) -> Expr:
    """MaybeRemoveBrokerFromISR(isr, b): the ISR never shrinks below one member."""
    return ite(eq(cardinality(isr, size(s)), 1), isr, set_without(isr, b, size(s)))


def no_leader_change(s, new_isr, new_unfenced) -> Expr:
    """NoLeaderChange(new_isr, new_unfenced)."""
    leader = s.con_partition_metadata.leader
    return or_(and_(eq(leader, NO_LEADER), eq(bit_and(new_isr, new_unfenced), 0)),
               and_(member(new_isr, leader, size(s)), member(new_unfenced, leader, size(s))))


def maybe_update_partition_on_broker_change_elr(s, n, new_isr, new_elr, new_unfenced, candidate, when=TRUE) -> None:
    """KIP-966's MaybeUpdatePartitionOnBrokerChange(new_isr, new_elr,
    new_unfenced): the ISR may be empty; a leader is elected from the ISR
    (any member), else from the unfenced ELR members (which then join the
    ISR), else there is none. ``candidate`` is the choice, -1 where there is none."""
    md = s.con_partition_metadata
    k = size(s)
    stays = or_(and_(eq(md.leader, NO_LEADER), eq(new_isr, 0), eq(bit_and(new_elr, new_unfenced), 0)),
                member(new_isr, md.leader, k))
    same = and_(eq(new_isr, md.isr), eq(new_elr, md.elr))
    from_isr = and_(when, not_(stays), ne(new_isr, 0))
    elr_candidates = bit_and(new_elr, new_unfenced)
    from_elr = and_(when, not_(stays), eq(new_isr, 0), ne(elr_candidates, 0))
    if candidate >= 0:
        bit = 1 << candidate
        n.cases((from_isr, lambda n2: (n2.require(member(new_isr, candidate)), apply_partition_change(
                    s, n2, md.replicas, candidate, new_isr, md.leader_epoch + 1, md.partition_epoch + 1, md.adding,
                    md.removing, elr=new_elr))),
                (from_elr, lambda n2: (n2.require(member(elr_candidates, candidate)), apply_partition_change(
                    s, n2, md.replicas, candidate, bit_or(new_isr, bit), md.leader_epoch + 1, md.partition_epoch + 1,
                    md.adding, md.removing, elr=bit_and(new_elr, (1 << k) - 1 - bit)))))
        return
    n.require(not_(from_isr), not_(from_elr))
    changed = and_(stays, not_(same))
    leaderless = and_(not_(stays), eq(new_isr, 0), eq(elr_candidates, 0))
    apply_partition_change(s, n, md.replicas, ite(changed, md.leader, NO_LEADER), new_isr,
                           ite(changed, md.leader_epoch, md.leader_epoch + 1), md.partition_epoch + 1, md.adding,
                           md.removing, when=and_(when, or_(changed, leaderless)), elr=new_elr)


def maybe_update_partition_on_broker_change(s, n, new_isr, new_unfenced, candidate, when=TRUE) -> None:
    """MaybeUpdatePartitionOnBrokerChange(new_isr, new_unfenced), taking effect only ``when`` it holds.

    Its third case picks any unfenced ISR member as the new leader: that
    choice is the action parameter ``candidate`` (-1 in the other cases).
    """
    md = s.con_partition_metadata
    stays = no_leader_change(s, new_isr, new_unfenced)
    same_isr = eq(new_isr, md.isr)
    has_candidate = ne(bit_and(new_isr, new_unfenced), 0)
    elect = and_(when, not_(stays), has_candidate)
    if candidate >= 0:
        n.require(elect, member(bit_and(new_isr, new_unfenced), candidate))
        apply_partition_change(s, n, md.replicas, candidate, new_isr, md.leader_epoch + 1, md.partition_epoch + 1,
                               md.adding, md.removing)
        return
    n.require(not_(elect))
    isr_only = and_(stays, not_(same_isr))
    leaderless = and_(not_(stays), not_(has_candidate))
    leader = ite(isr_only, md.leader, NO_LEADER)
    epoch = ite(isr_only, md.leader_epoch, md.leader_epoch + 1)
    apply_partition_change(s, n, md.replicas, leader, new_isr, epoch, md.partition_epoch + 1, md.adding,
                           md.removing, when=and_(when, or_(isr_only, leaderless)))


def handle_broker_fenced(s, n, b, candidate) -> None:
    """HandleBrokerFenced(b). Under KIP-966 the broker leaves the ISR even as
    its last member, and the ELR is updated."""
    md = s.con_partition_metadata
    new_unfenced = set_without(s.con_unfenced, b, size(s))
    if types(s.c).elr:
        new_isr = set_without(md.isr, b, size(s))
        new_elr = update_elr_on_isr_or_replica_change(s, new_isr, md.replicas)
        maybe_update_partition_on_broker_change_elr(s, n, new_isr, new_elr, new_unfenced, candidate)
    else:
        new_isr = maybe_remove_broker_from_isr(s, md.isr, b)
        maybe_update_partition_on_broker_change(s, n, new_isr, new_unfenced, candidate)
    n.con_unfenced = new_unfenced


def handle_broker_unfenced(s, n, b, candidate) -> None:
    """HandleBrokerUnfenced(b): a leader is chosen only if there is none."""
    md = s.con_partition_metadata
    new_unfenced = set_with(s.con_unfenced, b)
    leaderless = eq(md.leader, NO_LEADER)
    if types(s.c).elr:
        maybe_update_partition_on_broker_change_elr(s, n, md.isr, md.elr, new_unfenced, candidate, when=leaderless)
    else:
        maybe_update_partition_on_broker_change(s, n, md.isr, new_unfenced, candidate, when=leaderless)
    n.con_unfenced = new_unfenced


def process_unclean_broker(s, n, b, candidate) -> None:
    """KIP-966's ProcessUncleanBroker(b): a broker that registers without a
    broker epoch on file may have lost data; it leaves the ISR and the ELR."""
    md = s.con_partition_metadata
    new_unfenced = set_with(s.con_unfenced, b)
    maybe_update_partition_on_broker_change_elr(s, n, set_without(md.isr, b, size(s)),
                                                set_without(md.elr, b, size(s)), new_unfenced, candidate)
    n.con_unfenced = new_unfenced


# --- LastOffsetForEpoch -------------------------------------------------------------------------


def last_offset_for_epoch(s, b, req_epoch, is_leader: bool) -> tuple[Expr, Expr, Expr]:
    """LastOffsetForEpoch(b, req_epoch, is_leader) as (epoch, offset, offset
    is Nil). Offsets are enumerated from 1 up, so CHOOSE takes the lowest
    offset that satisfies its condition, as TLC does."""
    log = log_of(s, b)
    md = s.partition_metadata[b]
    offsets = log_offsets(s, b)

    def epoch_at(o):
        return log.at(o).epoch

    plain = or_(log.is_empty(), eq(req_epoch, log.last().epoch),
                and_(is_leader, eq(md.leader_epoch, req_epoch)) if is_leader else lift(False))
    higher_exists = any_of(and_(here, lt(req_epoch, epoch_at(o))) for o, here in offsets)

    def is_next_epoch_start(o):
        here = offsets[o - 1][1]
        return and_(here, lt(req_epoch, epoch_at(o)),
                    not_(any_of(and_(here2, lt(req_epoch, epoch_at(o2)), lt(epoch_at(o2), epoch_at(o)))
                                for o2, here2 in offsets if o2 < o)))

    leader_higher = and_(is_leader, lt(req_epoch, md.leader_epoch)) if is_leader else lift(False)
    higher_offset = ite(higher_exists, choose([o for o, _ in offsets], is_next_epoch_start, NIL),
                        ite(leader_higher, leo_of(s, b), NIL))
    offset_is_nil = and_(not_(higher_exists), not_(leader_higher))

    floor_exists = any_of(and_(here, le(epoch_at(o), req_epoch)) for o, here in offsets)

    def is_floor(o):
        here = offsets[o - 1][1]
        return and_(here, le(epoch_at(o), req_epoch),
                    not_(any_of(and_(here2, le(epoch_at(o2), req_epoch), lt(epoch_at(o), epoch_at(o2)))
                                for o2, here2 in offsets)))

    floor_offset = choose([o for o, _ in offsets], is_floor, 1)
    floor_epoch = log.at(floor_offset).epoch
    epoch = ite(plain, req_epoch, ite(floor_exists, floor_epoch, req_epoch))
    offset = ite(plain, leo_of(s, b), higher_offset)
    return epoch, offset, and_(not_(plain), offset_is_nil)


# --- fetch sessions -----------------------------------------------------------------------------


def drop_fetch_sessions(s, n, b) -> None:
    """DropFetchSessions(b): the fetches to and from b are dropped, b's own
    fetchers are cleared, and fetchers of other brokers waiting on b stop
    waiting (marked delayed if they still fetch the partition)."""
    from modelcheck.specs.kraft.network import drop
    involved = (lambda m: or_(eq(m.dest, b), eq(m.source, b)))
    drop(n, "fetch_request", involved)
    drop(n, "fetch_response", involved)
    for k in brokers(s.c):
        if k == b:
            for j in brokers(s.c):
                n.broker_fetchers[k][j].set(blank_fetch_state(s))
            continue
        f = s.broker_fetchers[k][b]
        n.broker_fetchers[k][b].update(pending_response=False,
                                       delayed=or_(f.delayed, and_(f.pending_response, f.added)))


# --- AlterPartition validation -------------------------------------------------------------------


def is_eligible_broker(s, b, broker_epoch) -> Expr:
    """IsEligibleBroker(b, broker_epoch); with IsrJoinChecksBrokerEpoch off,
    being unfenced is enough."""
    reg = s.con_broker_reg[b]
    unfenced = eq(reg.raw("status"), UNFENCED)
    if not s.c.IsrJoinChecksBrokerEpoch:
        return unfenced
    return and_(unfenced, or_(eq(broker_epoch, 0), eq(reg.broker_epoch, broker_epoch)))


def eligible_isr(s, m: RecordView, prefix: str = "") -> Expr:
    """EligibleIsr(m): every member of the proposed ISR is eligible with the epoch the request gives it."""
    isr = m.raw(prefix + "isr")
    return all_of(or_(not_(member(isr, k)), is_eligible_broker(s, k, m.raw(f"{prefix}epoch_of_{k}")))
                  for k in brokers(s.c))


def validate_alter_partition_request(s, b, m: RecordView) -> Expr:
    """ValidateAlterPartitionRequest(b, m): Nil (no error), IneligibleReplica or FencedLeaderEpoch."""
    md = s.con_partition_metadata
    current = and_(eq(md.leader, b), eq(m.broker_epoch, s.con_broker_reg[b].broker_epoch),
                   eq(m.partition_epoch, md.partition_epoch) if s.c.AlterPartitionChecksPartitionEpoch else TRUE)
    return ite(current, ite(eligible_isr(s, m), NO_ERROR, INELIGIBLE_REPLICA), FENCED_LEADER_EPOCH)

