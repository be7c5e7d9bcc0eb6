"""max_pool2d's gradient as a graph: a scatter-add of g at each window's winner."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad.nn.functional as F
from minigrad import Tensor
from minigrad.autograd import grad
from minigrad.nn.functional.conv import MAX_POOL2D


def _distinct(shape, seed=0):
    n = int(np.prod(shape))
    return np.random.default_rng(seed).permutation(n).reshape(shape) / n


def _winner_pick(x, v, k, s):
    """For each window of x (k×k, stride s), v at the window's (first) maximum: loops."""
    N, C, H, W = x.shape
    Ho, Wo = (H - k) // s + 1, (W - k) // s + 1
    out = np.empty((N, C, Ho, Wo))
    for n in range(N):
        for c in range(C):
            for i in range(Ho):
                for j in range(Wo):
                    win = x[n, c, i * s:i * s + k, j * s:j * s + k]
                    a, b = np.unravel_index(np.argmax(win), win.shape)
                    out[n, c, i, j] = v[n, c, i * s + a, j * s + b]
    return out


@pytest.mark.parametrize("k,s", [(2, 2), (3, 1), (2, 3)])
def test_the_gradient_of_the_gradient_picks_at_the_winners(k, s):
    """gx = vjp(g) is linear in g; d⟨gx, v⟩/dg is v read at each window's winner."""
    x = Tensor(_distinct((2, 3, 7, 7)), requires_grad=True)
    y = F.max_pool2d(x, k, s)
    g = Tensor(np.random.default_rng(1).normal(size=y.shape), requires_grad=True)
    (gx,) = grad(y, [x], grad_outputs=[g], create_graph=True)
    assert gx.requires_grad and gx.order == 1
    v = np.random.default_rng(2).normal(size=x.shape)
    (gg,) = grad((gx * v).sum(), [g])
    np.testing.assert_allclose(gg, _winner_pick(x.data, v, k, s), rtol=1e-12)


def test_its_graph_is_a_scatter_add_and_pool_is_piecewise_linear_in_x():
    x = Tensor(_distinct((1, 2, 4, 4)), requires_grad=True)
    (gx,) = grad((F.max_pool2d(x, 2) ** 2).sum(), [x], create_graph=True)
    names, stack, seen = set(), [gx], set()
    while stack:
        n = stack.pop()
        if n.id not in seen:
            seen.add(n.id)
            names.add(n.op.name if n.op else None)
            stack.extend(n.parents)
    assert "scatter_add" in names
    (h,) = grad(gx.sum(), [x])  # d/dx Σ 2·pool(x) at the winners: 2 per winner
    np.testing.assert_array_equal(h, 2 * (np.asarray(gx.data) != 0))


def test_the_gradient_keeps_conv2ds_channel_major_layout():
    """conv2d's output is channel-major in memory; the rule's gradient has that layout too,
    so conv2d's backward reads it as an (O, N·Ho·Wo) matrix without a copy."""
    x = _distinct((8, 3, 6, 6))
    out, saved = MAX_POOL2D.forward(x)
    g = np.ones(out.shape)
    gx = MAX_POOL2D.grads[0](g, *saved)
    assert gx.shape == x.shape and gx.transpose(1, 0, 2, 3).flags.c_contiguous
