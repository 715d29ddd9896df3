"""--kernels auto: a first kernel from tcc (or numpy), the optimised one
built in the background and taken up between two levels without changing a
count or a trace; a background build outlives the search."""

import os
import shutil
import time

import pytest

from support import model
from modelcheck.backends import compiled as compiled_kernels
from modelcheck.engines import kernels
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.bfs import BfsChecker
from modelcheck.engines.fast import _Search
from modelcheck.language.packing import Packing

HAS_TCC = shutil.which("tcc") is not None


@pytest.fixture
def cache(monkeypatch, tmp_path):
    monkeypatch.setenv("MODELCHECK_KERNEL_CACHE", str(tmp_path / "kernels"))
    return tmp_path / "kernels"


def build_at_once(source, cache_dir=None):
    """In place of the detached build: built here, so that it is in the cache at the first look."""
    compiled_kernels.build(source, cache_dir)
    return "started", None


CASES = [("kip320", {"Replicas": 2}, None),
         ("kip320-first-try", {"Replicas": 3}, ("StrongIsr",)),
         ("kraft-3.5", {"BrokerCount": 2, "InitReplicationFactor": 2, "MinISR": 1, "InitIsrSize": 1,
                        "UncleanShutdownLimit": 0, "FenceBrokerLimit": 0}, None)]
STARTS = ["numpy", pytest.param("tcc", marks=pytest.mark.skipif(not HAS_TCC, reason="tcc is not installed"))]


@pytest.mark.parametrize("start", STARTS)
@pytest.mark.parametrize("name, consts, invariants", CASES)
def test_a_kernel_taken_up_mid_search_changes_nothing(cache, monkeypatch, name, consts, invariants, start):
    monkeypatch.setenv("MODELCHECK_QUICK_CC", "tcc" if start == "tcc" else "none")
    monkeypatch.setattr(kernels, "BUILD_FIRST_BELOW", 0)
    monkeypatch.setattr(kernels, "POLL_BUILT", 0.0)
    monkeypatch.setattr(kernels, "start_build", build_at_once)
    m = model(name, **consts)
    options = CheckOptions(tuple(invariants or m.spec.default_invariants), engine_options={"kernels": "auto"})
    search = _Search(m, options)
    first = search.kernels.compiled
    assert (first is None) if start == "numpy" else first.quick  # the search starts on numpy, or tcc's kernel
    fast = search.run()
    assert search.kernels.compiled is not None and not search.kernels.compiled.quick
    assert "took up the optimised C kernel" in search.kernels.told
    assert "taken up at" in fast.kernel_build
    reference = BfsChecker().check(m, CheckOptions(tuple(invariants or m.spec.default_invariants)))
    assert (fast.result, fast.distinct_states, fast.depth) == (reference.result, reference.distinct_states,
                                                              reference.depth)
    if reference.violation is not None:
        assert (fast.violation.states, fast.violation.actions) == (reference.violation.states,
                                                                  reference.violation.actions)


@pytest.mark.skipif(not HAS_TCC, reason="tcc is not installed")
@pytest.mark.parametrize("name, consts, invariants", CASES)
def test_tccs_kernel_finds_what_the_reference_engine_finds(cache, monkeypatch, name, consts, invariants):
    monkeypatch.setenv("MODELCHECK_QUICK_CC", "tcc")
    monkeypatch.setattr(kernels, "start_build", lambda source, cache_dir=None: ("building", None))
    monkeypatch.setattr(kernels, "is_built", lambda source, cache_dir=None: False)
    m = model(name, **consts)
    options = CheckOptions(tuple(invariants or m.spec.default_invariants), engine_options={"kernels": "auto"})
    search = _Search(m, options)
    assert search.kernels.compiled.quick
    fast = search.run()
    assert search.kernels.compiled.quick and fast.kernel_build.endswith("s with tcc, before the search")
    reference = BfsChecker().check(m, CheckOptions(tuple(invariants or m.spec.default_invariants)))
    assert (fast.result, fast.distinct_states, fast.depth) == (reference.result, reference.distinct_states,
                                                              reference.depth)
    if reference.violation is not None:
        assert (fast.violation.states, fast.violation.actions) == (reference.violation.states,
                                                                  reference.violation.actions)


def test_without_tcc_a_small_kernel_is_built_before_the_search(cache, monkeypatch):
    monkeypatch.setenv("MODELCHECK_QUICK_CC", "none")
    m = model("kip320", Replicas=2)
    choice = kernels.choose(m, Packing(m.schema), ["TypeOk"], kernels.AUTO, 1)
    assert choice.compiled is not None and not choice.compiled.quick and choice.pending is None
    assert choice.built_here().endswith("s, before the search")
    choice.close()


def _wait(condition, seconds: float = 60.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def test_a_build_the_search_outran_lands_in_the_cache(cache, monkeypatch):
    """Without tcc a large kernel is built detached while the search runs on
    numpy; the search ending first neither stops nor wastes it."""
    monkeypatch.setenv("MODELCHECK_QUICK_CC", "none")
    monkeypatch.setattr(kernels, "BUILD_FIRST_BELOW", 0)
    m = model("kip320", Replicas=2)
    packing = Packing(m.schema)
    choice = kernels.choose(m, packing, ["TypeOk"], kernels.AUTO, 1)
    assert choice.compiled is None and choice.pending is not None
    choice.close()  # the search is over
    source = kernels.kernel_source_of(m, packing, ["TypeOk"])
    assert _wait(lambda: compiled_kernels.is_built(source) and not compiled_kernels.is_building(source))
    again = kernels.choose(m, packing, ["TypeOk"], kernels.AUTO, 1)
    assert again.compiled is not None and again.compiled.built.cached and again.built_here() is None
    again.close()
    assert not [name for name in os.listdir(cache) if name.startswith((".build-", ".pending-"))]


def test_a_stop_while_the_source_is_generated_ends_the_run_at_once(monkeypatch):
    """Generating a wide spec's C takes seconds (the KRaft .cfg's: over ten)
    before the search can poll; a Ctrl-C then is honoured within a poll, and
    the run reports that no state was searched."""
    from modelcheck.engines.fast import FastChecker
    from modelcheck.runtime.limits import INTERRUPTED, Limits

    def slow_generation(*args):
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            time.sleep(0.05)
        return ""

    monkeypatch.setattr(kernels, "kernel_source_of", slow_generation)
    m = model("kip320", Replicas=2)
    limits = Limits()
    import threading
    threading.Timer(0.3, limits.stop.request).start()
    started = time.monotonic()
    result = FastChecker().check(m, CheckOptions(tuple(m.spec.default_invariants), limits=limits,
                                                 engine_options={"kernels": "compiled"}))
    assert time.monotonic() - started < 3
    assert (result.stopped, result.distinct_states, result.depth) == (INTERRUPTED, 0, 0)


def test_a_failed_generation_is_raised_where_it_was_asked_for(monkeypatch):
    def broken(*args):
        raise ValueError("no such operator")

    monkeypatch.setattr(kernels, "kernel_source_of", broken)
    m = model("kip320", Replicas=2)
    with pytest.raises(ValueError, match="no such operator"):
        kernels.generated_source(m, Packing(m.schema), [], stopped=lambda: False)
