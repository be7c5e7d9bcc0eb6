"""minigrad.func's forward mode with several outputs and several arguments: jacfwd's
nesting, every block of a Hessian, jvp of tuple outputs, chunk_size, against
torch.func in float64 where torch is installed."""

from __future__ import annotations

import numpy as np
import pytest

from minigrad import Value, func

from .test_reverse_transforms import t64
from .test_reverse_tuples import RNG, A, B, assert_nested_close, torch_args, two_outputs


def coupled_loss(a, b):
    """A scalar function of two arguments whose Hessian has non-zero cross blocks."""
    return ((a.sum() * b).tanh() * (a * a).sum()).sum() + (b * b * b).sum() * 0.1


@pytest.mark.parametrize("argnums", [0, 1, (0, 1), (1, 0)])
def test_jacfwd_of_a_tuple_returning_function_nests_like_torch_and_like_jacrev(argnums):
    torch_func = pytest.importorskip("torch.func")
    ours = func.jacfwd(two_outputs, argnums)(t64(A), t64(B))
    assert_nested_close(ours, torch_func.jacfwd(two_outputs, argnums)(*torch_args(A, B)))
    reverse = func.jacrev(two_outputs, argnums)(t64(A), t64(B))
    for o, r in zip(ours, reverse):
        for p, q in zip(o if isinstance(argnums, tuple) else (o,),
                        r if isinstance(argnums, tuple) else (r,)):
            np.testing.assert_allclose(p.data, q.data, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("chunk_size", [1, 3, 100])
def test_jacfwd_chunk_size_changes_nothing_in_the_result(chunk_size):
    whole = func.jacfwd(two_outputs, argnums=(0, 1))(t64(A), t64(B))
    chunked = func.jacfwd(two_outputs, argnums=(0, 1), chunk_size=chunk_size)(t64(A), t64(B))
    for i in range(2):
        for k in range(2):
            np.testing.assert_array_equal(chunked[i][k].data, whole[i][k].data)


def test_jacfwd_refuses_a_chunk_size_that_is_not_a_positive_int():
    with pytest.raises(ValueError, match="jacfwd: chunk_size must be a positive int"):
        func.jacfwd(two_outputs, chunk_size=0)


def test_jacfwd_with_has_aux_and_tuple_outputs_returns_the_aux():
    jac, aux = func.jacfwd(lambda a: ((a * a, a.exp()), "aux"), has_aux=True)(t64(A))
    assert aux == "aux"
    np.testing.assert_allclose(jac[1].data, np.diag(np.exp(A)))


def test_jacfwd_of_values_with_tuple_outputs_and_argnums_gives_values():
    jac = func.jacfwd(lambda v, w: (v * v, w * v), argnums=(0, 1))(Value(0.7), Value(-1.3))
    assert all(isinstance(j, Value) for row in jac for j in row)
    assert [[j.data for j in row] for row in jac] == [
        [pytest.approx(1.4), 0.0], [pytest.approx(-1.3), pytest.approx(0.7)]]


@pytest.mark.parametrize("argnums", [(0, 1), (1, 0), 1])
def test_hessian_with_tuple_argnums_gives_every_block_like_torch(argnums):
    torch_func = pytest.importorskip("torch.func")
    ours = func.hessian(coupled_loss, argnums)(t64(A), t64(B))
    assert_nested_close(ours, torch_func.hessian(coupled_loss, argnums)(*torch_args(A, B)),
                        rtol=1e-10)


def test_hessian_blocks_are_the_transposes_of_each_other():
    (haa, hab), (hba, hbb) = func.hessian(coupled_loss, argnums=(0, 1))(t64(A), t64(B))
    assert hab.shape == (2, 3) and hba.shape == (3, 2)
    np.testing.assert_allclose(hab.data, hba.data.T, rtol=1e-10)
    assert np.abs(hab.data).max() > 1e-3  # the cross block is not trivially zero


def test_hessian_chunk_size_changes_nothing_in_the_result():
    whole = func.hessian(coupled_loss, argnums=(0, 1))(t64(A), t64(B))
    chunked = func.hessian(coupled_loss, argnums=(0, 1), chunk_size=2)(t64(A), t64(B))
    for i in range(2):
        for k in range(2):
            np.testing.assert_allclose(chunked[i][k].data, whole[i][k].data, rtol=1e-14)


def test_hessian_of_values_with_tuple_argnums_is_the_matrix_of_second_derivatives():
    h = func.hessian(lambda v, w: w * v * v, argnums=(0, 1))(Value(0.7), Value(-1.3))
    assert [[x.data for x in row] for row in h] == [
        [pytest.approx(-2.6), pytest.approx(1.4)], [pytest.approx(1.4), 0.0]]


def test_jvp_of_a_tuple_returning_function_matches_torch():
    torch_func = pytest.importorskip("torch.func")
    tangents = (RNG.standard_normal(2), RNG.standard_normal(3))
    ours = func.jvp(two_outputs, (t64(A), t64(B)), tangents)
    theirs = torch_func.jvp(two_outputs, torch_args(A, B), torch_args(*tangents))
    assert_nested_close(ours, theirs)


def test_jvp_keeps_a_list_of_outputs_a_list_and_names_a_bad_output():
    out, tangent = func.jvp(lambda a: [a * 2.0, a], (t64(A),), (np.ones(2),))
    assert isinstance(out, list) and isinstance(tangent, list)
    with pytest.raises(TypeError, match="jvp: output 0 of the function must be a Tensor"):
        func.jvp(lambda a: ("no", a), (t64(A),), (np.ones(2),))


def test_jvp_columns_pushes_a_stack_of_tangents_forward_one_column_each():
    from minigrad.func.forward import jvp_columns

    stack = (RNG.standard_normal((4, 2)), RNG.standard_normal((4, 3)))
    outs, structure, (c0, c1), aux = jvp_columns(two_outputs, (t64(A), t64(B)), stack)
    assert structure is tuple and aux is None and len(outs) == 2
    assert c0.shape == (4, 3) and c1.shape == (4, 2, 3)
    for j in range(4):
        _, (t0, t1) = func.jvp(two_outputs, (t64(A), t64(B)), (stack[0][j], stack[1][j]))
        np.testing.assert_allclose(c0.data[j], t0.data, rtol=1e-14)
        np.testing.assert_allclose(c1.data[j], t1.data, rtol=1e-14)


@pytest.mark.parametrize("chunk_size", [None, 1, 2])
def test_jacfwd_over_jacrev_of_a_tuple_returning_function_matches_torch(chunk_size):
    # (the inner jacrev's rows carry tangents: stacked, joined across chunks and cut per
    # output as graph ops, which the outer forward pass differentiates)
    torch_func = pytest.importorskip("torch.func")

    def f(x):
        return x * x * x, (x * A[0]).tanh().sum()

    x = np.array([0.3, -0.2, 0.7])
    ours = func.jacfwd(func.jacrev(f, chunk_size=chunk_size))(t64(x))
    assert_nested_close(ours, torch_func.jacfwd(torch_func.jacrev(f))(*torch_args(x)))


@pytest.mark.parametrize("call, match", [
    (lambda f, x: func.hvp(f, (x,), (np.ones(4),)), r"^hvp: tangent 0 has shape \(4,\)"),
    (lambda f, x: func.hvp(f, (x,), np.ones(3)), r"^hvp: primals and tangents must be tuples"),
    (lambda f, x: func.hvp(f, (x, x), (np.ones(3),)), r"^hvp: 2 primals but 1 tangents"),
    (lambda f, x: func.jvp(f, (x,), (np.ones(4),)), r"^jvp: tangent 0 has shape \(4,\)"),
])
def test_a_mismatched_vector_is_reported_by_the_function_the_student_called(call, match):
    x = t64(np.arange(3.0))
    with pytest.raises((ValueError, TypeError), match=match):
        call(lambda *xs: sum((v * v).sum() for v in xs), x)
