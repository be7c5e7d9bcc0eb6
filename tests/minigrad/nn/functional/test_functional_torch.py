"""PyTorch as an oracle for values and gradients (skipped when torch is not installed)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad.nn.functional as F
from minigrad import Tensor

torch = pytest.importorskip("torch")
tF = torch.nn.functional


def pair(x):
    """The same float64 data as a minigrad leaf and a torch leaf."""
    return Tensor(x.copy(), requires_grad=True), torch.tensor(x, requires_grad=True)


def check(mine, theirs, leaves, rng, atol=1e-10):
    np.testing.assert_allclose(mine.data, theirs.detach().numpy(), rtol=1e-9, atol=atol)
    g = rng.normal(size=mine.shape)
    mine.backward(g)
    theirs.backward(torch.tensor(g))
    for m, t in leaves:
        np.testing.assert_allclose(m.grad, t.grad.numpy(), rtol=1e-9, atol=atol)


@pytest.mark.parametrize("stride,padding,bias",
                         [(1, 0, True), (2, 1, True), ((2, 1), (0, 2), False)])
def test_conv2d(stride, padding, bias):
    rng = np.random.default_rng(0)
    x, tx = pair(rng.normal(size=(3, 2, 9, 8)))
    w, tw = pair(rng.normal(size=(4, 2, 3, 3)))
    leaves = [(x, tx), (w, tw)]
    b = tb = None
    if bias:
        b, tb = pair(rng.normal(size=4))
        leaves.append((b, tb))
    check(F.conv2d(x, w, b, stride, padding), tF.conv2d(tx, tw, tb, stride, padding), leaves, rng)


@pytest.mark.parametrize("k,s,p", [(2, None, 0), (3, 2, 1), ((2, 3), (1, 2), (1, 1)), (3, 1, 0)])
def test_pools(k, s, p):
    rng = np.random.default_rng(1)
    data = rng.normal(size=(2, 3, 7, 8))
    x, tx = pair(data)
    check(F.max_pool2d(x, k, s, p), tF.max_pool2d(tx, k, s, p), [(x, tx)], rng)
    x, tx = pair(data)
    check(F.avg_pool2d(x, k, s, p), tF.avg_pool2d(tx, k, s, p), [(x, tx)], rng)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_and_nll(reduction):
    rng = np.random.default_rng(2)
    z, tz = pair(rng.normal(0, 3, size=(7, 5)))
    t = rng.integers(0, 5, 7)
    check(F.cross_entropy(z, t, reduction),
          tF.cross_entropy(tz, torch.tensor(t), reduction=reduction), [(z, tz)], rng)
    z, tz = pair(rng.normal(0, 3, size=(7, 5)))
    check(F.nll_loss(z, t, reduction), tF.nll_loss(tz, torch.tensor(t), reduction=reduction),
          [(z, tz)], rng)


def test_binary_losses_and_mse():
    rng = np.random.default_rng(3)
    x, tx = pair(rng.normal(0, 3, size=(4, 3)))
    y, ty = pair(rng.uniform(size=(4, 3)))
    check(F.binary_cross_entropy_with_logits(x, y), tF.binary_cross_entropy_with_logits(tx, ty),
          [(x, tx), (y, ty)], rng)
    p, tp = pair(rng.uniform(0.05, 0.95, size=(4, 3)))
    y, ty = pair(rng.uniform(size=(4, 3)))
    check(F.binary_cross_entropy(p, y, "sum"), tF.binary_cross_entropy(tp, ty, reduction="sum"),
          [(p, tp), (y, ty)], rng)
    a, ta = pair(rng.normal(size=(5, 2)))
    b, tb = pair(rng.normal(size=(5, 2)))
    check(F.mse_loss(a, b), tF.mse_loss(ta, tb), [(a, ta), (b, tb)], rng)


@pytest.mark.parametrize("shape", [(8, 3), (6, 3, 5), (4, 3, 5, 5)])
def test_batch_norm_train_and_eval(shape):
    rng = np.random.default_rng(4)
    data = rng.normal(2, 3, size=shape)
    x, tx = pair(data)
    w, tw = pair(rng.uniform(0.5, 1.5, size=3))
    b, tb = pair(rng.normal(size=3))
    rm, rv = np.zeros(3), np.ones(3)
    trm, trv = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    check(F.batch_norm(x, rm, rv, w, b, training=True, momentum=0.2),
          tF.batch_norm(tx, trm, trv, tw, tb, training=True, momentum=0.2),
          [(x, tx), (w, tw), (b, tb)], rng, atol=1e-9)
    np.testing.assert_allclose(rm, trm.numpy())
    np.testing.assert_allclose(rv, trv.numpy())
    x, tx = pair(data)
    w, tw = pair(rng.uniform(0.5, 1.5, size=3))
    check(F.batch_norm(x, rm, rv, w, None, training=False),
          tF.batch_norm(tx, trm, trv, tw, None, training=False), [(x, tx), (w, tw)], rng)


def test_layer_norm():
    rng = np.random.default_rng(5)
    x, tx = pair(rng.normal(size=(3, 4, 5)))
    w, tw = pair(rng.uniform(0.5, 1.5, size=(4, 5)))
    b, tb = pair(rng.normal(size=(4, 5)))
    check(F.layer_norm(x, (4, 5), w, b), tF.layer_norm(tx, (4, 5), tw, tb),
          [(x, tx), (w, tw), (b, tb)], rng, atol=1e-9)


def test_linear():
    rng = np.random.default_rng(6)
    x, tx = pair(rng.normal(size=(2, 3, 4)))
    w, tw = pair(rng.normal(size=(5, 4)))
    b, tb = pair(rng.normal(size=5))
    check(F.linear(x, w, b), tF.linear(tx, tw, tb), [(x, tx), (w, tw), (b, tb)], rng)
