"""The compiled model against the reference evaluator, state by state.

Each module of ``modules/`` is compiled and searched by the reference engine;
the reference evaluator (``actions.py``) explores the same module over
explicit TLA+ values. Both must find the same states, level by level, and
the compiled model's successors of every state must be the reference's."""

import pytest

from tla_support import module_path
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.bfs import BfsChecker
from modelcheck.loading.tla import load_module
from modelcheck.tlaplus.actions import Stepper
from modelcheck.tlaplus.explore import bfs, freeze
from modelcheck.tlaplus.syntax import Loc, Node


def reference(compiled):
    stepper = Stepper(compiled.evaluator, compiled.variables)
    here = Loc("test", 0, 0)
    return stepper, bfs(stepper, Node("name", ("Init",), here), Node("name", ("Next",), here))


@pytest.mark.parametrize("module, cfg", [("Relay.tla", "RelaySmall.cfg")])
def test_the_compiled_model_finds_the_reference_states(module, cfg):
    loaded = load_module(module_path(module), module_path(cfg))
    compiled = loaded.compiled
    model = loaded.spec.instantiate(loaded.spec.resolve_constants())
    stepper, ref = reference(compiled)
    variables = compiled.variables

    def as_tla(state):
        return freeze(model.codec.encode(state), variables)
    result = BfsChecker().check(model, CheckOptions(()))
    assert (result.distinct_states, result.depth) == (len(ref.states), ref.depth)
    # every state's successors, compiled and reference, as TLA+ values in TLC's order
    seen = {freeze(s, variables) for s in ref.states}
    frontier = list(model.init_states)
    checked = 0
    visited = set()
    while frontier and checked < 200:
        state = frontier.pop()
        key = as_tla(state)
        if key in visited:
            continue
        visited.add(key)
        assert key in seen
        mine = [as_tla(t) for _, t in model.successors(state)]
        theirs = [freeze(t, variables) for t in stepper.next_states(Node("name", ("Next",), Loc("t", 0, 0)),
                                                                     model.codec.encode(state))]
        assert mine == theirs
        frontier.extend(t for _, t in model.successors(state))
        checked += 1
