"""nn.init: the statistics of each initialiser, fans, and in-place fills."""

from __future__ import annotations

import math

import numpy as np
import pytest

from minigrad import Tensor, nn
from minigrad.nn import init
from tests._helpers import param


@pytest.mark.parametrize("fn,std", [
    (lambda s, r: nn.init.kaiming_uniform(s, rng=r), math.sqrt(2 / 400)),
    (lambda s, r: nn.init.kaiming_normal(s, rng=r), math.sqrt(2 / 400)),
    (lambda s, r: nn.init.kaiming_normal(s, mode="fan_out", rng=r), math.sqrt(2 / 300)),
    (lambda s, r: nn.init.xavier_uniform(s, rng=r), math.sqrt(2 / 700)),
    (lambda s, r: nn.init.xavier_normal(s, gain=2.0, rng=r), 2 * math.sqrt(2 / 700)),
])
def test_init_statistics(fn, std):
    w = fn((300, 400), np.random.default_rng(0))
    assert w.dtype == np.float32 and w.shape == (300, 400)
    assert abs(w.std() / std - 1) < 0.01 and abs(w.mean()) < 0.01 * std * 10


def test_init_fans_and_fill():
    assert nn.init.fan_in_and_fan_out((8, 3, 5, 5)) == (75, 200)
    assert nn.init.calculate_gain("tanh") == pytest.approx(5 / 3)
    conv = nn.Conv2d(3, 8, 5)
    nn.init.kaiming_normal_(conv.weight, rng=0)
    assert conv.weight.dtype == np.float32
    assert abs(conv.weight.data.std() - math.sqrt(2 / 75)) < 0.03
    with pytest.raises(ValueError, match="at least 2 axes"):
        nn.init.xavier_uniform((5,))


@pytest.mark.parametrize("fill", [init.kaiming_uniform_, init.kaiming_normal_,
                                  init.xavier_uniform_, init.xavier_normal_])
def test_init_fill_refuses_backward_through_an_older_graph(fill):
    w = param(np.ones((2, 2)))
    loss = (Tensor(np.ones((2, 2), np.float32)) * w).sum()
    assert fill(w, rng=0) is w
    with pytest.raises(RuntimeError, match="changed in place"):
        loss.backward()
