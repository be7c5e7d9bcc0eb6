"""nn.functional.losses: values against their definitions, stability at extreme inputs."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad.nn.functional as F
from minigrad import Tensor
from tests.minigrad.nn.functional.test_functional import T


# --- losses -----------------------------------------------------------------------------
def test_cross_entropy_value_matches_log_softmax():
    rng = np.random.default_rng(4)
    z, t = rng.normal(size=(6, 4)), rng.integers(0, 4, 6)
    logp = z - np.log(np.exp(z).sum(1, keepdims=True))
    picked = logp[np.arange(6), t]
    assert F.cross_entropy(Tensor(z), t).item() == pytest.approx(-picked.mean())
    assert F.cross_entropy(Tensor(z), t, "sum").item() == pytest.approx(-picked.sum())
    np.testing.assert_allclose(F.cross_entropy(Tensor(z), t, "none").data, -picked)
    nll = F.nll_loss(F.log_softmax(Tensor(z), axis=1), Tensor(t))
    assert nll.item() == pytest.approx(-picked.mean())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cross_entropy_is_stable_at_huge_logits(dtype):
    z = T([[1000.0, -1000.0, 0.0], [-1000.0, 1000.0, 0.0], [0.0, 0.0, 1000.0]], dtype=dtype)
    t = np.array([1, 1, 0])
    loss = F.cross_entropy(z, t)
    assert loss.dtype == dtype and np.isfinite(loss.item())
    assert loss.item() == pytest.approx((2000 + 0 + 1000) / 3)
    loss.backward()
    probs = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1]], dtype)
    onehot = np.eye(3, dtype=dtype)[t]
    np.testing.assert_array_equal(z.grad, (probs - onehot) / 3)  # exact
    assert z.grad.dtype == dtype


def test_binary_losses_values_and_stability():
    rng = np.random.default_rng(6)
    x, y = rng.normal(size=7), rng.uniform(size=7)
    p = 1 / (1 + np.exp(-x))
    ref = -(y * np.log(p) + (1 - y) * np.log(1 - p)).mean()
    assert F.binary_cross_entropy_with_logits(Tensor(x), Tensor(y)).item() == pytest.approx(ref)
    assert F.binary_cross_entropy(Tensor(p), Tensor(y)).item() == pytest.approx(ref)
    big = T([1000.0, -1000.0], dtype=np.float32)
    loss = F.binary_cross_entropy_with_logits(big, np.array([0.0, 1.0]))
    assert loss.item() == pytest.approx(1000.0)
    loss.backward()
    np.testing.assert_allclose(big.grad, [0.5, -0.5])
    edge = F.binary_cross_entropy(Tensor(np.array([0.0, 1.0])), np.array([1.0, 0.0]))
    assert edge.item() == pytest.approx(100.0)  # log clamped at -100, like PyTorch


def test_mse_loss_and_int_targets():
    pred = T([1.0, 2.0, 4.0])
    loss = F.mse_loss(pred, np.array([1, 1, 1]))
    assert loss.item() == pytest.approx((0 + 1 + 9) / 3)
    loss.backward()
    np.testing.assert_allclose(pred.grad, [0, 2 / 3, 2.0])
