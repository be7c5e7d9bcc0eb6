"""minigrad.func's reverse-mode transforms: grad, value_and_grad, vjp, jacrev."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad
from minigrad import Tensor, Value, func


def t64(data, **kw):
    return minigrad.tensor(np.asarray(data, dtype=np.float64), dtype=np.float64, **kw)


def numeric_jacobian(f, x, h=1e-6):
    """Central differences of a numpy function: shape out.shape + x.shape."""
    x = np.asarray(x, dtype=np.float64)
    out = np.asarray(f(x))
    jac = np.zeros(out.shape + x.shape)
    for idx in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[idx] = h
        jac[(...,) + idx] = (np.asarray(f(x + step)) - np.asarray(f(x - step))) / (2 * h)
    return jac


def tall(x):  # R^2 -> R^5: a tall Jacobian
    return (x.reshape(1, 2) * t64(np.arange(10.0).reshape(5, 2))).tanh().sum(axis=1)


def tall_np(x):
    return np.tanh(x.reshape(1, 2) * np.arange(10.0).reshape(5, 2)).sum(axis=1)


def test_grad_of_a_sum_of_squares_is_twice_the_input():
    x = t64([1.0, -2.0, 3.0])
    g = func.grad(lambda x: (x * x).sum())(x)
    assert isinstance(g, Tensor) and not g.requires_grad
    np.testing.assert_array_equal(g.data, [2.0, -4.0, 6.0])


def test_grad_leaves_the_callers_nodes_and_their_grad_alone():
    x = t64([1.0, 2.0], requires_grad=True)
    x.grad = np.array([7.0, 7.0])
    func.grad(lambda x: (x * x).sum())(x)
    np.testing.assert_array_equal(x.grad, [7.0, 7.0])
    assert x.is_leaf


def test_grad_with_tuple_argnums_returns_one_gradient_per_argument():
    a, b = t64([1.0, 2.0]), t64([3.0, 4.0])
    ga, gb = func.grad(lambda a, b: (a * b).sum(), argnums=(0, 1))(a, b)
    np.testing.assert_array_equal(ga.data, b.data)
    np.testing.assert_array_equal(gb.data, a.data)


def test_grad_with_has_aux_returns_the_aux_untouched():
    x = t64([1.0, 2.0])
    g, aux = func.grad(lambda x: ((x * x).sum(), "note"), has_aux=True)(x)
    assert aux == "note"
    np.testing.assert_array_equal(g.data, [2.0, 4.0])


def test_value_and_grad_gives_the_value_from_the_same_pass():
    x = t64([1.0, 2.0])
    with func.count_passes() as n:
        value, g = func.value_and_grad(lambda x: (x * x).sum())(x)
    assert float(value.data) == 5.0 and (n.forward, n.backward) == (1, 1)
    np.testing.assert_array_equal(g.data, [2.0, 4.0])


def test_grad_on_values_is_the_scalar_derivative():
    g = func.grad(lambda v: (v * v).tanh())(Value(0.5))
    assert isinstance(g, Value) and g.is_leaf and not g.requires_grad
    assert g.data == pytest.approx(2 * 0.5 * (1 - np.tanh(0.25) ** 2), rel=1e-12)


def test_grad_of_grad_is_the_second_derivative_on_values_and_tensors():
    assert func.grad(func.grad(lambda v: v * v * v))(Value(2.0)).data == pytest.approx(12.0)
    hess = func.jacrev(func.grad(lambda x: (x * x * x).sum()))(t64([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(hess.data, np.diag([6.0, 12.0, 18.0]))


def test_an_unused_argument_gets_a_zero_gradient():
    ga, gb = func.grad(lambda a, b: (a * a).sum(), argnums=(0, 1))(t64([1.0]), t64([5.0, 6.0]))
    np.testing.assert_array_equal(gb.data, [0.0, 0.0])


def test_jacrev_of_a_tall_map_matches_central_differences():
    x = t64([0.3, -0.2])
    jac = func.jacrev(tall)(x)
    assert jac.shape == (5, 2)
    np.testing.assert_allclose(jac.data, numeric_jacobian(tall_np, x.data), rtol=1e-7)


def test_jacrev_of_a_matrix_valued_map_has_shape_out_plus_in():
    w = t64(np.arange(6.0).reshape(2, 3))
    jac = func.jacrev(lambda x: w * x.tanh())(t64(np.ones((2, 3)) * 0.1))
    assert jac.shape == (2, 3, 2, 3)
    np.testing.assert_allclose(
        jac.data, numeric_jacobian(lambda x: w.data * np.tanh(x), np.ones((2, 3)) * 0.1),
        rtol=1e-7)


def test_jacrev_keeps_float32():
    jac = func.jacrev(lambda x: x * x)(minigrad.tensor([1.0, 2.0]))
    assert jac.data.dtype == np.float32


def test_vjp_gives_the_output_and_a_reusable_vjp_function():
    x = t64([0.3, -0.2])
    out, vjp_fn = func.vjp(tall, x)
    np.testing.assert_allclose(out.data, tall_np(x.data))
    jac = numeric_jacobian(tall_np, x.data)
    for c in (np.ones(5), np.arange(5.0)):
        (g,) = vjp_fn(c)
        np.testing.assert_allclose(g.data, c @ jac, rtol=1e-7)


def test_vjp_refuses_a_cotangent_of_the_wrong_shape_or_dtype():
    _, vjp_fn = func.vjp(tall, t64([0.3, -0.2]))
    with pytest.raises(ValueError, match=r"shape \(4,\).*\(5,\)"):
        vjp_fn(np.ones(4))
    with pytest.raises(TypeError, match="float32.*float64"):
        vjp_fn(np.ones(5, dtype=np.float32))


def test_grad_of_a_vector_valued_function_is_a_clear_error():
    with pytest.raises(ValueError, match=r"single number.*shape \(5,\)"):
        func.grad(tall)(t64([0.3, -0.2]))


def test_a_function_returning_a_non_tensor_is_a_clear_error():
    with pytest.raises(TypeError, match="must return a Tensor or a Value, got ndarray"):
        func.grad(lambda x: x.data.sum() * np.ones(1))(t64([1.0]))


def test_inputs_that_are_not_nodes_are_a_clear_error():
    with pytest.raises(TypeError, match=r"got ndarray \(wrap it"):
        func.grad(lambda x: x)(np.ones(2))
    with pytest.raises(TypeError, match="int64"):
        func.grad(lambda x: x)(minigrad.tensor(np.arange(3)))


def test_bad_argnums_are_a_clear_error():
    f = lambda a, b: (a * b).sum()  # noqa: E731
    with pytest.raises(ValueError, match="argnums=2 but the function got 2 arguments"):
        func.grad(f, argnums=2)(t64([1.0]), t64([2.0]))
    with pytest.raises(ValueError, match="twice"):
        func.grad(f, argnums=(0, -2))(t64([1.0]), t64([2.0]))
