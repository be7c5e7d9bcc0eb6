"""``jit.train_step``: forward, backward and the optimizer's step compiled, bit for bit
the readable loop (``loss = f(x, y); opt.zero_grad(); loss.backward(); opt.step()``)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad.nn.functional as F
from minigrad import Tensor, jit, nn, optim


def _model(seed=0):
    rng = np.random.default_rng(seed)
    model = nn.Sequential(nn.Linear(6, 8, activation="relu"), nn.Linear(8, 8),
                          nn.ReLU(), nn.Linear(8, 3))
    for p in model.parameters():
        p.data[...] = rng.standard_normal(p.data.shape).astype(np.float32) * 0.5
    return model


def _batches(n=4):
    rng = np.random.default_rng(1)
    return [(Tensor(rng.standard_normal((5, 6)).astype(np.float32)),
             Tensor(rng.integers(0, 3, 5))) for _ in range(n)]


def _train(make_opt, compiled: bool, loss=None, extra=None):
    model = _model()
    opt = make_opt(model.parameters())
    loss_fn = loss or (lambda x, y: F.cross_entropy(model(x), y))
    if extra is not None:
        loss_fn = (lambda x, y, f=loss_fn: f(x, y) + (extra * extra).sum())
    step = jit.train_step(loss_fn, opt) if compiled else None
    losses = []
    for x, y in _batches():
        if compiled:
            losses.append(step(x, y).item())
        else:
            out = loss_fn(x, y)
            opt.zero_grad()
            out.backward()
            opt.step()
            losses.append(out.item())
    params = [p.data.copy() for p in model.parameters()]
    grads = [p.grad.copy() for p in model.parameters()]
    return losses, params, grads, step


OPTIMIZERS = {
    "sgd": lambda ps: optim.SGD(ps, lr=0.1),
    "sgd momentum, weight decay": lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9,
                                                       weight_decay=1e-3),
    "adam": lambda ps: optim.Adam(ps, lr=0.01),
}


@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_a_compiled_step_gives_the_readable_loops_bits(name):
    eager = _train(OPTIMIZERS[name], compiled=False)
    compiled = _train(OPTIMIZERS[name], compiled=True)
    assert compiled[0] == eager[0]
    for a, b in zip(compiled[1] + compiled[2], eager[1] + eager[2]):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
    assert compiled[3].stats["traces"] == 1 and compiled[3].stats["hits"] == 3


def test_a_param_the_optimizer_does_not_hold_accumulates_its_gradient():
    def run(compiled):
        extra = Tensor(np.array([0.5, -1.0], np.float32), requires_grad=True)
        _train(OPTIMIZERS["sgd"], compiled, extra=extra)
        return extra

    eager, jitted = run(False), run(True)
    np.testing.assert_array_equal(jitted.grad, eager.grad)
    np.testing.assert_array_equal(jitted.grad, 4 * 2 * jitted.data)  # 4 steps, never reset


def test_a_loss_that_cannot_be_traced_trains_eagerly_with_the_same_bits():
    def branchy(model):
        def loss(x, y):
            out = model(x)
            return F.cross_entropy(out if out.sum() > -1e9 else -out, y)
        return loss

    model = _model()
    opt = optim.SGD(model.parameters(), lr=0.1)
    step = jit.train_step(branchy(model), opt)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        losses = [step(x, y).item() for x, y in _batches()]
    assert step.stats["fallbacks"] == 4
    eager = _train(OPTIMIZERS["sgd"], False, loss=None)
    assert losses == eager[0]


def test_a_loss_that_is_not_a_scalar_is_a_clear_error():
    model = _model()
    step = jit.train_step(lambda x: model(x), optim.SGD(model.parameters(), lr=0.1))
    with pytest.raises(ValueError, match="must return a scalar loss, got shape"):
        step(_batches(1)[0][0])


def test_an_input_that_requires_grad_gets_its_gradient_as_with_backward():
    def run(compiled):
        model = _model()
        x = Tensor(_batches(1)[0][0].data, requires_grad=True)
        y = _batches(1)[0][1]
        loss_fn = lambda x, y: F.cross_entropy(model(x), y)  # noqa: E731
        opt = optim.SGD(model.parameters(), lr=0.1)
        if compiled:
            jit.train_step(loss_fn, opt)(x, y)
        else:
            loss = loss_fn(x, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        return x.grad

    eager, jitted = run(False), run(True)
    assert jitted is not None and jitted.tobytes() == eager.tobytes()
