"""kraft-kip966 against TLC on the smallest configurations, and KIP-966
holding where Kafka 3.5 loses committed data.

Every pinned figure is TLC's (breadth-first, -workers 1, the module's VIEW,
its .cfg with these constants changed); docs/kraft.md lists them.
"""

import json

import pytest

from support import invoke, invoke_json, model, one_error_line
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.bfs import BfsChecker
from modelcheck.engines.fast import FastChecker
from modelcheck.specs.kraft.kip_966_properties import CFG_INVARIANTS

SMALL = {"BrokerCount": 2, "InitReplicationFactor": 2, "MinISR": 1, "InitIsrSize": 1, "DataLossShutdownLimit": 0,
         "FenceBrokerLimit": 0}
WITHOUT_NCLG = CFG_INVARIANTS[:-1]  # the .cfg leaves NoCommittedRecordLostGlobally out when MinISR = DataLossShutdownLimit
PORT = ("WithinCapacity", "Evaluable")


def check(m, invariants=CFG_INVARIANTS):
    return BfsChecker().check(m, CheckOptions(tuple(invariants) + PORT))


@pytest.mark.parametrize("consts, distinct, depth", [
    ({}, 130, 15),  # docs/SPEC_NOTES' calibration figure
    ({"InitIsrSize": 2}, 14, 8),
    ({"InitIsrSize": 2, "NoDataLossShutdownLimit": 1}, 1079, 22),
    ({"InitIsrSize": 2, "LeaderShrinkIsrLimit": 1}, 254, 16),
])
def test_state_space_under_the_view_matches_tlc(consts, distinct, depth):
    r = check(model("kraft-kip966", **{**SMALL, **consts}))
    assert (r.result, r.distinct_states, r.depth) == ("ok", distinct, depth)


@pytest.mark.parametrize("consts, invariants, distinct, depth", [
    ({"InitIsrSize": 2, "FenceBrokerLimit": 1}, CFG_INVARIANTS, 1260, 21),
    ({"InitIsrSize": 2, "DataLossShutdownLimit": 1}, WITHOUT_NCLG, 945, 25),
    ({"BrokerCount": 3, "InitReplicationFactor": 3, "MinISR": 2, "InitIsrSize": 3}, CFG_INVARIANTS, 128, 17),
    ({"BrokerCount": 3, "InitReplicationFactor": 3, "MinISR": 2, "InitIsrSize": 2}, CFG_INVARIANTS, 1163, 25),
    ({"InitIsrSize": 2, "ReassignmentLimit": 2}, CFG_INVARIANTS, 3710, 27),
])
def test_more_state_spaces_under_the_view_match_tlc_on_the_fast_engine(consts, invariants, distinct, depth):
    """TLC's k03, k05, k07 and k08 in docs/kraft.md, and two reassignments
    (chk_k_c396 with the check kept)."""
    r = FastChecker().check(model("kraft-kip966", **{**SMALL, **consts}), CheckOptions(tuple(invariants) + PORT))
    assert (r.result, r.distinct_states, r.depth) == ("ok", distinct, depth)


def test_a_search_under_the_view_stopped_and_resumed_gives_tlcs_count(tmp_path):
    """The calibration configuration (130 states under the VIEW, 161
    without): stopped at --max-states with a checkpoint, then resumed; a
    checkpoint made under the VIEW resumes only under it."""
    run = ("run", "kraft-kip966", "--engine", "fast", "-q", *[a for k, v in SMALL.items() for a in ("--const", f"{k}={v}")])
    saved = str(tmp_path / "ck")
    code, stopped, err = invoke_json(*run, "--max-states", "40", "--checkpoint", saved)
    assert (code, stopped["stopped"], stopped["view"]) == (0, "max-states", True), err
    assert 40 <= stopped["distinct_states"] < 130
    code, resumed, err = invoke_json(*run, "--resume", saved)
    assert (code, resumed["result"], resumed["distinct_states"], resumed["depth"]) == (0, "ok", 130, 15), err
    code, _, err = invoke(*run, "--no-view", "--resume", saved)
    assert code == 2 and "under the VIEW" in one_error_line(err)


@pytest.mark.parametrize("consts, invariants, broken, distinct, length", [
    # the only ISR member loses its log with MinISR 1: the acknowledged record is gone in either design
    ({"DataLossShutdownLimit": 1}, CFG_INVARIANTS, "NoCommittedRecordLostGlobally", 49, 5),
    ({"IsrJoinRequiresHighWatermark": "FALSE"}, CFG_INVARIANTS, "LeaderCandidateCompletenessProperty", 43, 7),
    ({"IsrJoinRequiresFetch": "FALSE"}, CFG_INVARIANTS, "LeaderCandidateCompletenessProperty", 115, 8),
    ({"InitIsrSize": 2, "ReassignmentLimit": 2, "ResetStaleFollowerState": "FALSE"}, CFG_INVARIANTS,
     "LeaderCandidateCompletenessProperty", 2161, 13),
])
def test_shortest_violations_match_tlc(consts, invariants, broken, distinct, length):
    r = check(model("kraft-kip966", **{**SMALL, **consts}), invariants)
    assert (r.result, r.violation.invariant, r.distinct_states, r.violation.length) == \
        ("violation", broken, distinct, length)


def test_the_last_replica_standing_configuration_holds(in_tmp):
    """Where 3.5 elects the last replica standing with an empty log (8 states),
    KIP-966 holds: 4,428 states, depth 30, as TLC finds."""
    r = check(model("kraft-kip966", **{**SMALL, "DataLossShutdownLimit": 1}), WITHOUT_NCLG)
    assert (r.result, r.distinct_states, r.depth) == ("ok", 4428, 30)


def test_renamed_limits_and_no_avoid_switch(in_tmp):
    code, _, err = invoke("run", "kraft-kip966", "-q", "--const", "AvoidLastReplicaStanding=FALSE")
    assert code == 2 and "no constant 'AvoidLastReplicaStanding'" in err
    code, out, _ = invoke_json("run", "kraft-kip966", "--engine", "bfs", "-q",
                               *[a for k, v in {**SMALL, "InitIsrSize": 2}.items() for a in ("--const", f"{k}={v}")])
    assert (code, out["distinct_states"], out["view"]) == (0, 14, True)


PROPERTIES = ("EventuallyRuns", "EventuallyUnfenced", "AlterPartitionEpochEventuallyReachedOrZero",
              "EventuallyMetadataConverges", "EventuallyWriteIsAcceptedOrRejected",
              "EventuallyAcknowledgedValueFullyReplicated", "EventuallyReassignmentCompletes")
# two brokers, both in sync, one reassignment: it can leave a single replica, whose write nobody acknowledges
REASSIGN = {**SMALL, "InitIsrSize": 2, "ReassignmentLimit": 1}


def live(consts, properties, engine="fast"):
    return invoke_json("run", "kraft-kip966", "--engine", engine, "-q", "--specification", "LivenessSpec",
                       *[a for p in properties for a in ("--prop", p)],
                       *[a for k, v in consts.items() for a in ("--const", f"{k}={v}")])


@pytest.mark.parametrize("consts, properties", [
    (SMALL, PROPERTIES),
    (REASSIGN, tuple(p for p in PROPERTIES if p != "EventuallyWriteIsAcceptedOrRejected")),
])
def test_liveness_properties_that_tlc_finds_hold(in_tmp, consts, properties):
    """TLC (LivenessSpec, no VIEW) finds each of these holds."""
    code, out, _ = live(consts, properties)
    assert (code, out["result"], out["view"]) == (0, "ok", False)


def test_a_reassignment_leaving_one_replica_never_acknowledges_its_write(in_tmp):
    """TLC: EventuallyWriteIsAcceptedOrRejected is violated by a behaviour
    that writes A to the one replica left and then stutters (no fair action
    is enabled, and nothing advances the high watermark). The report speaks
    of the fairness of the two brokers there are, once per action."""
    code, text, _ = invoke("run", "kraft-kip966", "-q", "--specification", "LivenessSpec",
                           "--prop", "EventuallyWriteIsAcceptedOrRejected", "--trace-out", "lasso.itf.json",
                           *[a for k, v in REASSIGN.items() for a in ("--const", f"{k}={v}")])
    assert code == 13 and "Temporal property EventuallyWriteIsAcceptedOrRejected (v=A) is violated" in text
    healing = "BrokerStart(b), ReceiveBrokerRegResponse(b), ReceiveMetadataUpdate(b), SendAlterPartitionRequest(b), " \
              "ReceiveAlterPartitionResponse(b), SendFetchRequest(b), ReceiveFetchRequest(b), ReceiveFetchResponse(b), " \
              "ReceiveBrokerRegRequest(b), ReceiveAlterPartitionRequest(b), UnfenceBroker(b) for each broker b in {1, 2}"
    assert f"under       LivenessSpec (weak fairness on {healing})\n" in text
    assert f"  It is a fair behaviour of LivenessSpec:\n    weak fairness on {healing}: not enabled anywhere on " \
           f"the cycle\n\n" in text
    assert "is not among" not in text and "(3)" not in text and "(4)" not in text
    trace = json.loads((in_tmp / "lasso.itf.json").read_text())
    actions = [s["#meta"]["action"] for s in trace["states"]]
    # breadth-first, so the shortest such behaviour (TLC's lasso is not minimal: 8 states, then stuttering)
    assert (actions[1], actions[-1], len(actions), trace["loop"]) == \
        ("PerformPartitionReassignment", "WriteRecordToLeader", 5, 4)
    assert len(trace["states"][-1]["con_partition_metadata"]["replicas"]["#set"]) == 1


def test_the_listing_says_each_liveness_condition_once():
    code, text, _ = invoke("list")
    kraft = text[text.index("kraft-3.5  ("):]  # kraft-3.5 and kraft-kip966, the last two
    assert code == 0 and "is not among" not in kraft and "(4)" not in kraft
    assert kraft.count("UnfenceBroker(b) for each broker b\n") == 2


@pytest.mark.parametrize("consts, distinct, depth", [(SMALL, 161, 15), (REASSIGN, 145, 13)])
def test_whole_state_counts_are_tlc_s_with_only_the_discarded_requests_the_spec_reads(in_tmp, consts, distinct, depth):
    """Without the VIEW the port keeps, of the discarded messages, only the
    AlterPartition requests. TLC counts the same under a VIEW of every
    variable with messages_discard cut down to those requests."""
    code, out, _ = invoke_json("run", "kraft-kip966", "--engine", "bfs", "-q", "--no-view", "--inv", "TypeOK",
                               *[a for k, v in consts.items() for a in ("--const", f"{k}={v}")])
    assert (code, out["distinct_states"], out["depth"], out["view"]) == (0, distinct, depth, False)


@pytest.mark.parametrize("spec", ["kraft-3.5", "kraft-kip966"])
def test_engines_that_cannot_apply_the_view_refuse_it_with_one_line(in_tmp, spec):
    small = {k if spec == "kraft-kip966" else k.replace("DataLoss", "Unclean"): v for k, v in SMALL.items()}
    code, _, err = invoke("run", spec, "--engine", "z3", "--view", "-q", "--max-depth", "2",
                          *[a for k, v in small.items() for a in ("--const", f"{k}={v}")])
    assert code == 2 and one_error_line(err) == \
        "modelcheck: error: --engine z3 does not apply a VIEW; use --engine bfs, fast or spark, or --no-view"


@pytest.mark.parametrize("const, message", [
    ("DataLossShutdownLimit=4", "DataLossShutdownLimit can be at most 3 in modelcheck, got 4"),
    ("MinISR=0", "MinISR must be at least 1, got 0"),
    ("MinISR=3", "InitIsrSize (1) must be at least MinISR (3)"),
    ("InitIsrSize=3", "InitIsrSize (3) must be at most InitReplicationFactor (2)"),
    ("Values={}", "Values must have at least 1 member, got the empty set"),
    ("Values={A,B,C,D}", "Values can be at most 3 in modelcheck, got 4 members"),
])
def test_constants_outside_what_the_port_supports_are_refused_with_one_line(in_tmp, const, message):
    code, _, err = invoke("run", "kraft-kip966", "-q", *[a for k, v in SMALL.items() for a in ("--const", f"{k}={v}")],
                          "--const", const)
    assert code == 2 and one_error_line(err) == f"modelcheck: error: {message}"
