"""Property tests (hypothesis): random shapes for broadcasting, elementwise ops and reductions."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import minigrad
from minigrad import Tensor

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

dims = st.lists(st.integers(1, 4), min_size=0, max_size=3).map(tuple)


@st.composite
def broadcast_pair(draw):
    """Two shapes numpy can broadcast: drop leading axes and set some axes to 1."""
    out = draw(dims)
    a = [n if draw(st.booleans()) else 1 for n in out][draw(st.integers(0, len(out))):]
    b = [n if draw(st.booleans()) else 1 for n in out][draw(st.integers(0, len(out))):]
    return tuple(a), tuple(b)


def _arr(shape, seed, lo=-2.0, hi=2.0):
    return np.random.default_rng(seed).uniform(lo, hi, size=shape)


def _grads(fn, *arrays):
    ts = [Tensor(a.copy(), requires_grad=True) for a in arrays]
    out = fn(*ts)
    u = np.random.default_rng(9).standard_normal(out.shape)
    out.backward(u)
    return out, u, [t.grad for t in ts]


@SETTINGS
@given(broadcast_pair(), st.sampled_from(["add", "sub", "mul", "div", "maximum"]),
       st.integers(0, 10**6))
def test_binary_ops_broadcast_like_numpy(shapes, name, seed):
    sa, sb = shapes
    a, b = _arr(sa, seed), _arr(sb, seed + 1, 0.5, 2.0)
    fns = {"add": (lambda x, y: x + y, np.add), "sub": (lambda x, y: x - y, np.subtract),
           "mul": (lambda x, y: x * y, np.multiply), "div": (lambda x, y: x / y, np.divide),
           "maximum": (lambda x, y: x.maximum(y), np.maximum)}
    fn_t, fn_np = fns[name]
    out, u, (ga, gb) = _grads(fn_t, a, b)
    np.testing.assert_allclose(out.data, fn_np(a, b), rtol=1e-12)
    assert ga.shape == sa and gb.shape == sb
    # the gradients against the closed forms, summed over broadcast axes
    A, B = np.broadcast_arrays(a, b)
    local = {"add": (1, 1), "sub": (1, -1), "mul": (B, A), "div": (1 / B, -A / B**2),
             "maximum": ((A > B) + 0.5 * (A == B), (B > A) + 0.5 * (A == B))}[name]
    for g, d, shape in ((ga, local[0], sa), (gb, local[1], sb)):
        full = np.broadcast_to(u * d, out.shape)
        expected = full.sum(axis=tuple(range(full.ndim - len(shape)))) if full.ndim > len(shape) \
            else full
        expected = expected.sum(axis=tuple(i for i, n in enumerate(shape) if n == 1),
                                keepdims=True) if shape else expected
        np.testing.assert_allclose(g, np.reshape(expected, shape), rtol=1e-10, atol=1e-12)


@SETTINGS
@given(dims, st.sampled_from(["exp", "tanh", "sigmoid", "relu", "abs", "neg", "gelu"]),
       st.integers(0, 10**6))
def test_elementwise_gradients(shape, name, seed):
    a = _arr(shape, seed)
    a = np.where(np.abs(a) < 1e-3, 0.5, a)
    fn = (lambda t: -t) if name == "neg" else (lambda t: getattr(t, name)())
    assert minigrad.gradcheck(fn, Tensor(a, requires_grad=True))


@SETTINGS
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple), st.data(),
       st.sampled_from(["sum", "mean", "max", "min", "logsumexp", "var"]), st.booleans())
def test_reductions_match_numpy_and_conserve_shape(shape, data, name, keepdims):
    ndim = len(shape)
    axis = data.draw(st.one_of(
        st.none(), st.integers(-ndim, ndim - 1),
        st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True).map(tuple)))
    a = np.random.default_rng(data.draw(st.integers(0, 10**6))).permutation(
        int(np.prod(shape))).reshape(shape) / 3.0
    x = Tensor(a, requires_grad=True)
    out = getattr(x, name)(axis=axis, keepdims=keepdims)
    if name != "logsumexp":
        np.testing.assert_allclose(out.data, getattr(np, name)(a, axis=axis, keepdims=keepdims),
                                   rtol=1e-12, atol=1e-12)
    out.backward(np.ones(out.shape))
    assert x.grad.shape == a.shape
    if name in ("sum", "mean", "max", "min", "logsumexp"):
        # each output element spreads total gradient 1 (sum: n copies of 1, mean: 1/n each ...)
        per_out = {"sum": a.size / max(out.size, 1), "mean": 1.0}.get(name, 1.0)
        np.testing.assert_allclose(x.grad.sum(), out.size * per_out, rtol=1e-9)


@SETTINGS
@given(dims, st.integers(0, 10**6))
def test_float32_preserved(shape, seed):
    x = Tensor(_arr(shape, seed).astype(np.float32), requires_grad=True)
    y = ((x * 2 + 1).tanh() * x - x / 3).sigmoid().sum()
    y.backward()
    assert y.dtype == np.float32 and x.grad.dtype == np.float32
