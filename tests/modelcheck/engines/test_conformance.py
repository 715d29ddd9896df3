"""The engine-conformance table: every engine the registry lists, held to
the same cases for each capability it declares (as Hypothesis holds every
backend to its conformance suite). A new engine is tested here the moment it
is registered; an engine that declares a capability it does not honour
fails here.

The figures are not a table of answers: each case compares an engine with
the reference engine on the same model, live.
"""

from __future__ import annotations

import pytest

from modelcheck.engines import ENGINES, REFERENCE_ENGINE, load_reference, entry, get_simulator, refusal
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.contract import (CAPABILITIES, CHECKPOINT, COVERAGE, EXACT, EXHAUSTIVE, SIMULATION,
                                         STATE_GRAPH, SYMMETRY, VIEW)
from modelcheck.runtime.limits import MAX_STATES, Limits
from modelcheck.runtime.progress import Silent
from support import model

MODELS = [("kip320", {"Replicas": 2}, ("TypeOk", "WeakIsr", "StrongIsr")),  # holds: 5,973 states
          ("kip101", {"Replicas": 2}, ("WeakIsr",)),  # broken
          ("truncate-to-hw", {"Replicas": 2}, ("WeakIsr", "StrongIsr"))]  # broken


def engines_with(capability):
    """The registry's engines that declare ``capability``, each a test parameter
    (those needing Spark carry the spark marker)."""
    return [pytest.param(name, marks=[pytest.mark.spark] if e.requires and e.requires.name == "spark" else [])
            for name, e in ENGINES.items() if capability in e.capabilities]


@pytest.fixture(scope="module")
def spark_context():
    from spark_support import local_context
    with local_context("modelcheck conformance") as sc:
        yield sc


@pytest.fixture
def engine(request):
    """An instance of the engine named by the test's parameter (the Spark
    engine in a local context shared by the module)."""
    found = entry(request.param)
    if found.requires and found.requires.name == "spark":
        return load_reference(found.search)(request.getfixturevalue("spark_context"))
    return load_reference(found.search)()


def reference(m, invariants, **options):
    return load_reference(entry(REFERENCE_ENGINE).search)().check(m, CheckOptions(invariants, **options))


@pytest.mark.parametrize("engine", engines_with(EXHAUSTIVE), indirect=True)
@pytest.mark.parametrize("name, consts, invariants", MODELS)
def test_exhaustive_engines_count_and_find_shortest_violations(engine, name, consts, invariants):
    m = model(name, **consts)
    got, ref = engine.check(m, CheckOptions(invariants)), reference(m, invariants)
    assert got.result == ref.result
    if ref.violation is None:
        assert (got.distinct_states, got.depth) == (ref.distinct_states, ref.depth)
    else:
        assert got.violation.length == ref.violation.length and got.violation.invariant == ref.violation.invariant


@pytest.mark.parametrize("engine", engines_with(EXACT), indirect=True)
@pytest.mark.parametrize("name, consts, invariants", MODELS)
def test_exact_engines_give_the_reference_count_and_trace(engine, name, consts, invariants):
    m = model(name, **consts)
    got, ref = engine.check(m, CheckOptions(invariants, check_deadlock=True)), reference(
        m, invariants, check_deadlock=True)
    assert (got.result, got.distinct_states, got.depth) == (ref.result, ref.distinct_states, ref.depth)
    assert (got.violation.states, got.violation.actions) == (ref.violation.states, ref.violation.actions)


@pytest.mark.parametrize("engine", engines_with(EXHAUSTIVE), indirect=True)
def test_exhaustive_engines_stop_at_the_same_level_under_max_states(engine):
    m = model("kip320", Replicas=2)
    got = engine.check(m, CheckOptions((), limits=Limits(max_states=100)))
    ref = reference(m, (), limits=Limits(max_states=100))
    assert (got.stopped, got.distinct_states, got.depth) == (MAX_STATES, ref.distinct_states, ref.depth)


@pytest.mark.parametrize("engine", engines_with(VIEW), indirect=True)
def test_view_applying_engines_count_the_views_the_reference_counts(engine):
    from modelcheck.specs import get_spec
    spec = get_spec("kraft-3.5")
    constants = spec.resolve_constants({"BrokerCount": "2", "InitReplicationFactor": "2", "MinISR": "1",
                                        "InitIsrSize": "1", "UncleanShutdownLimit": "0", "FenceBrokerLimit": "0"})
    viewed, whole = spec.instantiate(constants, view=True), spec.instantiate(constants, view=False)
    invariants = ("LeaderCompletenessProperty",)
    got, ref = engine.check(viewed, CheckOptions(invariants)), reference(viewed, invariants)
    assert (got.result, got.distinct_states, got.depth) == (ref.result, ref.distinct_states, ref.depth)
    assert got.distinct_states < reference(whole, invariants).distinct_states  # the VIEW is applied


@pytest.mark.parametrize("engine", engines_with(SYMMETRY), indirect=True)
def test_symmetric_engines_count_the_same_orbits(engine):
    m = model("kip320", Replicas=2)
    got, ref = engine.check(m, CheckOptions((), symmetry=True)), reference(m, (), symmetry=True)
    assert (got.distinct_states, got.depth) == (ref.distinct_states, ref.depth) and got.distinct_states < 5973


@pytest.mark.parametrize("engine", engines_with(CHECKPOINT), indirect=True)
def test_checkpointing_engines_resume_to_the_same_count(engine, tmp_path):
    m = model("kip320", Replicas=2)
    settings = load_reference(entry(engine.name).settings)
    directory = str(tmp_path / "saved")
    saving, resuming = settings.saving_into(directory), settings.resuming_from(directory)
    saving.check()  # as the request path does, before any search
    first = engine.check(m, CheckOptions(m.spec.default_invariants, engine_options=saving,
                                         limits=Limits(max_states=1000)))
    assert first.stopped == MAX_STATES
    resuming.check()
    resumed = engine.check(m, CheckOptions(m.spec.default_invariants, engine_options=resuming))
    assert (resumed.result, resumed.distinct_states, resumed.depth) == ("ok", 5973, 18)


@pytest.mark.parametrize("engine", engines_with(COVERAGE), indirect=True)
def test_covering_engines_credit_every_distinct_state(engine):
    from modelcheck.capabilities.coverage import Coverage
    m = model("kip320", Replicas=2)
    coverage = Coverage(m)
    result = engine.check(m, CheckOptions((), coverage=coverage))
    report = coverage.report()
    assert sum(a["distinct"] for a in report.actions) + report.initial_states == result.distinct_states


@pytest.mark.parametrize("engine", engines_with(STATE_GRAPH), indirect=True)
def test_graph_recording_engines_decide_properties_alike(engine):
    from modelcheck.capabilities.liveness.check import check_liveness
    m = model("kip320", Replicas=2)
    spec = m.spec.specification("NoFairSpec")
    mine = check_liveness(m, engine.name, m.spec.property_names(), spec, Silent())
    ref = check_liveness(m, REFERENCE_ENGINE, m.spec.property_names(), spec, Silent())
    assert (mine.states, mine.edges) == (ref.states, ref.edges) == (5973, mine.graph.edges)
    assert mine.property_verdicts() == ref.property_verdicts()
    assert [len(v.lasso.nodes) if v.lasso else None for v in mine.verdicts] == \
        [len(v.lasso.nodes) if v.lasso else None for v in ref.verdicts]


@pytest.mark.parametrize("name", engines_with(SIMULATION))
def test_simulating_engines_find_genuine_shrunk_violations(name, request):
    from modelcheck.presentation.replay import replay
    from modelcheck.search.simulate.settings import SimulationSettings
    from modelcheck.search.simulate.walks import WalkPlan
    from modelcheck.model.trace import to_itf_json, trace_from_states
    from modelcheck.presentation.trace_read import bind, parse_trace
    found = entry(name)
    if found.requires and found.requires.name == "spark":
        simulator = get_simulator(name, SimulationSettings(WalkPlan(behaviours=400), 3),
                                  request.getfixturevalue("spark_context"))
        options = CheckOptions(("WeakIsr",), engine_options={"partitions": 2})
    else:
        simulator = get_simulator(name, SimulationSettings(WalkPlan(behaviours=400), 3))
        options = CheckOptions(("WeakIsr",))
    m = model("truncate-to-hw", Replicas=2)
    v = simulator.check(m, options).violation
    assert v is not None and v.invariant == "WeakIsr"
    assert simulator.stats["trace_length_before_shrink"] >= v.length >= reference(m, ("WeakIsr",)).violation.length
    trace = trace_from_states(m, v.states, v.actions, v.invariant, simulator.name)
    bound = bind(parse_trace(to_itf_json(trace), "simulated"), m.spec, {})
    assert replay(bound, ("WeakIsr",)).result == "violation"


def test_every_capability_is_refused_by_the_registry_naming_who_has_it():
    for capability in CAPABILITIES:
        having = [n for n, e in ENGINES.items() if capability in e.capabilities]
        for name, e in ENGINES.items():
            if capability not in e.capabilities:
                line = refusal(name, capability)
                assert all(h in line for h in having) and name in line and "\n" not in line
