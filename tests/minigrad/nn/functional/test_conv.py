"""nn.functional.conv: conv2d and the pools against naive numpy loops, odd sizes, ties, overlaps."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad.nn.functional as F
from minigrad import Tensor
from tests.minigrad.nn.functional.test_functional import T


# --- values against naive references ---------------------------------------------------
def naive_conv2d(x, w, b, stride, padding):
    N, C, H, W = x.shape
    O, _, kh, kw = w.shape
    (sh, sw), (ph, pw) = stride, padding
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    Ho, Wo = (H + 2 * ph - kh) // sh + 1, (W + 2 * pw - kw) // sw + 1
    out = np.zeros((N, O, Ho, Wo))
    for n in range(N):
        for o in range(O):
            for i in range(Ho):
                for j in range(Wo):
                    patch = xp[n, :, i * sh:i * sh + kh, j * sw:j * sw + kw]
                    out[n, o, i, j] = (patch * w[o]).sum() + (b[o] if b is not None else 0)
    return out


def naive_pool(x, k, s, p, reduce, pad_value):
    N, C, H, W = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])), constant_values=pad_value)
    Ho, Wo = (H + 2 * p[0] - k[0]) // s[0] + 1, (W + 2 * p[1] - k[1]) // s[1] + 1
    out = np.zeros((N, C, Ho, Wo))
    for i in range(Ho):
        for j in range(Wo):
            win = xp[:, :, i * s[0]:i * s[0] + k[0], j * s[1]:j * s[1] + k[1]]
            out[:, :, i, j] = reduce(win, axis=(2, 3))
    return out


@pytest.mark.parametrize("shape,wshape,stride,padding,bias", [
    ((2, 3, 7, 6), (4, 3, 3, 3), 1, 0, True),
    ((1, 2, 8, 8), (3, 2, 3, 2), 2, 1, True),
    ((3, 1, 5, 5), (2, 1, 1, 1), 1, 0, False),
    ((1, 2, 9, 7), (2, 2, 4, 3), (2, 3), (1, 2), True),
])
def test_conv2d_matches_naive_loops(shape, wshape, stride, padding, bias):
    rng = np.random.default_rng(0)
    x, w = rng.normal(size=shape), rng.normal(size=wshape)
    b = rng.normal(size=wshape[0]) if bias else None
    s = stride if isinstance(stride, tuple) else (stride, stride)
    p = padding if isinstance(padding, tuple) else (padding, padding)
    out = F.conv2d(Tensor(x), Tensor(w), None if b is None else Tensor(b), stride, padding)
    np.testing.assert_allclose(out.data, naive_conv2d(x, w, b, s, p), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("k,s,p", [((2, 2), None, (0, 0)), ((3, 3), (2, 2), (1, 1)),
                                   ((2, 3), (1, 2), (0, 1)), ((3, 3), (1, 1), (0, 0))])
def test_pools_match_naive_loops(k, s, p):
    x = np.random.default_rng(1).normal(size=(2, 3, 7, 8))
    stride = k if s is None else s
    out = F.max_pool2d(Tensor(x), k, s, p)
    np.testing.assert_allclose(out.data, naive_pool(x, k, stride, p, np.max, -np.inf))
    out = F.avg_pool2d(Tensor(x), k, s, p)
    np.testing.assert_allclose(out.data, naive_pool(x, k, stride, p, np.mean, 0.0), rtol=1e-12)


def test_max_pool_odd_size_drops_the_last_row_and_ties_send_one_gradient():
    x = T(np.ones((1, 1, 5, 5)))
    out = F.max_pool2d(x, 2)
    assert out.shape == (1, 1, 2, 2)
    out.sum().backward()
    # each window's gradient goes to exactly one element: the first maximum
    assert x.grad.sum() == 4 and x.grad[0, 0, 0, 0] == 1 and x.grad[0, 0, 0, 1] == 0
    assert x.grad[0, 0, 4].sum() == 0 and x.grad[0, 0, :, 4].sum() == 0


def test_overlapping_max_pool_accumulates_gradients():
    x = T(np.arange(16.0).reshape(1, 1, 4, 4))
    F.max_pool2d(x, 2, stride=1).sum().backward()
    # the bottom-right 3x3 block holds each 2x2 window's max; 15 is in one window
    assert x.grad[0, 0, 3, 3] == 1 and x.grad[0, 0, 1, 1] == 1 and x.grad.sum() == 9
