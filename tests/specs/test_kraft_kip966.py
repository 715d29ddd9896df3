"""kraft-kip966 against TLC on the smallest configurations, and KIP-966
holding where Kafka 3.5 loses committed data.

Every pinned figure is TLC's (breadth-first, -workers 1, the module's VIEW,
its .cfg with these constants changed); docs/kraft.md lists them.
"""

import pytest

from support import invoke, invoke_json, model
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.bfs import BfsChecker
from specs.kraft.kip_966_properties import CFG_INVARIANTS

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
