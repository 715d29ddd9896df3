"""The Spark engine in local mode against the breadth-first engine: the same
distinct-state counts, depths and shortest counterexample lengths on every
spec. One local[2] SparkContext serves the whole module."""

import os
import re
import shutil
import tempfile

import pytest

from support import model
from modelcheck.language.interpreter import evaluate
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.bfs import BfsChecker
from modelcheck.engines.spark import SparkChecker, check_code_origin
from modelcheck.spark.blocks import LevelSummary
from modelcheck.spark.session import spark_run, start_context
from modelcheck.spark.settings import DEFAULT_LEAD_IN, SparkSettings


@pytest.fixture(scope="module")
def context():
    scratch = tempfile.mkdtemp(prefix="modelcheck-test-spark-")
    sc = start_context(SparkSettings(master="local[2]"), "modelcheck tests", scratch)
    try:
        yield sc
    finally:
        sc.stop()
        shutil.rmtree(scratch, ignore_errors=True)


def both(context, m, invariants=None, engine_options=None, **options):
    """bfs, and Spark with every level on the executors (no lead-in) unless
    ``engine_options`` say otherwise."""
    invariants = tuple(invariants or m.spec.default_invariants)
    bfs = BfsChecker().check(m, CheckOptions(invariants, **options))
    engine_options = {"lead_in": 0, **(engine_options or {})}
    spark = SparkChecker(context).check(m, CheckOptions(invariants, engine_options=engine_options, **options))
    return bfs, spark


# Every spec, with constants small enough for a test and invariants that
# hold, so the whole state space is explored and counted.
EXHAUSTIVE = [
    ("truncate-to-hw", {"Replicas": 2}, ["TypeOk"]),
    ("kip101", {"Replicas": 2, "MaxLeaderEpoch": 1}, None),
    ("kip279", {"Replicas": 2}, None),
    ("kip320", {"Replicas": 2}, None),
    ("kip320-first-try", {"Replicas": 2}, None),
    ("async-isr", {}, None),
    ("kip320-consumer", {}, None),
    ("kafka-clients", {"MaxLeaderEpoch": 1, "GroupHandover": "FALSE"}, ["NoSpuriousOutOfRange"]),
]


@pytest.mark.parametrize("name, consts, invariants", EXHAUSTIVE, ids=[c[0] for c in EXHAUSTIVE])
def test_counts_and_depth_equal_bfs(context, name, consts, invariants):
    bfs, spark = both(context, model(name, **consts), invariants)
    assert bfs.result == "ok"
    assert (spark.result, spark.distinct_states, spark.depth) == (bfs.result, bfs.distinct_states, bfs.depth)
    assert spark.states_generated == bfs.states_generated
    assert spark.sometimes == bfs.sometimes


def test_tlc_calibration_figure(context):
    _, spark = both(context, model("kip320", Replicas=2))
    assert (spark.engine, spark.result, spark.distinct_states, spark.depth) == ("spark", "ok", 5973, 18)


VIOLATIONS = [
    ("kip320-first-try", {"Replicas": 3}, ["StrongIsr"]),
    ("truncate-to-hw", {"Replicas": 2}, None),
    ("kip101", {"Replicas": 2}, None),
    ("kip279", {"Replicas": 3}, None),
]


@pytest.mark.parametrize("name, consts, invariants", VIOLATIONS, ids=[c[0] for c in VIOLATIONS])
def test_shortest_violation_equals_bfs_and_replays(context, name, consts, invariants):
    m = model(name, **consts)
    bfs, spark = both(context, m, invariants)
    assert bfs.result == spark.result == "violation"
    assert (spark.violation.invariant, spark.violation.length, spark.depth) == \
           (bfs.violation.invariant, bfs.violation.length, bfs.depth)
    states, actions = spark.violation.states, spark.violation.actions
    assert states[0] in m.init_states and actions[0] is None
    for before, index, after in zip(states, actions[1:], states[1:]):
        assert (index, after) in m.successors(before)
    broken = m.invariants[spark.violation.invariant]
    assert all(evaluate(broken, s) for s in states[:-1]) and not evaluate(broken, states[-1])


@pytest.mark.parametrize("consts", [{"Replicas": 2}, {"Replicas": 3, "LogSize": 1, "MaxRecords": 1}])
def test_symmetry_counts_orbits_as_the_fast_engine_does(context, consts):
    from modelcheck.engines.fast import FastChecker
    m = model("kip320", **consts)
    fast = FastChecker().check(m, CheckOptions(m.spec.default_invariants, symmetry=True))
    _, spark = both(context, m, symmetry=True, engine_options={"partitions": 3})
    assert (spark.result, spark.distinct_states, spark.depth, spark.states_generated) == \
           (fast.result, fast.distinct_states, fast.depth, fast.states_generated)
    plain = FastChecker().check(m, CheckOptions(m.spec.default_invariants))
    assert spark.distinct_states < plain.distinct_states
    if consts == {"Replicas": 2}:
        assert (spark.distinct_states, spark.depth) == (2987, 18)  # TLC with SYMMETRY Permutations(Replicas)


def test_a_violation_under_symmetry_is_a_genuine_shortest_behaviour(context):
    m = model("kip320-first-try", Replicas=3)
    bfs, spark = both(context, m, ["StrongIsr"], symmetry=True)
    assert spark.result == "violation" and spark.violation.length == bfs.violation.length == 13
    states, actions = spark.violation.states, spark.violation.actions
    assert states[0] in m.init_states
    for before, index, after in zip(states, actions[1:], states[1:]):
        assert (index, after) in m.successors(before)  # steps of the spec itself, not of representatives
    assert not evaluate(m.invariants["StrongIsr"], states[-1])


def test_traces_do_not_depend_on_the_partitioning(context):
    m = model("truncate-to-hw", Replicas=2)
    traces = []
    for partitions in (1, 2, 5):
        _, spark = both(context, m, engine_options={"partitions": partitions})
        traces.append((spark.violation.states, spark.violation.actions))
    assert traces[0] == traces[1] == traces[2]


def test_max_depth_bounds_the_search(context):
    m = model("kip320", Replicas=2)
    bfs, spark = both(context, m, max_depth=5)
    assert (spark.result, spark.distinct_states, spark.depth) == (bfs.result, bfs.distinct_states, bfs.depth) \
        == ("bounded-ok", 115, 5)
    bfs, spark = both(context, m, max_depth=18)
    assert (spark.result, spark.distinct_states, spark.depth) == ("ok", 5973, 18)


def test_deadlock_is_found_when_asked(context):
    m = model("kip320", Replicas=1, LogSize=1, MaxRecords=1, MaxLeaderEpoch=0)
    bfs, spark = both(context, m, check_deadlock=True)
    assert spark.result == "violation" and spark.violation.invariant == "Deadlock"
    assert spark.violation.length == bfs.violation.length == 2
    assert m.successors(spark.violation.states[-1]) == []
    _, spark = both(context, m)
    assert (spark.result, spark.distinct_states) == ("ok", 6)


def test_checkpoints_every_level_into_a_kept_directory(context, tmp_path):
    target = tmp_path / "checkpoints"
    bfs, spark = both(context, model("kip101", Replicas=2, MaxLeaderEpoch=1),
                      engine_options={"checkpoint_dir": str(target), "checkpoint_levels": 1, "partitions": 3})
    assert (spark.distinct_states, spark.depth) == (bfs.distinct_states, bfs.depth)
    written = [os.path.join(d, f) for d, _, files in os.walk(target) for f in files]
    assert any("rdd-" in path for path in written), written


def test_a_fresh_search_in_a_used_directory_starts_from_nothing(context, tmp_path):
    """The Python workers outlive a search and keep visited fingerprints;
    a new search in the same directory must not meet the old ones."""
    options = {"checkpoint_dir": str(tmp_path), "checkpoint_levels": 100}
    for name, consts, count in (("kip320", {"Replicas": 2}, 5973), ("kip320", {"Replicas": 2}, 5973),
                                ("kip101", {"Replicas": 2, "MaxLeaderEpoch": 1}, None)):
        m = model(name, **consts)
        bfs, spark = both(context, m, engine_options=options)
        assert spark.distinct_states == bfs.distinct_states == (count or bfs.distinct_states)
    assert len(os.listdir(tmp_path / "modelcheck-visited")) == 1  # the searches before were removed


def test_the_default_checkpoint_directory_is_temporary(context):
    with spark_run(SparkSettings(), "modelcheck tests", context) as run:
        assert os.path.isdir(run.checkpoint_dir) and run.partitions == 2
    assert not os.path.exists(run.checkpoint_dir)


def test_limits_stop_between_levels(context):
    from modelcheck.runtime.limits import MAX_MEMORY, MAX_STATES, Limits, StopRequest
    from modelcheck.engines.spark import stop_reason
    m = model("kip320", Replicas=2)
    spark = SparkChecker(context).check(m, CheckOptions(m.spec.default_invariants, limits=Limits(max_states=100)))
    assert (spark.result, spark.stopped, spark.depth) == ("bounded-ok", MAX_STATES, 5)
    assert spark.distinct_states == 115  # the whole of level 5: levels are never cut
    assert stop_reason(Limits(max_memory=1 << 30), 10, 2 << 30) == MAX_MEMORY
    asked = StopRequest()
    asked.request()
    assert stop_reason(Limits(stop=asked), 10, 0) is not None


def test_a_foreign_origin_stops_the_run():
    def summary(origin):
        return LevelSummary(0, 1, 1, 1, 1, None, (), None, origin)
    check_code_origin([summary("/tmp/x/modelcheck-code-ab.zip/modelcheck/__init__.py")], "modelcheck-code-ab.zip")
    with pytest.raises(RuntimeError, match="imported modelcheck from /work/modelcheck"):
        check_code_origin([summary("/work/modelcheck/__init__.py")], "modelcheck-code-ab.zip")


# --- the lead-in: the first levels run in the driver (modelcheck.spark.lead) ------
# Models this small have no level of SMALL candidates: with the default
# limit the driver runs them whole; with a limit of 50 or 100 it hands the
# search over to the executors after a few levels.

@pytest.mark.parametrize("name, consts, invariants", EXHAUSTIVE[:4], ids=[c[0] for c in EXHAUSTIVE[:4]])
@pytest.mark.parametrize("limit", [100, DEFAULT_LEAD_IN])
def test_a_lead_in_changes_no_count(context, name, consts, invariants, limit):
    bfs, spark = both(context, model(name, **consts), invariants, engine_options={"lead_in": limit, "partitions": 3})
    assert (spark.result, spark.distinct_states, spark.depth, spark.states_generated, spark.sometimes) == \
           (bfs.result, bfs.distinct_states, bfs.depth, bfs.states_generated, bfs.sometimes)
    led = [m for m in (re.search(r"levels 1 to (\d+)", n) for n in spark.notes) if m]
    assert led, spark.notes
    driver_levels = int(led[0].group(1))
    assert driver_levels < spark.depth if limit == 100 else driver_levels == spark.depth + 1


@pytest.mark.parametrize("name, consts, invariants", VIOLATIONS, ids=[c[0] for c in VIOLATIONS])
def test_a_lead_in_finds_the_same_shortest_trace(context, name, consts, invariants):
    m = model(name, **consts)
    _, executors = both(context, m, invariants)
    for limit in (50, DEFAULT_LEAD_IN):
        _, led = both(context, m, invariants, engine_options={"lead_in": limit})
        assert (led.violation.states, led.violation.actions) == (executors.violation.states, executors.violation.actions)


def test_a_lead_in_bounds_depth_and_finds_deadlocks(context):
    on = {"lead_in": DEFAULT_LEAD_IN}
    bfs, spark = both(context, model("kip320", Replicas=2), max_depth=5, engine_options=on)
    assert (spark.result, spark.distinct_states, spark.depth) == (bfs.result, bfs.distinct_states, bfs.depth)
    m = model("kip320", Replicas=1, LogSize=1, MaxRecords=1, MaxLeaderEpoch=0)
    bfs, spark = both(context, m, check_deadlock=True, engine_options=on)
    assert spark.violation.invariant == "Deadlock" and spark.violation.length == bfs.violation.length == 2


def test_message_passing_specs_without_their_view_equal_bfs(context):
    """kraft-3.5's records, sets of messages and sequences run on the
    executors as on the breadth-first engine (here without the VIEW)."""
    from modelcheck.specs import get_spec
    spec = get_spec("kraft-3.5")
    consts = spec.resolve_constants({"BrokerCount": "2", "InitReplicationFactor": "2", "MinISR": "1",
                                     "InitIsrSize": "2", "UncleanShutdownLimit": "0", "FenceBrokerLimit": "1"})
    bfs, spark = both(context, spec.instantiate(consts, view=False))
    assert bfs.result == "ok" and bfs.distinct_states > 1000
    assert (spark.result, spark.distinct_states, spark.depth) == (bfs.result, bfs.distinct_states, bfs.depth)


KIP966_SMALL = {"BrokerCount": 2, "InitReplicationFactor": 2, "MinISR": 1, "InitIsrSize": 2, "DataLossShutdownLimit": 0,
                "FenceBrokerLimit": 0}


@pytest.mark.parametrize("consts, distinct, depth, lead_in", [
    ({"NoDataLossShutdownLimit": 1}, 1079, 22, 0),
    ({"FenceBrokerLimit": 1}, 1260, 21, DEFAULT_LEAD_IN),
])
def test_under_the_view_spark_counts_tlcs_states(context, consts, distinct, depth, lead_in):
    """TLC's counts under kraft-kip966's VIEW (tests/specs/test_kraft_kip966.py
    pins them on the other engines), every level on the executors or the
    first ones in the driver."""
    from modelcheck.specs.kraft.kip_966_properties import CFG_INVARIANTS
    m = model("kraft-kip966", **{**KIP966_SMALL, **consts})
    assert m.view
    spark = SparkChecker(context).check(m, CheckOptions(tuple(CFG_INVARIANTS), engine_options={"lead_in": lead_in}))
    assert (spark.result, spark.distinct_states, spark.depth) == ("ok", distinct, depth)


def test_under_the_view_a_violation_has_the_shortest_length(context):
    """The only ISR member loses its log: TLC's trace has 5 states."""
    m = model("kraft-kip966", **{**KIP966_SMALL, "InitIsrSize": 1, "DataLossShutdownLimit": 1})
    bfs, spark = both(context, m, ("NoCommittedRecordLostGlobally",))
    assert spark.violation.invariant == bfs.violation.invariant == "NoCommittedRecordLostGlobally"
    assert spark.violation.length == bfs.violation.length == 5


def test_under_the_view_kip966_without_shutdowns_gives_tlcs_count(context):
    """TLC's 2,931,613 states and depth 46: 3 brokers, replication factor 3,
    MinISR 2, two in sync at first, one fencing, no shutdowns."""
    from modelcheck.specs.kraft.kip_966_properties import CFG_INVARIANTS
    m = model("kraft-kip966", DataLossShutdownLimit=0)
    spark = SparkChecker(context).check(m, CheckOptions(tuple(CFG_INVARIANTS)))
    assert (spark.result, spark.distinct_states, spark.depth) == ("ok", 2_931_613, 46)


def test_executors_expand_on_the_c_kernel(context):
    """With --kernels compiled the driver builds the fast engine's kernel
    before the search and every level's tasks expand and check on it."""
    m = model("kip320", Replicas=2)
    bfs = BfsChecker().check(m, CheckOptions(("TypeOk", "StrongIsr")))
    spark = SparkChecker(context).check(m, CheckOptions(("TypeOk", "StrongIsr"),
                                                        engine_options={"lead_in": 0, "kernels": "compiled"}))
    assert (spark.result, spark.distinct_states, spark.depth) == (bfs.result, bfs.distinct_states, bfs.depth)
    assert any(n.startswith("the executors expanded every level with the C kernel") for n in spark.notes)


def test_a_violation_found_on_the_c_kernel_is_the_shortest(context):
    m = model("kip320-first-try", Replicas=3)
    bfs = BfsChecker().check(m, CheckOptions(("StrongIsr",)))
    spark = SparkChecker(context).check(m, CheckOptions(("StrongIsr",),
                                                        engine_options={"lead_in": 0, "kernels": "compiled"}))
    assert spark.violation.invariant == "StrongIsr" and spark.violation.length == bfs.violation.length == 13
    assert any("with the C kernel" in n for n in spark.notes)


@pytest.mark.parametrize("lead_in", [0, DEFAULT_LEAD_IN])
def test_128_bit_fingerprints_find_what_64_do(context, lead_in):
    m = model("kip320-first-try", Replicas=3)
    bfs = BfsChecker().check(m, CheckOptions(("StrongIsr",)))
    wide = SparkChecker(context).check(m, CheckOptions(("StrongIsr",), engine_options={
        "lead_in": lead_in, "fingerprint_bits": 128}))
    assert wide.fingerprint_bits == 128
    assert wide.violation.invariant == "StrongIsr" and wide.violation.length == bfs.violation.length == 13
    m = model("kraft-kip966", **{**KIP966_SMALL, "FenceBrokerLimit": 1})  # under its VIEW
    from modelcheck.specs.kraft.kip_966_properties import CFG_INVARIANTS
    wide = SparkChecker(context).check(m, CheckOptions(tuple(CFG_INVARIANTS), engine_options={
        "lead_in": lead_in, "fingerprint_bits": 128}))
    assert (wide.result, wide.distinct_states, wide.depth) == ("ok", 1260, 21)


def test_a_search_that_outgrows_64_bits_starts_again_with_128(context, monkeypatch):
    """Unless the width is chosen, a search past WIDEN_AT states (lowered
    here to a thousand) starts again with 128-bit fingerprints, once, and
    says so; a width chosen is kept."""
    import modelcheck.engines.spark as engine
    from modelcheck.language.fingerprint import pair_collision_probability
    from modelcheck.spark.settings import WIDEN_AT
    assert pair_collision_probability(WIDEN_AT - 1) <= 1e-6 < pair_collision_probability(WIDEN_AT)
    monkeypatch.setattr(engine, "WIDEN_AT", 1000)
    m = model("kip320", Replicas=2)
    grown = SparkChecker(context).check(m, CheckOptions(("StrongIsr",), engine_options={"lead_in": 0}))
    assert (grown.result, grown.distinct_states, grown.depth, grown.fingerprint_bits) == ("ok", 5973, 18, 128)
    assert re.match(r"the search passed [\d,]+ states at depth \d+, where two of them sharing a 64-bit fingerprint",
                    grown.notes[0])
    kept = SparkChecker(context).check(m, CheckOptions(("StrongIsr",), engine_options={"lead_in": 0,
                                                                                         "fingerprint_bits": 64}))
    assert (kept.distinct_states, kept.fingerprint_bits) == (5973, 64)
    assert not any("started again" in n for n in kept.notes)
