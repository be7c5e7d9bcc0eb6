"""optim's learning-rate schedulers, by hand and against torch.optim.lr_scheduler when installed."""

from __future__ import annotations

import math

import numpy as np
import pytest

from minigrad import optim
from tests._helpers import param


def test_schedulers():
    opt = optim.SGD([param([1.0])], lr=1.0)
    sched = optim.StepLR(opt, step_size=2, gamma=0.5)
    lrs = []
    for _ in range(6):
        lrs.append(opt.param_groups[0]["lr"])
        sched.step()
    assert lrs == [1.0, 1.0, 0.5, 0.5, 0.25, 0.25]
    opt = optim.Adam([param([1.0])], lr=0.1)
    sched = optim.CosineAnnealingLR(opt, T_max=4, eta_min=0.01)
    lrs = []
    for _ in range(5):
        lrs.append(sched.get_last_lr()[0])
        sched.step()
    expected = [0.01 + 0.09 * (1 + math.cos(math.pi * t / 4)) / 2 for t in range(5)]
    np.testing.assert_allclose(lrs, expected)
    assert lrs[-1] == pytest.approx(0.01)
    state = sched.state_dict()
    other = optim.CosineAnnealingLR(optim.Adam([param([1.0])], lr=0.1), T_max=4, eta_min=0.01)
    other.load_state_dict(state)
    assert other.get_last_lr() == sched.get_last_lr()


def test_schedulers_match_torch():
    torch = pytest.importorskip("torch")
    for make_mine, make_theirs in (
        (lambda o: optim.StepLR(o, 3, 0.3), lambda o: torch.optim.lr_scheduler.StepLR(o, 3, 0.3)),
        (lambda o: optim.CosineAnnealingLR(o, 7, 0.001),
         lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, 7, 0.001)),
    ):
        mine = optim.SGD([param([1.0])], lr=0.1)
        theirs = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=0.1)
        sm, st = make_mine(mine), make_theirs(theirs)
        for _ in range(12):
            assert sm.get_last_lr()[0] == pytest.approx(st.get_last_lr()[0], rel=1e-9, abs=1e-12)
            theirs.step()
            sm.step()
            st.step()
