"""KafkaClients against TLC and on crafted states.

The pinned figures are TLC's (breadth-first, -workers 1) on tla/KafkaClients.tla
with the same constants; docs/kafka-clients.md lists the commands.
"""

import os

import pytest

from support import ROOT, crafted, enabled, field, invoke_json, model
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.bfs import BfsChecker
from scenarios import led_by

SWITCHES = ("UncleanElection", "ConsumerFencing", "TruncationCheck", "AcksAll", "ProduceFencing",
            "MetadataVersionCheck")
ALL_OFF = {s: "FALSE" for s in SWITCHES}
ALL_ON = {s: "TRUE" for s in SWITCHES}
KIPS_CLEAN = {**ALL_ON, "UncleanElection": "FALSE"}
PAIR = {"r1", "r2"}


def check(m, invariants):
    return BfsChecker().check(m, CheckOptions(tuple(invariants)))


@pytest.mark.parametrize("consts, distinct, depth", [
    ({**ALL_OFF, "MaxLeaderEpoch": 1}, 3_783, 18),
    ({**ALL_ON, "MaxLeaderEpoch": 1}, 4_699, 19),
    (ALL_OFF, 41_389, 22),
    (KIPS_CLEAN, 47_759, 23),
    (ALL_ON, 56_571, 23),
])
def test_whole_state_space_matches_tlc(consts, distinct, depth):
    r = check(model("kafka-clients", **consts), ["TypeOk"])
    assert (r.result, r.distinct_states, r.depth) == ("ok", distinct, depth)


@pytest.mark.parametrize("consts, invariant, distinct, length", [
    (ALL_OFF, "NoAckedWriteLost", 932, 7),
    (ALL_OFF, "NoWriteToStaleLeader", 370, 6),
    (ALL_OFF, "NoMetadataRegression", 120, 5),
    (ALL_OFF, "NoSpuriousOutOfRange", 18_327, 13),
    (KIPS_CLEAN, "NoWriteToStaleLeader", 351, 6),
    (ALL_ON, "NoAckedWriteLost", 9_248, 11),
    ({**KIPS_CLEAN, "MetadataVersionCheck": "FALSE"}, "NoSpuriousOutOfRange", 26_622, 13),
])
def test_shortest_violations_match_tlc(consts, invariant, distinct, length):
    """TLC stops at the first violating state; so does the reference engine,
    having found the same number of distinct states."""
    r = check(model("kafka-clients", **consts), [invariant])
    assert (r.result, r.violation.invariant, r.distinct_states, r.depth, r.violation.length) == \
        ("violation", invariant, distinct, length, length)


@pytest.mark.parametrize("cfg, distinct, depth, verdict", [
    ("small-kips-NoWriteToStaleLeader.cfg", 351, 6, "violation"),
    ("small-acks1-holding.cfg", 18_401, 22, "ok"),
])
def test_the_committed_tlc_configurations_read_as_tlc_ran_them(in_tmp, cfg, distinct, depth, verdict):
    """tla/cfg/ holds the files TLC ran (docs/kafka-clients.md); --config reads them."""
    code, out, _ = invoke_json("run", "kafka-clients", "--config", os.path.join(ROOT, "tla", "cfg", cfg), "-q")
    assert (out["result"], out["distinct_states"], out["depth"]) == (verdict, distinct, depth)
    assert code == (12 if verdict == "violation" else 0)


def test_defaults_are_two_replicas_one_record_and_every_kip_on_with_clean_elections():
    m = model("kafka-clients")
    c = m.constants
    assert (c.Replicas, c.LogSize, c.MaxRecords, c.MaxLeaderEpoch) == (("r1", "r2"), 1, 1, 2)
    assert not c.UncleanElection
    assert all(c[s] for s in SWITCHES[1:])
    assert m.spec.default_invariants == ("NoAckedWriteLost", "NoWriteToStaleLeader", "NoMetadataRegression",
                                         "NoSpuriousOutOfRange")


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


def test_produce_fencing_refuses_an_epoch_other_than_the_leaders():
    fenced = model("kafka-clients")
    s = deposed_r1(fenced, producer_leader="r1", producer_epoch=1)
    assert "ProducerSend(leader=r1)" not in enabled(fenced, s)
    unfenced = model("kafka-clients", ProduceFencing="FALSE")
    s = deposed_r1(unfenced, producer_leader="r1", producer_epoch=1)
    assert "ProducerSend(leader=r1)" in enabled(unfenced, s)


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
    assert "ProducerRefreshMetadata(leaderAndIsrRequest=0)" not in moves
    assert "ClientConsumerRefreshMetadata(leaderAndIsrRequest=0)" not in moves
    unchecked = model("kafka-clients", MetadataVersionCheck="FALSE")
    s = deposed_r1(unchecked, producer_leader="r2", producer_epoch=1, consumer_leader="r2", consumer_epoch=1)
    moves = enabled(unchecked, s)
    for label in ("ProducerRefreshMetadata(leaderAndIsrRequest=0)",
                  "ClientConsumerRefreshMetadata(leaderAndIsrRequest=0)"):
        assert field(unchecked, moves[label], "metadata_regression") == 1


def consumer_read_one_from_r2(m, **fields):
    """r2 leads on epoch 1 with id0@1 committed, which the consumer has read;
    r1, deposed, still leads on epoch 0 with an empty log."""
    s = deposed_r1(m, leader={"r2": "r2"}, leader_epoch={"r2": 1}, isr={"r2": PAIR}, log_end={"r2": 1},
                   log_id={("r2", 0): 0}, log_epoch={("r2", 0): 1}, hw={"r2": 1}, next_record_id=1,
                   consumer_position=1, consumer_last_epoch=1, consumer_log_id={0: 0}, consumer_log_epoch={0: 1})
    return crafted(m, base=s, **fields)


def test_out_of_range_from_a_stale_leader_is_spurious():
    m = model("kafka-clients")
    s = consumer_read_one_from_r2(m, consumer_leader="r1", consumer_epoch=0)
    t = enabled(m, s)["ConsumerFetchOutOfRange(leader=r1)"]
    assert field(m, t, "spurious_out_of_range") == 1
    assert field(m, t, "consumer_position") == 1  # the reset that follows is not modelled


def test_a_validation_that_rewinds_with_nothing_truncated_is_spurious_too():
    m = model("kafka-clients")
    s = consumer_read_one_from_r2(m, consumer_leader="r1", consumer_epoch=0, consumer_validated=0)
    t = enabled(m, s)["ClientConsumerValidatePosition(leader=r1)"]
    # r1 has no record of an epoch above 1, so it answers with its log end, 0: the consumer rewinds
    assert field(m, t, "consumer_position") == 0 and field(m, t, "consumer_validated") == 1
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
