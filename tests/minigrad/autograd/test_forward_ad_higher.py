"""Forward over reverse: tangents flow through the nodes a ``create_graph`` backward builds,
so the tangent of a gradient is a Hessian-vector product.  Checked against the
other way to get one, double backward (``autograd.grad`` twice), in float64."""

from __future__ import annotations

import numpy as np
import pytest

from minigrad import Tensor, Value
from minigrad.autograd import grad
from minigrad.autograd.forward_ad import dual_level, make_dual, unpack_dual


def _tensor_f(x, w):
    """Elementwise (reductions' forward rules are not all in yet), with cross terms
    between ``x`` and ``w`` so that the Hessian is not diagonal."""
    return (x * w).tanh() * x + (w * w * x).exp() / 4.0


def _value_f(a, b):
    return (a * b).sin() * b ** 3 + (a * b).exp() / (1 + a * a) - b.tanh() * a


def _hvp_double_backward(f, leaves, vs, upstream=None):
    out = f(*leaves)
    grads = grad(out, leaves, grad_outputs=upstream, create_graph=True)
    return [getattr(h, "data", h) for h in grad(list(grads), leaves, grad_outputs=vs)]


def _hvp_forward_over_reverse(f, leaves, vs, upstream=None):
    with dual_level():
        duals = [make_dual(x, v) for x, v in zip(leaves, vs)]
        out = f(*duals)
        grads = grad(out, leaves, grad_outputs=upstream, create_graph=True)
        tangents = [unpack_dual(g).tangent for g in grads]
    assert all(t is not None for t in tangents), "no tangent reached a gradient"
    return [t.data for t in tangents]


def test_hessian_vector_product_on_tensors_forward_over_reverse_equals_double_backward():
    rng = np.random.default_rng(0)
    x = Tensor(rng.uniform(-1, 1, (3, 4)), requires_grad=True)
    w = Tensor(rng.uniform(-1, 1, (3, 4)), requires_grad=True)
    vs = [rng.standard_normal((3, 4)) for _ in range(2)]
    upstream = [rng.standard_normal((3, 4))]  # the Hessian of Σ upstream · f
    fwd = _hvp_forward_over_reverse(_tensor_f, [x, w], vs, upstream)
    rev = _hvp_double_backward(_tensor_f, [x, w], vs, upstream)
    for a, b in zip(fwd, rev):
        assert a.dtype == np.float64 and a.shape == (3, 4)
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    assert x.grad is None and w.grad is None


def test_hessian_vector_product_on_values_forward_over_reverse_equals_double_backward():
    a, b = Value(0.7), Value(-0.4)
    vs = [1.3, -0.6]
    fwd = _hvp_forward_over_reverse(_value_f, [a, b], vs)
    rev = _hvp_double_backward(_value_f, [a, b], vs)
    assert fwd == pytest.approx(rev, rel=1e-10, abs=1e-12)


def test_the_hessian_vector_product_matches_differences_of_gradients():
    """Independent of both engines' second-order code: (∇f(x + hv) − ∇f(x − hv)) / 2h."""
    a0, b0, va, vb, h = 0.7, -0.4, 1.3, -0.6, 1e-5

    def gradient(a, b):
        av, bv = Value(a), Value(b)
        _value_f(av, bv).backward()
        return np.array([av.grad, bv.grad])

    numeric = (gradient(a0 + h * va, b0 + h * vb) - gradient(a0 - h * va, b0 - h * vb)) / (2 * h)
    fwd = _hvp_forward_over_reverse(_value_f, [Value(a0), Value(b0)], [va, vb])
    np.testing.assert_allclose(fwd, numeric, rtol=1e-7)


def test_nodes_of_the_gradients_graph_carry_tangents_with_their_order():
    x = Tensor(np.array([0.3, -0.2]), requires_grad=True)
    with dual_level():
        y = make_dual(x, np.array([1.0, 0.0])).tanh()
        (g,) = grad(y, [x], grad_outputs=[np.ones(2)], create_graph=True)
        assert g.order == 1 and unpack_dual(g).tangent is not None
