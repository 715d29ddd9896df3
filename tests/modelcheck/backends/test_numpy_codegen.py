"""The numpy kernel reads the same trees as the compiled Python functions;
on every reachable state of small models, batch by batch, they must agree."""

import numpy as np
import pytest

from support import every_spec, reachable, small_model
from modelcheck.backends.numpy_codegen import compile_numpy
from modelcheck.language.packing import Packing, fingerprints


@pytest.mark.parametrize("name", every_spec())
def test_batch_successors_and_predicates_match(name):
    m = small_model(name)
    kernel = compile_numpy(m)
    states = reachable(m)
    columns = np.array(states, dtype=np.int64).T.copy()
    got = set()
    for index, rows in enumerate(kernel.enabled(columns)):
        if rows.size:
            successor = columns[:, rows].copy()
            for slot, values in kernel.updates[index](columns, rows):
                successor[slot] = values
            got.update((int(r), index, tuple(int(x) for x in successor[:, k])) for k, r in enumerate(rows))
    want = {(j, i, t) for j, s in enumerate(states) for i, t in m.successors(s)}
    assert got == want
    results = kernel.predicates(columns)
    for name_, values in results.items():
        assert [bool(v) for v in values] == [m.compiled.predicates[name_](s) for s in states], name_


@pytest.mark.parametrize("name", ["kip320", "async-isr", "kip320-consumer"])
def test_packing_round_trips_and_separates_states(name):
    m = small_model(name)
    packing = Packing(m.schema)
    states = reachable(m)
    columns = np.array(states, dtype=np.int64).T.copy()
    words = packing.pack(columns)
    assert (packing.unpack(words) == columns).all()
    assert len({tuple(w) for w in words.T}) == len(states)
    assert np.unique(fingerprints(words)).size == len(states)
