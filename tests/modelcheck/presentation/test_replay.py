"""Replay: Init, legal steps named by their actions, invalid steps with a diff, invariants along the way."""

import dataclasses
import os

import pytest

from support import ROOT, crafted
from modelcheck.presentation.replay import (EXIT_NOT_A_BEHAVIOUR, chosen_invariants, claimed_instances, load, replay,
                                            report_json, report_text)
from modelcheck.presentation.trace_read import BoundTrace, ClaimedStep

FIRST_TRY = os.path.join(ROOT, "traces", "kip320-first-try-StrongIsr.itf.json")
TLC = os.path.join(ROOT, "tests", "fixtures", "tlc")


@pytest.fixture(scope="module")
def first_try():
    return load("kip320-first-try", FIRST_TRY)


def altered(bound: BoundTrace, states=None, claimed=None) -> BoundTrace:
    doc = dataclasses.replace(bound.document, claimed=list(claimed if claimed is not None else bound.claimed))
    return BoundTrace(doc, bound.model, list(states if states is not None else bound.states))


def test_a_counterexample_is_a_behaviour_with_every_step_named(first_try):
    report = replay(first_try, chosen_invariants(first_try, ()))
    assert report.invalid is None and report.result == "violation" and report.exit_code == 12
    labels = [s.label for s in report.steps]
    assert labels[0] == "ControllerElectLeader(newLeader=r1)"
    assert labels[-1] == "FollowerTruncate(leader=r2, follower=r3)"
    assert all(s.note is None for s in report.steps)  # the file's own action names agree
    assert [(v.invariant, v.state) for v in report.violations] == [("WeakIsr", 12), ("StrongIsr", 12)]


def test_default_invariants_add_the_one_the_trace_records(first_try):
    assert chosen_invariants(first_try, ()) == ("TypeOk", "WeakIsr", "StrongIsr")
    assert chosen_invariants(first_try, ("LeaderInIsr",)) == ("LeaderInIsr",)
    report = replay(first_try, ("LeaderInIsr",))
    assert [(v.invariant, v.state) for v in report.violations] == [("LeaderInIsr", 0)]
    with pytest.raises(Exception, match="no invariant 'Nope'"):
        chosen_invariants(first_try, ("Nope",))


def test_an_invariant_that_holds_throughout(first_try):
    report = replay(first_try, ("TypeOk",))
    assert report.result == "ok" and report.exit_code == 0
    assert "Holding in every state: TypeOk" in report_text(report)


@pytest.mark.parametrize("name, spec, consts, length", [
    ("kip320-first-try-StrongIsr.json", "kip320-first-try", ("Replicas=3",), 13),
    ("kip101-WeakIsr-bare.json", "kip101", ("Replicas=2",), 12),
    ("truncate-to-hw-WeakIsr-totrace.json", "truncate-to-hw", ("Replicas=2",), 9),
    ("kip320-consumer-NoDivergentDelivery.json", "kip320-consumer", ("TruncationCheck=FALSE",), 17),
    ("kafka-clients-NoWriteToStaleLeader.json", "kafka-clients", (), 6),
])
def test_tlc_traces_replay_cleanly(name, spec, consts, length):
    bound = load(spec, os.path.join(TLC, name), consts)
    report = replay(bound, chosen_invariants(bound, ()))
    assert report.invalid is None and len(report.steps) == length - 1
    assert all(s.note is None and len(s.matches) == 1 for s in report.steps)
    assert report.violations and report.violations[0].state == length - 1


def test_an_illegal_step_is_reported_with_its_number_and_the_closest_successor(first_try):
    m = first_try.model
    states = list(first_try.states)
    # state 10: r3 fetched r1's record, but the trace says it arrived with epoch 1
    states[9] = crafted(m, base=states[9], log_epoch={("r3", 0): 1})
    report = replay(altered(first_try, states), ("StrongIsr",))
    bad = report.invalid
    assert report.result == "invalid" and report.exit_code == EXIT_NOT_A_BEHAVIOUR != 12
    assert bad.state == 9 and bad.reason == "state 10 is not reachable from state 9 by any action"
    assert bad.closest == "FollowerFetch(follower=r3, leader=r1)"
    assert bad.diff == ["replicaLog[r3].records[0].epoch: 2 there, 1 in the trace"]
    assert bad.claimed[0] == ("the trace says FollowerFetch(follower=r3, leader=r1), which is enabled in state 9 "
                              "but leads elsewhere:")
    assert len(report.steps) == 8
    assert report.violations == []  # StrongIsr breaks in state 13, past the illegal step: not judged
    text = report_text(report)
    assert "Holding in states 1 to 9, the legal prefix: StrongIsr" in text
    assert "Not a behaviour of kip320-first-try: state 10 is not reachable from state 9 by any action." in text
    assert "closest legal successor: FollowerFetch(follower=r3, leader=r1), which differs in 1 value:" in text
    assert report_json(report)["invalid_step"]["state"] == 10


def test_a_claimed_action_that_was_not_enabled_shows_its_false_guard(first_try):
    claimed = list(first_try.claimed)
    states = list(first_try.states)
    # skip the BecomeFollower step: r3 fetches from r1 while following nobody
    del states[8]
    del claimed[8]
    report = replay(altered(first_try, states, claimed), ("StrongIsr",))
    assert report.invalid.state == 8
    detail = report.invalid.claimed[0]
    assert detail.startswith("the trace says FollowerFetch(follower=r3, leader=r1), which is not enabled in state 8: ")
    assert detail.endswith("replicaState[r3].leader (NONE) = r1")


def test_claims_are_matched_on_scalar_parameters_only(first_try):
    m = first_try.model
    request = {"leaderEpoch": 1, "leader": "r2", "isr": ["r1", "r2", "r3"]}
    fits = claimed_instances(m, ClaimedStep("BecomeLeader", (("leaderAndIsrRequest", request), ("leader", "r2"))))
    assert {i.label() for i in fits} == {f"BecomeLeader(leaderAndIsrRequest={e}, leader=r2)" for e in range(3)}
    assert claimed_instances(m, ClaimedStep("LeaderWrite", (("replica", "r1"), ("id", 0), ("offset", 0))))[0].label() \
        == "LeaderWrite(replica=r1)"


def test_an_unknown_action_name_is_not_an_error(first_try):
    claimed = [None] + [ClaimedStep("Next")] * (len(first_try.states) - 1)
    report = replay(altered(first_try, claimed=claimed), ())
    assert report.invalid is None and all(s.note is None for s in report.steps)


def test_a_step_explained_by_another_action_than_claimed_gets_a_note(first_try):
    claimed = list(first_try.claimed)
    claimed[1] = ClaimedStep("ControllerElectLeader", (("newLeader", "r2"),))
    report = replay(altered(first_try, claimed=claimed), ())
    assert report.invalid is None
    assert report.steps[0].note == "the trace says ControllerElectLeader(newLeader=r2)"


def test_the_first_state_must_satisfy_init(first_try):
    m = first_try.model
    states = [crafted(m, base=first_try.states[0], hw={"r2": 1})] + list(first_try.states[1:])
    report = replay(altered(first_try, states), ())
    assert report.invalid.state == 0 and report.invalid.reason == "the first state does not satisfy Init"
    assert report.invalid.closest == "Init" and report.invalid.diff == ["replicaState[r2].hw: 0 there, 1 in the trace"]
    assert report.steps == [] and report.exit_code == EXIT_NOT_A_BEHAVIOUR
    assert "No invariant was checked: the trace does not start in an initial state." in report_text(report)


def test_stuttering_steps_are_legal(first_try):
    states = list(first_try.states)
    states.insert(3, states[2])
    report = replay(altered(first_try, states, [None] * len(states)), ("TypeOk",))
    assert report.invalid is None and report.steps[2].stutter
    assert report.steps[2].label == "(stuttering step: no variable changes)"
