"""Hook semantics checked against PyTorch itself (skipped when torch is absent).

The same graph is built in both, with the same hooks; the hooks' calls (what
they were given) and every gradient must agree, for both of minigrad's schedulers.
"""

from __future__ import annotations

import numpy as np
import pytest

from minigrad import Tensor
from minigrad.autograd import grad

torch = pytest.importorskip("torch")

SCHEDULERS = ("sorted", "ready-queue")


def _both(arr):
    return (Tensor(arr.copy(), requires_grad=True),
            torch.tensor(arr.copy(), dtype=torch.float64, requires_grad=True))


def _np(x):
    return x.detach().numpy() if isinstance(x, torch.Tensor) else np.asarray(x)


def _graph_a(lib, x, w, hooks, log):
    """h = tanh(x·w); x is used three times, h twice; hooks on x, h and the loss."""
    h = (x * w).tanh()
    for name, node in (("x", x), ("h", h)):
        for k, fn in enumerate(hooks.get(name, ())):
            node.register_hook(_logged(fn, f"{name}{k}", log))
    loss = (h * h + h * x).sum() + (x * 3.0).sum()
    for k, fn in enumerate(hooks.get("loss", ())):
        loss.register_hook(_logged(fn, f"loss{k}", log))
    return loss, h


def _logged(fn, tag, log):
    def hook(g):
        log.append((tag, _np(g).copy()))
        return fn(g)
    return hook


HOOKS = {
    "a non-leaf hook that scales": {"h": [lambda g: g * 2.0]},
    "a leaf hook that adds, run on the pass sum": {"x": [lambda g: g + 1.0]},
    "observers and a chain on one node": {"h": [lambda g: None, lambda g: g * 3.0,
                                                lambda g: g - 0.5]},
    "a hook on the loss": {"loss": [lambda g: g * 4.0]},
    "all of them": {"x": [lambda g: g * 0.5], "h": [lambda g: -g],
                    "loss": [lambda g: g + 2.0]},
}


@pytest.mark.parametrize("scheduler", SCHEDULERS)
@pytest.mark.parametrize("case", list(HOOKS))
def test_hooks_are_called_with_and_change_what_torch_does(case, scheduler):
    rng = np.random.default_rng(3)
    xs, ws = rng.standard_normal(4), rng.standard_normal(4)
    (mx, tx), (mw, tw) = _both(xs), _both(ws)
    mlog, tlog = [], []
    for _ in range(2):  # a second pass: leaves accumulate the hooks' results
        mloss, mh = _graph_a(np, mx, mw, HOOKS[case], mlog)
        tloss, th = _graph_a(torch, tx, tw, HOOKS[case], tlog)
        th.retain_grad()
        mloss.backward(scheduler=scheduler)
        tloss.backward()
        np.testing.assert_allclose(mh.grad, _np(th.grad), rtol=1e-12)
    assert [tag for tag, _ in mlog] == [tag for tag, _ in tlog]
    for (tag, mg), (_, tg) in zip(mlog, tlog):
        np.testing.assert_allclose(mg, tg, rtol=1e-12, err_msg=tag)
    np.testing.assert_allclose(mx.grad, _np(tx.grad), rtol=1e-12)
    np.testing.assert_allclose(mw.grad, _np(tw.grad), rtol=1e-12)


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_post_accumulate_hooks_see_what_torch_shows(scheduler):
    rng = np.random.default_rng(4)
    (mw, tw), (mb, tb) = _both(rng.standard_normal((3, 2))), _both(rng.standard_normal(2))
    x = rng.standard_normal((5, 3))
    seen = {"m": [], "t": []}
    for who, w, b in (("m", mw, mb), ("t", tw, tb)):
        for name, p in (("w", w), ("b", b)):
            p.register_post_accumulate_grad_hook(
                lambda p, who=who, name=name: seen[who].append((name, _np(p.grad).copy())))
    for _ in range(2):
        (Tensor(x) @ mw + mb).tanh().sum().backward(scheduler=scheduler)
        (torch.tensor(x) @ tw + tb).tanh().sum().backward()
    assert sorted(n for n, _ in seen["m"]) == sorted(n for n, _ in seen["t"])
    for name in ("w", "b"):
        ms = [g for n, g in seen["m"] if n == name]
        ts = [g for n, g in seen["t"] if n == name]
        for mg, tg in zip(ms, ts):
            np.testing.assert_allclose(mg, tg, rtol=1e-12)


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_a_hook_in_a_create_graph_pass_shapes_the_graph_as_in_torch(scheduler):
    rng = np.random.default_rng(5)
    (ma, ta) = _both(rng.uniform(0.5, 1.5, 3))
    results = {}
    for who, a in (("m", ma), ("t", ta)):
        b = a * a
        handle = b.register_hook(lambda g, a=a: g * a)
        c = (b * b).sum()
        if who == "m":
            c.backward(create_graph=True, scheduler=scheduler)
            first = a.grad
            handle.remove()
            (second,) = grad(first.sum(), [a])
        else:
            (first,) = torch.autograd.grad(c, [a], create_graph=True)
            handle.remove()
            (second,) = torch.autograd.grad(first.sum(), [a])
        results[who] = (_np(first.data if who == "m" else first), _np(second))
    for m, t in zip(results["m"], results["t"]):
        np.testing.assert_allclose(m, t, rtol=1e-12)
