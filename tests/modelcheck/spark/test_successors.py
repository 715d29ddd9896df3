"""Successor candidates as a partition makes them: the C kernel's single
pass (made, fingerprinted and looked up in the task's own table) keeps
exactly what the chunk-by-chunk expansion keeps, over many chunks."""

import numpy as np
import pytest

from support import model
from modelcheck.backends.compiled import compile_kernel
from modelcheck.language.packing import FP128, Packing
from modelcheck.search.expansion import Expander
from modelcheck.spark import prints, successors


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return str(tmp_path_factory.mktemp("kernels"))


def by_fingerprint(out):
    """(fps, parent rows, actions, words), sorted by fingerprint."""
    fps, rows, actions, words = out[:4]
    order = prints.order_of(fps)
    return fps[order], rows[order], actions[order], words[:, order]


def levels(expander, m, packing, count):
    """The first ``count`` levels' new states as a partition gets them (sorted
    by fingerprint), each expanded with ``successors.expand_frontier``."""
    words = packing.pack_states(m.init_states)
    fps = packing.fingerprints(words)
    seen = prints.empty(fps)
    for _ in range(count):
        order = prints.order_of(fps)
        fps, words = fps[order], words[:, order]
        seen = prints.merged(seen, fps)
        yield fps, words
        out_fps, _, _, out_words, _, _ = successors.expand_frontier(expander, fps, words)
        new = ~prints.contains(seen, out_fps)
        fps, words = out_fps[new], out_words[:, new]


@pytest.mark.parametrize("bits", [64, 128])
def test_the_kernels_single_pass_keeps_the_first_of_each_successor_as_the_chunked_expansion_does(
        cache, monkeypatch, bits):
    m = model("kip320")
    packing = Packing(m.schema, bits)
    on_c = Expander(m, compiled=compile_kernel(m, packing, [], 1, cache_dir=cache), packing=packing)
    on_numpy = Expander(m, packing=packing)
    monkeypatch.setattr(successors, "CHUNK", 97)  # many chunks, each state's successors repeated across them
    compared = 0
    for fps, words in levels(on_numpy, m, packing, 12):
        hashed = successors.expand_frontier(on_c, fps, words)
        chunked = successors.expand_frontier(on_numpy, fps, words)
        assert hashed[4] == chunked[4]  # successors generated, repeats and visited ones included
        for a, b in zip(by_fingerprint(hashed), by_fingerprint(chunked)):
            assert np.array_equal(a, b)
        compared += hashed[0].size
    assert compared > 10_000


def test_a_numpy_expander_keeps_the_chunked_path():
    m = model("kip320", Replicas=2)
    packing = Packing(m.schema)
    assert successors._hashed_expansion(Expander(m, packing=packing), np.zeros(1, np.uint64),
                                        np.zeros((packing.words, 1), np.uint64)) is None


def wide(pairs):
    out = np.zeros(len(pairs), FP128)
    out["hi"], out["lo"] = [p[0] for p in pairs], [p[1] for p in pairs]
    return out


def smallest_by_every_word(fps, parents, actions):
    """The reference: per whole fingerprint, the position of the least (parent's hi, parent's lo, action)."""
    best = {}
    for i in range(fps.size):
        fp, key = (int(fps["hi"][i]), int(fps["lo"][i])), (int(parents["hi"][i]), int(parents["lo"][i]), int(actions[i]))
        if fp not in best or key < best[fp][0]:
            best[fp] = (key, i)
    return [best[fp][1] for fp in sorted(best)]


@pytest.mark.parametrize("collide", ["none", "fingerprints", "parents"])
def test_at_128_bits_each_fingerprint_keeps_its_least_parent_and_action_by_every_word(collide):
    rng = np.random.default_rng(7)
    n = 5000
    fp_hi = rng.integers(0, 300, n)
    fp_lo = (fp_hi * 7919) % 1000  # one lo per hi: no collision among fingerprints ...
    par_hi = rng.integers(0, 50, n)
    par_lo = (par_hi * 104729) % 1000  # ... nor among parents
    if collide == "fingerprints":  # some hi shared by two whole fingerprints
        fp_lo[:40] += 1
    if collide == "parents":  # some parents' hi shared by two parents, of one fingerprint
        par_lo[::7] += 1
    fps, parents = wide(list(zip(fp_hi, fp_lo))), wide(list(zip(par_hi, par_lo)))
    actions = rng.integers(0, 4, n).astype(np.int32)
    distinct, keep = successors.first_of_each(fps, parents, actions)
    assert list(keep) == smallest_by_every_word(fps, parents, actions)
    assert np.array_equal(distinct, fps[keep])


def merged(parts, ordered, kernel=None):
    c = successors.merge_candidates(parts, 1, ordered, kernel=kernel)
    return c.fps.tolist(), c.parents.tolist(), c.actions.tolist(), c.orders.tolist(), c.words(1).tolist()


def blocks_from(rng, senders, ordered, shuffled=False):
    """Blocks as senders make them: each parent's successors in action
    order, the parents in ascending order (by fingerprint, or by rank under
    a VIEW); ``shuffled``: each block's candidates in any order instead."""
    parts = []
    for s in range(senders):
        parents = np.sort(rng.choice(np.arange(s, 10_000, senders), 60, replace=False)).astype(np.uint64)
        rows = [(p, a) for p in parents for a in sorted(rng.choice(6, 3, replace=False))]
        seen, keep = set(), []
        fps = rng.integers(0, 40, len(rows)).astype(np.uint64)
        for i, f in enumerate(fps):  # the sender's own repeats dropped, the first kept
            if int(f) not in seen:
                seen.add(int(f))
                keep.append(i)
        if shuffled:
            rng.shuffle(keep)
        parent = np.array([rows[i][0] for i in keep], np.uint64)
        action = np.array([rows[i][1] for i in keep], np.int32)
        orders = parent * np.uint64(6) + action.astype(np.uint64)  # a parent's rank times the instances, plus its action
        parts.append(successors.Successors(fps[keep], parent, action, np.array([fps[keep] * 10 + parent], np.uint64), 0,
                                           np.zeros(0, np.uint64), orders if ordered else np.zeros(0, np.uint64)))
    return parts


@pytest.mark.parametrize("ordered", [False, True])
@pytest.mark.parametrize("shuffled", [False, True])
def test_the_kernels_table_keeps_what_the_sort_keeps(cache, ordered, shuffled):
    m = model("kip320", Replicas=2)
    kernel = compile_kernel(m, Packing(m.schema), [], 1, cache_dir=cache)
    rng = np.random.default_rng(11)
    for _ in range(20):
        parts = blocks_from(rng, 3, ordered, shuffled)
        assert merged(parts, ordered, kernel) == merged(parts, ordered)
        assert merged(parts[::-1], ordered, kernel) == merged(parts, ordered)
