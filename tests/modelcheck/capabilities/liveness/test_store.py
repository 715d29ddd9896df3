"""The fast engine's state graph past --max-memory: built on disk in a
private temporary directory, with the same verdicts and lassos as in
memory, the directory gone afterwards; and every allocation the build
makes is checked against the limit before it is made."""

import os
import tempfile
from pathlib import Path

import numpy as np
import pytest

from modelcheck.search.canonical import EVERY_RENAMING
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.fast import FastChecker
from modelcheck.runtime.limits import DISK_FULL, MAX_MEMORY, Limits, SearchStopped, resident_bytes
from modelcheck.capabilities.liveness.check import decide, graph_request
from modelcheck.capabilities.liveness.store import Store
from modelcheck.runtime.progress import Silent
from fulldisk import FILLER, files_in, small_filesystem
from support import model


def searched(m, specification, group, limits):
    request = graph_request(specification, limits, group)
    result = FastChecker().check(m, CheckOptions((), symmetry=group or False, graph=request))
    return request, result


def verdicts(m, graph, specification):
    live = decide(m, graph, m.spec.property_names(), specification, Silent(), Limits(), "fast")
    return [(v.case.label, None if v.lasso is None else (v.lasso.nodes, v.lasso.loop, v.lasso.closing))
            for v in live.verdicts]


@pytest.mark.parametrize("group", [None, EVERY_RENAMING], ids=["plain", "quotient"])
def test_a_graph_past_the_limit_is_built_on_disk_with_the_same_verdicts_and_lassos(group):
    m = model("kip320", Replicas=2)
    specification = m.spec.specification("Spec")
    request, result = searched(m, specification, group, Limits())
    in_memory = result.graph.finish(result.depth)
    expected = verdicts(m, in_memory, specification)
    assert any(lasso is not None for _, lasso in expected) and any(lasso is None for _, lasso in expected)

    limits = Limits()
    request, result = searched(m, specification, group, limits)
    edges, rest = result.graph.build_bytes()
    # room for everything but half the edges: the edges go to disk, every temporary fits
    limits.max_memory = resident_bytes() + rest + edges // 2
    graph = result.graph.finish(result.depth)
    store = request.store
    assert store.spilled and Path(store.directory).parent == Path(tempfile.gettempdir())
    assert all(isinstance(a, np.memmap) for a in (graph.src, graph.dst, graph.instance, graph.fair_taken))
    for name in ("src", "dst", "instance", "fair_taken", "fair_enabled", "tree_parent", "tree_instance"):
        assert np.array_equal(getattr(graph, name), getattr(in_memory, name)), name
    assert verdicts(m, graph, specification) == expected
    directory = store.directory
    request.close()
    assert not os.path.exists(directory)


def test_a_temporary_past_the_limit_stops_the_build_before_it_is_made():
    store = Store(Limits(max_memory=resident_bytes() + (4 << 20)))
    store.need(1 << 20)
    with pytest.raises(SearchStopped) as stopped:
        store.need(64 << 20)
    assert stopped.value.reason == MAX_MEMORY


def test_the_graph_build_stops_at_the_limit_when_even_its_temporaries_do_not_fit():
    """Before the build checked its own allocations, it made them all and
    went past the limit, which a poll only saw afterwards, if at all."""
    m = model("kip320", Replicas=2)
    limits = Limits()
    request, result = searched(m, m.spec.specification("Spec"), None, limits)
    limits.max_memory = resident_bytes() + (16 << 10)
    with pytest.raises(SearchStopped) as stopped:
        result.graph.finish(result.depth)
    assert stopped.value.reason == MAX_MEMORY
    directory = request.store.directory
    request.close()
    assert directory is None or not os.path.exists(directory)


def test_recorded_steps_past_the_limit_go_to_files_and_come_back_in_order():
    store = Store(Limits(max_memory=resident_bytes() + (1 << 20)))
    log = store.log(np.int32, np.uint64)
    chunks = [(np.arange(k, k + n, dtype=np.int32), np.arange(n, dtype=np.uint64) * 7) for k, n in
              [(0, 10), (5, 0), (3, 100_000), (9, 200_000), (1, 5)]]
    for chunk in chunks:
        log.append(*chunk)
    assert log.files is not None and log.size == 300_015
    back = list(log.drain())
    assert len(back) == len(chunks)
    for (a, b), (c, d) in zip(back, chunks):
        assert np.array_equal(a, c) and np.array_equal(b, d)
    directory = store.directory
    store.close()
    assert not os.path.exists(directory)


def test_a_case_whose_cycle_search_would_pass_the_limit_is_not_started():
    m = model("kip320", Replicas=2)
    specification = m.spec.specification("Spec")
    request, result = searched(m, specification, None, Limits())
    graph = result.graph.finish(result.depth)
    limits = Limits(max_memory=resident_bytes() + (64 << 10))  # less than the search's masks and copies
    with pytest.raises(SearchStopped) as stopped:
        decide(m, graph, ["EpochsConverge"], specification, Silent(), limits, "fast")
    assert stopped.value.reason == MAX_MEMORY
    live = decide(m, graph, ["EpochsConverge"], specification, Silent(), Limits(), "fast")
    assert not live.verdicts[0].holds


def test_a_full_disk_stops_the_run_as_a_limit_does_and_never_kills_it(tmp_path, monkeypatch):
    """An array made on a full disk, which as a bare mapping would end the
    process (SIGBUS) when first written, and the log of steps written to
    it: both stop the run with DISK_FULL."""
    with small_filesystem(str(tmp_path / "disk")) as disk:
        monkeypatch.setattr(tempfile, "tempdir", disk)
        store = Store(Limits(max_memory=1))  # everything past the limit: on disk
        store.plan(1 << 20)
        with pytest.raises(SearchStopped) as stopped:
            store.array(1 << 20, np.int64, "src", fill=0)
        assert stopped.value.reason == DISK_FULL
        log = store.log(np.int32, np.uint64)
        with pytest.raises(SearchStopped) as stopped:
            for _ in range(64):
                log.append(np.arange(4096, dtype=np.int32), np.arange(4096, dtype=np.uint64))
        assert stopped.value.reason == DISK_FULL
        store.close()
        assert files_in(disk) == [FILLER]
