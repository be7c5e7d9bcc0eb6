"""jacrev's rows as one batched backward pass (vjp_rows under vmap): the same Jacobian
as the loop (chunk_size=1) and as torch.func, in float64, with tuple outputs and
arguments, nested in other transforms, and under vmap."""

from __future__ import annotations

import numpy as np
import pytest

from minigrad import Tensor, Value, func

from .test_reverse_transforms import t64
from .test_reverse_tuples import assert_nested_close, torch_args, two_outputs, two_outputs_torch

RNG = np.random.default_rng(29)
W1, W2 = RNG.standard_normal((16, 3)), RNG.standard_normal((12, 16))


def mlp(x):
    """R^3 -> R^12 through tanh: a tall map, every rule batched (matmul, tanh, add)."""
    return t64(W2) @ (t64(W1) @ x).tanh() + x.sum()


def mlp_torch(x):
    import torch
    return torch.tensor(W2) @ torch.tanh(torch.tensor(W1) @ x) + x.sum()


def assert_same(a, b):
    if isinstance(a, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            assert_same(x, y)
        return
    assert a.shape == b.shape and a.dtype == b.dtype
    np.testing.assert_allclose(a.data, b.data, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("chunk_size", [None, 5])
def test_batched_rows_equal_the_loop_of_one_backward_pass_per_row(chunk_size):
    x = t64(RNG.standard_normal(3))
    assert_same(func.jacrev(mlp, chunk_size=chunk_size)(x), func.jacrev(mlp, chunk_size=1)(x))


def test_batched_rows_equal_torch_func_jacrev():
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal(3)
    theirs = torch.func.jacrev(mlp_torch)(torch.tensor(x))
    assert_nested_close(func.jacrev(mlp)(t64(x)), theirs)


@pytest.mark.parametrize("chunk_size", [None, 1, 3])
def test_batched_rows_with_tuple_outputs_and_argnums_equal_torch(chunk_size):
    torch = pytest.importorskip("torch")
    a, b = RNG.standard_normal(2), RNG.standard_normal(3)

    ours = func.jacrev(two_outputs, argnums=(0, 1), chunk_size=chunk_size)(t64(a), t64(b))
    theirs = torch.func.jacrev(two_outputs_torch, argnums=(0, 1))(*torch_args(a, b))
    assert_nested_close(ours, theirs)


def test_batched_rows_keep_the_input_dtype():
    x = Tensor(RNG.standard_normal(3).astype(np.float32))
    jac = func.jacrev(lambda v: (v * v).tanh() * 2.0)(x)
    assert jac.dtype == np.float32 and jac.shape == (3, 3)


def test_rows_of_an_output_that_ignores_an_argument_are_zeros():
    a, b = t64([0.5, -1.0]), t64([2.0, 3.0, 4.0])
    da, db = func.jacrev(lambda a, b: a.exp() * 3.0, argnums=(0, 1))(a, b)
    np.testing.assert_allclose(da.data, np.diag(3.0 * np.exp(a.data)))
    assert db.shape == (2, 3) and not db.data.any()


def test_reverse_over_reverse_batches_both_levels_and_equals_torch_hessian():
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal(3)
    ours = func.jacrev(func.jacrev(lambda v: mlp(v).sum()))(t64(x))
    theirs = torch.func.hessian(lambda v: mlp_torch(v).sum())(torch.tensor(x))
    assert_nested_close(ours, theirs, rtol=1e-11)


def test_vmap_of_batched_jacrev_gives_per_example_jacobians_like_torch():
    torch = pytest.importorskip("torch")
    xs = RNG.standard_normal((4, 3))
    ours = func.vmap(func.jacrev(mlp))(t64(xs))
    theirs = torch.func.vmap(torch.func.jacrev(mlp_torch))(torch.tensor(xs))
    assert_nested_close(ours, theirs, rtol=1e-12)


def test_value_inputs_keep_one_backward_pass_per_row():
    # (the scalar engine has no batch: Values loop, and are counted so)
    def f(a, b):
        return a * b, a + b

    with func.count_passes() as n:
        jac = func.jacrev(f, argnums=(0, 1))(Value(2.0), Value(3.0))
    assert [[j.data for j in row] for row in jac] == [[3.0, 2.0], [1.0, 1.0]]
    assert (n.backward, n.backward_directions) == (2, 2)
