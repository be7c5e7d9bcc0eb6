"""Derivatives of derivatives: ``backward(create_graph=True)`` and ``autograd.grad``."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad as mg
from minigrad import Tensor, Value, nn
from minigrad.autograd import grad, record
from minigrad.engines.higher_order import NotTwiceDifferentiableError


def _tanh_derivatives(x: float) -> list[float]:
    """tanh's first four derivatives in closed form (t = tanh x)."""
    t = math.tanh(x)
    s = 1 - t * t
    return [s, -2 * t * s, s * (6 * t * t - 2), 8 * t * s * (2 - 3 * t * t)]


# --- backward(create_graph=True) ----------------------------------------------------------
def test_create_graph_leaves_a_node_in_grad_with_its_own_graph():
    x = Value(0.4, "x")
    x.tanh().backward(create_graph=True)
    assert isinstance(x.grad, Value) and x.grad.op is not None
    assert x.grad.requires_grad and x.grad.order == 1
    assert x.grad.data == pytest.approx(_tanh_derivatives(0.4)[0])


def test_create_graph_false_keeps_plain_numbers():
    x = Value(0.4)
    x.tanh().backward()
    assert type(x.grad) is float
    t = Tensor(np.ones(3), requires_grad=True)
    (t * t).sum().backward()
    assert type(t.grad) is np.ndarray


def test_retain_graph_defaults_to_create_graph():
    x = Tensor(np.array([0.3, -0.2]), requires_grad=True)
    y = (x * x).tanh().sum()
    y.backward(create_graph=True)
    y.backward(create_graph=True)  # the graph was kept: a second pass works
    x2 = Tensor(np.array([0.3, -0.2]), requires_grad=True)
    y2 = (x2 * x2).tanh().sum()
    y2.backward()
    with pytest.raises(mg.GraphReleasedError):
        y2.backward()


@pytest.mark.parametrize("x0", [-1.3, 0.2, 0.9])
def test_tanh_first_four_derivatives_on_values(x0):
    x = Value(x0, "x")
    d = x.tanh()
    for k, expected in enumerate(_tanh_derivatives(x0), start=1):
        (d,) = grad(d, [x], create_graph=True)
        assert d.data == pytest.approx(expected, rel=1e-9, abs=1e-12)
        assert d.order == k


def test_tanh_derivatives_on_tensors_match_values():
    xs = np.array([-1.3, 0.2, 0.9])
    x = Tensor(xs, requires_grad=True)
    d = x.tanh()
    for k in range(4):
        (d,) = grad(d.sum(), [x], create_graph=True)
        want = [_tanh_derivatives(v)[k] for v in xs]
        np.testing.assert_allclose(d.data, want, rtol=1e-9, atol=1e-12)


def test_nodes_remember_which_edge_built_them():
    a, b = Value(2.0, "a"), Value(3.0, "b")
    c = a * b
    (ga,) = grad(c, [a], create_graph=True)
    assert ga.order == 1
    assert ga.origin.made_by == (c.id, 0)  # mul's rule for input 0 (g · b)
    assert set(ga.parents) >= {b}


def test_a_second_create_graph_pass_builds_order_two():
    x = Value(0.5)
    (g1,) = grad(x.exp() * x, [x], create_graph=True)
    (g2,) = grad(g1, [x], create_graph=True)
    assert g1.order == 1 and g2.order == 2
    assert g2.data == pytest.approx(math.exp(0.5) * (0.5 + 2))


def test_hessian_vector_product_matches_the_full_hessian():
    rng = np.random.default_rng(0)
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    for p in model.parameters():
        p.data = p.data.astype(np.float64)
    x = Tensor(rng.standard_normal((5, 3)))
    w = model[0].weight

    def loss_of():
        return (model(x) ** 2).mean()

    v = rng.standard_normal(w.shape)
    (g,) = grad(loss_of(), [w], create_graph=True)
    (hv,) = grad((g * Tensor(v)).sum(), [w])
    # the Hessian, one column per weight, by differentiating each gradient entry
    H = np.zeros((w.data.size, w.data.size))
    (g,) = grad(loss_of(), [w], create_graph=True)
    flat = g.reshape(-1)
    for i in range(w.data.size):
        (col,) = grad(flat[i], [w], retain_graph=True)
        H[i] = col.reshape(-1)
    np.testing.assert_allclose(hv.reshape(-1), H @ v.reshape(-1), rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(H, H.T, atol=1e-10)


def test_gradient_penalty_trains_through_the_gradient():
    """‖∂L/∂x‖² as part of a loss: its gradient reaches the weights through x's gradient."""
    w = Tensor(np.array([0.5, -0.3]), requires_grad=True)
    x = Tensor(np.array([1.0, 2.0]), requires_grad=True)
    loss = ((w * x).tanh()).sum()
    (gx,) = grad(loss, [x], create_graph=True)
    penalty = (gx * gx).sum()
    penalty.backward()
    # by hand: gx = w·(1 − tanh²(wx)); d penalty/dw = Σ 2 gx · d gx/dw
    t = np.tanh(w.data * x.data)
    s = 1 - t * t
    dgx_dw = s + w.data * (-2 * t * s) * x.data
    np.testing.assert_allclose(w.grad, 2 * (w.data * s) * dgx_dw, rtol=1e-6)


# --- autograd.grad --------------------------------------------------------------------------
def test_grad_does_not_touch_dot_grad():
    x = Tensor(np.array([1.0, 2.0]), requires_grad=True)
    x.grad = np.array([10.0, 10.0])
    y = (x * x).sum()
    (g,) = grad(y, [x])
    np.testing.assert_allclose(g, [2.0, 4.0])
    np.testing.assert_allclose(x.grad, [10.0, 10.0])


def test_grad_of_several_outputs_adds_their_seeds():
    x = Value(3.0)
    (g,) = grad([x * x, x * 2.0], [x], grad_outputs=[1.0, 10.0])
    assert g == pytest.approx(6.0 + 20.0)


def test_unused_input_is_an_error_naming_it_or_none():
    x, y = Value(1.0, "x"), Value(2.0, "y")
    with pytest.raises(RuntimeError, match="'y'.*allow_unused"):
        grad(x * 3.0, [x, y])
    gx, gy = grad(x * 3.0, [x, y], allow_unused=True)
    assert gx == 3.0 and gy is None


def test_non_scalar_output_needs_grad_outputs_of_its_shape():
    x = Tensor(np.ones((2, 3)), requires_grad=True)
    with pytest.raises(RuntimeError, match="non-scalar output of shape"):
        grad(x * 2, [x])
    with pytest.raises(ValueError, match=r"gradient has shape \(3,\).*\(2, 3\)"):
        grad(x * 2, [x], grad_outputs=[np.ones(3)])
    with pytest.raises(ValueError, match="2 grad_outputs for 1 outputs"):
        grad(x * 2, [x], grad_outputs=[np.ones((2, 3)), None])


def test_output_without_grad_is_an_error():
    with pytest.raises(RuntimeError, match="output 0 does not require grad"):
        grad(Tensor(np.ones(2)).sum(), [Tensor(np.ones(2), requires_grad=True)])


def test_fast_engine_cannot_build_a_graph():
    x = Value(1.0)
    with pytest.raises(ValueError, match="create_graph=True runs the reference engine"):
        mg.autograd.backward(x * x, create_graph=True, engine="fast")


def test_create_graph_is_recorded_like_any_backward():
    """The stepper's recorder sees the pass: its edges, and the nodes it builds."""
    x = Value(0.7, "x")
    y = x.tanh()
    with record() as tape:
        y.backward(create_graph=True)
    kinds = [e.kind for e in tape.events]
    assert "contribute" in kinds and "created" in kinds
    built = [e.node for e in tape.events if e.kind == "created"]
    assert built and all(n.order == 1 for n in built if n.op is not None)


# --- what cannot be differentiated twice says so --------------------------------------------
def test_a_pending_op_stops_a_create_graph_pass_with_its_name():
    # (every built-in op is twice differentiable now: an unregistered op marked otherwise)
    once = mg.autograd.Op(name="scale_once", engine="tensor", symbol="2·",
                          forward=lambda x: (2 * x, ()), grads=(lambda g: 2 * g,),
                          formulas=("∂/∂x = 2",), twice_differentiable=False)
    x = Tensor(np.ones((1, 1, 4, 4)), requires_grad=True)
    y = mg.apply_op(once, x).sum()
    with pytest.raises(NotTwiceDifferentiableError, match="scale_once"):
        grad(y, [x], create_graph=True)


def test_a_rule_that_leaves_the_graph_is_caught_not_silently_wrong():
    x = Value(0.3)
    with mg.engines.higher_order.differentiating(1):
        with pytest.raises(TypeError, match="cut that graph"):
            math.sin(x)
    t = Tensor(np.ones(2), requires_grad=True)
    with mg.engines.higher_order.differentiating(1):
        with pytest.raises(TypeError, match="cut that graph"):
            np.asarray(t)


def test_anomaly_mode_watches_a_create_graph_pass():
    x = Tensor(np.array([1.0, 0.0]), requires_grad=True)
    with mg.detect_anomaly():
        (g,) = grad((x * x).sum(), [x], create_graph=True)
        np.testing.assert_allclose(g.data, [2.0, 0.0])
        with pytest.raises(mg.AnomalyError, match="sqrt"):
            grad(x.sqrt().sum(), [x], create_graph=True)


@pytest.mark.parametrize("fn", ["tanh", "sigmoid"])
def test_large_arrays_take_the_plain_formula_on_nodes(fn):
    """Rules with an in-place path for big arrays (tanh, sigmoid) still build a graph."""
    x = Tensor(np.linspace(-2, 2, 40_000), requires_grad=True)
    (g,) = grad(getattr(x, fn)().sum(), [x], create_graph=True)
    (h,) = grad(g.sum(), [x])
    t = np.tanh(x.data) if fn == "tanh" else 1 / (1 + np.exp(-x.data))
    want = -2 * t * (1 - t * t) if fn == "tanh" else t * (1 - t) * (1 - 2 * t)
    np.testing.assert_allclose(h, want, rtol=1e-9, atol=1e-12)
