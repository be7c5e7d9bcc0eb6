"""Forward-mode rules of getitem and scatter_add on the cases the registry-wide test
(``tests/minigrad/ops/test_forward_rules.py``) does not reach: repeated picks and positions."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad  # noqa: F401  (registers every op)
from tests.minigrad.ops.tensor.test_reductions_forward_rules import (
    assert_transpose_of_backward,
    tangent_of,
)


# --- getitem / scatter_add: repeated picks -------------------------------------------
@pytest.mark.parametrize("index", [(np.array([0, 2, 0, 0]),),
                                   (np.array([1, 1, 3]), np.array([2, 2, 0])),
                                   (slice(None), np.array([[4, 4], [0, 4]]))])
def test_getitem_tangent_repeats_with_the_picks(index):
    rng = np.random.default_rng(5)
    x, t = rng.standard_normal((4, 5)), rng.standard_normal((4, 5))
    tangent, _ = tangent_of("getitem", (x,), [t], index=index)
    np.testing.assert_array_equal(tangent, t[index])
    # backward adds the repeated picks up; the two must still be transposes
    assert_transpose_of_backward("getitem", (x,), [t], tangent, rng, index=index)


def test_scatter_add_tangent_adds_repeated_positions():
    rng = np.random.default_rng(6)
    index = (np.array([2, 0, 2, 2]),)
    v, t = rng.standard_normal(4), rng.standard_normal(4)
    tangent, _ = tangent_of("scatter_add", (v,), [t], shape=(3,), index=index)
    expected = np.zeros(3)
    for position, value in zip(index[0], t):
        expected[position] += value
    np.testing.assert_allclose(tangent, expected, rtol=1e-12)
    assert_transpose_of_backward("scatter_add", (v,), [t], tangent, rng, shape=(3,),
                                 index=index)
