"""Levels kept in files: the same search, the same answers, no file left."""

import os

import numpy as np
import pytest

from fulldisk import FILLER, files_in, small_filesystem
from support import CHECKPOINT_LAYOUT, checkpoint_layout, model
from modelcheck.engines import fast, frontier
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.fast import FastChecker
from modelcheck.engines.frontier import FileLevel, Frontier
from modelcheck.search.expansion import Expansion
from modelcheck.runtime.limits import DISK_FULL, Limits, out_of_room

COMPILED = {"kernels": "compiled", "workers": 2}


@pytest.fixture
def every_level_on_file(monkeypatch):
    """Every level goes to a file (past 0 bytes); the directories made are kept track of."""
    made = []
    monkeypatch.setattr(fast, "spill_threshold", lambda max_memory: 0)
    new_file = Frontier.new_file

    def recording(self):
        path = new_file(self)
        made.append(path)
        return path

    monkeypatch.setattr(Frontier, "new_file", recording)
    return made


def run(m, invariants=None, **options):
    return FastChecker().check(m, CheckOptions(tuple(invariants or m.spec.default_invariants), **options))


@pytest.mark.parametrize("name, consts, invariants", [
    ("kip320", {"Replicas": 2}, None),
    ("kip320-first-try", {"Replicas": 3}, ("StrongIsr",)),
    ("kraft-kip966", {"BrokerCount": 2, "InitReplicationFactor": 2, "MinISR": 1, "InitIsrSize": 2,
                      "NoDataLossShutdownLimit": 1, "DataLossShutdownLimit": 0, "FenceBrokerLimit": 0,
                      "LeaderShrinkIsrLimit": 0, "ReassignmentLimit": 0}, None),
])
def test_levels_on_file_give_the_same_answer(every_level_on_file, name, consts, invariants):
    m = model(name, **consts)
    on_file = run(m, invariants, engine_options=COMPILED)
    assert every_level_on_file, "no level went to a file"
    assert not any(os.path.exists(os.path.dirname(p)) for p in every_level_on_file)  # all gone
    frontier_kept = run(m, invariants, engine_options=COMPILED, limits=Limits(max_memory=1 << 40))
    assert (on_file.result, on_file.distinct_states, on_file.depth) == \
           (frontier_kept.result, frontier_kept.distinct_states, frontier_kept.depth)
    if on_file.violation:
        assert on_file.violation.states == frontier_kept.violation.states


def test_a_stopped_search_with_levels_on_file_saves_and_resumes(every_level_on_file, monkeypatch, tmp_path):
    monkeypatch.setattr(fast, "CHUNK", 128)
    m = model("kip320", Replicas=2)
    limits = Limits()
    polls = iter(range(10 ** 9))
    between_levels = limits.reached

    def reached(states=None):
        if states is None and next(polls) == 25:
            limits.stop.request()
        return between_levels(states)

    limits.reached = reached
    stopped = run(m, limits=limits, engine_options={**COMPILED, "checkpoint": str(tmp_path / "ck")})
    assert stopped.stopped == "interrupted"
    assert not any(os.path.exists(os.path.dirname(p)) for p in every_level_on_file)
    # resumed and stopped at once: the checkpoint already holds that search, and is kept as it was
    header = (tmp_path / "ck" / "checkpoint.json").read_bytes()
    at_once = Limits()
    first_poll = at_once.reached
    at_once.reached = lambda states=None: at_once.stop.request() or first_poll(states)
    again_stopped = run(m, limits=at_once, engine_options={**COMPILED, "resume": str(tmp_path / "ck")})
    assert again_stopped.stopped == "interrupted" and again_stopped.distinct_states == stopped.distinct_states
    assert (tmp_path / "ck" / "checkpoint.json").read_bytes() == header  # not written again
    assert checkpoint_layout(tmp_path / "ck") == CHECKPOINT_LAYOUT
    resumed = run(m, engine_options={**COMPILED, "resume": str(tmp_path / "ck")})
    assert (resumed.result, resumed.distinct_states, resumed.depth) == ("ok", 5973, 18)
    # the resumed frontier was read from the checkpoint's own file, which the search left in place
    assert checkpoint_layout(tmp_path / "ck") == CHECKPOINT_LAYOUT
    again = run(m, engine_options={**COMPILED, "resume": str(tmp_path / "ck")})
    assert (again.result, again.distinct_states, again.depth) == ("ok", 5973, 18)


def test_a_level_writer_spills_past_its_limit_and_reads_back_by_chunks(tmp_path):
    words = 3
    store = Frontier(words, spill_above=1000)  # bytes: the second part passes it
    writer = store.writer()
    rng = np.random.default_rng(5)
    parts = [Expansion(rng.integers(0, 2 ** 63, k, dtype=np.uint64),
                       rng.integers(0, 2 ** 63, (words, k), dtype=np.uint64),
                       np.arange(k, dtype=np.int64), np.full(k, 7, np.int32)) for k in (30, 20, 0, 45)]
    whole = np.concatenate([p.words for p in parts], axis=1)
    fps = np.concatenate([p.fps for p in parts])
    for p in parts:
        writer.add(Expansion(p.fps, p.words.copy(), p.parents, p.actions))
    level = writer.level()
    assert isinstance(level.words, FileLevel) and level.words.shape == (words, 95)
    assert np.array_equal(level.fps, fps) and np.array_equal(level.words[:, 10:60], whole[:, 10:60])
    assert np.array_equal(level.words[:, 0:95], whole)
    path = level.words.path
    store.release(level.words)
    assert not os.path.exists(path)
    store.close()


def test_levels_left_by_a_killed_search_are_removed(monkeypatch, tmp_path):
    monkeypatch.setattr(frontier.tempfile, "tempdir", str(tmp_path))
    dead = frontier.PREFIX + "999999999-abc"  # no process has that id
    (tmp_path / dead).mkdir()
    (tmp_path / dead / "level-1").write_bytes(b"x" * 100)
    alive = frontier.PREFIX + f"{os.getppid()}-def"  # a live process's: kept
    (tmp_path / alive).mkdir()
    store = Frontier(2, 0)
    store.new_file()
    assert not (tmp_path / dead).exists() and (tmp_path / alive).exists()
    store.close()


def test_the_parent_store_goes_to_files_with_the_levels():
    store = Frontier(words=2, spill_above=0)
    parents = fast.ParentStore(frontier=store)
    parents.add_level(np.array([-1]), np.array([-1], np.int32))  # before any level is on file: in memory
    store.new_file()  # a level went to a file
    parents.add_level(np.array([0, 0]), np.array([3, 5], np.int32))
    parents.add_level(np.array([1, 2]), np.array([7, 4], np.int32))
    assert not isinstance(parents.parents[0], np.memmap)
    assert all(isinstance(a, np.memmap) for a in parents.parents[1:] + parents.actions[1:])
    assert parents.path_to(4) == [-1, 5, 4] and parents.path_to(3) == [-1, 3, 7]
    directory = store.directory
    store.close()
    assert not os.path.exists(directory)


def test_a_level_on_file_holds_no_states_in_memory():
    import weakref
    words = 3
    writer = Frontier(words, spill_above=1000).writer()
    held = []
    for k in (30, 20, 45):
        block = np.ones((words, 2 * k), np.uint64)
        part = Expansion(np.arange(k, dtype=np.uint64), block[:, :k], np.arange(k, dtype=np.int64),
                         np.zeros(k, np.int32))  # a part's states are a view into a larger buffer, as the kernel's
        held.append(weakref.ref(block))
        writer.add(part)
        del block, part
    assert writer.file is not None
    assert all(ref() is None for ref in held), "states written to the file are still in memory"
    writer.discard()


@pytest.mark.parametrize("size", ["256k", "1m"])
def test_a_full_disk_stops_the_search_with_the_levels_it_found_whole(every_level_on_file, monkeypatch, tmp_path,
                                                                     size):
    """A real full disk (a small tmpfs) under the level files: the search
    stops as at a limit, its count and depth those of a --max-depth run to
    the last level it found whole, and nothing of it is left on the disk."""
    m = model("kip320", Replicas=3)
    with small_filesystem(str(tmp_path / "disk"), size=size, full=False) as disk:
        monkeypatch.setattr(frontier.tempfile, "tempdir", disk)
        r = run(m, engine_options=COMPILED)
        assert files_in(disk) == []
    assert (r.result, r.stopped) == ("bounded-ok", DISK_FULL)
    assert any("has no room left (No space left on device)" in n for n in r.notes), r.notes
    assert 1 < r.depth < 20  # kip320 with three replicas is 737,794 states to depth 20 (test_fast.py)
    monkeypatch.undo()
    through_depth = run(m, engine_options=COMPILED, max_depth=r.depth)
    assert r.distinct_states == through_depth.distinct_states


def test_a_level_writer_on_a_full_disk_leaves_no_file(tmp_path):
    words = 3
    with small_filesystem(str(tmp_path / "disk")) as disk:
        store = Frontier(words, spill_above=0)
        store.new_file = lambda: os.path.join(disk, "level")
        writer = store.writer()
        part = Expansion(np.arange(5000, dtype=np.uint64), np.ones((words, 5000), np.uint64),
                         np.arange(5000, dtype=np.int64), np.zeros(5000, np.int32))
        with pytest.raises(OSError) as raised:
            writer.add(part)
        assert out_of_room(raised.value)
        writer.discard()
        assert files_in(disk) == [FILLER]


def test_a_level_spills_sooner_when_the_visited_set_leaves_little_memory():
    from modelcheck.engines.frontier import level_spill_limit
    gib = 1 << 30
    # early: the quarter of the budget
    assert level_spill_limit(5 * gib, 20 * gib, 2 * gib, 1 * gib) == 5 * gib
    # the tables may double while the level is found; half of what is left after that
    assert level_spill_limit(5 * gib, 20 * gib, 10 * gib, 8 * gib) == 1 * gib
    # tables past half the budget: every state of the level to the file
    assert level_spill_limit(5 * gib, 20 * gib, 17 * gib, 16 * gib) == 0
    assert level_spill_limit(None, 20 * gib, 17 * gib, 16 * gib) is None  # no spilling at all
