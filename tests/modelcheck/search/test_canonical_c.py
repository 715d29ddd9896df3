"""The compiled canonicaliser is the numpy one's function, state for state:
on reachable states, on states whose replicas tie, under each group, with
five replicas, split between threads; and without a compiler the numpy one
answers alone."""

import itertools
import os

import numpy as np
import pytest

from support import model, reachable
from modelcheck.search import canonical_c
from modelcheck.search.canonical import Canonicaliser, Stabiliser, rename_columns

pytestmark = pytest.mark.skipif(canonical_c.compiler() is None, reason="no C compiler")


def with_ties(canon: Canonicaliser, columns: np.ndarray) -> np.ndarray:
    """The states again, each replica's slots copied into the next one's: replicas that tie."""
    blocks = canon.roles.blocks
    tied = columns.copy()
    for r in range(1, canon.roles.replicas):
        tied[blocks[r]] = columns[blocks[r - 1]]
    return tied


def agree(canon: Canonicaliser, columns: np.ndarray) -> None:
    words = canon.packing.pack(columns)
    compiled = canon.compiled()
    assert compiled is not None
    numpy = canon.words_numpy(words)
    assert np.array_equal(compiled.words(words), numpy)
    assert not np.array_equal(numpy, words)  # some states are not their own representatives


@pytest.mark.parametrize("fixed", [0, 1])
def test_reachable_states_and_their_images_get_the_numpy_representatives(fixed):
    m = model("kip320", Replicas=3)
    canon = Canonicaliser(m, group=Stabiliser(fixed))
    columns = np.array(reachable(m, 2000), dtype=np.int64).T
    images = [rename_columns(canon.roles, columns, np.tile(p, (columns.shape[1], 1)))
              for p in itertools.permutations(range(3))]
    agree(canon, np.concatenate(images + [with_ties(canon, columns)], axis=1))


def test_a_spec_with_shared_replica_slots_gets_the_numpy_representatives():
    m = model("kip320-consumer")
    canon = Canonicaliser(m)
    assert canon.roles.shared_replica_slots.size and canon.roles.shared_set_slots.size
    columns = np.array(reachable(m, 3000), dtype=np.int64).T
    agree(canon, np.concatenate([columns, with_ties(canon, columns)], axis=1))


def random_states(m, n: int, seed: int) -> np.ndarray:
    """States with every slot drawn from its range (reachable or not)."""
    rng = np.random.default_rng(seed)
    lo, hi = np.array(m.schema.lo), np.array(m.schema.hi)
    return lo[:, None] + (rng.random((lo.size, n)) * (hi - lo + 1)[:, None]).astype(np.int64)


@pytest.mark.parametrize("fixed", [0, 2])
def test_five_replicas_get_the_numpy_representatives(fixed):
    m = model("kip320", Replicas=5)
    canon = Canonicaliser(m, group=Stabiliser(fixed))
    columns = random_states(m, 3000, seed=fixed)
    half = with_ties(canon, columns)
    half[:, ::2] = columns[:, ::2]  # and two replicas alike, three alike...
    agree(canon, np.concatenate([columns, with_ties(canon, columns), half], axis=1))


def test_the_threads_split_a_batch_without_changing_it():
    m = model("kip320", Replicas=4)
    one, two = Canonicaliser(m, workers=1), Canonicaliser(m, workers=2)
    assert (one.compiled().workers, two.compiled().workers) == (1, 2)
    words = one.packing.pack(random_states(m, 3 * canonical_c.SPLIT + 7, seed=4))
    assert np.array_equal(one.words(words), two.words(words))
    assert np.array_equal(two.words(words), one.words_numpy(words))


@pytest.fixture
def fresh_build(monkeypatch):
    """``canonical_c.load`` forgets its library, before and after the test."""
    canonical_c.load.cache_clear()
    yield monkeypatch
    monkeypatch.undo()
    canonical_c.load.cache_clear()


def test_the_routine_is_built_once_into_the_kernel_cache(fresh_build, tmp_path):
    fresh_build.setenv("MODELCHECK_KERNEL_CACHE", str(tmp_path))
    assert canonical_c.load() is not None
    built = [name for name in os.listdir(tmp_path) if not name.endswith(".lock")]  # a build's lock stays
    assert len(built) == 1 and built[0].startswith("canonical_") and built[0].endswith(".so")
    canonical_c.load.cache_clear()
    stamp = os.stat(tmp_path / built[0]).st_mtime_ns
    assert canonical_c.load() is not None  # loaded, not built again
    assert [name for name in os.listdir(tmp_path) if not name.endswith(".lock")] == built and os.stat(tmp_path / built[0]).st_mtime_ns == stamp


def test_without_a_compiler_the_numpy_canonicaliser_answers(fresh_build, tmp_path):
    fresh_build.setenv("PATH", str(tmp_path))
    fresh_build.delenv("CC", raising=False)
    fresh_build.setenv("MODELCHECK_KERNEL_CACHE", str(tmp_path / "cache"))
    m = model("kip320", Replicas=3)
    canon = Canonicaliser(m)
    assert canon.compiled() is None
    words = canon.packing.pack_states(reachable(m, 500))
    assert np.array_equal(canon.words(words), canon.words_numpy(words))
    assert not (tmp_path / "cache").exists()
