"""KafkaClients against TLC and on crafted states.

The pinned figures are TLC's (breadth-first, -workers 1) on tla/KafkaClients.tla
with the same constants; docs/kafka-clients.md lists every run and its command.
Larger configurations are compared in bench/bench_clients.py.
"""

import os

import pytest

from support import ROOT, crafted, enabled, field, invoke, invoke_json, model, one_error_line
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.bfs import BfsChecker
from modelcheck.engines.fast import FastChecker
from scenarios import led_by

SWITCHES = ("UncleanElection", "ConsumerFencing", "TruncationCheck", "AcksAll", "ProduceFencing",
            "UnknownEpochBackoff", "MetadataVersionCheck", "ConsumerRestart", "GroupHandover", "CommitLeaderEpoch",
            "ValidateCommitted", "AwaitCommittedEpoch")
ALL_ON = {s: "TRUE" for s in SWITCHES if s != "UncleanElection"}
ALL_OFF = {s: "FALSE" for s in SWITCHES}
NO_RESUME = {"ConsumerRestart": "FALSE", "GroupHandover": "FALSE", "CommitLeaderEpoch": "FALSE",
             "ValidateCommitted": "FALSE", "AwaitCommittedEpoch": "FALSE"}
NO_KIP232 = {"MetadataVersionCheck": "FALSE", "AwaitCommittedEpoch": "FALSE"}
NO_COMMIT_EPOCH = {"CommitLeaderEpoch": "FALSE", "ValidateCommitted": "FALSE", "AwaitCommittedEpoch": "FALSE"}
NO_KIP359 = {"ProduceFencing": "FALSE", "UnknownEpochBackoff": "FALSE"}
PAIR = {"r1", "r2"}


def check(m, invariants, engine=BfsChecker):
    return engine().check(m, CheckOptions(tuple(invariants)))


def offered(moves, action):
    """The epochs of the requests an enabled metadata refresh would adopt."""
    return {int(label.rsplit("leaderAndIsrRequest=", 1)[1].rstrip(")")) for label in moves
            if label.startswith(action + "(")}


# --- TLC's figures --------------------------------------------------------------------------

@pytest.mark.parametrize("consts, invariants, distinct, depth, engine", [
    (ALL_OFF, ["TypeOk"], 25_103, 22, BfsChecker),
    (NO_RESUME, ["TypeOk"], 49_589, 23, BfsChecker),
    ({"UnknownEpochBackoff": "FALSE"}, ["TypeOk"], 171_777, 28, FastChecker),
    ({"MinInsyncReplicas": "2"}, ["TypeOk"], 157_115, 28, FastChecker),
    ({}, ["TypeOk"], 170_631, 28, FastChecker),
    ({"GroupHandover": "FALSE"}, ["NoAckedWriteLost", "NoLeaderRegression", "NoSpuriousOutOfRange",
                                 "NoDivergentDelivery"], 93_963, 24, FastChecker),
])
def test_whole_state_space_matches_tlc(consts, invariants, distinct, depth, engine):
    r = check(model("kafka-clients", **consts), invariants, engine)
    assert (r.result, r.distinct_states, r.depth) == ("ok", distinct, depth)


def test_whole_state_space_with_three_replicas_matches_tlc():
    r = check(model("kafka-clients", Replicas=3, MaxLeaderEpoch=1), ["TypeOk"], FastChecker)
    assert (r.result, r.distinct_states, r.depth) == ("ok", 460_306, 30)


@pytest.mark.parametrize("consts, invariant, distinct, length, engine", [
    ({}, "NoWriteToStaleLeader", 351, 6, BfsChecker),
    ({}, "NoLeaderRegression", 58_608, 17, FastChecker),
    ({}, "NoSpuriousOutOfRange", 58_608, 17, FastChecker),
    (ALL_OFF, "NoLeaderRegression", 11_465, 13, BfsChecker),
    (ALL_OFF, "NoAckedWriteLost", 806, 7, BfsChecker),
    ({"UncleanElection": "TRUE"}, "NoAckedWriteLost", 9_630, 11, BfsChecker),
    (NO_COMMIT_EPOCH, "NoSpuriousOutOfRange", 32_599, 15, FastChecker),
    ({"AwaitCommittedEpoch": "FALSE"}, "NoSpuriousOutOfRange", 32_586, 15, FastChecker),
    ({"UnknownEpochBackoff": "FALSE"}, "NoLeaderRegression", 59_754, 17, BfsChecker),
    ({"ValidateCommitted": "FALSE"}, "NoLeaderRegression", 62_012, 17, FastChecker),
    ({"ConsumerRestart": "FALSE"}, "NoSpuriousOutOfRange", 55_916, 17, FastChecker),
    ({"Replicas": 3}, "NoWriteToStaleLeader", 1_330, 6, FastChecker),
    ({"Replicas": 3, "UnknownEpochBackoff": "FALSE"}, "NoWriteToStaleLeader", 1_386, 6, FastChecker),
    # the violating level is met part-way: the count holds only if successors come in TLC's order
    ({"LogSize": 2, "MaxRecords": 2, **NO_KIP359}, "NoLeaderRegression", 8_645, 11, FastChecker),
])
def test_shortest_violations_match_tlc(consts, invariant, distinct, length, engine):
    """TLC stops at the first violating state; so do both engines, having
    found the same number of distinct states."""
    r = check(model("kafka-clients", **consts), [invariant], engine)
    assert (r.result, r.violation.invariant, r.distinct_states, r.depth, r.violation.length) == \
        ("violation", invariant, distinct, length, length)


@pytest.mark.parametrize("cfg, distinct, depth, verdict", [
    ("small-all-on-NoWriteToStaleLeader.cfg", 351, 6, "violation"),
    ("small-no-handover-holding.cfg", 93_963, 24, "ok"),
])
def test_the_committed_tlc_configurations_read_as_tlc_ran_them(in_tmp, cfg, distinct, depth, verdict):
    """tla/cfg/ holds the files TLC ran (docs/kafka-clients.md); --config reads them."""
    code, out, _ = invoke_json("run", "kafka-clients", "--config", os.path.join(ROOT, "tla", "cfg", cfg), "-q")
    assert (out["result"], out["distinct_states"], out["depth"]) == (verdict, distinct, depth)
    assert code == (12 if verdict == "violation" else 0)


# --- constants ------------------------------------------------------------------------------

def test_defaults_are_two_replicas_one_record_every_mechanism_on_and_clean_elections():
    m = model("kafka-clients")
    c = m.constants
    assert (c.Replicas, c.LogSize, c.MaxRecords, c.MaxLeaderEpoch, c.MinInsyncReplicas) == (("r1", "r2"), 1, 1, 2, 1)
    assert not c.UncleanElection
    assert all(c[s] for s in SWITCHES[1:])
    assert m.spec.default_invariants == ("NoAckedWriteLost", "NoWriteToStaleLeader", "NoLeaderRegression",
                                         "NoSpuriousOutOfRange", "NoDivergentDelivery")


@pytest.mark.parametrize("consts, says", [
    ({"ValidateCommitted": "TRUE", **{k: "FALSE" for k in ("CommitLeaderEpoch", "AwaitCommittedEpoch")}},
     "ValidateCommitted=TRUE needs CommitLeaderEpoch=TRUE (there is no committed epoch to validate with)"),
    ({"MetadataVersionCheck": "FALSE"},
     "AwaitCommittedEpoch=TRUE needs CommitLeaderEpoch=TRUE and MetadataVersionCheck=TRUE"),
    ({"ConsumerRestart": "FALSE", "GroupHandover": "FALSE"},
     "CommitLeaderEpoch=TRUE needs ConsumerRestart=TRUE or GroupHandover=TRUE"),
    ({"MinInsyncReplicas": "3"}, "MinInsyncReplicas=3 is more than the 2 replicas"),
    ({"ProduceFencing": "FALSE"}, "UnknownEpochBackoff=TRUE needs ProduceFencing=TRUE (without KIP-359's produce "
                                  "fencing no replica answers UNKNOWN_LEADER_EPOCH)"),
])
def test_a_switch_with_nothing_to_act_on_is_refused_in_one_line(in_tmp, consts, says):
    args = [a for k, v in consts.items() for a in ("--const", f"{k}={v}")]
    code, out, err = invoke("run", "kafka-clients", *args)
    assert code == 2 and out == ""
    assert says in one_error_line(err)


# --- crafted states -------------------------------------------------------------------------

def deposed_r1(m, **fields):
    """r1 took leadership on epoch 0; the controller has since made r2 leader
    on epoch 1, which neither replica has heard of yet."""
    s = led_by(m, "r1", epoch=0, isr=PAIR)
    return crafted(m, base=s, next_leader_epoch=2, request_sent={1: 1}, request_leader={1: "r2"},
                   request_isr={1: PAIR}, quorum_epoch=1, quorum_leader="r2", **fields)


def test_a_deposed_leader_on_the_producers_epoch_still_takes_the_write():
    m = model("kafka-clients")  # ProduceFencing on
    s = deposed_r1(m, producer_leader="r1", producer_epoch=0)
    t = enabled(m, s)["ProducerSend(leader=r1)"]
    assert field(m, t, "log_end", "r1") == 1 and field(m, t, "log_epoch", "r1", 0) == 0
    assert field(m, t, "stale_write") == 1
    assert (field(m, t, "pending_leader"), field(m, t, "pending_offset"), field(m, t, "pending_id")) == (0, 0, 0)
    assert field(m, t, "acked_offset", 0) == -1  # acks=all: not yet acknowledged
    assert field(m, t, "producer_acted_epoch") == 0


def test_fenced_leader_epoch_makes_the_producer_drop_its_leader_until_a_refresh():
    m = model("kafka-clients")
    # r1 moved on to epoch 1; the producer still has epoch 0 naming r1
    s = led_by(m, "r1", epoch=1, isr=PAIR, producer_leader="r1", producer_epoch=0)
    moves = enabled(m, s)
    assert "ProducerSend(leader=r1)" not in moves
    t = moves["ProducerSendFenced(leader=r1)"]
    assert (field(m, t, "producer_leader"), field(m, t, "producer_epoch")) == (-1, 0)
    refreshed = enabled(m, t)
    # KIP-232 still compares with the kept epoch: epoch 1 is taken, epoch 0 is not offered again
    assert offered(refreshed, "ProducerRefreshMetadata") == {0, 1}  # epoch 0 again: into an empty cache
    assert "ProducerSend(leader=r1)" not in refreshed and "ProducerSendFenced(leader=r1)" not in refreshed


def producer_ahead_of_r1(m):
    """The producer has epoch 1 naming r1, which still leads on epoch 0."""
    return led_by(m, "r1", epoch=0, isr=PAIR, next_leader_epoch=2, request_sent={1: 1}, request_leader={1: "r1"},
                  request_isr={1: PAIR}, quorum_epoch=1, producer_leader="r1", producer_epoch=1)


def test_unknown_leader_epoch_backs_off_refreshes_without_the_backoff_and_no_fencing_sends_anyway():
    m = model("kafka-clients")
    moves = enabled(m, producer_ahead_of_r1(m))
    assert not [label for label in moves if label.startswith("ProducerSend")]  # back off: no step
    no_backoff = model("kafka-clients", UnknownEpochBackoff="FALSE")
    moves = enabled(no_backoff, producer_ahead_of_r1(no_backoff))
    assert [label for label in moves if label.startswith("ProducerSend")] == ["ProducerSendUnknownEpoch(leader=r1)"]
    t = moves["ProducerSendUnknownEpoch(leader=r1)"]
    assert (field(no_backoff, t, "producer_leader"), field(no_backoff, t, "producer_epoch")) == (-1, 1)
    assert offered(enabled(no_backoff, t), "ProducerRefreshMetadata") == {1}  # the same metadata again
    # behind the leader, the producer is fenced whether or not it backs off on the other error
    behind = led_by(no_backoff, "r1", epoch=1, isr=PAIR, producer_leader="r1", producer_epoch=0)
    assert "ProducerSendUnknownEpoch(leader=r1)" not in enabled(no_backoff, behind)
    unfenced = model("kafka-clients", **NO_KIP359)
    s = led_by(unfenced, "r1", epoch=0, isr=PAIR, next_leader_epoch=2, request_sent={1: 1},
               request_leader={1: "r1"}, request_isr={1: PAIR}, quorum_epoch=1, producer_leader="r1",
               producer_epoch=1)
    moves = enabled(unfenced, s)
    assert "ProducerSend(leader=r1)" in moves and "ProducerSendFenced(leader=r1)" not in moves


def test_min_insync_replicas_refuses_and_withholds_acks_all_below_it():
    m = model("kafka-clients", MinInsyncReplicas=2)
    alone = led_by(m, "r1", epoch=0, isr={"r1"}, producer_leader="r1", producer_epoch=0)
    assert "ProducerSend(leader=r1)" not in enabled(m, alone)  # NOT_ENOUGH_REPLICAS
    both = crafted(m, base=alone, isr={"r1": PAIR}, quorum_isr=PAIR)
    assert "ProducerSend(leader=r1)" in enabled(m, both)
    # the ISR shrank after the append: no acknowledgement (NOT_ENOUGH_REPLICAS after the append)
    written = crafted(m, base=alone, log_end={"r1": 1}, log_id={("r1", 0): 0}, log_epoch={("r1", 0): 0},
                      next_record_id=1, hw={"r1": 1}, pending_leader="r1", pending_offset=0, pending_id=0,
                      pending_epoch=0)
    moves = enabled(m, written)
    assert "ProducerReceiveAck(leader=r1)" not in moves and "ProducerRequestFails" in moves
    acks1 = model("kafka-clients", MinInsyncReplicas=2, AcksAll="FALSE")
    assert "ProducerSend(leader=r1)" in enabled(acks1, led_by(acks1, "r1", epoch=0, isr={"r1"},
                                                               producer_leader="r1", producer_epoch=0))


def test_acks_one_is_acknowledged_on_the_append():
    m = model("kafka-clients", AcksAll="FALSE")
    s = led_by(m, "r1", epoch=0, isr=PAIR, producer_leader="r1", producer_epoch=0)
    t = enabled(m, s)["ProducerSend(leader=r1)"]
    assert (field(m, t, "acked_offset", 0), field(m, t, "acked_leader_epoch", 0)) == (0, 0)
    assert field(m, t, "pending_leader") == -1 and field(m, t, "stale_write") == 0


def test_acks_all_waits_for_the_high_watermark():
    m = model("kafka-clients")
    s = led_by(m, "r1", epoch=1, isr=PAIR, log_end={"r1": 1}, log_id={("r1", 0): 0}, log_epoch={("r1", 0): 0},
               next_record_id=1, pending_leader="r1", pending_offset=0, pending_id=0, pending_epoch=0)
    assert "ProducerReceiveAck(leader=r1)" not in enabled(m, s)
    t = enabled(m, crafted(m, base=s, hw={"r1": 1}))["ProducerReceiveAck(leader=r1)"]
    # acknowledged with the leader's current epoch, not the record's
    assert (field(m, t, "acked_offset", 0), field(m, t, "acked_leader_epoch", 0)) == (0, 1)
    assert field(m, t, "pending_leader") == -1


def test_metadata_version_check_refuses_older_metadata():
    checked = model("kafka-clients")
    s = deposed_r1(checked, producer_leader="r2", producer_epoch=1, consumer_leader="r2", consumer_epoch=1)
    moves = enabled(checked, s)
    assert 0 not in offered(moves, "ProducerRefreshMetadata") | offered(moves, "ClientConsumerRefreshMetadata")
    unchecked = model("kafka-clients", **NO_KIP232)
    s = deposed_r1(unchecked, producer_leader="r2", producer_epoch=1, consumer_leader="r2", consumer_epoch=1)
    moves = enabled(unchecked, s)
    assert "ProducerRefreshMetadata(leader=r1, leaderAndIsrRequest=0)" in moves
    assert "ClientConsumerRefreshMetadata(leader=r1, leaderAndIsrRequest=0)" in moves


def test_requests_are_picked_in_tlcs_order_leader_first_then_epoch():
    """TLC enumerates leaderAndIsrRequests in its order of records, which
    compares the leader before the epoch: r1's epoch-1 request comes before
    r2's epoch-0 one, for BecomeLeader and both clients' refreshes alike."""
    m = model("kafka-clients", MetadataVersionCheck="FALSE", AwaitCommittedEpoch="FALSE")
    s = crafted(m, next_leader_epoch=2, request_sent={0: 1, 1: 1}, request_leader={0: "r2", 1: "r1"},
                request_isr={0: PAIR, 1: PAIR}, quorum_epoch=1, quorum_leader="r1")
    labels = [m.instances[i].label() for i, _ in m.successors(s)]
    for action in ("BecomeLeader", "ClientConsumerRefreshMetadata", "ProducerRefreshMetadata"):
        mine = [label for label in labels if label.startswith(action + "(")]
        assert mine == [f"{action}(leader=r1, leaderAndIsrRequest=1)", f"{action}(leader=r2, leaderAndIsrRequest=0)"]


def consumer_read_one_from_r2(m, **fields):
    """r2 leads on epoch 1 with id0@1 committed, which the consumer has read;
    r1, deposed, still leads on epoch 0 with an empty log."""
    s = deposed_r1(m, leader={"r2": "r2"}, leader_epoch={"r2": 1}, isr={"r2": PAIR}, log_end={"r2": 1},
                   log_id={("r2", 0): 0}, log_epoch={("r2", 0): 1}, hw={"r2": 1}, next_record_id=1,
                   consumer_position=1, consumer_last_epoch=1, consumer_log_id={0: 0}, consumer_log_epoch={0: 1},
                   consumer_acted_epoch=1)
    return crafted(m, base=s, **fields)


def test_out_of_range_from_a_stale_leader_is_spurious_and_a_regression():
    m = model("kafka-clients")
    s = consumer_read_one_from_r2(m, consumer_leader="r1", consumer_epoch=0)
    t = enabled(m, s)["ConsumerFetchOutOfRange(leader=r1)"]
    assert field(m, t, "spurious_out_of_range") == 1
    assert field(m, t, "consumer_position") == 1  # the reset that follows is not modelled
    # served by r1 on epoch 0 after r2 on epoch 1
    assert (field(m, t, "leader_regression"), field(m, t, "consumer_acted_epoch")) == (1, 1)


def test_a_validation_that_rewinds_keeps_what_was_delivered_above_the_new_position():
    m = model("kafka-clients")
    s = consumer_read_one_from_r2(m, consumer_leader="r1", consumer_epoch=0, consumer_validated=0)
    t = enabled(m, s)["ClientConsumerValidatePosition(leader=r1)"]
    # r1 has no record of an epoch above 1, so it answers with its log end, 0: the consumer rewinds
    assert field(m, t, "consumer_position") == 0 and field(m, t, "consumer_validated") == 1
    assert (field(m, t, "consumer_log_id", 0), field(m, t, "consumer_log_epoch", 0)) == (0, 1)
    assert field(m, t, "spurious_out_of_range") == 1
    truncated = crafted(m, base=s, log_id={("r2", 0): 1})
    assert field(m, enabled(m, truncated)["ClientConsumerValidatePosition(leader=r1)"], "spurious_out_of_range") == 0


def test_out_of_range_after_a_real_truncation_is_not_spurious():
    m = model("kafka-clients")
    # the quorum's leader r2 no longer has the record the consumer read
    s = consumer_read_one_from_r2(m, consumer_leader="r1", consumer_epoch=0, log_id={("r2", 0): 1})
    t = enabled(m, s)["ConsumerFetchOutOfRange(leader=r1)"]
    assert field(m, t, "spurious_out_of_range") == 0


def test_an_acknowledged_write_missing_from_a_later_leader_breaks_the_property():
    m = model("kafka-clients")
    s = consumer_read_one_from_r2(m, acked_offset={0: 0}, acked_leader_epoch={0: 1})
    assert m.compiled.predicates["NoAckedWriteLost"](s)
    # r1 leads on epoch 2 without the record: a later leader that lost it
    lost = crafted(m, base=s, leader={"r1": "r1", "r2": "r1"}, leader_epoch={"r1": 2, "r2": 2})
    assert not m.compiled.predicates["NoAckedWriteLost"](lost)
    # a leader on an older epoch than the acknowledgement does not count
    zombie = crafted(m, base=s, leader_epoch={"r1": 0})
    assert m.compiled.predicates["NoAckedWriteLost"](zombie)


# --- offsets committed with an epoch, restarts and handovers --------------------------------

def read_one_on_r2(m, **fields):
    """consumer_read_one_from_r2, from r2 itself (validated, on epoch 1)."""
    return consumer_read_one_from_r2(m, consumer_leader="r2", consumer_epoch=1, **fields)


@pytest.mark.parametrize("consts, epoch", [({}, 1), (NO_COMMIT_EPOCH, -1)])
def test_offset_commit_stores_the_position_and_the_epoch_of_the_last_record(consts, epoch):
    m = model("kafka-clients", **consts)
    t = enabled(m, read_one_on_r2(m))["ConsumerCommit"]
    assert (field(m, t, "committed_offset"), field(m, t, "committed_epoch")) == (1, epoch)
    assert "ConsumerCommit" not in enabled(m, read_one_on_r2(m, consumer_validated=0))
    no_resume = model("kafka-clients", **NO_RESUME)
    assert "ConsumerCommit" not in enabled(no_resume, read_one_on_r2(no_resume))  # nothing would read it


def test_a_restart_resumes_from_the_committed_offset_and_keeps_the_metadata():
    m = model("kafka-clients")
    s = read_one_on_r2(m, consumer_position=1, committed_offset=1, committed_epoch=1)
    t = enabled(m, crafted(m, base=s, consumer_position=0))["ConsumerRestartFromCommitted"]
    assert (field(m, t, "consumer_position"), field(m, t, "consumer_last_epoch")) == (1, 1)
    assert field(m, t, "consumer_validated") == 0  # the committed epoch is validated first
    assert (field(m, t, "consumer_leader"), field(m, t, "consumer_epoch")) == (1, 1)
    # the committed epoch is newer than the metadata: wait for metadata of that epoch
    behind = crafted(m, base=s, consumer_leader="r1", consumer_epoch=0)
    t = enabled(m, behind)["ConsumerRestartFromCommitted"]
    assert (field(m, t, "consumer_leader"), field(m, t, "consumer_epoch")) == (-1, 1)
    no_validate = model("kafka-clients", ValidateCommitted="FALSE")
    t = enabled(no_validate, read_one_on_r2(no_validate, committed_offset=1, committed_epoch=1))[
        "ConsumerRestartFromCommitted"]
    assert (field(no_validate, t, "consumer_last_epoch"), field(no_validate, t, "consumer_validated")) == (-1, 1)


@pytest.mark.parametrize("consts, epoch", [({}, 1), ({"AwaitCommittedEpoch": "FALSE"}, -1)])
def test_a_handover_starts_with_no_metadata_and_waits_for_the_committed_epoch(consts, epoch):
    m = model("kafka-clients", **consts)
    s = read_one_on_r2(m, committed_offset=1, committed_epoch=1)
    t = enabled(m, s)["ConsumerGroupHandover"]
    assert (field(m, t, "consumer_leader"), field(m, t, "consumer_epoch")) == (-1, epoch)
    assert (field(m, t, "consumer_position"), field(m, t, "consumer_validated")) == (1, 0)
    moves = enabled(m, t)
    assert offered(moves, "ClientConsumerRefreshMetadata") == ({0, 1} if epoch == -1 else {1})  # 1: the committed epoch


def test_a_fetch_from_a_leader_older_than_one_that_served_the_group_is_a_regression():
    m = model("kafka-clients", ConsumerFencing="FALSE")
    # r1, leading on epoch 0, has id0@0; the group read offset 0 from r2 on epoch 1 before
    s = consumer_read_one_from_r2(m, consumer_leader="r1", consumer_epoch=1, consumer_position=0,
                                  log_end={"r1": 1}, log_id={("r1", 0): 0}, log_epoch={("r1", 0): 0},
                                  hw={"r1": 1})
    t = enabled(m, s)["ClientConsumerFetch(leader=r1)"]
    assert (field(m, t, "leader_regression"), field(m, t, "consumer_acted_epoch")) == (1, 1)
    assert not m.compiled.predicates["NoLeaderRegression"](t)
