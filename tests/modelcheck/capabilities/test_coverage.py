"""Coverage: counts that add up to the search's own, the dead branch Kip320
declares, and field ranges."""

import numpy as np

from support import model
from modelcheck.capabilities.coverage import Coverage, guard_branches
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.fast import FastChecker
from modelcheck.language.expr import or_, var
from modelcheck.search.simulate.walks import RandomWalks, WalkPlan


def fast_with_coverage(m, level="actions"):
    coverage = Coverage(m, level)
    result = FastChecker().check(m, CheckOptions(m.spec.default_invariants, coverage=coverage))
    return result, coverage.report()


def test_distinct_over_actions_plus_initial_states_is_the_distinct_state_count():
    m = model("kip320", Replicas=2)
    result, report = fast_with_coverage(m)
    assert result.distinct_states == 5973
    assert report.initial_states + sum(a["distinct"] for a in report.actions) == 5973
    # one successor per enabled state, and every successor generated is counted by the engine too
    assert sum(a["generated"] for a in report.actions) + 1 == result.states_generated
    assert all(a["enabled"] == a["generated"] >= a["distinct"] > 0 for a in report.actions)


def test_full_coverage_lists_every_instance_and_adds_up_to_the_actions():
    m = model("kip320", Replicas=2)
    _, report = fast_with_coverage(m, "full")
    assert len(report.instances) == len(m.instances)
    for a in report.actions:
        mine = [i for i in report.instances if i["name"].split("(")[0] == a["name"]]
        assert sum(i["distinct"] for i in mine) == a["distinct"]


def test_the_upstream_leader_none_branch_is_found_dead():
    _, report = fast_with_coverage(model("kip320", Replicas=2))
    dead = [(b["action"], b["condition"]) for b in report.dead_branches]
    assert ("FencedBecomeFollowerAndTruncate", "leader = None") in dead
    live = next(b for b in report.branches if b["condition"] == "leader # None")
    assert live["held"] == live["enabled"] > 0  # the other declared case held whenever the action did
    assert report.to_json()["dead_branches"]


def test_a_bound_never_reached_is_flagged():
    # with MaxRecords=1 no replica ever holds two records, so at most one offset is ever reached
    m = model("kip320", Replicas=2, LogSize=2, MaxRecords=1)
    _, report = fast_with_coverage(m)
    log_end = next(f for f in report.fields if f["field"] == "log_end")
    assert log_end["reached"] == [0, 1] and log_end["declared"] == [0, 2]
    assert log_end["flags"] == ["upper bound 2 never reached"]


def test_the_variables_are_shown_in_the_specs_terms_with_the_values_never_held():
    """Per TLA+ variable, as the viewer shows them: replicas by name, NONE
    and Nil by name, sets by their members; the values never held flagged."""
    m = model("kip320", Replicas=2, LogSize=2, MaxRecords=1)
    _, report = fast_with_coverage(m)
    rows = {v["variable"]: v for v in report.variables}
    assert "isr" not in rows and "request_sent" not in rows  # no internal field names
    assert (rows["replicaLog[r].endOffset"]["reached"], rows["replicaLog[r].endOffset"]["flags"]) == \
        ("0, 1", ["never 2"])
    assert (rows["replicaLog[r].records[i].id"]["declared"], rows["replicaLog[r].records[i].id"]["reached"]) == \
        ("Nil or 0", "Nil, 0")
    assert rows["replicaState[r].leader"]["declared"] == "NONE, r1, r2"
    assert rows["replicaState[r].leader"]["reached"] == "NONE, r1, r2" and not rows["replicaState[r].leader"]["flags"]
    assert rows["quorumState.isr"]["reached"] == "4 of the 4 sets, members r1, r2"
    assert (rows["leaderAndIsrRequests"]["declared"], rows["leaderAndIsrRequests"]["reached"]) == \
        ("one per leaderEpoch 0..2", "leaderEpoch 0..2")
    assert report.to_json()["variables"] == report.variables


def test_a_set_that_always_holds_a_replica_says_so():
    # AsyncIsr's leader (r1) is in every ISR it holds: 4 of the 8 sets, never the empty one
    _, report = fast_with_coverage(model("async-isr"))
    rows = {v["variable"]: v for v in report.variables}
    assert (rows["leaderState.isr"]["reached"], rows["leaderState.isr"]["flags"]) == \
        ("4 of the 8 sets, members r1, r2, r3", ["never empty"])
    assert rows["updates"]["flags"] == ["never one of version 0"]  # the spec's own codec says its messages


def test_guard_branches_are_the_disjuncts():
    a, b, c = (var(k, "bool") for k in range(3))
    places = [p for p, _ in guard_branches(or_(a, or_(b, c)))]
    assert places == ["or.1", "or.2", "or.3"]  # nested disjunctions are flattened


def test_simulation_coverage_adds_up_to_the_distinct_states_it_saw():
    m = model("kip320", Replicas=2)
    coverage = Coverage(m)
    r = RandomWalks(m, ("WeakIsr",), coverage).run(WalkPlan(behaviours=500, batch=128), np.random.default_rng(0))
    report = coverage.report()
    assert report.initial_states + sum(a["distinct"] for a in report.actions) == r.distinct
    assert sum(a["generated"] for a in report.actions) == r.generated


def test_a_guard_disjunct_that_never_holds_is_flagged():
    # Kip320FirstTry's high watermark test has a disjunct for hw + 1 = 0, which no state satisfies
    _, report = fast_with_coverage(model("kip320-first-try", Replicas=2))
    dead = {(b["action"], b["condition"]): b for b in report.dead_branches}
    found = dead[("ImprovedLeaderIncHighWatermark", "((hw[_] + 1) = 0)")]
    assert found["enabled"] > 0 and not found["declared"]
