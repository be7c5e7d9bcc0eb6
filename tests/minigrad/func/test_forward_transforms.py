"""minigrad.func's forward-mode transforms: jvp, jacfwd, hessian, hvp."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad
from minigrad import Tensor, Value, func

from .test_reverse_transforms import numeric_jacobian, t64, tall, tall_np

W = np.random.default_rng(5).standard_normal((4, 3))


def wide(x):  # R^6 -> R^2: a wide Jacobian
    return (x.reshape(2, 3).tanh() * x.reshape(2, 3)).sum(axis=1)


def wide_np(x):
    x = x.reshape(2, 3)
    return (np.tanh(x) * x).sum(axis=1)


def mlp_loss(x):  # a scalar function with a dense, non-diagonal Hessian
    h = (t64(W) @ x).tanh()
    return (h * h).sum() + (x * x * x).sum() * 0.1


def test_jvp_gives_the_output_and_the_directional_derivative():
    x, t = t64([0.3, -0.2]), np.array([1.0, 2.0])
    out, tangent = func.jvp(tall, (x,), (t,))
    np.testing.assert_allclose(out.data, tall_np(x.data))
    np.testing.assert_allclose(tangent.data, numeric_jacobian(tall_np, x.data) @ t, rtol=1e-7)


def test_jvp_builds_no_graph_and_runs_no_backward():
    x = t64([0.3, -0.2])
    with func.count_passes() as n:
        out, tangent = func.jvp(tall, (x,), (np.ones(2),))
    assert (n.forward, n.backward, n.backward_ops) == (1, 0, 0)
    assert n.forward_ops == 4  # reshape, mul, tanh, sum: each carried a tangent
    assert not out.requires_grad and out.is_leaf and not tangent.requires_grad


def test_jvp_on_values_is_dual_numbers():
    out, tangent = func.jvp(lambda v: (v * v).sin(), (Value(0.7),), (1.0,))
    assert isinstance(tangent, Value)
    assert tangent.data == pytest.approx(2 * 0.7 * np.cos(0.49), rel=1e-12)


def test_jvp_with_two_primals_adds_both_directions():
    a, b = t64([1.0, 2.0]), t64([3.0, -1.0])
    ta, tb = np.array([0.5, 0.0]), np.array([1.0, 1.0])
    _, tangent = func.jvp(lambda a, b: a * b.tanh(), (a, b), (ta, tb))
    want = ta * np.tanh(b.data) + a.data * (1 - np.tanh(b.data) ** 2) * tb
    np.testing.assert_allclose(tangent.data, want, rtol=1e-12)


def test_jvp_of_a_function_returning_a_tuple_gives_a_tuple_of_tangents():
    x = t64([0.3, -0.2])
    (o1, o2), (t1, t2) = func.jvp(lambda x: (x * 2.0, x.exp()), (x,), (np.ones(2),))
    np.testing.assert_allclose(t1.data, [2.0, 2.0])
    np.testing.assert_allclose(t2.data, np.exp(x.data))


def test_jvp_keeps_float32():
    x = minigrad.tensor([0.3, -0.2])
    _, tangent = func.jvp(lambda x: x.tanh(), (x,), (np.ones(2, dtype=np.float32),))
    assert tangent.data.dtype == np.float32


def test_jvp_refuses_tangents_of_the_wrong_shape_or_dtype_naming_both():
    x = t64([0.3, -0.2])
    with pytest.raises(ValueError, match=r"tangent 0 has shape \(3,\).*\(2,\)"):
        func.jvp(tall, (x,), (np.ones(3),))
    with pytest.raises(TypeError, match="tangent 0 has dtype float32.*float64"):
        func.jvp(tall, (x,), (np.ones(2, dtype=np.float32),))
    with pytest.raises(TypeError, match=r"tuples.*jvp\(f, \(x,\), \(t,\)\)"):
        func.jvp(tall, x, np.ones(2))
    with pytest.raises(ValueError, match="2 primals but 1 tangents"):
        func.jvp(lambda a, b: a * b, (x, x), (np.ones(2),))


def test_jvp_of_a_function_returning_a_non_tensor_is_a_clear_error():
    with pytest.raises(TypeError, match="must return a Tensor or a Value, got float"):
        func.jvp(lambda x: 1.0, (t64([1.0]),), (np.ones(1),))


@pytest.mark.parametrize("f, f_np, x", [(tall, tall_np, [0.3, -0.2]),
                                        (wide, wide_np, [0.1, 0.2, -0.3, 0.4, -0.5, 0.6])],
                         ids=["tall", "wide"])
def test_jacfwd_and_jacrev_agree_with_each_other_and_with_differences(f, f_np, x):
    x = t64(x)
    fwd, rev = func.jacfwd(f)(x), func.jacrev(f)(x)
    assert fwd.shape == rev.shape == f_np(x.data).shape + x.shape
    np.testing.assert_allclose(fwd.data, rev.data, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(fwd.data, numeric_jacobian(f_np, x.data), rtol=1e-7)


def test_jacfwd_with_tuple_argnums_gives_one_jacobian_per_argument():
    a, b = t64([1.0, 2.0]), t64([3.0, -1.0, 0.5])
    ja, jb = func.jacfwd(lambda a, b: a.reshape(2, 1) * b.reshape(1, 3), argnums=(0, 1))(a, b)
    assert ja.shape == (2, 3, 2) and jb.shape == (2, 3, 3)
    np.testing.assert_allclose(ja.data[1, 2], [0.0, 0.5])
    np.testing.assert_allclose(jb.data[1, 2], [0.0, 0.0, 2.0])


def test_hessian_is_forward_over_reverse_and_matches_reverse_over_reverse():
    x = t64([0.3, -0.2, 0.5])
    h = func.hessian(mlp_loss)(x)
    assert h.shape == (3, 3)
    np.testing.assert_allclose(h.data, func.jacrev(func.grad(mlp_loss))(x).data, rtol=1e-10)
    np.testing.assert_allclose(h.data, h.data.T, rtol=1e-10)  # a Hessian is symmetric
    assert abs(h.data[0, 1]) > 1e-3  # and this one is not diagonal


def test_hessian_of_a_value_function_is_the_second_derivative():
    assert func.hessian(lambda v: v * v * v)(Value(2.0)).data == pytest.approx(12.0)


def test_hvp_equals_the_hessian_times_the_vector_without_forming_it():
    x, v = t64([0.3, -0.2, 0.5]), np.array([1.0, -2.0, 0.5])
    with func.count_passes() as n:
        value, (hv,) = func.hvp(mlp_loss, (x,), (v,))
    np.testing.assert_allclose(hv.data, func.hessian(mlp_loss)(x).data @ v, rtol=1e-10)
    assert float(value.data) == pytest.approx(float(mlp_loss(x).data))
    assert (n.forward, n.backward) == (1, 1)  # one pass each way, whatever the size of x


def test_reverse_over_forward_agrees_with_forward_over_reverse():
    x = t64([0.3, -0.2, 0.5])  # (jvp inside jacrev goes by reverse mode twice: levels.py)
    np.testing.assert_allclose(func.jacrev(func.jacfwd(mlp_loss))(x).data,
                               func.hessian(mlp_loss)(x).data, rtol=1e-10)


def test_jacfwd_of_a_function_of_a_tensor_returning_a_value_is_refused_clearly():
    with pytest.raises(TypeError, match="Tensor or a Value"):
        func.jacfwd(lambda x: "no")(t64([1.0]))


def test_forward_transforms_leave_no_tangent_behind():
    x = t64([0.3, -0.2])
    func.jacfwd(tall)(x)
    assert minigrad.autograd.unpack_dual(x).tangent is None
    assert isinstance(func.jvp(tall, (x,), (np.ones(2),))[1], Tensor)


def test_jvp_through_a_model_records_no_graph_even_though_its_weights_require_grad():
    mg_nn = minigrad.nn
    minigrad.manual_seed(0)
    model = mg_nn.Sequential(mg_nn.Linear(3, 4), mg_nn.Tanh(), mg_nn.Linear(4, 2))
    x = minigrad.tensor(np.ones((5, 3), dtype=np.float32))
    with minigrad.record() as tape:
        out, tangent = func.jvp(model, (x,), (np.ones((5, 3), dtype=np.float32),))
    assert out.is_leaf and tangent.shape == (5, 2)
    assert not any(getattr(e, "node", None) is not None and e.node.op is not None
                   for e in tape.events), "forward mode recorded graph nodes"


def test_the_transforms_work_under_an_outer_no_grad():
    x = t64([0.3, -0.2, 0.5])
    with minigrad.no_grad():
        g = func.grad(mlp_loss)(x)
        h = func.hessian(mlp_loss)(x)
        _, (hv,) = func.hvp(mlp_loss, (x,), (np.ones(3),))
    np.testing.assert_allclose(g.data, func.grad(mlp_loss)(x).data)
    np.testing.assert_allclose(hv.data, h.data @ np.ones(3), rtol=1e-10)
