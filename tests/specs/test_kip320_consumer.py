"""Kip320Consumer against TLC and on crafted states."""

import pytest

from support import crafted, enabled, field, model
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.bfs import BfsChecker
from scenarios import led_by, with_log

OFF = dict(UncleanElection="FALSE", ConsumerFencing="FALSE", TruncationCheck="FALSE")


def check(m):
    return BfsChecker().check(m, CheckOptions(m.spec.default_invariants))


def test_clean_baseline_matches_tlc():
    r = check(model("kip320-consumer", **OFF))
    assert (r.result, r.distinct_states, r.depth) == ("ok", 64375, 23)


def test_defaults_are_two_replicas_three_records_and_every_switch_on():
    c = model("kip320-consumer").constants
    assert (c.Replicas, c.LogSize, c.MaxRecords, c.MaxLeaderEpoch) == (("r1", "r2"), 2, 3, 2)
    assert c.UncleanElection and c.ConsumerFencing and c.TruncationCheck


def test_unclean_election_only_when_switched_on_and_leaderless():
    on = model("kip320-consumer", Replicas=3)
    s = crafted(on, quorum_leader="NONE", quorum_isr={"r1"}, next_leader_epoch=1, request_sent={0: 1},
                request_isr={0: {"r1"}}, quorum_epoch=0)
    moves = enabled(on, s)
    assert "ControllerUncleanElectLeader(newLeader=r2)" in moves
    assert "ControllerUncleanElectLeader(newLeader=r1)" not in moves  # in the ISR: a clean election
    off = model("kip320-consumer", Replicas=3, UncleanElection="FALSE")
    assert not any(k.startswith("ControllerUncleanElectLeader") for k in enabled(off, s))


def test_fenced_fetch_needs_the_consumer_epoch():
    m = model("kip320-consumer")
    s = led_by(m, "r1", epoch=1, isr={"r1", "r2"}, hw={"r1": 1})
    s = with_log(m, s, "r1", [(0, 1)], consumer_leader="r1", consumer_epoch=0)
    assert "ConsumerFetch(leader=r1)" not in enabled(m, s)
    s = crafted(m, base=s, consumer_epoch=1)
    t = enabled(m, s)["ConsumerFetch(leader=r1)"]
    assert field(m, t, "consumer_position") == 1 and field(m, t, "consumer_last_epoch") == 1
    assert field(m, t, "consumer_log_id", 0) == 0 and field(m, t, "divergent_delivery") == 0


def test_validation_rewinds_to_the_end_of_the_last_epoch():
    m = model("kip320-consumer")
    s = led_by(m, "r1", epoch=2, isr={"r1", "r2"})
    s = with_log(m, s, "r1", [(0, 0), (2, 2)], consumer_leader="r1", consumer_epoch=2, consumer_validated=0,
                 consumer_position=2, consumer_last_epoch=1, consumer_log_id={0: 0, 1: 1},
                 consumer_log_epoch={0: 0, 1: 1})
    t = enabled(m, s)["ConsumerValidatePosition(leader=r1)"]
    # epoch 1 ends at offset 1 on the leader: the consumer rewinds there
    assert field(m, t, "consumer_position") == 1 and field(m, t, "consumer_log_id", 1) == -1
    assert field(m, t, "consumer_last_epoch") == 0 and field(m, t, "consumer_validated") == 1


@pytest.mark.parametrize("fencing, check_truncation, verdict", [
    ("TRUE", "TRUE", "ok"),
    ("TRUE", "FALSE", "violation"),
    ("FALSE", "TRUE", "violation"),
    ("FALSE", "FALSE", "violation"),
])
def test_switch_combinations_with_unclean_election(fencing, check_truncation, verdict):
    r = check(model("kip320-consumer", ConsumerFencing=fencing, TruncationCheck=check_truncation))
    assert r.result == verdict
