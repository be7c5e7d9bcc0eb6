"""Regression tests for two fixed bugs: negative axes in transpose/permute (and the
other axis ops), and pow's gradients at the edges (p = 0, x = 0, x < 0).

Gradients are compared with PyTorch where it is installed (those tests skip
otherwise) and with ``gradcheck``'s central differences everywhere.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad import gradcheck
from tests._helpers import leaf

try:
    import torch
except ImportError:  # pragma: no cover - torch is optional
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


# --- 1. transpose / permute with negative axes -------------------------------------------
def test_transpose_negative_axes_gradient_is_the_inverse_permutation():
    """The reported case: a silent wrong gradient (w instead of w.T) on a square matrix."""
    x = leaf(np.arange(9.0).reshape(3, 3))
    w = np.arange(9.0).reshape(3, 3)
    (x.transpose(-1, 0) * w).sum().backward()
    np.testing.assert_array_equal(x.grad, w.T)


def test_permute_negative_axes_backward_runs():
    """The reported case: backward used to fail with an unbroadcast shape error."""
    x = mg.randn(2, 3, 4, requires_grad=True)
    x.permute(-1, 0, 1).sum().backward()
    assert x.grad.shape == (2, 3, 4) and x.grad.dtype == np.float32
    np.testing.assert_array_equal(x.grad, np.ones((2, 3, 4), np.float32))


PERMS = [
    ((3, 3), (-1, 0)),
    ((3, 3), (-1, -2)),
    ((3, 4), (1, -2)),
    ((2, 3, 4), (-1, 0, 1)),
    ((2, 3, 4), (1, -1, 0)),
    ((2, 3, 4), (-2, -3, -1)),
    ((2, 3, 4, 5), (2, -1, -4, 1)),
]


def _inverse(axes, ndim):
    return tuple(np.argsort([a % ndim for a in axes]))


@pytest.mark.parametrize("shape,axes", PERMS, ids=[str(a) for _, a in PERMS])
@pytest.mark.parametrize("method", ["transpose", "permute"])
def test_negative_axes_match_the_normalised_permutation(shape, axes, method):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(shape)
    x = leaf(a)
    y = getattr(x, method)(*axes)
    np.testing.assert_array_equal(y.data, a.transpose(axes))
    w = rng.standard_normal(y.shape)
    (y * w).sum().backward()
    np.testing.assert_array_equal(x.grad, w.transpose(_inverse(axes, len(shape))))
    assert gradcheck(lambda t: getattr(t, method)(*axes) * 1.0, leaf(a))


@needs_torch
@pytest.mark.parametrize("shape,axes", PERMS, ids=[str(a) for _, a in PERMS])
def test_permute_negative_axes_against_torch(shape, axes):
    rng = np.random.default_rng(1)
    a, = rng.standard_normal((1, *shape))
    w = rng.standard_normal(a.transpose(axes).shape)
    x = leaf(a)
    (x.permute(*axes) * w).sum().backward()
    t = torch.tensor(a, requires_grad=True)
    (t.permute(*axes) * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(x.grad, t.grad.numpy(), rtol=0, atol=0)


def test_transpose_rule_on_negative_recorded_axes():
    """The rule itself inverts negative axes (a node records the axes as given)."""
    from minigrad.ops.tensor import TRANSPOSE

    g = np.arange(24.0).reshape(4, 2, 3)  # the gradient of x.permute(-1, 0, 1), x (2, 3, 4)
    (rule,) = TRANSPOSE.grads
    np.testing.assert_array_equal(rule(g, axes=(-1, 0, 1)), g.transpose(1, 2, 0))


@pytest.mark.parametrize("axes,kind,pattern", [
    ((0, 0), ValueError, r"transpose.*\(0, 0\).*not a permutation.*shape \(2, 3\).*axis 0 is "
                         r"given twice"),
    ((-1, 1), ValueError, r"transpose.*\(-1, 1\).*not a permutation.*shape \(2, 3\).*axis 1"),
    ((0,), ValueError, r"transpose.*\(0,\).*not a permutation of the 2 axes.*shape \(2, 3\)"),
    ((0, 1, 2), ValueError, r"transpose.*not a permutation of the 2 axes.*shape \(2, 3\)"),
    ((0, 2), IndexError, r"transpose.*axis 2 in \(0, 2\) is out of range.*shape \(2, 3\).*"
                         r"-2 to 1"),
    ((-3, 0), IndexError, r"transpose.*axis -3 in \(-3, 0\) is out of range.*shape \(2, 3\)"),
])
def test_invalid_permutations_raise_clear_errors(axes, kind, pattern):
    x = mg.zeros(2, 3, requires_grad=True)
    for call in (lambda: x.permute(*axes), lambda: x.transpose(*axes)):
        with pytest.raises(kind, match=pattern):
            call()


def test_transpose_without_axes_and_of_a_scalar_still_work():
    x = leaf(np.arange(6.0).reshape(2, 3))
    (x.T * np.arange(6.0).reshape(3, 2)).sum().backward()
    np.testing.assert_array_equal(x.grad, np.arange(6.0).reshape(3, 2).T)
    s = leaf(2.0)
    s.permute(()).backward()
    assert s.grad == 1.0


# The other ops that take axes: their backward rules must handle negative axes too
# (each is checked numerically, and against PyTorch where there is an equivalent).
AXIS_CASES = [
    ("squeeze(-1)", (3, 4, 1), lambda t: t.squeeze(-1), lambda t: t.squeeze(-1)),
    ("squeeze((0, -1))", (1, 3, 1), lambda t: t.squeeze((0, -1)), lambda t: t.squeeze((0, -1))),
    ("unsqueeze(-1)", (3, 4), lambda t: t.unsqueeze(-1), lambda t: t.unsqueeze(-1)),
    ("unsqueeze(-2)", (3, 4), lambda t: t.unsqueeze(-2), lambda t: t.unsqueeze(-2)),
    ("swapaxes(-1, 0)", (2, 3, 4), lambda t: t.swapaxes(-1, 0), lambda t: t.transpose(-1, 0)),
    ("flatten(-2, -1)", (2, 3, 4), lambda t: t.flatten(-2, -1), lambda t: t.flatten(-2, -1)),
    ("flatten(0, -2)", (2, 3, 4), lambda t: t.flatten(0, -2), lambda t: t.flatten(0, -2)),
    ("cat(axis=-1)", (2, 3), lambda t: mg.cat([t, t * 2.0], axis=-1),
     lambda t: torch.cat([t, t * 2.0], dim=-1)),
    ("cat(axis=-2)", (2, 3), lambda t: mg.concatenate([t * 2.0, t], axis=-2),
     lambda t: torch.cat([t * 2.0, t], dim=-2)),
    ("stack(axis=-1)", (2, 3), lambda t: mg.stack([t, t * 3.0], axis=-1),
     lambda t: torch.stack([t, t * 3.0], dim=-1)),
    ("stack(axis=-3)", (2, 3), lambda t: mg.stack([t * 3.0, t], axis=-3),
     lambda t: torch.stack([t * 3.0, t], dim=-3)),
    ("sum(-1)", (2, 3, 4), lambda t: t.sum(axis=-1), lambda t: t.sum(dim=-1)),
    ("sum((-1, 0), keepdims)", (2, 3, 4), lambda t: t.sum(axis=(-1, 0), keepdims=True),
     lambda t: t.sum(dim=(-1, 0), keepdim=True)),
    ("mean(-2)", (2, 3, 4), lambda t: t.mean(axis=-2), lambda t: t.mean(dim=-2)),
    ("max(-1)", (2, 3, 4), lambda t: t.max(axis=-1), lambda t: t.amax(dim=-1)),
    ("min(-2, keepdims)", (2, 3, 4), lambda t: t.min(axis=-2, keepdims=True),
     lambda t: t.amin(dim=-2, keepdim=True)),
    ("var(-1)", (2, 3, 4), lambda t: t.var(axis=-1), lambda t: t.var(dim=-1, unbiased=False)),
    ("logsumexp(-2)", (2, 3, 4), lambda t: t.logsumexp(axis=-2),
     lambda t: t.logsumexp(dim=-2)),
    ("softmax(-2)", (2, 3, 4), lambda t: t.softmax(axis=-2), lambda t: t.softmax(dim=-2)),
    ("log_softmax(-3)", (2, 3, 4), lambda t: t.log_softmax(axis=-3),
     lambda t: t.log_softmax(dim=-3)),
]


@pytest.mark.parametrize("name,shape,fn,_", AXIS_CASES, ids=[c[0] for c in AXIS_CASES])
def test_axis_ops_with_negative_axes_gradcheck(name, shape, fn, _):
    rng = np.random.default_rng(2)
    x = leaf(rng.permutation(np.prod(shape)).reshape(shape) / 7.0)  # distinct: no max ties
    assert gradcheck(fn, x)


@needs_torch
@pytest.mark.parametrize("name,shape,fn,torch_fn", AXIS_CASES, ids=[c[0] for c in AXIS_CASES])
def test_axis_ops_with_negative_axes_against_torch(name, shape, fn, torch_fn):
    rng = np.random.default_rng(3)
    a = rng.permutation(np.prod(shape)).reshape(shape) / 7.0
    x = leaf(a)
    y = fn(x)
    w = rng.standard_normal(y.shape)
    (y * w).sum().backward()
    t = torch.tensor(a, requires_grad=True)
    ty = torch_fn(t)
    np.testing.assert_allclose(y.data, ty.detach().numpy(), rtol=1e-12, atol=1e-12)
    (ty * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(x.grad, t.grad.numpy(), rtol=1e-10, atol=1e-12)


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
