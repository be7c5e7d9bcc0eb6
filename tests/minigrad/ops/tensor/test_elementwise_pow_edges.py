"""Regression tests for pow's gradients at the edges (p = 0, x = 0, x < 0), compared with PyTorch
where it is installed."""

from __future__ import annotations

import numpy as np
import pytest

from minigrad import gradcheck
from tests._helpers import leaf

try:
    import torch
except ImportError:  # pragma: no cover - torch is optional
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


# --- 2. pow at the edges ------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pow_zero_exponent_gives_a_zero_gradient_at_zero(dtype):
    """d(x^0)/dx is 0 everywhere; it used to be 0·inf = NaN at x = 0."""
    x = leaf([0.0, 1.0, -2.0], dtype)
    (x**0).sum().backward()
    np.testing.assert_array_equal(x.grad, np.zeros(3, dtype))
    assert x.grad.dtype == dtype


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pow_zero_exponent_tensor_at_zero_base(dtype):
    x = leaf([0.0, 0.0, 2.0, 0.0], dtype)
    p = leaf([0.0, 2.0, 0.0, 0.5], dtype)
    with np.errstate(divide="ignore"):
        (x**p).sum().backward()
    np.testing.assert_array_equal(x.grad, np.array([0.0, 0.0, 0.0, np.inf], dtype))
    assert x.grad.dtype == dtype and p.grad.dtype == dtype


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pow_base_gradient_unchanged_where_p_is_not_zero(dtype):
    """The p = 0 fix changes no other element: bit for bit ``g·(p·x^(p−1))``, PyTorch's
    order (g last: ``ops/shared.py``, the scalar engine's order too)."""
    from minigrad.ops.tensor import POW

    rng = np.random.default_rng(4)
    x = rng.uniform(0.1, 3.0, (5, 7)).astype(dtype)
    p = rng.uniform(-3.0, 3.0, (5, 7)).astype(dtype)
    p[0, :3] = (1.0, 2.0, -1.0)
    g = rng.standard_normal((5, 7)).astype(dtype)
    out, saved = POW.forward(x, p)
    got = POW.grads[0](g, *saved)
    np.testing.assert_array_equal(got, g * (p * x ** (p - 1)))
    assert got.dtype == dtype
    # a scalar exponent (x ** 2) is a 0-d array of x's dtype
    p0 = np.asarray(2.0, dtype)
    out, saved = POW.forward(x, p0)
    np.testing.assert_array_equal(POW.grads[0](g, *saved), g * (p0 * x ** (p0 - 1)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pow_exponent_gradient_edges(dtype):
    """∂(x^p)/∂p: NaN for a negative base, 0 at x = 0 with p ≥ 0, x^p·ln x elsewhere."""
    x = leaf([-2.0, -0.5, 0.0, 0.0, 1.5, 3.0], dtype)
    p = leaf([2.0, 3.0, 2.0, 0.0, 0.5, -1.0], dtype)
    with np.errstate(invalid="ignore"):
        (x**p).sum().backward()
    xs, ps = x.data.astype(np.float64), p.data.astype(np.float64)
    expected = xs[4:] ** ps[4:] * np.log(xs[4:])
    assert np.isnan(p.grad[:2]).all()
    np.testing.assert_array_equal(p.grad[2:4], [0.0, 0.0])
    np.testing.assert_allclose(p.grad[4:], expected, rtol=1e-6)
    assert p.grad.dtype == dtype


def test_pow_exponent_gradient_of_a_negative_base_is_nan():
    """``(-2.0) ** x``: the exponent's gradient is NaN (it used to be a silent 0)."""
    x = leaf([1.0, 2.0, 3.0])
    ((-2.0) ** x).sum().backward()
    assert np.isnan(x.grad).all()


@needs_torch
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pow_gradients_match_torch_on_the_edges(dtype):
    xs = np.array([-2.0, -1.5, -1.0, 0.0, 0.0, 0.0, 0.0, 0.5, 1.0, 2.0, 0.0], dtype)
    ps = np.array([2.0, 0.5, 0.0, 0.0, 2.0, 0.5, -1.0, 0.0, 3.0, -0.5, 1.0], dtype)
    x, p = leaf(xs, dtype), leaf(ps, dtype)
    w = np.linspace(0.5, 1.5, xs.size).astype(dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        (x**p * w).sum().backward()
    tx = torch.tensor(xs, requires_grad=True)
    tp = torch.tensor(ps, requires_grad=True)
    (tx**tp * torch.tensor(w)).sum().backward()
    rtol = 1e-6 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(x.grad, tx.grad.numpy(), rtol=rtol, equal_nan=True)
    np.testing.assert_allclose(p.grad, tp.grad.numpy(), rtol=rtol, equal_nan=True)
    assert x.grad.dtype == dtype and p.grad.dtype == dtype


def test_pow_gradients_still_pass_gradcheck():
    rng = np.random.default_rng(5)
    x = leaf(rng.uniform(0.3, 2.0, (3, 4)))
    p = leaf(rng.uniform(-2.0, 2.0, (4,)))
    assert gradcheck(lambda a, b: a**b, x, p)
    assert gradcheck(lambda a: a**0 + a**3, x)


def test_pow_formula_documents_the_edges():
    from minigrad.ops.tensor import POW

    assert "NaN where x < 0" in POW.formula and "0 where p = 0" in POW.formula
    assert len([p for p in POW.formula.split(",  ")]) == 2  # one part per input (viz)
    assert "PyTorch" in POW.doc
