"""The shared actions of KafkaReplication, each on crafted states (run
through truncate-to-hw, which uses all of them)."""

from support import enabled, field, model
from scenarios import led_by, with_log

M = model("truncate-to-hw")


def test_init():
    s = M.init_states[0]
    assert all(field(M, s, "hw", r) == 0 and field(M, s, "leader_epoch", r) == -1
               and field(M, s, "leader", r) == -1 and field(M, s, "isr", r) == 0 for r in range(3))
    assert field(M, s, "quorum_isr") == 0b111 and field(M, s, "quorum_leader") == -1
    assert field(M, s, "quorum_epoch") == -1 and not any(field(M, s, "request_sent", e) for e in range(3))


def test_election_takes_a_fresh_epoch_and_sends_a_request():
    moves = enabled(M, M.init_states[0])
    t = moves["ControllerElectLeader(newLeader=r2)"]
    assert field(M, t, "quorum_leader") == 1 and field(M, t, "quorum_epoch") == 0
    assert field(M, t, "next_leader_epoch") == 1
    assert field(M, t, "request_sent", 0) == 1 and field(M, t, "request_leader", 0) == 1
    assert field(M, t, "request_isr", 0) == 0b111


def test_election_needs_an_isr_member_other_than_the_leader_and_a_spare_epoch():
    s = led_by(M, "r1", epoch=0, isr={"r1", "r2"})
    moves = enabled(M, s)
    assert "ControllerElectLeader(newLeader=r2)" in moves
    assert "ControllerElectLeader(newLeader=r1)" not in moves  # already leader
    assert "ControllerElectLeader(newLeader=r3)" not in moves  # outside the ISR
    exhausted = led_by(M, "r1", epoch=2)
    assert not any(k.startswith("Controller") for k in enabled(M, exhausted))


def test_shrinking_away_the_sole_isr_leader_keeps_it_in_the_isr():
    s = led_by(M, "r1", epoch=0, isr={"r1"})
    t = enabled(M, s)["ControllerShrinkIsr(replica=r1)"]
    assert field(M, t, "quorum_leader") == -1 and field(M, t, "quorum_isr") == 0b001


def test_shrinking_away_the_leader_removes_it():
    s = led_by(M, "r1", epoch=0)
    t = enabled(M, s)["ControllerShrinkIsr(replica=r1)"]
    assert field(M, t, "quorum_leader") == -1 and field(M, t, "quorum_isr") == 0b110


def test_an_empty_isr_is_reachable_without_a_leader():
    s = led_by(M, "r1", epoch=0, isr={"r2"}, quorum_leader="NONE")
    t = enabled(M, s)["ControllerShrinkIsr(replica=r2)"]
    assert field(M, t, "quorum_isr") == 0 and field(M, t, "quorum_leader") == -1
    assert "ControllerShrinkIsr(replica=r3)" not in enabled(M, s)


def test_become_leader_keeps_its_high_watermark_and_needs_a_newer_epoch():
    s = led_by(M, "r1", epoch=1, leader={"r1": "NONE"}, leader_epoch={"r1": 0}, hw={"r1": 1})
    t = enabled(M, s)["BecomeLeader(leaderAndIsrRequest=1, leader=r1)"]
    assert field(M, t, "hw", "r1") == 1 and field(M, t, "leader", "r1") == 0 and field(M, t, "leader_epoch", "r1") == 1
    assert "BecomeLeader(leaderAndIsrRequest=0, leader=r1)" not in enabled(M, s)


def test_leader_write_appends_with_the_leader_epoch():
    s = led_by(M, "r1", epoch=1)
    t = enabled(M, s)["LeaderWrite(replica=r1)"]
    assert (field(M, t, "log_end", "r1"), field(M, t, "log_id", "r1", 0), field(M, t, "log_epoch", "r1", 0)) == (1, 0, 1)
    assert field(M, t, "next_record_id") == 1
    full = with_log(M, s, "r1", [(0, 1), (1, 1)], next_record_id=0)
    assert "LeaderWrite(replica=r1)" not in enabled(M, full)
    no_ids = with_log(M, s, "r1", [(0, 1)], next_record_id=2)
    assert "LeaderWrite(replica=r1)" not in enabled(M, no_ids)


def test_follower_replicate_appends_at_its_end_and_takes_the_smaller_hw():
    s = led_by(M, "r1", epoch=0, followers=("r2",), hw={"r1": 2})
    s = with_log(M, s, "r1", [(0, 0), (1, 0)])
    s = with_log(M, s, "r2", [(0, 0)])
    t = enabled(M, s)["FollowerReplicate(follower=r2, leader=r1)"]
    assert field(M, t, "log_end", "r2") == 2 and field(M, t, "log_id", "r2", 1) == 1
    assert field(M, t, "hw", "r2") == 2
    caught_up = with_log(M, s, "r2", [(0, 0), (1, 0)])
    assert "FollowerReplicate(follower=r2, leader=r1)" not in enabled(M, caught_up)


def test_isr_changes_by_the_leader_bump_no_epoch_and_send_no_request():
    s = led_by(M, "r1", epoch=0, followers=("r2",))
    s = with_log(M, s, "r1", [(0, 0)])
    t = enabled(M, s)["LeaderShrinkIsr(leader=r1, replica=r3)"]
    assert field(M, t, "quorum_isr") == 0b011 and field(M, t, "isr", "r1") == 0b011
    assert field(M, t, "isr", "r2") == 0b111  # only the leader's own cache changes
    assert field(M, t, "next_leader_epoch") == 1 and field(M, t, "quorum_epoch") == 0
    assert field(M, t, "request_isr", 0) == 0b111


def test_only_the_true_leader_changes_the_isr():
    stale = led_by(M, "r1", epoch=1, leader_epoch={"r1": 0})
    stale = with_log(M, stale, "r1", [(0, 0)])
    assert not any(k.startswith("LeaderShrinkIsr") for k in enabled(M, stale))


def test_hw_advances_when_every_isr_follower_has_the_offset():
    s = led_by(M, "r1", epoch=0, isr={"r1", "r2"}, followers=("r2",))
    s = with_log(M, s, "r1", [(0, 0)])
    assert "LeaderIncHighWatermark(leader=r1)" not in enabled(M, s)
    s = with_log(M, s, "r2", [(0, 0)])
    assert field(M, enabled(M, s)["LeaderIncHighWatermark(leader=r1)"], "hw", "r1") == 1


def test_truncate_to_hw_lowers_the_follower_high_watermark_and_clears_slots():
    s = led_by(M, "r1", epoch=1, followers=("r2",), hw={"r2": 1}, leader_epoch={"r2": 0})
    s = with_log(M, s, "r2", [(0, 0), (1, 0)])
    t = enabled(M, s)["BecomeFollowerTruncateToHighWatermark(leader=r1, replica=r2, leaderAndIsrRequest=1)"]
    assert field(M, t, "log_end", "r2") == 1 and field(M, t, "log_id", "r2", 1) == -1
    assert field(M, t, "log_epoch", "r2", 1) == -1 and field(M, t, "hw", "r2") == 1
    assert field(M, t, "leader_epoch", "r2") == 1
