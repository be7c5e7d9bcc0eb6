"""minigrad.optim's Optimizer base: the in-place contract, zero_grad, parameter groups, state
dicts, a real training run, and every optimizer against torch.optim when installed."""

from __future__ import annotations

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
