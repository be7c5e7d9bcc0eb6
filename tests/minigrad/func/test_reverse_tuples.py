"""minigrad.func's reverse mode with several outputs and several arguments: jacrev's
nesting (output × argument), vjp's tuple of cotangents, chunk_size, all against
torch.func in float64 where torch is installed."""

from __future__ import annotations

import numpy as np
import pytest

from minigrad import Tensor, Value, func

from .test_reverse_transforms import numeric_jacobian, t64

RNG = np.random.default_rng(11)
A, B = RNG.standard_normal(2), RNG.standard_normal(3)


def two_outputs(a, b):
    """(R^2, R^3) -> (R^3, R^{2×3}): a vector and a matrix, each using both arguments."""
    return (a * a).sum() * b.tanh(), (a.reshape(2, 1) * b.reshape(1, 3)).exp()


def two_outputs_np(a, b):
    return (a * a).sum() * np.tanh(b), np.exp(a.reshape(2, 1) * b.reshape(1, 3))


def two_outputs_torch(a, b):
    """``two_outputs`` on torch tensors (the oracle's side)."""
    import torch

    return (a * a).sum() * torch.tanh(b), torch.exp(a.reshape(2, 1) * b.reshape(1, 3))


def torch_args(*arrays):
    torch = pytest.importorskip("torch")
    return tuple(torch.tensor(a, dtype=torch.float64) for a in arrays)


def assert_nested_close(ours, theirs, rtol=1e-12):
    """Same nesting (tuples and lists of the same lengths), same numbers."""
    if isinstance(theirs, (tuple, list)):
        assert type(ours) is type(theirs) and len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            assert_nested_close(o, t, rtol)
        return
    assert isinstance(ours, Tensor) and ours.shape == tuple(theirs.shape)
    np.testing.assert_allclose(ours.data, theirs.numpy(), rtol=rtol, atol=1e-15)


@pytest.mark.parametrize("argnums", [0, 1, (0, 1), (1, 0)])
def test_jacrev_of_a_tuple_returning_function_nests_outputs_then_arguments_like_torch(argnums):
    torch_func = pytest.importorskip("torch.func")
    ours = func.jacrev(two_outputs, argnums)(t64(A), t64(B))
    theirs = torch_func.jacrev(two_outputs, argnums)(*torch_args(A, B))
    assert_nested_close(ours, theirs)


def test_jacrev_blocks_match_central_differences_for_each_output_and_argument():
    jac = func.jacrev(two_outputs, argnums=(0, 1))(t64(A), t64(B))
    for i in range(2):
        np.testing.assert_allclose(
            jac[i][0].data, numeric_jacobian(lambda a, i=i: two_outputs_np(a, B)[i], A), rtol=1e-7)
        np.testing.assert_allclose(
            jac[i][1].data, numeric_jacobian(lambda b, i=i: two_outputs_np(A, b)[i], B), rtol=1e-7)


def test_jacrev_keeps_a_list_of_outputs_a_list():
    jac = func.jacrev(lambda a: [a * 2.0, a.exp()])(t64(A))
    assert isinstance(jac, list) and len(jac) == 2
    np.testing.assert_allclose(jac[0].data, 2.0 * np.eye(2))


@pytest.mark.parametrize("chunk_size", [1, 2, 5, 100])
def test_jacrev_chunk_size_changes_nothing_in_the_result(chunk_size):
    whole = func.jacrev(two_outputs, argnums=(0, 1))(t64(A), t64(B))
    chunked = func.jacrev(two_outputs, argnums=(0, 1), chunk_size=chunk_size)(t64(A), t64(B))
    for i in range(2):
        for k in range(2):
            np.testing.assert_array_equal(chunked[i][k].data, whole[i][k].data)


@pytest.mark.parametrize("bad", [0, -1, 1.5, True])
def test_jacrev_refuses_a_chunk_size_that_is_not_a_positive_int(bad):
    with pytest.raises(ValueError, match=f"jacrev: chunk_size must be a positive int or "
                                         f"None, got {bad!r}"):
        func.jacrev(two_outputs, chunk_size=bad)


def test_jacrev_with_has_aux_and_tuple_outputs_returns_the_aux_untouched():
    jac, aux = func.jacrev(lambda a, b: (two_outputs(a, b), {"note": 1}), argnums=(0, 1),
                           has_aux=True)(t64(A), t64(B))
    assert aux == {"note": 1}
    assert [[j.shape for j in row] for row in jac] == [[(3, 2), (3, 3)], [(2, 3, 2), (2, 3, 3)]]


def test_jacrev_of_values_with_tuple_outputs_and_argnums_gives_values():
    jac = func.jacrev(lambda v, w: (v * v, w * v), argnums=(0, 1))(Value(0.7), Value(-1.3))
    assert all(isinstance(j, Value) for row in jac for j in row)
    assert [[j.data for j in row] for row in jac] == [
        [pytest.approx(1.4), 0.0], [pytest.approx(-1.3), pytest.approx(0.7)]]


def test_jacrev_of_a_tuple_with_a_non_tensor_names_the_output():
    with pytest.raises(TypeError, match="jacrev: output 1 of the function must be a Tensor "
                                        "or a Value, got float"):
        func.jacrev(lambda a: (a * 2.0, 3.0))(t64(A))
    with pytest.raises(ValueError, match="jacrev: the function returned an empty tuple"):
        func.jacrev(lambda a: ())(t64(A))


def test_an_output_that_depends_on_no_argument_has_a_zero_jacobian_block():
    jac = func.jacrev(lambda a, b: (a * 2.0, b * 3.0), argnums=(0, 1))(t64(A), t64(B))
    np.testing.assert_array_equal(jac[0][1].data, np.zeros((2, 3)))
    np.testing.assert_array_equal(jac[1][1].data, 3.0 * np.eye(3))


def test_vjp_of_a_tuple_returning_function_takes_a_tuple_of_cotangents_like_torch():
    torch_func = pytest.importorskip("torch.func")
    cotangents = (RNG.standard_normal(3), RNG.standard_normal((2, 3)))
    out, vjp_fn = func.vjp(two_outputs, t64(A), t64(B))
    theirs_out, theirs_fn = torch_func.vjp(two_outputs, *torch_args(A, B))
    assert_nested_close(out, theirs_out)
    assert_nested_close(vjp_fn(cotangents), theirs_fn(torch_args(*cotangents)))


def test_vjp_with_tuple_outputs_and_has_aux_returns_the_aux():
    out, vjp_fn, aux = func.vjp(lambda a: ((a * 2.0, a * a), "aux"), t64(A), has_aux=True)
    assert aux == "aux" and isinstance(out, tuple)
    (g,) = vjp_fn((np.ones(2), np.ones(2)))
    np.testing.assert_allclose(g.data, 2.0 + 2.0 * A)


def test_vjp_of_values_returning_a_tuple_sums_both_cotangents():
    _, vjp_fn = func.vjp(lambda v, w: (v * v, w * v), Value(0.7), Value(-1.3))
    gv, gw = vjp_fn((1.0, 2.0))
    assert (gv.data, gw.data) == (pytest.approx(1.4 - 2.6), pytest.approx(1.4))


def test_vjp_refuses_cotangents_whose_structure_does_not_match_the_outputs():
    _, vjp_fn = func.vjp(two_outputs, t64(A), t64(B))
    with pytest.raises(TypeError, match=r"returned a tuple of 2 outputs, so vjp_fn takes a "
                                        r"tuple of 2 cotangents .*got ndarray"):
        vjp_fn(np.ones(3))
    with pytest.raises(TypeError, match="tuple of 2 cotangents .*got a tuple of 1"):
        vjp_fn((np.ones(3),))
    with pytest.raises(ValueError, match=r"cotangent 1 has shape \(3,\) but output 1 has "
                                         r"shape \(2, 3\)"):
        vjp_fn((np.ones(3), np.ones(3)))
    _, single_fn = func.vjp(lambda a: a * 2.0, t64(A))
    with pytest.raises(TypeError, match="returned one output, so vjp_fn takes one cotangent"):
        single_fn((np.ones(2),))


def test_vjp_rows_pulls_back_a_stack_of_cotangents_one_row_each():
    from minigrad.func._lift import lift_inputs
    from minigrad.func.reverse import vjp_rows

    feed, inputs, live = lift_inputs([t64(A), t64(B)])
    outs = two_outputs(*feed)
    stack = (RNG.standard_normal((4, 3)), RNG.standard_normal((4, 2, 3)))
    ga, gb = vjp_rows(outs, inputs, stack, live, "test")
    assert ga.shape == (4, 2) and gb.shape == (4, 3)
    _, vjp_fn = func.vjp(two_outputs, t64(A), t64(B))
    for j in range(4):
        want_a, want_b = vjp_fn((stack[0][j], stack[1][j]))
        np.testing.assert_allclose(ga.data[j], want_a.data, rtol=1e-14)
        np.testing.assert_allclose(gb.data[j], want_b.data, rtol=1e-14)
