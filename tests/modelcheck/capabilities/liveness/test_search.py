"""The fair-cycle search on hand-made specs: WF, SF and no fairness each decide a verdict."""

import pytest

from modelcheck.capabilities.liveness.check import check_liveness
from modelcheck.capabilities.liveness.lasso import LassoShape, is_fair, violates
from modelcheck.runtime.progress import Silent

from .toys import fairness_outside_next, ring_with_exit, toggle_or_go


def verdicts(spec_def, specification: str, engine: str):
    model = spec_def.instantiate(spec_def.resolve_constants())
    chosen = spec_def.specification(specification)
    result = check_liveness(model, engine, spec_def.property_names(), chosen, Silent())
    out = {}
    for v in result.verdicts:
        if v.lasso is None:
            out[v.case.property] = "holds"
            continue
        shape = LassoShape([result.graph.state(n) for n in v.lasso.nodes], v.lasso.loop, v.lasso.stutters)
        # every lasso the search returns is, read on its own, a fair behaviour that violates the property
        assert is_fair(model, chosen, shape) and violates(model, v.case, shape)
        out[v.case.property] = "stutters" if v.lasso.stutters else f"cycle of {len(shape.cycle_states())}"
    return out


ENGINES = ["bfs", "fast"]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("specification, reaches, settles", [
    ("Spec", "stutters", "cycle of 2"),       # no fairness: stutter at x = 0 forever, or toggle forever
    ("WeakGo", "cycle of 2", "cycle of 2"),   # Go is not continuously enabled on 0 <-> 1
    ("StrongGo", "holds", "holds"),           # Go is enabled infinitely often on 0 <-> 1, so it is taken
])
def test_weak_strong_and_no_fairness_decide(engine, specification, reaches, settles):
    got = verdicts(toggle_or_go(), specification, engine)
    assert got == {"Reaches": reaches, "Settles": settles}


@pytest.mark.parametrize("engine", ENGINES)
def test_a_step_property_is_violated_only_by_a_real_cycle(engine):
    # Settles (<>[][x' = x]_x) cannot fail by stuttering, which changes nothing:
    # even with no fairness at all, where stuttering anywhere is fair, the
    # counterexample is the 0 <-> 1 cycle
    assert verdicts(toggle_or_go(), "Spec", engine)["Settles"] == "cycle of 2"


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("side_loop, specification, expected", [
    (False, "Spec", "holds"),           # SF(Exit) forces the exit off the ring
    (False, "WeakExit", "cycle of 3"),  # Exit is enabled only at 1: WF does not force it
    (False, "NoFair", "stutters"),
    # the ring fails SF(Exit); once the state where Exit is enabled is removed,
    # the side loop 0 -> 4 -> 0 remains, and it is fair
    (True, "Spec", "cycle of 2"),
])
def test_strong_fairness_splits_a_component(engine, side_loop, specification, expected):
    assert verdicts(ring_with_exit(side_loop), specification, engine) == {"Reaches": expected}


@pytest.mark.parametrize("engine", ENGINES)
def test_fairness_on_an_action_outside_next_counts_the_steps_that_satisfy_it(engine):
    # Half is enabled at 0; stuttering at 0 or jumping to 2 never takes it, and
    # after a jump to 2 it is disabled forever: SF(Half) is then satisfied
    assert verdicts(fairness_outside_next(), "Spec", engine) == {"Reaches": "stutters"}
    assert verdicts(fairness_outside_next(), "NoFair", engine) == {"Reaches": "stutters"}
