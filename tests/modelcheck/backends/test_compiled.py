"""The compiled kernel reads the same trees as the numpy kernel and the
compiled Python functions: on every reachable state of small models of every
spec, state by state, the three give the same successors in the same order,
the same fingerprints and the same predicate values."""

import subprocess

import numpy as np
import pytest

from support import every_spec, reachable, run_subprocess, small_model
from modelcheck.backends.compiled import LibraryUnavailable, build, compile_kernel
from modelcheck.backends.native import compiler
from modelcheck.search.expansion import Expander
from modelcheck.language.packing import Packing


def predicate_names(m):
    return list(dict.fromkeys([*m.invariants, *m.sometimes]))


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return str(tmp_path_factory.mktemp("kernels"))


def kernel(m, cache, workers=1):
    return compile_kernel(m, Packing(m.schema), predicate_names(m), workers, cache_dir=cache)


def per_parent(parents, actions, words, packing):
    """The successors as {parent: [(action, state), ...]} in the order given."""
    out: dict[int, list] = {}
    for p, a, state in zip(parents.tolist(), actions.tolist(), packing.unpack(words).T.tolist()):
        out.setdefault(p, []).append((a, tuple(state)))
    return out


# the message-passing specs: kernels of several hundred slots, a few seconds to build each
MESSAGE_PASSING = {"kafka-clients", "kraft-3.5", "kraft-kip966", "paxos"}


@pytest.mark.parametrize("name", [n for n in every_spec() if n not in MESSAGE_PASSING])
def test_compiled_numpy_and_python_agree_state_by_state(name, cache):
    agree_state_by_state(name, cache)


@pytest.mark.parametrize("name", sorted(MESSAGE_PASSING))
def test_compiled_numpy_and_python_agree_state_by_state_on_message_passing_specs(name, cache):
    agree_state_by_state(name, cache)


def agree_state_by_state(name, cache):
    m = small_model(name)
    packing = Packing(m.schema)
    states = reachable(m)
    words = packing.pack_states(states)
    compiled = kernel(m, cache)
    got_words, parents, actions, fps = compiled.successors(words)
    assert np.array_equal(fps, packing.fingerprints(got_words))  # under a VIEW, of the view
    by_compiled = per_parent(parents, actions, got_words, packing)
    numpy_words, numpy_parents, numpy_actions, _ = Expander(m).successors(words)
    order = np.argsort(numpy_parents * len(m.instances) + numpy_actions, kind="stable")
    by_numpy = per_parent(numpy_parents[order], numpy_actions[order], numpy_words[:, order], packing)
    for j, s in enumerate(states):
        python = m.successors(s)
        assert by_compiled.get(j, []) == python, (j, s)
        assert by_numpy.get(j, []) == python, (j, s)
    values = compiled.predicates(words)
    for predicate in predicate_names(m):
        assert [bool(v) for v in values[predicate]] == [bool(m.compiled.predicates[predicate](s)) for s in states]


def test_workers_split_a_chunk_without_changing_its_successors(cache):
    m = small_model("kip320")
    words = Packing(m.schema).pack_states(reachable(m))
    words = np.tile(words, 8)  # enough states for two ranges
    one, two = kernel(m, cache, workers=1), kernel(m, cache, workers=2)
    for a, b in zip(one.successors(words), two.successors(words)):
        assert np.array_equal(a, b)
    for name in predicate_names(m):
        assert np.array_equal(one.predicates(words)[name], two.predicates(words)[name])
    two.close()


@pytest.mark.parametrize("workers", [1, 2])
def test_fingerprint_set_keeps_first_occurrences_and_grows(cache, workers):
    k = kernel(small_model("kip320"), cache, workers)
    s = k.fingerprint_set()
    fresh = s.add(np.array([5, 0, 5, 7, 0], np.uint64))
    assert fresh.tolist() == [True, True, False, True, False] and len(s) == 3
    assert s.unseen(np.array([7, 8, 0], np.uint64)).tolist() == [False, True, False]
    many = np.random.default_rng(1).integers(1, 2 ** 63, 300_000, dtype=np.uint64)
    assert s.add(many).sum() == np.unique(many).size  # grows past its first table
    assert len(s) == 3 + np.unique(many).size
    assert np.array_equal(s.fps, np.unique(np.concatenate([many, np.array([0, 5, 7], np.uint64)])))
    assert not s.unseen(many).any()
    assert k.first_occurrences(np.array([9, 3, 9, 1, 3], np.uint64)).tolist() == [0, 1, 3]
    k.close()


def test_the_set_grows_a_part_at_a_time(cache, monkeypatch):
    """A growing table holds its old slots and its new ones at once: the set
    grows a part at a time, so that it never takes much more than its size
    after growing (as one table it took half as much again)."""
    from modelcheck.backends import compiled
    peak = []
    grow = compiled.FingerprintSet._grow

    def watched(self, part, needed):
        peak.append(sum(t.nbytes for t in self.tables) + (compiled._capacity(needed) + 1) * 8)
        grow(self, part, needed)

    monkeypatch.setattr(compiled.FingerprintSet, "_grow", watched)
    k = kernel(small_model("kip320"), cache, workers=1)
    s = k.fingerprint_set()
    rng = np.random.default_rng(5)
    s.add(rng.integers(1, 2 ** 63, 200_000, dtype=np.uint64))
    grown = sum(t.nbytes for t in s.tables)
    peak.clear()
    s.add(rng.integers(1, 2 ** 63, 200_000, dtype=np.uint64))  # every part doubles
    after = sum(t.nbytes for t in s.tables)
    assert after > 1.9 * grown and len(peak) == compiled.PARTS_PER_WORKER
    assert max(peak) <= 1.25 * after  # as one table: 1.5 times
    k.close()


def test_a_growth_refused_leaves_the_set_as_it_was(cache):
    """The set asks before it grows (--max-memory's check, which a poll
    between chunks would make only once the tables were there)."""
    asked, made = [], []

    def room(nbytes):
        if not made:  # the first tables, made with the set, are let through
            made.append(nbytes)
            return
        asked.append(nbytes)
        raise MemoryError("refused")

    k = kernel(small_model("kip320"), cache, workers=2)
    s = k.fingerprint_set(room=room)
    assert made == [s.nbytes]  # asked for before they were made
    rng = np.random.default_rng(7)
    first = rng.integers(1, 2 ** 63, 1_000, dtype=np.uint64)
    s.add(first)  # fits in the first tables: nothing asked
    tables, count = [t.ctypes.data for t in s.tables], len(s)
    with pytest.raises(MemoryError):
        s.add(rng.integers(1, 2 ** 63, 400_000, dtype=np.uint64))
    assert len(asked) == 1 and asked[0] >= 400_000 * 8 * 2  # the new tables, at most half full
    assert [t.ctypes.data for t in s.tables] == tables and len(s) == count and not s.unseen(first).any()
    k.close()


def test_a_growth_refused_fills_the_tables_up_to_crowded_load_then_stops(cache):
    """--max-memory refusing a growth costs speed, not the search: the
    tables fill past MAX_LOAD up to CROWDED_LOAD, and only a batch that
    would take one past that is refused, the set left as it was."""
    made = []

    def room(nbytes):
        if made:  # the first tables, made with the set, are let through
            raise MemoryError("refused")
        made.append(nbytes)

    k = kernel(small_model("kip320"), cache, workers=1)
    s = k.fingerprint_set(room=room)
    slots = sum(s.caps)
    rng = np.random.default_rng(13)
    fits = rng.integers(1, 2 ** 63, int(0.85 * slots), dtype=np.uint64)
    for start in range(0, fits.size, 1000):
        s.add(fits[start:start + 1000])
    assert s.crowded and len(s) == np.unique(fits).size and not s.unseen(fits).any()
    from modelcheck.backends.compiled import MAX_LOAD
    assert len(s) > MAX_LOAD * slots
    tables, count = [t.ctypes.data for t in s.tables], len(s)
    with pytest.raises(MemoryError):
        s.add(rng.integers(1, 2 ** 63, int(0.1 * slots), dtype=np.uint64))
    assert [t.ctypes.data for t in s.tables] == tables and len(s) == count
    k.close()


def test_a_set_is_handed_out_a_slice_at_a_time_each_fingerprint_once(cache):
    """As a checkpoint saves it: never the whole set at once; zero too."""
    k = kernel(small_model("kip320"), cache, workers=2)
    rng = np.random.default_rng(11)
    fps = np.concatenate([rng.integers(1, 2 ** 63, 50_000, dtype=np.uint64), np.zeros(1, np.uint64)])
    s = k.fingerprint_set(fps)
    chunks = list(s.held_chunks(slots=4096))
    assert max(c.size for c in chunks) <= 4096 and len(chunks) > len(s.tables)
    assert np.array_equal(np.sort(np.concatenate(chunks)), np.unique(fps))
    k.close()


def test_the_sets_tables_count_towards_max_memory(cache):
    # --max-memory counts resident memory that is neither file-backed nor shared
    from modelcheck.runtime.limits import resident_bytes
    k = kernel(small_model("kip320"), cache)
    before = resident_bytes()
    s = k.fingerprint_set()
    s.add(np.random.default_rng(9).integers(1, 2 ** 63, 3_000_000, dtype=np.uint64))
    tables = sum(t.nbytes for t in s.tables)
    assert tables > 64 << 20 and resident_bytes() - before > 0.8 * tables
    k.close()


@pytest.mark.parametrize("workers", [1, 2])
def test_removed_fingerprints_are_gone_and_the_rest_still_found(cache, workers):
    """Removal moves later entries of a probe run back: fingerprints that
    share their low bits (one home slot, long runs that wrap around the
    table's end) must all stay findable when others of the run go."""
    k = kernel(small_model("kip320"), cache, workers)
    s = k.fingerprint_set()
    rng = np.random.default_rng(7)
    crowded = (rng.integers(1, 2 ** 39, 3000, dtype=np.uint64) << np.uint64(24)) | np.uint64(2 ** 24 - 3)
    spread = rng.integers(1, 2 ** 63, 20_000, dtype=np.uint64)
    every = np.unique(np.concatenate([crowded, spread, np.array([0], np.uint64)]))
    s.add(every)
    gone = every[rng.random(every.size) < 0.5]
    s.remove(gone)
    kept = np.setdiff1d(every, gone)
    assert len(s) == kept.size and np.array_equal(s.fps, kept)
    assert not s.unseen(kept).any() and s.unseen(gone).all()
    assert s.add(gone).all() and len(s) == every.size  # and they go back in
    k.close()


@pytest.mark.parametrize("workers", [1, 2])
def test_unvisited_successors_are_those_the_set_lacks_in_order(cache, workers):
    """The fused pass gives the successors of the two-pass one, in the same
    order, less those the visited set holds, however its output is cut up."""
    m = small_model("kip320")
    words = np.tile(Packing(m.schema).pack_states(reachable(m)), 4)
    k = kernel(m, cache, workers)
    all_words, parents, actions, fps = k.successors(words)
    visited = k.fingerprint_set(fps[np.random.default_rng(3).random(fps.size) < 0.6])
    k._fresh_per_state = 0.001  # tiny output buffers: many calls per range
    got = k.unvisited_successors(words, visited)
    keep = visited.unseen(fps)
    assert np.array_equal(got.fps, fps[keep]) and np.array_equal(got.words, all_words[:, keep])
    assert np.array_equal(got.parents, parents[keep]) and np.array_equal(got.actions, actions[keep])
    assert got.generated == fps.size
    has_successor = np.zeros(words.shape[1], bool)
    has_successor[parents] = True
    stuck = np.flatnonzero(~has_successor)
    assert got.stuck == (stuck[0] if stuck.size else -1)
    k.close()


def test_a_kernel_is_built_once_then_loaded_from_the_cache(tmp_path):
    m = small_model("kip101")
    first = kernel(m, str(tmp_path))
    again = kernel(m, str(tmp_path))
    assert (first.built.cached, again.built.cached) == (False, True)
    assert first.built.path == again.built.path and len(list(tmp_path.glob("kernel_*.so"))) == 1


def test_a_missing_compiler_is_said_plainly(monkeypatch, tmp_path):
    monkeypatch.setenv("CC", str(tmp_path / "no-such-cc"))
    with pytest.raises(LibraryUnavailable, match="no-such-cc"):
        build("int x;\n", str(tmp_path))
    monkeypatch.setenv("CC", "false")  # a compiler that fails
    with pytest.raises(LibraryUnavailable, match="failed"):
        build("int y;\n", str(tmp_path))


def test_without_a_compiler_the_search_falls_back_to_numpy_and_says_so_once(tmp_path):
    args = ("run", "kip320", "--const", "Replicas=2", "--const", "MaxLeaderEpoch=1", "--json", "-q")
    env = {"MODELCHECK_KERNEL_CACHE": str(tmp_path)}
    fallback = run_subprocess(*args, env={**env, "CC": str(tmp_path / "no-such-cc"), "MODELCHECK_QUICK_CC": "none"})
    compiled = run_subprocess(*args, env=env)
    numpy = run_subprocess(*args, "--kernels", "numpy", env=env)
    assert fallback.returncode == compiled.returncode == numpy.returncode == 0
    assert fallback.stderr.count("compiled kernels unavailable") == 1
    assert "searching with numpy" in fallback.stderr and "unavailable" not in compiled.stderr + numpy.stderr
    drop = lambda out: {k: v for k, v in __import__("json").loads(out).items()  # noqa: E731
                        if k not in ("seconds", "timings", "kernel_build")}
    assert drop(fallback.stdout) == drop(compiled.stdout) == drop(numpy.stdout)


def test_the_compiler_is_found():
    assert subprocess.run([compiler(), "--version"], capture_output=True).returncode == 0


def wide_kernel(m, cache, workers=1):
    """The kernel of a search with 128-bit fingerprints."""
    return compile_kernel(m, Packing(m.schema, 128), predicate_names(m), workers, cache_dir=cache)


@pytest.mark.parametrize("workers", [1, 2])
def test_128_bit_fingerprints_are_numpys_and_the_set_tells_apart_what_64_bits_cannot(cache, workers):
    from modelcheck.language.packing import FP128
    m = small_model("kip320")
    words = Packing(m.schema).pack_states(reachable(m))
    k = wide_kernel(m, cache, workers)
    all_words, parents, actions, fps = k.successors(words)
    assert fps.dtype == FP128 and np.array_equal(fps, Packing(m.schema, 128).fingerprints(all_words))
    assert np.array_equal(fps["hi"], Packing(m.schema).fingerprints(all_words))  # the first word: the 64-bit one
    s = k.fingerprint_set()
    twins = np.zeros(4, FP128)  # two pairs sharing their first word, and the fingerprint 0 itself
    twins["hi"], twins["lo"] = [7 << 30, 7 << 30, 0, 0], [1, 2, 0, 5]
    assert s.add(twins).all() and len(s) == 4 and not s.add(twins).any()
    assert np.array_equal(np.sort(np.concatenate(list(s.held_chunks()))), np.sort(twins))
    s.remove(twins[:1])
    assert s.unseen(twins).tolist() == [True, False, False, False]
    narrow = kernel(m, cache, workers).fingerprint_set()
    assert narrow.add(twins["hi"]).tolist() == [True, False, True, False]  # what 64 bits take for one
    big = np.zeros(200_000, FP128)  # growth, a part at a time, keeps every pair
    big["hi"] = np.random.default_rng(1).integers(1, 2 ** 63, big.size, dtype=np.uint64)
    big["lo"] = np.arange(big.size)
    s.add(big)
    assert len(s) == 3 + big.size and not s.unseen(big).any() and s.nbytes == sum((c + 1) * 16 for c in s.caps)
    got = k.unvisited_successors(words, k.fingerprint_set(fps[::2]))
    keep = k.fingerprint_set(fps[::2]).unseen(fps)
    assert np.array_equal(got.fps, fps[keep]) and np.array_equal(got.words, all_words[:, keep])
    k.close()
