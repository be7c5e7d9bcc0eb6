"""jacfwd's columns as one batched forward pass (jvp_columns: vmap of jvp over the
tangents), and hessian with it: the same as the loop (chunk_size=1) and as torch.func,
in float64, with tuple outputs and arguments, aux, and under vmap."""

from __future__ import annotations

import numpy as np
import pytest

from minigrad import Value, func

from .test_reverse_batched_rows import assert_same, mlp, mlp_torch
from .test_reverse_transforms import t64
from .test_reverse_tuples import assert_nested_close, torch_args, two_outputs, two_outputs_torch

RNG = np.random.default_rng(16)


@pytest.mark.parametrize("chunk_size", [None, 2])
def test_batched_columns_equal_the_loop_of_one_forward_pass_per_column(chunk_size):
    x = t64(RNG.standard_normal(3))
    assert_same(func.jacfwd(mlp, chunk_size=chunk_size)(x), func.jacfwd(mlp, chunk_size=1)(x))


def test_batched_columns_equal_torch_func_jacfwd():
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal(3)
    assert_nested_close(func.jacfwd(mlp)(t64(x)),
                        torch.func.jacfwd(mlp_torch)(torch.tensor(x)))


@pytest.mark.parametrize("chunk_size", [None, 1, 2])
def test_batched_columns_with_tuple_outputs_and_argnums_equal_torch(chunk_size):
    torch = pytest.importorskip("torch")
    a, b = RNG.standard_normal(2), RNG.standard_normal(3)

    ours = func.jacfwd(two_outputs, argnums=(0, 1), chunk_size=chunk_size)(t64(a), t64(b))
    theirs = torch.func.jacfwd(two_outputs_torch, argnums=(0, 1))(*torch_args(a, b))
    assert_nested_close(ours, theirs)


def test_batched_columns_hand_back_aux_as_the_function_made_it():
    x = t64(RNG.standard_normal(3))
    jac, aux = func.jacfwd(lambda v: (mlp(v), {"norm": (v * v).sum()}), has_aux=True)(x)
    assert_same(jac, func.jacfwd(mlp, chunk_size=1)(x))
    np.testing.assert_allclose(aux["norm"].data, (x.data ** 2).sum())
    assert aux["norm"].shape == ()


def test_columns_of_an_output_that_ignores_the_input_are_zeros():
    x = t64([0.5, -1.0, 2.0])
    jac = func.jacfwd(lambda v: t64([1.0, 2.0]) * 1.0)(x)
    assert jac.shape == (2, 3) and not jac.data.any()


@pytest.mark.parametrize("chunk_size", [None, 1, 2])
def test_hessian_blocks_from_batched_passes_equal_torch(chunk_size):
    torch = pytest.importorskip("torch")
    a, b = RNG.standard_normal(2), RNG.standard_normal(3)

    def f(a, b):
        return ((a.reshape(2, 1) * b.reshape(1, 3)).tanh() * b.sum()).sum()

    def f_torch(a, b):
        return (torch.tanh(a.reshape(2, 1) * b.reshape(1, 3)) * b.sum()).sum()

    ours = func.hessian(f, argnums=(0, 1), chunk_size=chunk_size)(t64(a), t64(b))
    assert_nested_close(ours, torch.func.hessian(f_torch, argnums=(0, 1))(*torch_args(a, b)),
                        rtol=1e-11)


def test_vmap_of_batched_hessian_gives_per_example_hessians_like_torch():
    torch = pytest.importorskip("torch")
    xs = RNG.standard_normal((4, 3))
    ours = func.vmap(func.hessian(lambda v: mlp(v).sum()))(t64(xs))
    theirs = torch.func.vmap(torch.func.hessian(lambda v: mlp_torch(v).sum()))(
        torch.tensor(xs))
    assert_nested_close(ours, theirs, rtol=1e-11)


def test_value_inputs_keep_one_forward_pass_per_column():
    def f(a, b):
        return a * b

    with func.count_passes() as n:
        jac = func.jacfwd(f, argnums=(0, 1))(Value(2.0), Value(3.0))
    assert [j.data for j in jac] == [3.0, 2.0]
    assert (n.forward, n.forward_directions) == (2, 2)


def test_a_random_draw_in_batched_columns_is_refused_unless_randomness_same():
    import minigrad
    from minigrad.batching import BatchingError
    from minigrad.nn import functional as F

    x = t64(np.ones(6))

    def f(v):  # J = diag(m) + m.sum() (every entry): each column sees the whole mask
        m = F.dropout(t64(np.ones(6)), 0.5, training=True)
        return v * m + (v.sum() * m.sum())

    with pytest.raises(BatchingError, match="randomness"):
        func.jacfwd(f)(x)
    minigrad.manual_seed(3)
    jac = func.jacfwd(f, randomness="same")(x).data
    total = jac[1, 0]
    mask = np.diag(jac) - total
    # one draw shared by every column: one mask, the same sum in every column
    np.testing.assert_array_equal(jac - np.diag(np.diag(jac)), total * (1 - np.eye(6)))
    assert set(mask) <= {0.0, 2.0} and mask.sum() == total


@pytest.mark.parametrize("outer, inner", [("jacfwd", "jacfwd"), ("jacrev", "jacfwd"),
                                          ("jacfwd", "jacrev"), ("jacrev", "jacrev")])
def test_batched_passes_nested_in_each_other_equal_torch(outer, inner):
    # (an inner Jacobian runs its batched pass inside the outer one's: vmap inside vmap,
    # and a nested jvp by reverse mode over a batch of tangents)
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal(3)
    ours = getattr(func, outer)(getattr(func, inner)(mlp))(t64(x))
    theirs = getattr(torch.func, outer)(getattr(torch.func, inner)(mlp_torch))(torch.tensor(x))
    assert_nested_close(ours, theirs, rtol=1e-11)
