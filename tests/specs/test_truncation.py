"""The truncation rules of Kip101, Kip279, Kip320 and Kip320FirstTry on crafted logs."""

from support import enabled, field, model
from scenarios import led_by, with_log

KIP101, KIP279 = model("kip101"), model("kip279")
KIP320, FIRST_TRY = model("kip320"), model("kip320-first-try")


def _follower_of_r1(m, leader_log, follower_log, epoch=2, **extra):
    s = led_by(m, "r1", epoch=epoch, leader_epoch={"r2": 0}, leader={"r2": "NONE"}, **extra)
    s = with_log(m, s, "r1", leader_log)
    return with_log(m, s, "r2", follower_log)


def test_kip101_truncates_where_the_leader_says_the_epoch_ends():
    s = _follower_of_r1(KIP101, [(0, 0), (1, 2)], [(0, 0), (1, 1)], hw={"r2": 2})
    t = enabled(KIP101, s)["BecomeFollowerTruncateKip101(leader=r1, replica=r2, leaderAndIsrRequest=2)"]
    # r2's last epoch is 1; the first leader record with a larger epoch is at offset 1
    assert field(KIP101, t, "log_end", "r2") == 1 and field(KIP101, t, "hw", "r2") == 1


def test_truncation_never_lengthens_a_log():
    # the leader's last record has r2's last epoch, so the answer is the
    # leader's end offset (2), past r2's end (1): the action is disabled
    s = _follower_of_r1(KIP101, [(0, 0), (1, 0)], [(0, 0)])
    assert not any(k.startswith("BecomeFollowerTruncateKip101(leader=r1, replica=r2")
                   for k in enabled(KIP101, s))


def test_kip279_truncates_past_the_last_matching_offset():
    s = _follower_of_r1(KIP279, [(0, 0), (1, 2)], [(0, 0), (1, 1)], hw={"r2": 2})
    t = enabled(KIP279, s)["BecomeFollowerTruncateKip279(leader=r1, replica=r2, leaderAndIsrRequest=2)"]
    assert field(KIP279, t, "log_end", "r2") == 1 and field(KIP279, t, "log_id", "r2", 1) == -1
    assert field(KIP279, t, "hw", "r2") == 1


def test_kip320_truncates_only_against_a_leader_on_the_request_epoch():
    s = _follower_of_r1(KIP320, [(0, 0)], [(0, 0), (1, 1)])
    moves = enabled(KIP320, s)
    assert "FencedBecomeFollowerAndTruncate(leader=r1, replica=r2, leaderAndIsrRequest=2)" in moves
    # the older requests also name r1, but r1 is no longer on those epochs
    assert "FencedBecomeFollowerAndTruncate(leader=r1, replica=r2, leaderAndIsrRequest=1)" not in moves


def test_kip320_fetches_only_on_the_leader_epoch():
    s = led_by(KIP320, "r1", epoch=1, followers=("r2",), leader_epoch={"r2": 0})
    s = with_log(KIP320, s, "r1", [(0, 1)])
    assert "FencedFollowerFetch(follower=r2, leader=r1)" not in enabled(KIP320, s)
    s = led_by(KIP320, "r1", epoch=1, followers=("r2",))
    s = with_log(KIP320, s, "r1", [(0, 1)])
    assert "FencedFollowerFetch(follower=r2, leader=r1)" in enabled(KIP320, s)


def test_kip320_isr_expansion_checks_both_cases_of_the_current_epoch():
    base = dict(isr={"r1", "r2"}, followers=("r2", "r3"))
    expand = "FencedLeaderExpandIsr(leader=r1, follower=r3)"
    # hw at the log end: allowed
    s = led_by(KIP320, "r1", epoch=1, hw={"r1": 1}, **base)
    s = with_log(KIP320, with_log(KIP320, s, "r1", [(0, 0)]), "r3", [(0, 0)])
    assert expand in enabled(KIP320, s)
    # the record at hw is from the leader's own epoch: allowed
    s = led_by(KIP320, "r1", epoch=1, hw={"r1": 1}, **base)
    s = with_log(KIP320, with_log(KIP320, s, "r1", [(0, 0), (1, 1)]), "r3", [(0, 0)])
    assert expand in enabled(KIP320, s)
    # the record at hw is from an older epoch: not yet
    s = led_by(KIP320, "r1", epoch=1, hw={"r1": 1}, **base)
    s = with_log(KIP320, with_log(KIP320, s, "r1", [(0, 0), (1, 0)]), "r3", [(0, 0)])
    assert expand not in enabled(KIP320, s)


def test_first_try_becomes_follower_without_truncating():
    s = _follower_of_r1(FIRST_TRY, [(0, 0)], [(0, 0), (1, 1)])
    t = enabled(FIRST_TRY, s)["BecomeFollower(leader=r1, replica=r2, leaderAndIsrRequest=2)"]
    assert field(FIRST_TRY, t, "log_end", "r2") == 2


def test_first_try_truncates_on_a_mismatched_last_epoch():
    s = led_by(FIRST_TRY, "r1", epoch=2, followers=("r2",), leader_epoch={"r2": 1}, hw={"r2": 2})
    s = with_log(FIRST_TRY, with_log(FIRST_TRY, s, "r1", [(0, 0), (1, 2)]), "r2", [(0, 0), (1, 1)])
    moves = enabled(FIRST_TRY, s)
    assert "FollowerFetch(follower=r2, leader=r1)" not in moves
    t = moves["FollowerTruncate(leader=r1, follower=r2)"]
    assert field(FIRST_TRY, t, "log_end", "r2") == 1 and field(FIRST_TRY, t, "hw", "r2") == 1
    # matching last epochs: no truncation needed
    s = with_log(FIRST_TRY, s, "r2", [(0, 0)])
    assert "FollowerTruncate(leader=r1, follower=r2)" not in enabled(FIRST_TRY, s)
