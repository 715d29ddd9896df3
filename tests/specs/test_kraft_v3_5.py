"""kraft-3.5 against TLC, on the smallest configurations.

Every pinned figure is TLC's (breadth-first, -workers 1, the module's VIEW,
the module's .cfg with the constants named here changed); docs/kraft.md lists
the commands, and bench/bench_kraft.py checks the larger configurations.
"""

import pytest

from support import invoke, invoke_json, model, one_error_line
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.bfs import BfsChecker
from modelcheck.engines.fast import FastChecker
from modelcheck.specs.kraft.v3_5_properties import CFG_INVARIANTS

SMALL = {"BrokerCount": 2, "InitReplicationFactor": 2, "MinISR": 1, "InitIsrSize": 1, "UncleanShutdownLimit": 0,
         "FenceBrokerLimit": 0}
WITHOUT_NCRLG = CFG_INVARIANTS[:-1]  # the .cfg comments NoCommittedRecordLostGlobally out when MinISR = unclean shutdowns
PORT = ("WithinCapacity", "Evaluable")


def check(m, invariants=CFG_INVARIANTS, engine=BfsChecker):
    return engine().check(m, CheckOptions(tuple(invariants) + PORT))


@pytest.mark.parametrize("consts, distinct, depth", [
    ({}, 130, 15),
    ({"InitIsrSize": 2}, 14, 8),
    ({"InitIsrSize": 2, "LeaderShrinkIsrLimit": 1}, 254, 16),
    ({"BrokerCount": 1, "InitReplicationFactor": 1, "UncleanShutdownLimit": 1,
      "AvoidLastReplicaStanding": "FALSE"}, 15, 7),
])
def test_state_space_under_the_view_matches_tlc(consts, distinct, depth):
    r = check(model("kraft-3.5", **{**SMALL, **consts}), WITHOUT_NCRLG if "AvoidLastReplicaStanding" in consts
              else CFG_INVARIANTS)
    assert (r.result, r.distinct_states, r.depth) == ("ok", distinct, depth)


@pytest.mark.parametrize("consts, invariants, distinct, depth", [
    ({"InitIsrSize": 2, "CleanShutdownLimit": 1}, CFG_INVARIANTS, 938, 22),
    ({"InitIsrSize": 2, "FenceBrokerLimit": 1}, CFG_INVARIANTS, 1260, 21),
    ({"InitIsrSize": 2, "UncleanShutdownLimit": 1}, WITHOUT_NCRLG, 945, 25),
    ({"BrokerCount": 3, "InitReplicationFactor": 3, "MinISR": 2, "InitIsrSize": 3}, CFG_INVARIANTS, 128, 17),
    ({"BrokerCount": 3, "InitReplicationFactor": 3, "MinISR": 2, "InitIsrSize": 2}, CFG_INVARIANTS, 1163, 25),
    ({"InitIsrSize": 2, "ReassignmentLimit": 2}, CFG_INVARIANTS, 3710, 27),
])
def test_more_state_spaces_under_the_view_match_tlc_on_the_fast_engine(consts, invariants, distinct, depth):
    """TLC's v03, v04, v06, v09 and v10 in docs/kraft.md: a clean shutdown, a
    fencing, an unclean shutdown, and three brokers with one or none out of
    sync; and two reassignments, where ResetStaleFollowerState off breaks
    LeaderCandidateCompleteness (chk_c346)."""
    r = check(model("kraft-3.5", **{**SMALL, **consts}), invariants, engine=FastChecker)
    assert (r.result, r.distinct_states, r.depth) == ("ok", distinct, depth)


def test_the_fast_engine_agrees():
    m = model("kraft-3.5", **{**SMALL, "InitIsrSize": 2, "LeaderShrinkIsrLimit": 1})
    r = check(m, engine=FastChecker)
    assert (r.result, r.distinct_states, r.depth) == ("ok", 254, 16)


@pytest.mark.parametrize("consts, invariants, broken, distinct, length", [
    # Last Replica Standing: the sole ISR member shuts down uncleanly and is elected again, empty
    ({"UncleanShutdownLimit": 1, "AvoidLastReplicaStanding": "FALSE"}, WITHOUT_NCRLG, "LeaderCompletenessProperty",
     254, 8),
    ({"UncleanShutdownLimit": 1, "AvoidLastReplicaStanding": "FALSE"}, CFG_INVARIANTS,
     "NoCommittedRecordLostGlobally", 49, 5),
    # upstream CHECKs switched off
    ({"IsrJoinRequiresHighWatermark": "FALSE"}, CFG_INVARIANTS, "LeaderCandidateCompletenessProperty", 43, 7),
    ({"IsrJoinRequiresFetch": "FALSE"}, CFG_INVARIANTS, "LeaderCandidateCompletenessProperty", 115, 8),
])
def test_shortest_violations_match_tlc(consts, invariants, broken, distinct, length):
    r = check(model("kraft-3.5", **{**SMALL, **consts}), invariants)
    assert (r.result, r.violation.invariant, r.distinct_states, r.violation.length) == \
        ("violation", broken, distinct, length)


def test_a_stale_follower_entry_lets_a_deleted_replica_into_the_isr():
    """ResetStaleFollowerState off, both brokers in sync, two reassignments:
    TLC finds LeaderCandidateCompleteness broken after 2,161 states, in 13
    (with the check, it holds: 3,710 states, depth 27, pinned above)."""
    r = check(model("kraft-3.5", **{**SMALL, "InitIsrSize": 2, "ReassignmentLimit": 2,
                                    "ResetStaleFollowerState": "FALSE"}))
    assert (r.result, r.violation.invariant, r.distinct_states, r.violation.length) == \
        ("violation", "LeaderCandidateCompletenessProperty", 2161, 13)


def test_a_step_tlc_cannot_evaluate_stops_the_run_as_it_stops_tlc(in_tmp):
    """With two values, a leader alone in its ISR that writes a second one
    reads its log past the end (UpdateHwmInvariantVars' SubSeq); TLC stops
    with an evaluation error after 84 states, its trace 4 states long."""
    code, out, _ = invoke_json("run", "kraft-3.5", "--engine", "bfs", "-q", *consts_args(
        {**SMALL, "InitIsrSize": 2, "FenceBrokerLimit": 1, "Values": "{A,B}"}))
    assert code == 75
    assert (out["result"], out["distinct_states"], out["depth"], out["violation"]["invariant"],
            out["violation"]["trace_length"]) == ("error", 84, 5, "Evaluable", 4)


def test_a_network_outgrowing_its_capacity_is_refused_with_one_line(in_tmp):
    code, _, err = invoke("run", "kraft-3.5", "--engine", "bfs", "-q", *consts_args(
        {**SMALL, "UncleanShutdownLimit": 1, "LeaderShrinkIsrLimit": 1, "AlterPartitionCapacity": 1}))
    assert code == 2 and "AlterPartitionCapacity=2" in one_error_line(err)


def test_constants_outside_the_module_s_assumptions_are_refused(in_tmp):
    code, _, err = invoke("run", "kraft-3.5", "-q", *consts_args({"BrokerCount": 2, "InitReplicationFactor": 3}))
    assert code == 2 and "InitReplicationFactor (3) must be at most BrokerCount (2)" in one_error_line(err)
    code, _, err = invoke("run", "kraft-3.5", "-q", "--const", "BrokerCount=9")
    assert code == 2 and "BrokerCount can be at most" in one_error_line(err)


def test_defaults_are_the_committed_configuration():
    c = model("kraft-3.5").constants
    assert (c.BrokerCount, c.InitReplicationFactor, c.Values, c.MinISR, c.InitIsrSize) == (3, 3, ("A",), 2, 2)
    assert (c.CleanShutdownLimit, c.UncleanShutdownLimit, c.FenceBrokerLimit, c.LeaderShrinkIsrLimit,
            c.ReassignmentLimit, c.AvoidLastReplicaStanding) == (0, 1, 1, 0, 0, True)


def consts_args(consts):
    return [arg for k, v in consts.items() for arg in ("--const", f"{k}={v}")]


def test_liveness_verdicts_match_tlc(in_tmp):
    """TLC (LivenessSpec, no VIEW) finds these hold on the smallest configuration."""
    code, out, _ = invoke_json("run", "kraft-3.5", "--engine", "bfs", "-q", "--specification", "LivenessSpec",
                               "--prop", "EventuallyMetadataConverges", "--prop", "EventuallyWriteIsAcceptedOrRejected",
                               *consts_args(SMALL))
    assert code == 0 and out["result"] == "ok" and out["view"] is False
    code, _, err = invoke("run", "kraft-3.5", "-q", "--view", "--prop", "EventuallyRuns", *consts_args(SMALL))
    assert code == 2 and "whole states" in one_error_line(err)


def test_whole_state_count_is_tlc_s_with_only_the_discarded_requests_the_spec_reads(in_tmp):
    """Without the VIEW: 161 states, depth 15, as TLC counts under a VIEW of
    every variable with messages_discard cut down to its AlterPartition requests."""
    code, out, _ = invoke_json("run", "kraft-3.5", "--engine", "bfs", "-q", "--no-view", "--inv", "TypeOK",
                               *consts_args(SMALL))
    assert (code, out["distinct_states"], out["depth"], out["view"]) == (0, 161, 15, False)
