"""minigrad.optim: update rules against hand-computed steps (and torch.optim when installed),
the in-place contract, zero_grad, parameter groups, schedulers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from minigrad import Tensor, nn, optim
from tests._helpers import param


def run(opt_cls, grads, values=(1.0, -2.0), dtype=np.float64, **kw):
    """Apply ``opt_cls`` to one parameter with the given gradient sequence; returns values."""
    p = param(values, dtype)
    opt = opt_cls([p], **kw)
    out = []
    for g in grads:
        p.grad = np.array(g, dtype=dtype)
        opt.step()
        out.append(p.data.copy())
    return out


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


@pytest.mark.parametrize("make", [
    lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=0.01),
    lambda ps: optim.Adam(ps, lr=0.01),
    lambda ps: optim.AdamW(ps, lr=0.01, amsgrad=True),
])
def test_step_is_in_place_keeps_leaves_dtype_and_never_writes_grads(make):
    p = param([[1.0, 2.0], [3.0, 4.0]])
    data_buffer = p.data
    opt = make([p])
    g = np.full((2, 2), 0.5, np.float32)
    p.grad = g
    g_before = g.copy()
    opt.step()
    assert p.data is data_buffer and p.dtype == np.float32  # updated in place
    assert p.is_leaf and p.requires_grad and p.op is None
    np.testing.assert_array_equal(g, g_before)  # the gradient was only read
    assert not np.allclose(p.data, [[1.0, 2.0], [3.0, 4.0]])


def test_zero_grad_and_skipping_parameters_without_grad():
    a, b = param([1.0]), param([2.0])
    opt = optim.SGD([a, b], lr=1.0)
    a.grad = np.array([1.0], np.float32)
    opt.step()
    assert a.data[0] == 0.0 and b.data[0] == 2.0
    opt.zero_grad(set_to_none=False)
    assert (a.grad == 0).all() and b.grad is None  # like torch: a missing grad stays None
    opt.zero_grad()
    assert a.grad is None and b.grad is None


def test_training_a_model_reduces_the_loss():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(64, 3)).astype(np.float32)
    y = X @ np.array([1.0, -2.0, 0.5], np.float32)
    for make in (lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9), lambda ps: optim.Adam(ps, 0.05)):
        model = nn.Linear(3, 1, seed=0)
        opt = make(model.parameters())
        losses = []
        for _ in range(100):
            loss = nn.MSELoss()(model(Tensor(X)).reshape(-1), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        assert losses[-1] < 1e-3 * losses[0]


def test_parameter_groups_and_errors():
    a, b = param([1.0]), param([1.0])
    opt = optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1)
    a.grad = b.grad = np.array([1.0], np.float32)
    opt.step()
    assert a.data[0] == pytest.approx(0.9) and b.data[0] == pytest.approx(0.5)
    with pytest.raises(ValueError, match="empty parameter list"):
        optim.Adam([])
    with pytest.raises(TypeError, match="single Parameter"):
        optim.SGD(a)
    with pytest.raises(ValueError, match="leaf tensors"):
        optim.SGD([a * 2])
    with pytest.raises(ValueError, match="more than one parameter group"):
        optim.SGD([{"params": [a]}, {"params": [a]}])
    with pytest.raises(ValueError, match="betas"):
        optim.Adam([a], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="nesterov"):
        optim.SGD([a], nesterov=True)


def test_optimizer_state_dict_roundtrip():
    p = param([1.0, 2.0])
    opt = optim.Adam([p], lr=0.01)
    p.grad = np.array([0.1, -0.2], np.float32)
    opt.step()
    state = opt.state_dict()
    q = param(p.data)
    opt2 = optim.Adam([q], lr=0.5)
    opt2.load_state_dict(state)
    assert opt2.param_groups[0]["lr"] == 0.01
    for o, x in ((opt, p), (opt2, q)):
        x.grad = np.array([0.3, 0.3], np.float32)
        o.step()
    np.testing.assert_array_equal(p.data, q.data)


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


# --- torch.optim as an oracle -------------------------------------------------------------
@pytest.mark.parametrize("name,kw", [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9, weight_decay=0.01)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)),
    ("SGD", dict(lr=0.1, momentum=0.5, dampening=0.3)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, amsgrad=True)),
    ("AdamW", dict(lr=0.01, weight_decay=0.1)),
    ("AdamW", dict(lr=0.01, betas=(0.8, 0.99), eps=1e-6)),
])
def test_matches_torch_optim(name, kw):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    start = rng.normal(size=(3, 2))
    grads = [rng.normal(size=(3, 2)) for _ in range(6)]
    mine = run(getattr(optim, name), grads, values=start, **kw)
    tp = torch.nn.Parameter(torch.tensor(start))
    topt = getattr(torch.optim, name)([tp], **kw)
    for g, m in zip(grads, mine):
        tp.grad = torch.tensor(g)
        topt.step()
        np.testing.assert_allclose(m, tp.detach().numpy(), rtol=1e-10, atol=1e-12)


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
