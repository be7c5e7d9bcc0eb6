"""optim.SGD's update rule against hand-computed steps."""

from __future__ import annotations

import numpy as np

from minigrad import optim
from tests.minigrad.optim.test_optimizer import run

G = [(0.5, -1.0), (0.25, 2.0), (-1.0, 0.5)]


def test_sgd_plain_and_weight_decay():
    out = run(optim.SGD, G[:1], lr=0.1)
    np.testing.assert_allclose(out[0], [1 - 0.05, -2 + 0.1])
    out = run(optim.SGD, G[:1], lr=0.1, weight_decay=0.5)
    np.testing.assert_allclose(out[0], [1 - 0.1 * (0.5 + 0.5), -2 - 0.1 * (-1.0 - 1.0)])


def test_sgd_momentum_and_nesterov_by_hand():
    lr, mu = 0.1, 0.9
    p = np.array([1.0, -2.0])
    buf = None
    expected_m, expected_n = [], []
    pn, bufn = p.copy(), None
    for g in map(np.array, G):
        buf = g.copy() if buf is None else mu * buf + g
        p = p - lr * buf
        expected_m.append(p)
        bufn = g.copy() if bufn is None else mu * bufn + g
        pn = pn - lr * (g + mu * bufn)
        expected_n.append(pn)
    np.testing.assert_allclose(run(optim.SGD, G, lr=lr, momentum=mu), expected_m)
    np.testing.assert_allclose(run(optim.SGD, G, lr=lr, momentum=mu, nesterov=True), expected_n)
