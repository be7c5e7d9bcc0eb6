"""optim.Adam and AdamW's update rules against hand-computed steps."""

from __future__ import annotations

import numpy as np

from minigrad import optim
from tests.minigrad.optim.test_optimizer import run

G = [(0.5, -1.0), (0.25, 2.0), (-1.0, 0.5)]


def test_adam_by_hand():
    lr, b1, b2, eps = 0.01, 0.9, 0.999, 1e-8
    p, m, v = np.array([1.0, -2.0]), np.zeros(2), np.zeros(2)
    expected = []
    for t, g in enumerate(map(np.array, G), start=1):
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        p = p - lr * (m / (1 - b1**t)) / (np.sqrt(v / (1 - b2**t)) + eps)
        expected.append(p)
    np.testing.assert_allclose(run(optim.Adam, G, lr=lr), expected, rtol=1e-12)
    # the first step moves every coordinate by lr (m̂/√v̂ = sign(g)), whatever |g|
    first = run(optim.Adam, G[:1], lr=lr)[0]
    np.testing.assert_allclose(np.abs(first - [1.0, -2.0]), lr, rtol=1e-6)


def test_adamw_decays_the_weights_directly():
    lr, wd = 0.01, 0.1
    adam = run(optim.Adam, G[:1], lr=lr)[0]
    adamw = run(optim.AdamW, G[:1], lr=lr, weight_decay=wd)[0]
    np.testing.assert_allclose(adamw, adam - lr * wd * np.array([1.0, -2.0]), rtol=1e-12)
    # Adam's weight decay is L2: added to the gradient, so it goes through the √v scaling
    l2 = run(optim.Adam, G[:1], lr=lr, weight_decay=wd)[0]
    assert not np.allclose(l2, adamw)
