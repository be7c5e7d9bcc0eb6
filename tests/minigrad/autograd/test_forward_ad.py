"""Forward mode (``autograd.forward_ad``): PyTorch's API and semantics on both engines.

Derivatives are checked against central differences in float64; the levels'
life cycle, graph-free propagation, grad mode alongside, and every error.
"""

from __future__ import annotations

import math
import threading

import numpy as np
import pytest

import minigrad
from minigrad import Tensor, Value
from minigrad.autograd import forward_ad as fwAD
from minigrad.autograd.forward_ad import dual_level, make_dual, unpack_dual


def _central(f, x, v, h=1e-6):
    return (f(x + h * v) - f(x - h * v)) / (2 * h)


# --- composite functions vs central differences -----------------------------------------
def _mlp(x, w1, b1, w2):
    """An MLP-like chain of elementwise ops (no reductions: those rules are not all in
    yet), the same code on Tensors and on raw arrays."""
    h = x * w1 + b1
    h = h.tanh() if isinstance(h, Tensor) else np.tanh(h)
    h = h * w2 - h * h / 3.0
    return h.sigmoid() if isinstance(h, Tensor) else 1 / (1 + np.exp(-h))


def test_an_mlp_like_chain_of_tensors_gets_the_directional_derivative():
    rng = np.random.default_rng(0)
    x, w1, b1, w2 = (rng.standard_normal((4, 3)) for _ in range(4))
    v = rng.standard_normal((4, 3))
    with dual_level():
        out = _mlp(make_dual(Tensor(x), v), Tensor(w1), Tensor(b1), Tensor(w2))
        primal, tangent = unpack_dual(out)
    np.testing.assert_allclose(primal.data, _mlp(x, w1, b1, w2), rtol=1e-12)
    numeric = _central(lambda z: _mlp(z, w1, b1, w2), x, v)
    np.testing.assert_allclose(tangent.data, numeric, rtol=1e-6, atol=1e-8)


def test_tangents_on_several_inputs_add_up():
    rng = np.random.default_rng(1)
    x, w1, b1, w2 = (rng.standard_normal(5) for _ in range(4))
    vx, vw = rng.standard_normal(5), rng.standard_normal(5)
    with dual_level():
        out = _mlp(make_dual(Tensor(x), vx), make_dual(Tensor(w1), vw), Tensor(b1),
                   Tensor(w2))
        tangent = unpack_dual(out).tangent.data
    h = 1e-6
    numeric = (_mlp(x + h * vx, w1 + h * vw, b1, w2)
               - _mlp(x - h * vx, w1 - h * vw, b1, w2)) / (2 * h)
    np.testing.assert_allclose(tangent, numeric, rtol=1e-6, atol=1e-8)


def _scalar_f(a, b):
    sin = a.sin() if isinstance(a, Value) else math.sin(a)
    ex = (a * b).exp() if isinstance(a, Value) else math.exp(a * b)
    return sin * b ** 3 + ex / (1 + a * a) - b


def test_a_value_expression_is_dual_numbers():
    a0, b0, va, vb = 0.7, -0.4, 1.3, -0.6
    with dual_level():
        y = _scalar_f(make_dual(Value(a0), va), make_dual(Value(b0), vb))
        primal, tangent = unpack_dual(y)
    h = 1e-6
    numeric = (_scalar_f(a0 + h * va, b0 + h * vb) - _scalar_f(a0 - h * va, b0 - h * vb)) / (2 * h)
    assert primal.data == pytest.approx(_scalar_f(a0, b0), rel=1e-14)
    assert isinstance(tangent, Value) and isinstance(tangent.data, float)
    assert tangent.data == pytest.approx(numeric, rel=1e-7)


def test_the_classic_dual_number_of_x_cubed():
    """(2 + ε)³ = 8 + 12ε: the ε part is the derivative 3x² at 2."""
    with dual_level():
        y = make_dual(Value(2.0), 1.0) ** 3
        assert unpack_dual(y).tangent.data == 12.0


# --- no graph, grad mode ----------------------------------------------------------------
def test_no_graph_is_recorded_when_no_input_requires_grad():
    with dual_level():
        x = make_dual(Tensor(np.arange(3.0)), np.ones(3))
        y = (x * 2.0).exp() + x
        a = make_dual(Value(1.0, requires_grad=False), 1.0)
        b = (a * a).tanh()
        for node in (x, y, a, b):
            assert node.op is None and node.parents == () and not node.requires_grad
        assert unpack_dual(y).tangent is not None and unpack_dual(b).tangent is not None


def test_forward_mode_runs_under_no_grad():
    with dual_level(), minigrad.no_grad():
        x = make_dual(Tensor(np.array([0.5, 1.0]), requires_grad=True), np.array([1.0, 2.0]))
        y = x.tanh()
        assert y.op is None
        np.testing.assert_allclose(unpack_dual(y).tangent.data,
                                   (1 - np.tanh([0.5, 1.0]) ** 2) * [1.0, 2.0])


def test_grad_mode_and_forward_mode_together():
    """One pass gives J·v (forward) and records the graph for backward (reverse)."""
    rng = np.random.default_rng(2)
    x0 = Tensor(rng.standard_normal(4), requires_grad=True)
    v = rng.standard_normal(4)
    with dual_level():
        x = make_dual(x0, v)
        y = (x * x).tanh()
        assert y.op is not None and y.requires_grad
        jvp = unpack_dual(y).tangent.data
        g = rng.standard_normal(4)
        y.backward(g)
    slope = (1 - np.tanh(x0.data ** 2) ** 2) * 2 * x0.data
    np.testing.assert_allclose(jvp, slope * v, rtol=1e-10)
    np.testing.assert_allclose(x0.grad, slope * g, rtol=1e-10)


def test_make_dual_shares_the_primal_data_and_passes_gradients_through():
    x0 = Tensor(np.array([1.0, 2.0]), requires_grad=True)
    with dual_level():
        x = make_dual(x0, [0.5, 0.5])
        assert x.data is x0.data and x is not x0 and x.parents == (x0,)
        (x * 3.0).backward(np.ones(2))
    np.testing.assert_array_equal(x0.grad, [3.0, 3.0])


def test_unpack_dual_of_a_value_without_tangent_is_itself_and_none():
    y = Tensor([1.0])
    assert unpack_dual(y) == (y, None)
    with dual_level():
        assert unpack_dual(y) == (y, None)
        assert unpack_dual(y).primal is y and unpack_dual(y).tangent is None


def test_the_primal_of_a_dual_has_no_tangent_and_the_same_value():
    with dual_level():
        x = make_dual(Tensor(np.array([1.0, 2.0])), np.array([3.0, 4.0]))
        primal, tangent = unpack_dual(x)
        assert primal.data is x.data and unpack_dual(primal).tangent is None
        np.testing.assert_array_equal(tangent.data, [3.0, 4.0])
        assert unpack_dual((primal * 2.0).exp()).tangent is None


def test_a_python_float_and_a_list_are_tangents_in_the_primals_dtype():
    with dual_level():
        x = make_dual(Tensor(np.float32(2.0)), 1.5)
        t = unpack_dual(x).tangent.data
        assert t.dtype == np.float32 and t.shape == () and t == 1.5
        y = make_dual(Tensor([1.0, 2.0]), [1, 0])
        assert unpack_dual(y).tangent.data.dtype == np.float32
        z = make_dual(Tensor([1.0, 2.0]), Tensor([0.0, 1.0]))
        np.testing.assert_array_equal(unpack_dual(z).tangent.data, [0.0, 1.0])


def test_float32_primals_keep_float32_tangents_through_a_chain():
    with dual_level():
        x = make_dual(Tensor(np.array([0.1, 0.2], dtype=np.float32)),
                      np.array([1.0, 1.0], dtype=np.float32))
        y = (x * 2.5 + 1.0).tanh().exp() / 3.0 - x ** 2
        primal, tangent = unpack_dual(y)
    assert primal.data.dtype == np.float32 and tangent.data.dtype == np.float32


# --- levels -------------------------------------------------------------------------------
def test_tangents_are_gone_after_the_level_exits():
    with dual_level() as level:
        assert isinstance(level, int)
        x = make_dual(Tensor(np.ones(2)), np.ones(2))
        y = x.exp()
        assert unpack_dual(y).tangent is not None
    assert unpack_dual(y).tangent is None and unpack_dual(x).tangent is None
    assert x.origin is None or x.origin.tangent is None  # the memory is released too
    with dual_level():  # a new level does not bring them back
        assert unpack_dual(y).tangent is None
        assert unpack_dual(y * 2.0).tangent is None


def test_a_level_can_be_entered_again_after_an_error_inside():
    with pytest.raises(ZeroDivisionError):
        with dual_level():
            x = make_dual(Value(1.0), 1.0)
            raise ZeroDivisionError
    assert unpack_dual(x).tangent is None
    with dual_level():
        assert unpack_dual(make_dual(Value(1.0), 2.0).exp()).tangent.data == pytest.approx(
            2 * math.e)


def test_levels_do_not_nest():
    with dual_level():
        with pytest.raises(RuntimeError, match="nested"):
            with dual_level():
                pass
        assert unpack_dual(make_dual(Value(1.0), 1.0) * 2).tangent.data == 2.0  # still on


def test_a_level_is_per_thread():
    seen = []

    def other():
        seen.append(unpack_dual(x * 2.0).tangent)

    with dual_level():
        x = make_dual(Tensor([1.0]), [1.0])
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
    assert seen == [None]


# --- errors -------------------------------------------------------------------------------
def test_make_dual_outside_a_level_is_a_clear_error():
    with pytest.raises(RuntimeError, match="dual_level"):
        make_dual(Tensor([1.0]), [1.0])


@pytest.mark.parametrize("tangent, words", [
    (np.ones(3), r"\(2,\) float64.*\(3,\) float64"),
    (np.ones(2, dtype=np.float32), r"\(2,\) float64.*\(2,\) float32"),
    ([1.0, 2.0, 3.0], r"primal \(2,\).*tangent \(3,\)"),
    (Tensor(np.ones((2, 1))), r"primal \(2,\).*tangent \(2, 1\)"),
])
def test_a_tangent_of_another_shape_or_dtype_is_refused_naming_both(tangent, words):
    with dual_level(), pytest.raises(ValueError, match=words):
        make_dual(Tensor(np.zeros(2)), tangent)


def test_other_bad_duals_are_clear_errors():
    with dual_level():
        with pytest.raises(TypeError, match="floating"):
            make_dual(Tensor(np.arange(3)), np.ones(3))
        with pytest.raises(TypeError, match="real number"):
            make_dual(Value(1.0), "x")
        with pytest.raises(TypeError, match="Tensor or a Value"):
            make_dual(np.ones(2), np.ones(2))
        with pytest.raises(TypeError, match="Value tangent, got a Tensor"):
            make_dual(Value(1.0), Tensor(1.0))
        with pytest.raises(TypeError, match="Tensor or a Value"):
            unpack_dual(3.0)


def test_an_op_without_a_forward_rule_names_the_op_and_the_shapes():
    # not registered: a student's new op with backward rules but no forward rule
    op = minigrad.autograd.Op(name="row_dot", engine="tensor", symbol="·",
                              forward=lambda a, b: ((a * b).sum(axis=1), (a, b)),
                              grads=(lambda g, a, b: g[:, None] * b,
                                     lambda g, a, b: g[:, None] * a),
                              formulas=("∂/∂a = b", "∂/∂b = a"))
    with dual_level():
        a = make_dual(Tensor(np.ones((2, 3))), np.ones((2, 3)))
        with pytest.raises(fwAD.NoForwardRuleError, match=r"row_dot.*\(2, 3\), \(2, 3\)"):
            minigrad.apply_op(op, a, Tensor(np.ones((2, 3))))


def test_an_in_place_update_of_a_dual_tensor_is_refused_not_left_stale():
    with dual_level():
        x = make_dual(Tensor(np.ones(2)), np.ones(2))
        with pytest.raises(RuntimeError, match="in-place '\\*='.*stale"):
            x *= 2.0
        np.testing.assert_array_equal(x.data, [1.0, 1.0])  # refused before any change
        buf = Tensor(np.zeros(2))
        with pytest.raises(RuntimeError, match="operand"):
            buf += x
        buf += Tensor(np.ones(2))  # no tangent on either side: allowed
        np.testing.assert_array_equal(buf.data, [1.0, 1.0])


def test_an_in_place_update_of_a_recorded_dual_is_a_new_node_with_its_tangent():
    x0 = Tensor(np.array([1.0, 2.0]), requires_grad=True)
    with dual_level():
        x = y = make_dual(x0, np.array([1.0, 1.0]))
        y *= y  # a recorded node: Python makes y = y * y
        assert y is not x
        np.testing.assert_array_equal(unpack_dual(y).tangent.data, [2.0, 4.0])
