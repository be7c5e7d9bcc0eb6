"""The batching rules' shortcuts for products (batching/products.py): an outer product by
einsum and a shared matrix times a batch of vectors as one matrix product, each equal to
the plain rule's result and to the per-example calls, and each taken only where it
applies."""

from __future__ import annotations

import numpy as np
import pytest

from minigrad import Tensor, func
from minigrad.batching import BatchedArray, products

RNG = np.random.default_rng(31)


def test_an_outer_product_by_einsum_is_exactly_the_broadcast_multiply():
    for dtype in (np.float32, np.float64):
        g = RNG.standard_normal((16, 64, 1)).astype(dtype)
        x = RNG.standard_normal((16, 1, 96)).astype(dtype)
        fast = products.outer_product(g, x)
        assert fast is not None and fast.dtype == dtype
        np.testing.assert_array_equal(fast, g * x)  # one product per entry: no rounding


def test_an_outer_product_with_a_shared_axis_in_the_middle_keeps_every_axis():
    a = RNG.standard_normal((4, 1, 8, 64))
    b = RNG.standard_normal((4, 32, 8, 1))
    np.testing.assert_array_equal(products.outer_product(a, b), a * b)


@pytest.mark.parametrize("a, b", [
    (np.ones((2, 3)), np.ones((2, 3))),                       # elementwise, no expansion
    (np.ones((256, 256)), np.ones((1, 256))),                 # a row broadcast: not an outer
    (np.ones((2, 3, 1)), np.ones((2, 1, 4))),                 # too small to gain
    (np.ones((64, 64, 1), np.float32), np.ones((64, 1, 64))),  # mixed dtypes: numpy's rules
    (np.ones((64, 64, 1), int), np.ones((64, 1, 64), int)),   # integers
])
def test_an_outer_product_is_left_to_numpy_when_it_is_not_one(a, b):
    assert products.outer_product(a, b) is None


def test_vmap_of_a_per_example_outer_product_equals_the_loop():
    gs, xs = RNG.standard_normal((8, 64)), RNG.standard_normal((8, 128))

    def outer(g, x):
        return g.reshape(64, 1) * x.reshape(1, 128)

    ours = func.vmap(outer)(Tensor(gs), Tensor(xs)).data
    np.testing.assert_array_equal(ours, np.stack([np.outer(g, x) for g, x in zip(gs, xs)]))


def test_a_shared_matrix_times_a_batch_of_vectors_is_one_product_equal_to_the_loop():
    W = RNG.standard_normal((32, 48))
    x, r = BatchedArray(RNG.standard_normal((5, 48)), 7), BatchedArray(
        RNG.standard_normal((5, 32)), 7)
    column = products.matrix_times_batch(W, x, 7)
    row = products.matrix_times_batch(r, W, 7)
    assert isinstance(column, BatchedArray) and column.shape == (32,) and column.level == 7
    np.testing.assert_allclose(column.value, np.stack([W @ v for v in x.value]), rtol=1e-13)
    np.testing.assert_allclose(row.value, np.stack([v @ W for v in r.value]), rtol=1e-13)


def test_matrix_times_batch_leaves_other_products_to_the_rule():
    W = RNG.standard_normal((4, 4))
    batch_of_matrices = BatchedArray(RNG.standard_normal((3, 4, 4)), 2)
    vectors = BatchedArray(RNG.standard_normal((3, 4)), 2)
    assert products.matrix_times_batch(W, batch_of_matrices, 2) is None
    assert products.matrix_times_batch(W, vectors, 5) is None  # (another level's batch)
    assert products.matrix_times_batch(vectors, vectors, 2) is None
    assert products.matrix_times_batch(RNG.standard_normal(4), vectors, 2) is None


def test_per_example_gradients_of_a_layer_through_the_shortcuts_equal_the_loop():
    W = Tensor(RNG.standard_normal((64, 128)))  # (6·64·128 entries: the einsum path)
    xs = RNG.standard_normal((6, 128))

    def loss(W, x):
        return (W @ x).tanh().sum()

    ours = func.vmap(func.grad(loss), in_dims=(None, 0))(W, Tensor(xs)).data
    loop = np.stack([func.grad(loss)(W, Tensor(x)).data for x in xs])
    np.testing.assert_allclose(ours, loop, rtol=1e-13, atol=1e-15)
