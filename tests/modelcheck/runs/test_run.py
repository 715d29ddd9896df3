"""The run path: one exploration serves the invariants and the temporal
properties, and what is refused is refused before any search."""

import pytest

from modelcheck.engines.fast import FastChecker
from modelcheck.errors import InputError
from modelcheck.runtime.progress import Silent
from modelcheck.runs.run import RunRequest, execute, prepare

TWO = ("Replicas=2",)


class Counting(FastChecker):
    """The fast engine, counting its searches and whether each recorded a graph."""

    def __init__(self):
        self.searches: list[bool] = []

    def check(self, model, options):
        self.searches.append(options.graph is not None)
        return super().check(model, options)


def test_invariants_and_properties_are_checked_in_one_exploration():
    engine = Counting()
    prepared = prepare(RunRequest("kip320", consts=TWO, invariants=("StrongIsr",),
                                  properties=("WrittenLeadsToCommitted",)))
    outcome = execute(prepared, Silent(), engine=engine)
    assert engine.searches == [True]
    assert outcome.exit_code == 13 and outcome.result.distinct_states == 5973
    assert outcome.liveness.violated.case.property == "WrittenLeadsToCommitted"


def test_a_run_without_properties_records_no_graph():
    engine = Counting()
    outcome = execute(prepare(RunRequest("kip320", consts=TWO)), Silent(), engine=engine)
    assert engine.searches == [False] and outcome.result.graph is None and outcome.exit_code == 0


@pytest.mark.parametrize("request_, fragment", [
    (RunRequest("kip320", engine="z3", properties=("EpochsConverge",)), "checked by the bfs and fast engines, not z3"),
    (RunRequest("kip320", engine="bfs", coverage="actions"), "not collected by the bfs engine (it is by fast)"),
    (RunRequest("kip320", engine="z3", symmetry=True), "--symmetry works with the engines bfs, fast, spark, not z3"),
    (RunRequest("kip320", engine="bfs", engine_options={"resume": "d"}), "saved by the engines fast, spark, not by bfs"),
    (RunRequest("kip320", engine="bfs", engine_options={"master": "local"}), "--master applies only to --engine spark"),
    (RunRequest("kip320", properties=("EpochsConverge",), max_depth=3), "drop --max-depth"),
])
def test_a_capability_the_engine_lacks_is_refused_before_any_search(request_, fragment):
    with pytest.raises(InputError, match=None) as refused:
        prepare(request_)
    assert fragment in str(refused.value)
