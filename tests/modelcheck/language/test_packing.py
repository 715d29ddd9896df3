"""Bit-packed states: the copies between states by rows and by columns."""

import numpy as np
import pytest

from modelcheck.language.packing import transposed


@pytest.mark.parametrize("shape", [(5000, 3), (3, 5000), (7, 7), (0, 4), (4, 0), (1, 1), (4097, 39)])
def test_transposed_is_the_transpose_made_contiguous(shape):
    a = np.arange(int(np.prod(shape)), dtype=np.uint64).reshape(shape)
    t = transposed(a)
    assert t.flags.c_contiguous and t.shape == shape[::-1] and np.array_equal(t, a.T)
    assert not np.shares_memory(t, a)
