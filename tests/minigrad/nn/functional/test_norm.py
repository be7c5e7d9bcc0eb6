"""nn.functional.norm: batch_norm's statistics and running update, layer_norm's values."""

from __future__ import annotations

import numpy as np

import minigrad.nn.functional as F
from minigrad import Tensor


def test_batch_norm_training_stats_and_running_update():
    rng = np.random.default_rng(7)
    x = rng.normal(3.0, 2.0, size=(64, 3, 4, 4))
    rm, rv = np.zeros(3), np.ones(3)
    out = F.batch_norm(Tensor(x), rm, rv, training=True, momentum=0.1)
    np.testing.assert_allclose(out.data.mean(axis=(0, 2, 3)), 0, atol=1e-10)
    np.testing.assert_allclose(out.data.var(axis=(0, 2, 3)), 1, atol=1e-4)
    np.testing.assert_allclose(rm, 0.1 * x.mean(axis=(0, 2, 3)))
    np.testing.assert_allclose(rv, 0.9 + 0.1 * x.var(axis=(0, 2, 3), ddof=1))
    w, b = rng.normal(size=3), rng.normal(size=3)
    ev = F.batch_norm(Tensor(x), rm, rv, Tensor(w), Tensor(b), training=False)
    ref = (x - rm[:, None, None]) / np.sqrt(rv[:, None, None] + 1e-5) * w[:, None, None] \
        + b[:, None, None]
    np.testing.assert_allclose(ev.data, ref)


def test_layer_norm_values():
    x = np.random.default_rng(8).normal(size=(3, 4, 5))
    out = F.layer_norm(Tensor(x), (4, 5)).data
    np.testing.assert_allclose(out.mean(axis=(1, 2)), 0, atol=1e-12)
    ref = (x - x.mean(axis=-1, keepdims=True)) / np.sqrt(x.var(axis=-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(F.layer_norm(Tensor(x), 5).data, ref)
