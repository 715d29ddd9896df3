"""kafka_replication_v3_5: Kafka 3.5's replication protocol under the KRaft
controller, carried over from the upstream TLA+ module of that name.

A KRaft controller keeps the partition's replicas, ISR, leader and epochs,
and appends every change to a metadata log the brokers replicate. Brokers
register, are fenced and unfenced, shut down cleanly or uncleanly and restart;
the leader replica takes writes, answers fetches, advances the high
watermark and asks the controller to change the ISR (AlterPartition).
Messages travel through a network (``network``); the record types and bounds
are in ``v3_5_types``, shared operators in ``v3_5_functions``, invariants in
``v3_5_properties``.

Next is ``\\E b \\in Brokers`` of fifteen actions, then the reassignment
action; the port orders action instances as TLC does (broker by broker,
then action by action, then the values each action chooses in the order TLC
enumerates them), so that under the VIEW the state kept for each view is
the one TLC keeps. Choices upstream makes with ``\\E`` over data (the
message taken, the new leader, the brokers a timed-out ISR holds) are
action parameters bound by equalities in the guard.
"""

from __future__ import annotations

from modelcheck.language.expr import (FALSE, TRUE, and_, bit_and, bit_or, cardinality, eq, ite, le, lt, member, ne, not_, or_,
                                      set_with, subset_of)
from modelcheck.language.records import record_ite
from modelcheck.model.spec import Domain, SpecDefinition, action, by_first_parameter
from modelcheck.language.temporal import Specification
from modelcheck.specs.kraft import UPSTREAM_COMMIT, UPSTREAM_REPOSITORY, viewer_layout
from modelcheck.specs.kraft.network import discard, messages, previously_sent, reply, send
from modelcheck.specs.kraft.v3_5_functions import (apply_partition_change, blank_fetch_state, blank_metadata,
                                        can_advance_hwm, commit_offset_on_fetch, commit_offset_on_write, drop_fetch_sessions,
                                        fail_pending_writes, handle_broker_fenced, handle_broker_unfenced, hwm_of,
                                        last_offset_for_epoch, leo_of, log_of, maybe_advance_high_watermark,
                                        maybe_fail_pending_writes, maybe_update_hwm_and_ack_on_partition_change,
                                        partition_needs_action, pending_alter_partition_response,
                                        process_unclean_broker, reassignment_in_progress, reset_all_follower_state,
                                        reset_pending_acks,
                                        reset_pending_alter_partition, unreplicated_offset,
                                        update_elr_on_isr_or_replica_change, update_hwm_invariant_vars,
                                        validate_alter_partition_request)
from modelcheck.specs.kraft.v3_5_liveness import PROPERTIES, liveness_specification
from modelcheck.specs.kraft.v3_5_properties import CFG_INVARIANTS, INVARIANTS, SOMETIMES, converged
from modelcheck.specs.kraft.v3_5_types import (BROKER, CAPACITIES, CONSTANTS, FENCED, FENCED_LEADER_EPOCH, FOLLOWER, LEADER, NIL, NIL_ROLE,
                                    NO_ERROR, NOT_LEADER_OR_FOLLOWER, OFFLINE_CLEAN, OFFLINE_DIRTY,
                                    RUNNING, STARTING, SWITCHES, UNFENCED, UNKNOWN_LEADER_EPOCH, VALUE, VIEW, bounds,
                                    broker_bit, brokers, check_constants, fetch_pairs, fields, int_max_code,
                                    keyed_fetch_sets, types, variables)

# --- parameter domains ------------------------------------------------------------------


def _slots(kind: str, capacity) -> Domain:
    return Domain("m", lambda c: range(capacity(bounds(c))), lambda c, v: f"{kind}#{v}")


REGISTER_REQUEST = _slots("RegisterBrokerRequest", lambda b: b.registrations)
REGISTER_RESPONSE = _slots("RegisterBrokerResponse", lambda b: b.registrations)
ALTER_REQUEST = _slots("AlterPartitionRequest", lambda b: b.alter_partitions)
ALTER_RESPONSE = _slots("AlterPartitionResponse", lambda b: b.alter_partitions)
def _fetch_slots(kind: str) -> Domain:
    """A fetch message's slot: one per (dest, source) pair where the set is
    keyed by them, else one per message the sorted set can hold (as many)."""
    def show(c, v):
        if ("fetch_" + kind[5:].lower()) not in keyed_fetch_sets(c):
            return f"{kind}#{v}"
        dest, source = fetch_pairs(c)[v]
        return f"{kind}(dest={dest + 1}, source={source + 1})"
    return Domain("m", lambda c: range(len(fetch_pairs(c))), show)


FETCH_REQUEST = _fetch_slots("FetchRequest")
FETCH_RESPONSE = _fetch_slots("FetchResponse")
# A leader the controller may pick, or -1 where the action picks none.
CANDIDATE = Domain("candidate", lambda c: range(-1, c.BrokerCount), lambda c, v: "none" if v < 0 else v + 1)
# Offsets into the metadata log (1-based, as in TLA+).
METADATA_OFFSET = Domain("md_offset", lambda c: range(1, bounds(c).metadata_log + 1))
# The leader a metadata record names, NoLeader included.
RECORD_LEADER = Domain("leader", lambda c: range(-1, c.BrokerCount), lambda c, v: "NoLeader" if v < 0 else v + 1)


def _subset_order(n: int) -> list[int]:
    """SUBSET 1..n in TLC's order: by size, then lexicographically."""
    from itertools import combinations
    return [sum(1 << i for i in combo) for k in range(n + 1) for combo in combinations(range(n), k)]


def _show_set(c, mask: int) -> str:
    return "{" + ", ".join(str(k + 1) for k in range(c.BrokerCount) if mask >> k & 1) + "}"


BROKER_SUBSET = Domain("brokers", lambda c: _subset_order(c.BrokerCount), _show_set)


def under_limit(counter, limit: int):
    """counter < limit; known false when the limit is 0 (so the action's instances drop out)."""
    return FALSE if limit == 0 else lt(counter, limit)


def offline(s, b):
    status = s.broker_state[b].status
    return or_(eq(status, OFFLINE_CLEAN), eq(status, OFFLINE_DIRTY))


# --- BrokerStart, registration, fencing --------------------------------------------------------


@action(b=BROKER)
def BrokerStart(s, n, b):
    """A stopped broker starts (STARTING) with a fresh incarnation id and
    sends the controller a registration request."""
    t, incarnation = types(s.c), s.aux_ctrs.incarn_ctr
    n.require(offline(s, b))
    # KIP-966: the broker reads its broker epoch from file (0 if it lost it) and sends it
    on_file = s.broker_state[b].broker_epoch if t.elr else 0
    n.broker_state[b].set(t.broker_side.new(status=STARTING, broker_epoch=on_file, incarnation_id=incarnation,
                                            registered=False))
    n.partition_status[b] = NIL_ROLE
    send(n, "register_request", t.register_request.new(broker_id=b, broker_epoch=on_file, incarnation_id=incarnation,
                                                       source=b))
    n.aux_ctrs.update(incarn_ctr=incarnation + 1)


@action(b=BROKER, m=REGISTER_REQUEST, candidate=CANDIDATE)
def ReceiveBrokerRegRequest(s, n, b, m, candidate):
    """The controller accepts a registration from a fenced broker, or from an
    unfenced one with the same incarnation: a new broker epoch, the broker
    unfenced (a leader elected if there is none), and a response that says
    how much of the metadata log existed."""
    t = types(s.c)
    request = messages(s, "register_request").at(m)
    reg = s.con_broker_reg[b]
    n.require(messages(s, "register_request").present(m), eq(request.source, b),
              or_(eq(reg.status, FENCED), eq(reg.incarnation_id, request.incarnation_id)))
    broker_epoch = s.aux_broker_epoch + 1
    n.con_broker_reg[b].set(t.controller_side.new(status=UNFENCED, broker_epoch=broker_epoch,
                                                  incarnation_id=request.incarnation_id))
    if t.elr:  # KIP-966: a broker without a broker epoch on file may have lost data
        n.cases((eq(request.broker_epoch, 0), lambda n2: process_unclean_broker(s, n2, b, candidate)),
                otherwise=lambda n2: handle_broker_unfenced(s, n2, b, candidate))
    else:
        handle_broker_unfenced(s, n, b, candidate)
    reply(s, n, "register_request", m, "register_response",
          t.register_response.new(broker_epoch=broker_epoch, incarnation_id=request.incarnation_id,
                                  metadata_offset=s.con_metadata_log.len, dest=b))
    n.aux_broker_epoch = broker_epoch


@action(b=BROKER, m=REGISTER_RESPONSE)
def ReceiveBrokerRegResponse(s, n, b, m):
    """A starting broker takes the registration response for its incarnation:
    it runs with the new broker epoch, holds the metadata log up to (not
    including) the offset the response names, and forgets its partition
    metadata (the next metadata update sets it)."""
    t = types(s.c)
    response = messages(s, "register_response").at(m)
    state = s.broker_state[b]
    n.require(messages(s, "register_response").present(m), eq(response.dest, b), eq(state.status, STARTING),
              not_(state.registered),
              eq(state.incarnation_id, response.incarnation_id) if s.c.RegistrationMatchesIncarnation else TRUE)
    n.broker_state[b].set(t.broker_side.new(status=RUNNING, broker_epoch=response.broker_epoch,
                                            incarnation_id=state.incarnation_id, registered=True))
    log = n.broker_metadata_log[b]
    log.clear()
    log.extend(s.con_metadata_log, 1, response.metadata_offset - 1)
    n.partition_metadata[b].set(blank_metadata(s))
    discard(s, n, "register_response", m)


@action(b=BROKER, candidate=CANDIDATE)
def UnfenceBroker(s, n, b, candidate):
    """The controller unfences a running fenced broker (standing in for its heartbeats)."""
    n.require(eq(s.con_broker_reg[b].status, FENCED), eq(s.broker_state[b].status, RUNNING))
    handle_broker_unfenced(s, n, b, candidate)
    n.con_broker_reg[b].update(status=UNFENCED)


@action(b=BROKER, candidate=CANDIDATE)
def FenceBroker(s, n, b, candidate):
    """The controller fences an unfenced broker (standing in for missed
    heartbeats): out of the ISR unless it is the last member, and out of
    leadership."""
    n.require(under_limit(s.aux_ctrs.fence_broker_ctr, s.c.FenceBrokerLimit), eq(s.con_broker_reg[b].status, UNFENCED))
    handle_broker_fenced(s, n, b, candidate)
    n.con_broker_reg[b].update(status=FENCED)
    n.aux_ctrs.update(fence_broker_ctr=s.aux_ctrs.fence_broker_ctr + 1)


# --- ReceiveMetadataUpdate ---------------------------------------------------------------------


def add_partition_to_fetcher(s, n, b, leader: int, leader_epoch) -> None:
    """AddPartitionToFetcher(b, leader, leader_epoch): in a new leader epoch,
    or if not fetching from the leader yet, fetch from the leader starting at
    the log end (and from nobody else)."""
    log = log_of(s, b)
    renew = not_(s.broker_fetchers[b][leader].added)
    if s.c.RefetchOnLeaderEpochBump:
        renew = or_(lt(s.partition_metadata[b].leader_epoch, leader_epoch), renew)
    last_epoch = ite(log.is_empty(), 0, log.last().epoch)
    for k in brokers(s.c):
        f = s.broker_fetchers[b][k]
        if k == leader:
            fresh = f.replace(added=True, fetch_offset=leo_of(s, b), last_fetched_epoch=last_epoch, delayed=False)
        else:
            fresh = f.replace(added=False, fetch_offset=1, last_fetched_epoch=0, delayed=False)
        n.broker_fetchers[b][k].set(record_ite(renew, fresh, f))


def remove_partition_from_fetchers(s, n, b) -> None:
    """RemovePartitionFromFetchers(b): no fetcher has the partition; pending responses stay pending."""
    for k in brokers(s.c):
        f = s.broker_fetchers[b][k]
        n.broker_fetchers[b][k].set(blank_fetch_state(s).replace(pending_response=f.pending_response))


def ensure_leadership_renounced(s, n, b, isr, leader) -> None:
    """EnsureLeadershipRenounced(b, new_part_md)."""
    maybe_fail_pending_writes(s, n, b, isr, leader)
    reset_all_follower_state(s, n, b)
    reset_pending_alter_partition(s, n, b)
    reset_pending_acks(s, n, b)


def remain_leader(s, n, b, record) -> None:
    """RemainLeader: maybe advance the high watermark on the new ISR; a
    pending AlterPartition request the update covers is no longer pending."""
    maybe_update_hwm_and_ack_on_partition_change(s, n, b, record.isr, record.isr)
    covered = le(s.partition_pending_ap[b].epoch, record.partition_epoch)
    n.partition_pending_ap[b].set(record_ite(covered, types(s.c).pending_alter.new(), s.partition_pending_ap[b]))


def become_leader_in_new_epoch(s, n, b, record, is_new_leader) -> None:
    """BecomeLeaderInNewEpoch: lead from the current log end; forget what it
    knew of followers (all of them if newly leader, else, as
    ResetFollowerStateOfAllButISR, those outside the ISR); stop fetching."""
    n.partition_status[b] = LEADER
    maybe_update_hwm_and_ack_on_partition_change(s, n, b, record.isr, record.isr)
    n.partition_leso[b] = leo_of(s, b)
    reset_all_follower_state_if = is_new_leader
    for k in brokers(s.c):
        old = s.partition_replica_state[b][k]
        blank = types(s.c).peer.new()
        if s.c.ResetStaleFollowerState:
            otherwise = record_ite(member(record.isr, k), old, blank)
        else:
            otherwise = old
        n.partition_replica_state[b][k].set(record_ite(reset_all_follower_state_if, blank, otherwise))
    reset_pending_alter_partition(s, n, b)
    remove_partition_from_fetchers(s, n, b)


def become_follower_in_new_epoch(s, n, b, record, leader: int) -> None:
    """BecomeFollowerInNewEpoch: fetch from the new leader; renounce any leadership."""
    n.partition_status[b] = FOLLOWER
    add_partition_to_fetcher(s, n, b, leader, record.leader_epoch)
    n.partition_leso[b] = NIL
    ensure_leadership_renounced(s, n, b, record.isr, record.leader)


def wait_for_leader_change(s, n, b, record) -> None:
    """WaitForLeaderChange: no leader yet; stop fetching, renounce leadership."""
    n.partition_status[b] = NIL_ROLE
    remove_partition_from_fetchers(s, n, b)
    n.partition_leso[b] = NIL
    ensure_leadership_renounced(s, n, b, record.isr, record.leader)


def delete_partition(s, n, b, record) -> None:
    """DeletePartition: removed from the replica set; the local log is deleted."""
    n.partition_status[b] = NIL_ROLE
    remove_partition_from_fetchers(s, n, b)
    n.partition_leso[b] = NIL
    n.partition_log[b].clear()
    n.partition_data[b].update(hwm=1, leo=1)
    ensure_leadership_renounced(s, n, b, record.isr, record.leader)


@action(b=BROKER, md_offset=METADATA_OFFSET, leader=RECORD_LEADER)
def ReceiveMetadataUpdate(s, n, b, md_offset, leader):
    """A registered, running broker replicates the metadata log up to a
    record that concerns its replica and applies that record (the last of
    the batch): the replica remains or becomes leader, remains or becomes a
    follower, waits for a leader, or is deleted. ``leader`` is the leader the
    record names."""
    state = s.broker_state[b]
    record = s.con_metadata_log.at(md_offset)
    n.require(not_(or_(eq(state.status, OFFLINE_CLEAN), eq(state.status, OFFLINE_DIRTY))), state.registered,
              unreplicated_offset(s, b, md_offset), partition_needs_action(s, b, md_offset),
              eq(record.leader, leader))
    n.broker_metadata_log[b].extend(s.con_metadata_log, s.broker_metadata_log[b].len + 1, md_offset, aligned=True)
    current = s.partition_metadata[b]
    is_new_leader = and_(ne(s.partition_status[b], LEADER), eq(record.leader, b))
    in_new = member(record.replicas, b)
    newer = lt(current.partition_epoch, record.partition_epoch)
    new_md = types(s.c).replica_partition.new(replicas=record.replicas, isr=record.isr, maximal_isr=record.isr,
                                              leader=record.leader, leader_epoch=record.leader_epoch,
                                              partition_epoch=record.partition_epoch)

    def update(n2):
        n2.partition_metadata[b].set(record_ite(in_new, new_md, blank_metadata(s)))
        leader_b = leader == b
        arms = [(and_(member(current.replicas, b), not_(in_new)), lambda n3: delete_partition(s, n3, b, record))]
        if leader_b:
            arms.append((eq(current.leader, b),
                         lambda n3: n3.if_(eq(current.leader_epoch, record.leader_epoch),
                                           lambda n4: remain_leader(s, n4, b, record),
                                           lambda n4: become_leader_in_new_epoch(s, n4, b, record, is_new_leader))))
            arms.append((TRUE, lambda n3: become_leader_in_new_epoch(s, n3, b, record, is_new_leader)))
        if leader >= 0 and not leader_b:
            remain = and_(eq(record.leader_epoch, current.leader_epoch), ne(current.leader, b))
            arms.append((in_new, lambda n3: n3.if_(remain, lambda n4: None,
                                                    lambda n4: become_follower_in_new_epoch(s, n4, b, record,
                                                                                            leader))))
        n2.cases(*arms, otherwise=lambda n3: (n3.require(in_new), wait_for_leader_change(s, n3, b, record)))

    n.if_(newer, update, lambda n2: None)


# --- AlterPartition ---------------------------------------------------------------------------


def isr_and_epochs(s, b, proposed, current) -> dict:
    """IsrAndEpochs(b, proposed_isr, curr_isr): the leader's own broker epoch,
    0 for members already in the ISR, the epoch last seen in a fetch for members being added."""
    out = {}
    for k in brokers(s.c):
        if k == b:
            epoch = s.broker_state[b].broker_epoch
        else:
            epoch = ite(member(current, k), 0, s.partition_replica_state[b][k].broker_epoch)
        out[f"epoch_of_{k}"] = ite(member(proposed, k), epoch, 0)
    return out


def follower_is_caught_up(s, b, k, current, timed_out):
    """FollowerIsCaughtUp(b, follower, ...): an ISR member that has not timed
    out, or another replica the leader has had a fetch from (IsrJoinRequiresFetch)
    at or past its high watermark (IsrJoinRequiresHighWatermark) and the offset
    its epoch started at (IsrJoinRequiresEpochStart). With a check off, that
    condition is dropped; with IsrJoinRequiresFetch off, a follower the leader
    has not heard from (its leo is Nil, which the other two cannot compare)
    counts as caught up."""
    c = s.c
    leo = s.partition_replica_state[b][k].leo
    caught_up = and_(ne(leo, NIL), le(hwm_of(s, b), leo) if c.IsrJoinRequiresHighWatermark else TRUE,
                     le(s.partition_leso[b], leo) if c.IsrJoinRequiresEpochStart else TRUE)
    joining = caught_up if c.IsrJoinRequiresFetch else or_(eq(leo, NIL), caught_up)
    return or_(and_(member(current, k), not_(member(timed_out, k))),
               and_(not_(member(current, k)), joining))


def propose_new_isr(s, b, current, timed_out):
    """ProposeNewISR(b, curr_isr, timed_out_isr)."""
    replicas = s.partition_metadata[b].replicas
    mask = 0
    for k in brokers(s.c):
        keep = TRUE if k == b else follower_is_caught_up(s, b, k, current, timed_out)
        mask = bit_or(mask, ite(and_(member(replicas, k), keep), broker_bit(k), 0))
    return mask


@action(b=BROKER, timed_out=BROKER_SUBSET)
def SendAlterPartitionRequest(s, n, b, timed_out):
    """A running leader with no request pending proposes a new ISR: the
    members that have not timed out (``timed_out``: while shrinks are allowed,
    any subset of the ISR but the leader) plus the caught-up followers. It
    applies the union of the old and proposed ISR as its maximal ISR at once.
    A request sent before is sent again only if the controller would accept it."""
    t = types(s.c)
    md = s.partition_metadata[b]
    current = md.isr
    may_shrink = under_limit(s.aux_ctrs.leader_shrink_isr_ctr, s.c.LeaderShrinkIsrLimit)
    n.require(eq(s.broker_state[b].status, RUNNING), not_(pending_alter_partition_response(s, b)),
              eq(s.partition_status[b], LEADER),
              ite(may_shrink, and_(subset_of(timed_out, current), not_(member(timed_out, b))), eq(timed_out, 0)) if
              timed_out else TRUE)
    proposed = propose_new_isr(s, b, current, timed_out)
    request = t.alter_request.new(source=b, broker_epoch=s.broker_state[b].broker_epoch, leader=b,
                                  leader_epoch=md.leader_epoch, partition_epoch=md.partition_epoch, isr=proposed,
                                  **isr_and_epochs(s, b, proposed, current))
    n.require(ne(proposed, current),
              or_(not_(previously_sent(s, "alter_request", request)),
                  eq(validate_alter_partition_request(s, b, request), NO_ERROR)))
    send(n, "alter_request", request)
    n.partition_metadata[b].update(maximal_isr=bit_or(proposed, current))
    pending = t.pending_alter.new(epoch=md.partition_epoch + 1, has_request=True,
                                  **{"req_" + name: request.raw(name) for name in t.alter_request.names})
    n.partition_pending_ap[b].set(pending)
    shrinks = ne(bit_and(current, _complement(s, proposed)), 0)
    n.aux_ctrs.update(leader_shrink_isr_ctr=ite(shrinks, s.aux_ctrs.leader_shrink_isr_ctr + 1,
                                                s.aux_ctrs.leader_shrink_isr_ctr))


def _complement(s, mask):
    from modelcheck.language.expr import bit_xor
    return bit_xor(mask, (1 << s.c.BrokerCount) - 1)


@action(b=BROKER, m=ALTER_REQUEST, leader=CANDIDATE)
def ReceiveAlterPartitionRequest(s, n, b, m, leader):
    """The controller handles an AlterPartition request from ``b``: if valid
    it applies the proposed ISR (completing a reassignment in progress if the
    ISR now holds every added replica), keeping the leader or, if it left the
    ISR, choosing ``leader`` among the new ISR; it answers either way."""
    t = types(s.c)
    request = messages(s, "alter_request").at(m)
    md = s.con_partition_metadata
    n.require(messages(s, "alter_request").present(m), eq(request.source, b))
    error = validate_alter_partition_request(s, b, request)
    final_replicas = bit_and(md.replicas, _complement(s, md.removing))
    final_isr = bit_and(request.isr, _complement(s, md.removing))
    complete = and_(reassignment_in_progress(s), subset_of(md.adding, final_isr),
                    le(s.c.MinISR, cardinality(final_isr, s.c.BrokerCount)))
    new_replicas = ite(complete, final_replicas, md.replicas)
    new_isr = ite(complete, final_isr, request.isr)
    new_elr = update_elr_on_isr_or_replica_change(s, new_isr, new_replicas) if t.elr else None
    new_leader_epoch = ite(complete, md.leader_epoch + 1, md.leader_epoch)
    new_adding = ite(complete, 0, md.adding)
    new_removing = ite(complete, 0, md.removing)
    request_parts = {"req_" + name: request.raw(name) for name in t.alter_request.names}
    if leader < 0:
        n.require(ne(error, NO_ERROR))
        reply(s, n, "alter_request", m, "alter_response",
              t.alter_response.new(success=False, error=error, dest=b, **request_parts))
        return
    n.require(eq(error, NO_ERROR), member(new_isr, leader),
              or_(not_(member(new_isr, md.leader, s.c.BrokerCount)), eq(md.leader, leader)))
    apply_partition_change(s, n, new_replicas, leader, new_isr, new_leader_epoch, md.partition_epoch + 1, new_adding,
                           new_removing, elr=new_elr)
    reply(s, n, "alter_request", m, "alter_response",
          t.alter_response.new(success=True, error=NO_ERROR, replicas=new_replicas, isr=new_isr, leader=leader,
                               leader_epoch=new_leader_epoch, partition_epoch=md.partition_epoch + 1, dest=b,
                               **request_parts))


@action(b=BROKER, m=ALTER_RESPONSE)
def ReceiveAlterPartitionResponse(s, n, b, m):
    """A running leader takes the response to its pending request: on success
    (a newer partition epoch in its own leader epoch) it adopts the new
    partition state, on failure it rolls back its maximal ISR; it may then
    advance its high watermark."""
    t = types(s.c)
    response = messages(s, "alter_response").at(m)
    md = s.partition_metadata[b]
    pending = s.partition_pending_ap[b]
    same_request = and_(pending.has_request,
                        *[eq(pending.raw("req_" + p), response.raw("req_" + p)) for p in t.alter_request.names])
    success = response.success
    n.require(messages(s, "alter_response").present(m), eq(response.dest, b), eq(s.broker_state[b].status, RUNNING),
              eq(s.partition_status[b], LEADER), pending_alter_partition_response(s, b), same_request,
              or_(not_(success), and_(lt(md.partition_epoch, response.partition_epoch),
                                      eq(response.leader_epoch, md.leader_epoch))))
    adopted = t.replica_partition.new(replicas=response.replicas, isr=response.isr, maximal_isr=response.isr,
                                      leader=response.leader, leader_epoch=response.leader_epoch,
                                      partition_epoch=response.partition_epoch)
    rolled_back = md.replace(maximal_isr=md.isr)
    state = record_ite(success, adopted, rolled_back)
    n.partition_metadata[b].set(state)
    maybe_update_hwm_and_ack_on_partition_change(s, n, b, state.maximal_isr, state.isr)
    reset_pending_alter_partition(s, n, b)
    discard(s, n, "alter_response", m)


# --- reassignment -------------------------------------------------------------------------------


@action(removing=BROKER_SUBSET, adding=BROKER_SUBSET, leader=BROKER,
        where=lambda removing, adding, leader: not removing & adding)
def PerformPartitionReassignment(s, n, removing, adding, leader):
    """An operator reassigns the partition: ``adding`` new replicas and
    ``removing`` current ones (never below MinISR replicas). If the ISR already
    holds every added replica the reassignment completes at once, else it
    waits for them to join. ``leader`` is kept if still in the ISR, else
    chosen among it. (TLC tries ``adding`` fastest, then ``removing``; the
    parameters are nested in that order. Adding and removing one broker at
    once is never valid, as added brokers are not replicas.)"""
    md = s.con_partition_metadata
    size = s.c.BrokerCount
    n_adding, n_removing = bin(adding).count("1"), bin(removing).count("1")
    n.require(under_limit(s.aux_ctrs.reassignment_ctr, s.c.ReassignmentLimit), not_(reassignment_in_progress(s)),
              n_adding >= 1 or n_removing >= 1,
              le(s.c.MinISR, cardinality(md.replicas, size) + n_adding - n_removing),
              eq(bit_and(md.replicas, adding), 0), subset_of(removing, md.replicas))
    grow = bit_or(md.replicas, adding)
    final_replicas = bit_and(grow, _complement(s, removing))
    final_isr = bit_and(md.isr, _complement(s, removing))
    complete = and_(subset_of(adding, final_isr), le(s.c.MinISR, cardinality(final_isr, size)),
                    lt(0, cardinality(final_replicas, size)))
    new_isr = ite(complete, final_isr, md.isr)
    n.require(member(new_isr, leader), or_(not_(member(new_isr, md.leader, size)), eq(md.leader, leader)))
    new_elr = ite(complete, update_elr_on_isr_or_replica_change(s, final_isr, final_replicas), md.elr) \
        if types(s.c).elr else None
    apply_partition_change(s, n, ite(complete, final_replicas, grow), leader, new_isr,
                           ite(complete, md.leader_epoch + 1, md.leader_epoch), md.partition_epoch + 1,
                           ite(complete, 0, adding), ite(complete, 0, removing), elr=new_elr)
    n.aux_ctrs.update(reassignment_ctr=s.aux_ctrs.reassignment_ctr + 1)


# --- fetching --------------------------------------------------------------------------------------


@action(b=BROKER, to=BROKER, where=lambda b, to: b != to)
def SendFetchRequest(s, n, b, to):
    """A running follower whose fetcher for ``to`` holds the partition, with no
    fetch in flight, fetches from the broker it believes leads (unless that
    leader already knows it is fully caught up). (A broker never fetches from itself.)"""
    f = s.broker_fetchers[b][to]
    n.require(eq(s.broker_state[b].status, RUNNING), f.added, not_(f.pending_response),
              eq(s.partition_metadata[b].leader, to), not_(converged(s, to, b)))
    send(n, "fetch_request", types(s.c).fetch_request.new(
        broker_epoch=s.broker_state[b].broker_epoch, leader_epoch=s.partition_metadata[b].leader_epoch,
        fetch_offset=f.fetch_offset, last_fetched_epoch=f.last_fetched_epoch, dest=to, source=b))
    n.broker_fetchers[b][to].update(pending_response=True, delayed=False)


@action(b=BROKER, m=FETCH_REQUEST, source=BROKER, where=lambda b, m, source: b != source)
def ReceiveFetchRequest(s, n, b, m, source):
    """A running broker answers a fetch from ``source``: an error if it is not
    the leader in the request's epoch, the diverging epoch if the follower's
    log has diverged, else the record at the fetch offset (if any) and its
    high watermark, which it may first advance on the follower's fetch offset.
    (Fetches are sent to other brokers only.)"""
    t = types(s.c)
    request = messages(s, "fetch_request").at(m)
    md = s.partition_metadata[b]
    n.require(messages(s, "fetch_request").present(m), eq(request.dest, b), eq(request.source, source),
              eq(s.broker_state[b].status, RUNNING))
    last_epoch, last_offset, no_offset = last_offset_for_epoch(s, b, request.last_fetched_epoch, True)
    common = dict(leader_epoch=md.leader_epoch, fetch_offset=request.fetch_offset, hwm=hwm_of(s, b),
                  dest=source, source=b)
    stale = or_(ne(s.partition_status[b], LEADER), ne(md.leader_epoch, request.leader_epoch))
    diverging = or_(lt(last_epoch, request.last_fetched_epoch), lt(last_offset, request.fetch_offset))
    n.fails_if(and_(not_(stale), not_(lt(last_epoch, request.last_fetched_epoch)), no_offset),
               "LastOffsetForEpoch's offset is Nil, which the leader then compares with the fetch offset")

    def error_reply(n2):
        error = ite(lt(md.leader_epoch, request.leader_epoch), UNKNOWN_LEADER_EPOCH,
                    ite(lt(request.leader_epoch, md.leader_epoch), FENCED_LEADER_EPOCH, NOT_LEADER_OR_FOLLOWER))
        reply(s, n2, "fetch_request", m, "fetch_response", t.fetch_response.new(error=error, **common))

    def diverging_reply(n2):
        reply(s, n2, "fetch_request", m, "fetch_response",
              t.fetch_response.new(error=NO_ERROR, diverging=True, diverging_epoch=last_epoch,
                                   diverging_offset=last_offset, **common))

    def ok(n2):
        fetched = t.peer.new(leo=request.fetch_offset, broker_epoch=request.broker_epoch)

        def updated(k):
            return fetched if k == source else s.partition_replica_state[b][k]
        old_hwm = hwm_of(s, b)
        new_hwm = commit_offset_on_fetch(s, b, updated) + 1
        advance = can_advance_hwm(s, md.isr, old_hwm, new_hwm)
        maybe_advance_high_watermark(s, n2, b, old_hwm, new_hwm, True, md.isr)
        n2.partition_replica_state[b][source].set(fetched)
        has_record = lt(request.fetch_offset, leo_of(s, b))
        entry = log_of(s, b).at(request.fetch_offset)
        reply(s, n2, "fetch_request", m, "fetch_response",
              t.fetch_response.new(error=NO_ERROR, leader_epoch=md.leader_epoch, fetch_offset=request.fetch_offset,
                                   hwm=ite(advance, new_hwm, old_hwm), has_record=has_record,
                                   record_epoch=ite(has_record, entry.epoch, 0),
                                   record_offset=ite(has_record, entry.offset, 1),
                                   record_value=ite(has_record, entry.value, 0), dest=source, source=b))

    n.cases((stale, error_reply), (diverging, diverging_reply), otherwise=ok)


def find_truncate_point(s, b, epoch, offset):
    """FindTruncatePoint(b, diverging_epoch), and where it is Nil (which TLC
    cannot go on to compare)."""
    local_epoch, local_offset, no_offset = last_offset_for_epoch(s, b, epoch, False)
    return ite(ne(local_epoch, epoch), local_offset, ite(lt(local_offset, offset), local_offset, offset)), no_offset


@action(b=BROKER, m=FETCH_RESPONSE, source=BROKER, where=lambda b, m, source: b != source)
def ReceiveFetchResponse(s, n, b, m, source):
    """A running broker waiting on its fetch from ``source`` takes the
    response: it ignores one that no longer matches its fetcher, backs off on
    an error, truncates to the point its log and the leader's agree on a
    diverging epoch, else appends the record and takes the leader's high
    watermark if its log reaches it."""
    response = messages(s, "fetch_response").at(m)
    f = s.broker_fetchers[b][source]
    log = log_of(s, b)
    n.require(messages(s, "fetch_response").present(m), eq(response.dest, b), eq(response.source, source),
              eq(s.broker_state[b].status, RUNNING), f.pending_response)
    mismatch = or_(ne(f.fetch_offset, response.fetch_offset) if s.c.FetchResponseMatchesOffset else False,
                   ne(s.partition_metadata[b].leader_epoch, response.leader_epoch)
                   if s.c.FetchResponseMatchesEpoch else False)
    ignore = or_(not_(f.added), and_(f.added, mismatch))

    def noop(n2):
        n2.broker_fetchers[b][source].update(pending_response=False)

    def error(n2):
        n2.broker_fetchers[b][source].update(pending_response=False, delayed=True)

    def fetcher_at(n2, fetch_offset, last_fetched_epoch):
        n2.broker_fetchers[b][source].set(types(s.c).fetcher.new(
            added=True, fetch_offset=fetch_offset, last_fetched_epoch=last_fetched_epoch, delayed=False,
            pending_response=False))

    def truncate(n2):
        point, no_offset = find_truncate_point(s, b, response.diverging_epoch, response.diverging_offset)
        n2.fails_if(no_offset, "FindTruncatePoint is Nil (LastOffsetForEpoch found no offset), which "
                               "TruncateToSafePoint then compares with 1")
        keep = ite(lt(1, point), point - 1, 0)
        n2.partition_log[b].truncate(keep)
        new_leo = ite(lt(1, point), point, 1)
        n2.partition_data[b].update(leo=new_leo)
        truncated = n2.partition_log[b].now
        fetcher_at(n2, new_leo, ite(truncated.is_empty(), 0, truncated.last().epoch))

    def append(n2):
        new_leo = log.len + ite(response.has_record, 1, 0) + 1
        record = types(s.c).partition_record.new(epoch=response.record_epoch, offset=response.record_offset,
                                                 value=response.record_value)
        n2.partition_log[b].append_if(response.has_record, record)
        n2.partition_data[b].update(leo=new_leo, hwm=ite(le(response.hwm, new_leo), response.hwm, hwm_of(s, b)))
        fetcher_at(n2, new_leo, ite(response.has_record, response.record_epoch, f.last_fetched_epoch))

    n.cases((ignore, noop), (ne(response.raw("error"), NO_ERROR), error), (response.diverging, truncate),
            otherwise=append)
    discard(s, n, "fetch_response", m)


# --- writes and shutdowns ------------------------------------------------------------------------


@action(b=BROKER, v=VALUE)
def WriteRecordToLeader(s, n, b, v):
    """A running leader whose maximal ISR has at least MinISR members appends
    a value not written before; it may advance its high watermark at once."""
    md = s.partition_metadata[b]
    n.require(not_(member(s.inv_sent, v)), eq(s.broker_state[b].status, RUNNING), eq(s.partition_status[b], LEADER),
              le(s.c.MinISR, cardinality(md.maximal_isr, s.c.BrokerCount)))
    leo = leo_of(s, b)
    new_leo = leo + 1
    n.partition_log[b].append(types(s.c).partition_record.new(epoch=md.leader_epoch, offset=leo, value=v))
    old_hwm = hwm_of(s, b)
    new_hwm = commit_offset_on_write(s, b, new_leo) + 1
    advance = can_advance_hwm(s, md.isr, old_hwm, new_hwm)
    n.partition_data[b].update(leo=new_leo, hwm=ite(advance, new_hwm, old_hwm))
    update_hwm_invariant_vars(s, n, b, old_hwm, new_hwm, True, when=advance)
    n.inv_sent = set_with(s.inv_sent, v)
    n.aux_flo[b] = ite(eq(s.aux_flo[b], int_max_code(s.c)), leo, s.aux_flo[b])


def fail_pending_writes_if_leader(s, n, b) -> None:
    """FailPendingWritesIfLeader(b)."""
    fail = and_(eq(s.partition_status[b], LEADER), lt(hwm_of(s, b), leo_of(s, b)))
    n.inv_neg_acked = ite(fail, bit_or(s.inv_neg_acked, fail_pending_writes(s, b)), s.inv_neg_acked)


def shut_down(s, n, b, status, candidate, epoch_on_file=0) -> None:
    """What both shutdowns do: the broker goes offline (unregistered, no
    epoch but, under KIP-966's clean shutdown, the one it writes to file),
    its fetch sessions are dropped, its leadership state is lost, its pending
    writes fail, and the controller fences it."""
    n.broker_state[b].set(types(s.c).broker_side.new(status=status, broker_epoch=epoch_on_file, incarnation_id=0,
                                                     registered=False))
    drop_fetch_sessions(s, n, b)
    n.partition_status[b] = NIL_ROLE
    reset_all_follower_state(s, n, b)
    reset_pending_alter_partition(s, n, b)
    fail_pending_writes_if_leader(s, n, b)
    handle_broker_fenced(s, n, b, candidate)
    n.con_broker_reg[b].update(status=FENCED)
    reset_pending_acks(s, n, b)


@action(b=BROKER, candidate=CANDIDATE)
def UncleanShutdown(s, n, b, candidate):
    """A broker stops uncleanly and loses its whole log; the controller fences
    it. With AvoidLastReplicaStanding, not the sole member of the ISR."""
    md = s.con_partition_metadata
    n.require(under_limit(s.aux_ctrs.unclean_shutdown_ctr, s.c.UncleanShutdownLimit), not_(offline(s, b)))
    if s.c.AvoidLastReplicaStanding:
        n.require(not_(and_(member(md.isr, b), eq(cardinality(md.isr, s.c.BrokerCount), 1))))
    shut_down(s, n, b, OFFLINE_DIRTY, candidate)
    n.partition_log[b].clear()
    n.partition_data[b].update(hwm=1, leo=1)
    n.partition_leso[b] = NIL
    n.aux_ctrs.update(unclean_shutdown_ctr=s.aux_ctrs.unclean_shutdown_ctr + 1)


@action(b=BROKER, candidate=CANDIDATE)
def CleanShutdown(s, n, b, candidate):
    """A broker stops cleanly (its log kept); the controller fences it."""
    n.require(under_limit(s.aux_ctrs.clean_shutdown_ctr, s.c.CleanShutdownLimit), not_(offline(s, b)))
    shut_down(s, n, b, OFFLINE_CLEAN, candidate)
    n.aux_ctrs.update(clean_shutdown_ctr=s.aux_ctrs.clean_shutdown_ctr + 1)


# --- Init ----------------------------------------------------------------------------------------


def choose_subset(c, universe: int, predicate) -> int:
    """CHOOSE x \\in SUBSET universe : predicate(x), as TLC picks it: the first
    in its order of SUBSET (by size, then lexicographically)."""
    for mask in _subset_order(c.BrokerCount):
        if mask & ~universe == 0 and predicate(mask):
            return mask
    raise ValueError("CHOOSE found no value")


def Init(s, n):
    """An established cluster: broker 1 leads in epoch 1; the first
    InitReplicationFactor brokers are replicas and the first InitIsrSize of
    them the ISR; the other replicas start out of sync, fenced and with a
    stale view (and the partition epoch at 2, as if the ISR had shrunk)."""
    c, t = s.c, types(s.c)
    every = (1 << c.BrokerCount) - 1
    replicas = choose_subset(c, every, lambda x: x & 1 and bin(x).count("1") == c.InitReplicationFactor)
    isr = choose_subset(c, replicas, lambda x: x & 1 and bin(x).count("1") == c.InitIsrSize)
    part_epoch = 1 if c.InitIsrSize == c.InitReplicationFactor else 2
    first = t.change_record.new(replicas=replicas, isr=isr, leader=0, leader_epoch=1, partition_epoch=part_epoch,
                                adding=0, removing=0, full=False)
    unfenced = every & ~(replicas & ~isr)
    n.con_unfenced = unfenced
    for b in brokers(c):
        n.con_broker_reg[b].set(t.controller_side.new(status=UNFENCED if unfenced >> b & 1 else FENCED,
                                                      broker_epoch=b + 1, incarnation_id=b + 1))
    n.con_metadata_log.set([first])
    n.con_partition_metadata.set(t.controller_partition.new(replicas=replicas, isr=isr, leader=0, leader_epoch=1,
                                                            partition_epoch=part_epoch, adding=0, removing=0))
    for b in brokers(c):
        n.broker_state[b].set(t.broker_side.new(status=RUNNING, broker_epoch=b + 1, incarnation_id=b + 1,
                                                registered=True))
        for k in brokers(c):
            fetching = b != 0 and k == 0
            n.broker_fetchers[b][k].set(t.fetcher.new(added=fetching, fetch_offset=1, last_fetched_epoch=0,
                                                      delayed=False, pending_response=False))
        n.broker_metadata_log[b].set([first] if unfenced >> b & 1 else [])
        n.partition_status[b] = LEADER if b == 0 else (FOLLOWER if replicas >> b & 1 else NIL_ROLE)
        if not replicas >> b & 1:
            n.partition_metadata[b].set(t.replica_partition.new())
        elif isr >> b & 1:
            n.partition_metadata[b].set(t.replica_partition.new(replicas=replicas, isr=isr, maximal_isr=isr, leader=0,
                                                                leader_epoch=1, partition_epoch=part_epoch))
        else:
            n.partition_metadata[b].set(t.replica_partition.new(replicas=replicas, isr=replicas,
                                                                maximal_isr=replicas, leader=0, leader_epoch=1,
                                                                partition_epoch=1))
        n.partition_log[b].clear()
        n.partition_data[b].set(t.partition_data.new(hwm=1, leo=1))
        n.partition_leso[b] = 1 if b == 0 else NIL
        for k in brokers(c):
            n.partition_replica_state[b][k].set(t.peer.new())
        n.partition_pending_ap[b].set(t.pending_alter.new())
        n.aux_flo[b] = int_max_code(c)
    for kind in ("register_request", "register_response", "alter_request", "alter_response", "fetch_request",
                 "fetch_response"):
        messages(n, kind).clear()
    n.discarded_alter_request.clear()
    n.aux_broker_epoch = c.BrokerCount
    n.aux_ctrs.set(t.counters.new(incarn_ctr=c.BrokerCount + 1))
    n.inv_sent = 0
    n.inv_pos_acked = 0
    n.inv_neg_acked = 0
    n.inv_true_hwm = 1
    n.inv_consumed.clear()
    n.evaluation_error = 0


BROKER_ACTIONS = (BrokerStart, ReceiveBrokerRegResponse, ReceiveMetadataUpdate, SendAlterPartitionRequest,
                  ReceiveAlterPartitionResponse, SendFetchRequest, ReceiveFetchRequest, ReceiveFetchResponse,
                  WriteRecordToLeader, UncleanShutdown, CleanShutdown, ReceiveBrokerRegRequest,
                  ReceiveAlterPartitionRequest, FenceBroker, UnfenceBroker)

# Upstream's Liveness: weak fairness on these, per broker (v3_5_liveness).
HEALING = (BrokerStart, ReceiveBrokerRegResponse, ReceiveMetadataUpdate, SendAlterPartitionRequest,
           ReceiveAlterPartitionResponse, SendFetchRequest, ReceiveFetchRequest, ReceiveFetchResponse,
           ReceiveBrokerRegRequest, ReceiveAlterPartitionRequest, UnfenceBroker)
MOST_BROKERS = next(d.maximum for d in CONSTANTS if d.name == "BrokerCount")

def kraft_spec(name: str, module: str, summary: str, constants, broker_actions, invariants, default_invariants,
               layout, upstream_dir: str) -> SpecDefinition:
    """A KRaft module's definition: what the two modules (v3.5 and KIP-966)
    share, Init, the reassignment, the VIEW, the liveness, TLC's order,
    with what each has of its own."""
    return SpecDefinition(
        name=name,
        module=module,
        summary=summary,
        constants=constants + SWITCHES + CAPACITIES,
        fields=fields,
        init=Init,
        next=broker_actions + (PerformPartitionReassignment,),
        invariants=invariants,
        default_invariants=default_invariants,
        port_checks=("WithinCapacity",),
        evaluation_check="Evaluable",
        variables=variables,
        layout=layout,
        sometimes=SOMETIMES,
        check_constants=check_constants,
        view=VIEW,
        view_default=True,
        properties=PROPERTIES,
        specifications=(Specification("Spec", (), "Init /\\ [][Next]_vars (no fairness)."),
                        liveness_specification(HEALING, MOST_BROKERS)),
        instance_order=by_first_parameter(broker_actions, (PerformPartitionReassignment,)),
        origin=f"from {UPSTREAM_REPOSITORY} at commit {UPSTREAM_COMMIT} (kafka_data_replication/kraft/{upstream_dir}/)",
        notes="Counts are taken under the module's VIEW by default, as its .cfg does.",
        small_models=({"BrokerCount": "2", "InitReplicationFactor": "2", "MinISR": "1", "InitIsrSize": "1",
                       "FenceBrokerLimit": "0",
                       ("DataLossShutdownLimit" if upstream_dir == "kip-966" else "UncleanShutdownLimit"): "0"},),
    )


SPEC = kraft_spec("kraft-3.5", "kafka_replication_v3_5",
                  "Kafka 3.5 replication under the KRaft controller (brokers, metadata log, fetch, ISR changes)",
                  CONSTANTS, BROKER_ACTIONS, INVARIANTS, CFG_INVARIANTS, viewer_layout, "v3.5")
