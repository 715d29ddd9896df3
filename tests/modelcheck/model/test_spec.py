import gc

import pytest

from modelcheck.model.spec import Model
from modelcheck.specs import get_spec


@pytest.mark.parametrize("enabled", [True, False])
def test_building_a_model_leaves_the_garbage_collector_as_it_was(enabled, monkeypatch):
    # the build pauses the collector (its expression nodes hold no cycles); it must resume it
    # only if it was running, also when the build fails
    spec = get_spec("kip320")
    constants = spec.resolve_constants({"Replicas": "2"})
    paused = []
    build = Model._build_instances

    def watched(self, *args, **kwargs):
        paused.append(not gc.isenabled())
        return build(self, *args, **kwargs)

    def failing(self, *args, **kwargs):
        raise RuntimeError("a definition mistake")

    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        monkeypatch.setattr(Model, "_build_instances", watched)
        assert spec.instantiate(constants).instances
        assert paused == [True] and gc.isenabled() is enabled
        monkeypatch.setattr(Model, "_build_instances", failing)
        with pytest.raises(RuntimeError):
            spec.instantiate(constants)
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()


# --- Init as a set of states ---------------------------------------------------------------------

from modelcheck.engines.base import CheckOptions  # noqa: E402
from modelcheck.engines.bfs import BfsChecker  # noqa: E402
from modelcheck.errors import SpecDefinitionError  # noqa: E402
from modelcheck.language.constants import INT, ConstantDecl  # noqa: E402
from modelcheck.language.expr import and_  # noqa: E402
from modelcheck.language.schema import boolean, enumerated, integer  # noqa: E402
from modelcheck.model.spec import SpecDefinition, action, interval, invariant  # noqa: E402


def counters(init, fields=lambda c: [integer("x", 0, 3), integer("y", 0, 3), boolean("b")]):
    @action(d=interval(0, 1))
    def Step(s, n, d):
        n.require(s.x + d <= 3)
        n.x = s.x + d

    @invariant
    def Fine(s):
        return and_(s.x >= 0, s.y >= 0)
    spec = SpecDefinition(name="counters", constants=(ConstantDecl("K", INT, 2),), fields=fields, init=init,
                          next=(Step,), invariants=(Fine,))
    return spec.instantiate(spec.resolve_constants())


def test_init_states_come_in_tlcs_order_the_first_choice_varying_slowest():
    """/\\ x \\in 0..1 /\\ y \\in {2, 0} /\\ b \\in BOOLEAN: TLC enumerates the
    conjuncts in turn, each over its set in the set's order."""
    def Init(s, n):
        n.x = n.one_of(range(2))
        n.y = n.one_of((0, 2))
        n.b = n.one_of((False, True))
    m = counters(Init)
    assert m.init_states == [(0, 0, 0), (0, 0, 1), (0, 2, 0), (0, 2, 1), (1, 0, 0), (1, 0, 1), (1, 2, 0), (1, 2, 1)]


def test_later_choices_may_depend_on_earlier_ones_and_require_filters():
    """x \\in 0..2 /\\ y \\in x..2 /\\ x + y # 2; the same state twice counts once."""
    def Init(s, n):
        x = n.one_of(range(3))
        y = n.one_of(range(x, 3))
        n.require(x + y != 2)
        n.x, n.y = x, y
        n.b = False
    assert counters(Init).init_states == [(0, 0, 0), (0, 1, 0), (1, 2, 0), (2, 2, 0)]


def test_functions_and_subsets_in_tlcs_order():
    def Init(s, n):
        f = n.function_in(("p", "q"), ("a", "b"))  # [{p, q} -> {"a", "b"}]: q varies fastest
        n.x = ("a", "b").index(f["p"])
        n.y = ("a", "b").index(f["q"])
        n.b = len(n.subset_of(("u", "v"))) == 1  # SUBSET {u, v}: {}, {u}, {v}, {u, v}
    m = counters(Init)  # the sizes 0, 1, 1, 2 of the subsets give b = FALSE, TRUE (and the same states again)
    assert m.init_states == [(0, 0, 0), (0, 0, 1), (0, 1, 0), (0, 1, 1), (1, 0, 0), (1, 0, 1), (1, 1, 0), (1, 1, 1)]


def test_every_initial_state_is_explored():
    def Init(s, n):
        n.x = 0
        n.y = n.one_of(range(4))
        n.b = False
    result = BfsChecker().check(counters(Init), CheckOptions(("Fine",)))
    assert (result.distinct_states, result.depth) == (16, 4)


def test_an_init_without_states_or_deciding_by_the_state_is_refused():
    def empty(s, n):
        n.x = n.one_of(())
        n.y, n.b = 0, False
    with pytest.raises(SpecDefinitionError, match="Init has no state"):
        counters(empty)

    def by_state(s, n):
        n.x, n.y, n.b = 0, 0, False
        n.require(s.x == 0)
    with pytest.raises(SpecDefinitionError, match=r"counters: Init: Init's conditions \(require\) must be decided "
                                                   r"by the constants and the values one_of chose.*test_spec.py:\d+"):
        counters(by_state)


def test_one_of_is_for_init_only():
    @action()
    def Bad(s, n):
        n.x = n.one_of((1, 2))
    spec = SpecDefinition(name="bad", fields=lambda c: [integer("x", 0, 3)], init=lambda s, n: setattr(n, "x", 0),
                          next=(Bad,))
    with pytest.raises(SpecDefinitionError, match=r"bad: action Bad: one_of chooses among values in Init only.*"
                                                   r"test_spec.py:\d+"):
        spec.instantiate(spec.resolve_constants())


def test_enumerated_fields_read_and_write_their_values():
    def Init(s, n):
        n.x, n.y, n.b = 0, 0, False
        n.phase = "idle"

    @action()
    def Go(s, n):
        n.require(s.phase == "idle")
        n.phase = "busy"
    spec = SpecDefinition(name="phases", fields=lambda c: [integer("x", 0, 0), integer("y", 0, 0), boolean("b"),
                                                          enumerated("phase", ("idle", "busy"))],
                          init=Init, next=(Go,))
    m = spec.instantiate(spec.resolve_constants())
    assert m.codec.encode(m.init_states[0])["phase"] == "idle"
    (_, after), = m.successors(m.init_states[0])
    assert m.codec.encode(after)["phase"] == "busy"
