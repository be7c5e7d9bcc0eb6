"""``BatchedArray``: one example's face (shape, ndim, size, dtype) over the whole batch, and
the refusals that keep a batch from silently becoming one array."""

from __future__ import annotations

import numpy as np
import pytest

from minigrad.batching import BatchedArray, BatchingError
from minigrad.core.standin import ARRAYS


def test_it_reports_the_logical_shape_of_one_example():
    x = BatchedArray(np.zeros((5, 2, 3), np.float32), level=1)
    assert (x.shape, x.ndim, x.size, x.dtype, x.batch_size) == ((2, 3), 2, 6, np.float32, 5)
    assert len(x) == 2 and x.T.shape == (3, 2) and isinstance(x, ARRAYS)
    assert "batch=5" in repr(x) and "shape=(2, 3)" in repr(x)


def test_operators_reach_the_batching_rules():
    v = np.arange(6.0).reshape(2, 3)
    x = BatchedArray(v, level=1)
    y = -(x * 2 + 1) @ np.ones(3)
    assert isinstance(y, BatchedArray) and y.shape == ()
    np.testing.assert_allclose(y.value, -(2 * v + 1).sum(1))


@pytest.mark.parametrize("read", [bool, float, int, lambda x: x.item(), lambda x: x.tolist(),
                                  np.asarray])
def test_reading_one_value_out_of_a_batch_is_refused(read):
    with pytest.raises(BatchingError):
        read(BatchedArray(np.ones((4,)), level=1))


def test_a_memory_layout_attribute_is_refused_but_getattr_defaults_still_work():
    x = BatchedArray(np.ones((4, 2)), level=1)
    with pytest.raises(BatchingError, match="strides"):
        x.strides  # noqa: B018
    assert getattr(x, "strides", None) is None  # (an AttributeError too)
    with pytest.raises(AttributeError):
        x.no_such_thing  # noqa: B018


def test_share_for_sums_a_batch_for_a_node_made_before_the_vmap_began():
    x = BatchedArray(np.arange(6.0).reshape(3, 2), level=100)
    assert x.share_for(x, 150) is x  # made inside: per example
    np.testing.assert_allclose(x.share_for(x, 50), [6.0, 9.0])  # made before: shared, summed
    nested = BatchedArray(BatchedArray(np.ones((2, 3, 4)), level=10), level=20)
    once = nested.share_for(nested, 15)  # summed over the inner batch only
    assert isinstance(once, BatchedArray) and once.level == 10
    np.testing.assert_allclose(once.value, np.full((2, 4), 3.0))
    np.testing.assert_allclose(nested.share_for(nested, 5), np.full(4, 6.0))


def test_every_example_is_one_plain_array_for_checks():
    nested = BatchedArray(BatchedArray(np.arange(24).reshape(2, 3, 4), level=1), level=2)
    np.testing.assert_array_equal(nested.every_example(), np.arange(24).reshape(2, 3, 4))


def test_a_leaf_made_inside_the_vmap_keeps_its_batch_of_gradients_uncopied():
    from minigrad import Tensor
    from minigrad.core.accumulate import accumulate

    leaf = Tensor(np.zeros(3), requires_grad=True)
    batch = BatchedArray(np.ones((4, 3)), level=leaf.id)  # (the vmap began before the leaf)
    accumulate(leaf, batch)
    assert leaf.grad is batch  # per example, and not copied (the pass's biggest arrays)
    accumulate(leaf, batch)
    np.testing.assert_allclose(leaf.grad.value, np.full((4, 3), 2.0))
    assert batch.value[0, 0] == 1.0  # the sum is new: the first contribution is untouched
