"""Temporal properties under symmetry: each case on the quotient by the
renamings that leave it alone, the same verdicts as without symmetry (and
TLC's, where known), and lassos lifted to genuine behaviours of the spec."""

import dataclasses

import pytest

from modelcheck.search.canonical import Canonicaliser, Stabiliser
from modelcheck.errors import InputError
from modelcheck.capabilities.liveness.check import check_liveness
from modelcheck.capabilities.liveness.lasso import LassoShape, is_fair, violates
from modelcheck.capabilities.liveness.symmetric import case_groups, check_fairness, check_symmetric
from modelcheck.runtime.progress import Silent
from modelcheck.language.temporal import Fairness, Specification
from support import model

from .test_kip320_live import HOLDING_UNLESS_UNFAIR, VIOLATED_UNDER_EVERY_SPECIFICATION
from .toys import token_ring

SPECIFICATIONS = ("Spec", "NoFairSpec", "FairFetchSpec")


def is_behaviour(m, states, actions, loop, stutters) -> bool:
    """Init, then each step by its action instance, and the loop closing by its own step."""
    steps = list(zip(states, states[1:], actions))
    if not stutters:
        steps.append((states[-1], states[loop], actions[-1]))
    return states[0] in m.init_states and all((i, t) in m.successors(s) for s, t, i in steps)


def genuine_lassos_of(m, result, specification):
    """Every lasso of a symmetric check is a fair, violating behaviour of the spec itself."""
    for v in result.verdicts:
        if v.lasso is None:
            continue
        shape = LassoShape(v.lifted.states, v.lasso.loop, v.lasso.stutters)
        assert is_behaviour(m, v.lifted.states, v.lifted.instance.tolist(), v.lasso.loop, v.lasso.stutters), \
            v.case.label
        assert is_fair(m, specification, shape), v.case.label
        assert violates(m, v.case, shape), v.case.label


def same_verdicts(m, engine, name):
    specification = m.spec.specification(name)
    names = m.spec.property_names()
    reduced = check_symmetric(m, engine, names, specification, Silent())
    genuine_lassos_of(m, reduced, specification)
    full = check_liveness(m, engine, names, specification, Silent()).property_verdicts()
    assert reduced.property_verdicts() == full
    return full


@pytest.mark.parametrize("engine", ["bfs", "fast"])
@pytest.mark.parametrize("specification", SPECIFICATIONS)
def test_two_replicas_give_the_verdicts_without_symmetry_and_tlcs(engine, specification):
    verdicts = same_verdicts(model("kip320", Replicas="2"), engine, specification)
    violated = {name for name, ok in verdicts.items() if not ok}
    expected = VIOLATED_UNDER_EVERY_SPECIFICATION
    assert violated == (expected | HOLDING_UNLESS_UNFAIR if specification == "NoFairSpec" else expected)


@pytest.mark.parametrize("specification", SPECIFICATIONS)
def test_three_replicas_give_the_verdicts_without_symmetry(specification):
    same_verdicts(model("kip320", Replicas="3"), "fast", specification)


def test_three_replicas_on_the_reference_engine_give_the_verdicts_without_symmetry():
    """The reference engine's symmetric search under NoFairSpec, where every
    property fails and so every lasso is lifted, against the verdicts of the
    unreduced graph (the fast engine's, which the engines share). One leader
    epoch keeps the reference engine's graph small (39,619 states)."""
    m = model("kip320", Replicas="3", MaxLeaderEpoch="1")
    specification = m.spec.specification("NoFairSpec")
    names = m.spec.property_names()
    reduced = check_symmetric(m, "bfs", names, specification, Silent())
    genuine_lassos_of(m, reduced, specification)
    assert reduced.property_verdicts() == check_liveness(m, "fast", names, specification, Silent()).property_verdicts()


def test_each_case_gets_the_group_that_leaves_it_alone():
    m = model("kip320", Replicas="3")
    groups = case_groups(m, ["EpochsConverge", "LeaderAdoptsItsRequest"], m.spec.specification("Spec"))
    assert [(g.group, [c.label for c in g.cases]) for g in groups] == [
        (Stabiliser(0), ["EpochsConverge"]), (Stabiliser(1), ["LeaderAdoptsItsRequest (r=r1)"])]
    assert groups[1].follow == {"LeaderAdoptsItsRequest (r=r1)": ["LeaderAdoptsItsRequest (r=r2)",
                                                                  "LeaderAdoptsItsRequest (r=r3)"]}
    two = model("kip320", Replicas="2")
    assert case_groups(two, ["LeaderAdoptsItsRequest"], two.spec.specification("Spec"))[0].group is None


def test_fairness_on_part_of_an_action_is_refused():
    @dataclasses.dataclass(frozen=True)
    class FairForOne(Fairness):
        replica: int = 0

    action = model("kip320", Replicas="2").spec.next[0]
    with pytest.raises(InputError, match="not on a whole action"):
        check_fairness(Specification("Odd", (FairForOne("WF", action),)))


def test_the_stabiliser_keeps_r1_and_its_orbits_add_up_to_every_state():
    from modelcheck.engines.fast import FastChecker
    from modelcheck.engines.base import CheckOptions
    from modelcheck.engines.settings import FastSettings
    m = model("kip320", Replicas="3")
    result = FastChecker().check(m, CheckOptions((), symmetry=Stabiliser(1),
                                                 engine_options=FastSettings(orbit_sizes=True)))
    assert result.distinct_states == 369_242
    assert "the representatives stand for 737,794 states" in " ".join(result.notes)
    canon = Canonicaliser(m, group=Stabiliser(1))
    for state in m.init_states + [t for _, t in m.successors(m.init_states[0])]:
        for p in Stabiliser(1).permutations(3):
            image = canon.rename(state, p)
            assert canon.states([image]) == canon.states([state])


@pytest.mark.parametrize("engine", ["bfs", "fast"])
@pytest.mark.parametrize("replicas", ["2", "3"])
def test_a_token_passed_round_unrolls_the_quotients_cycle(engine, replicas):
    """Every state with a holder is one orbit: passing the token is a step of
    the quotient from a node to itself, which is no stuttering step, and its
    lasso must go round until the renamings add up to the identity."""
    spec = token_ring()
    m = spec.instantiate(spec.resolve_constants({"Replicas": replicas}))
    for name in ("Spec", "NoFairSpec"):
        specification = spec.specification(name)
        reduced = check_symmetric(m, engine, spec.property_names(), specification, Silent())
        full = check_liveness(m, engine, spec.property_names(), specification, Silent())
        assert reduced.property_verdicts() == full.property_verdicts()
        genuine_lassos_of(m, reduced, specification)
    verdicts = reduced.property_verdicts()
    assert verdicts["TokenSettles"] is False and verdicts["SomeoneHolds"] is False
    settles = next(v for v in check_symmetric(m, engine, ["TokenSettles"], spec.specification("Spec"),
                                               Silent()).verdicts)
    holders = [s[0] for s in settles.lifted.states[settles.lasso.loop:]]
    assert len(holders) >= 2 and len(set(holders)) == len(holders)  # a real cycle through distinct holders
