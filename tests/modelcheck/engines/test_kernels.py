"""--kernels auto: a kernel built beside the search is taken up between two
levels without changing a count or a trace, and a build the search no
longer needs is stopped."""

import os
import time

import pytest

from support import model
from modelcheck.engines import kernels
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.bfs import BfsChecker
from modelcheck.engines.fast import _Search
from modelcheck.language.packing import Packing


class InlineThread:
    """A thread that has run its target by the time ``start`` returns, so
    the search takes the kernel up at the very next level."""

    def __init__(self, target, **_):
        self.target = target

    def start(self):
        self.target()

    def is_alive(self):
        return False


@pytest.fixture
def build_beside(monkeypatch, tmp_path):
    """Every kernel counts as large and uncached, and is built at the first level boundary."""
    monkeypatch.setenv("MODELCHECK_KERNEL_CACHE", str(tmp_path))
    monkeypatch.setattr(kernels, "BUILD_FIRST_BELOW", 0)
    monkeypatch.setattr(kernels, "BUILD_AFTER", 0.0)


CASES = [("kip320", {"Replicas": 2}, None),
         ("kip320-first-try", {"Replicas": 3}, ("StrongIsr",)),
         ("kraft-3.5", {"BrokerCount": 2, "InitReplicationFactor": 2, "MinISR": 1, "InitIsrSize": 1,
                        "UncleanShutdownLimit": 0, "FenceBrokerLimit": 0}, None)]


@pytest.mark.parametrize("name, consts, invariants", CASES)
def test_a_kernel_taken_up_mid_search_changes_nothing(build_beside, monkeypatch, name, consts, invariants):
    monkeypatch.setattr(kernels, "builder_thread", InlineThread)
    m = model(name, **consts)
    options = CheckOptions(tuple(invariants or m.spec.default_invariants), engine_options={"kernels": "auto"})
    search = _Search(m, options)
    assert search.kernels.compiled is None  # not in the cache: the search starts on numpy
    fast = search.run()
    assert search.kernels.compiled is not None and "beside the search" in search.kernels.told
    reference = BfsChecker().check(m, CheckOptions(tuple(invariants or m.spec.default_invariants)))
    assert (fast.result, fast.distinct_states, fast.depth) == (reference.result, reference.distinct_states,
                                                              reference.depth)
    if reference.violation is not None:
        assert (fast.violation.states, fast.violation.actions) == (reference.violation.states,
                                                                  reference.violation.actions)


def test_a_small_kernel_is_built_before_the_search(monkeypatch, tmp_path):
    monkeypatch.setenv("MODELCHECK_KERNEL_CACHE", str(tmp_path))
    m = model("kip320", Replicas=2)
    choice = kernels.choose(m, Packing(m.schema), ["TypeOk"], kernels.AUTO, 1)
    assert choice.compiled is not None and choice.build is None
    choice.close()


def _gone(pid: int) -> bool:
    """Whether no process ``pid`` is left, a zombie awaiting its reaper aside."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_a_build_the_search_outran_is_stopped_with_its_compiler_passes(build_beside, monkeypatch, tmp_path):
    """A compiler driver runs its passes as processes of its own (cc1),
    which hold its output pipe: stopping only the driver would leave the
    search waiting for cc1 to finish."""
    slow = tmp_path / "slow-cc"
    pids = tmp_path / "pids"
    slow.write_text(f"#!/bin/sh\nsleep 60 &\necho $$ $! > {pids}.part\nmv {pids}.part {pids}\nwait\n")
    slow.chmod(0o755)
    monkeypatch.setenv("CC", str(slow))
    m = model("kip320", Replicas=2)
    choice = kernels.choose(m, Packing(m.schema), ["TypeOk"], kernels.AUTO, 1)
    assert choice.ready(searched=1.0) is None  # the build starts, and is not done
    for _ in range(200):
        if pids.exists():
            break
        time.sleep(0.05)
    driver, compiler_pass = map(int, pids.read_text().split())
    started = time.perf_counter()
    choice.close()
    assert time.perf_counter() - started < 10
    for _ in range(100):  # the pass, orphaned, is reaped by whoever adopts it
        if _gone(driver) and _gone(compiler_pass):
            break
        time.sleep(0.05)
    assert _gone(driver) and _gone(compiler_pass)


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
