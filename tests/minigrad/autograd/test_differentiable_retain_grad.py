"""``retain_grad()`` and ``retains_grad`` (issue 31), checked against PyTorch where it applies.

minigrad gives every node its latest pass's ``.grad`` (the lessons draw them all), where
PyTorch gives non-leaves ``None``; ``retain_grad()`` makes a non-leaf's ``.grad`` accumulate
across passes, as PyTorch's does.  Every loop (sorted, ready queue, fast, reference) agrees.
"""

from __future__ import annotations

import gc
import warnings

import numpy as np
import pytest

from minigrad import Tensor, Value
from minigrad.autograd import grad
from minigrad.engines import choose
from minigrad.engines.switches import SWITCHES

#: (engine, scheduler) pairs: every loop a user can ask for
LOOPS = ((None, "sorted"), ("reference", "sorted"), ("fast", "sorted"), (None, "ready-queue"))

X = np.array([0.5, -1.25, 2.0])


def _graph(lib_tensor, retain):
    """y = tanh(x) * x (used twice below), the loss sums y*y + 3y; returns (x, y, loss)."""
    x = lib_tensor(X)
    y = x.tanh() * x
    if retain:
        y.retain_grad()
    return x, y, (y * y + y * 3.0).sum()


def _mg(arr):
    return Tensor(arr.copy(), requires_grad=True)


def _backward(root, engine, scheduler, **kw):
    choose.backward(root, engine=engine, scheduler=scheduler, **kw)


@pytest.mark.parametrize("engine,scheduler", LOOPS)
def test_a_retained_grad_accumulates_across_passes_like_pytorchs(engine, scheduler):
    torch = pytest.importorskip("torch")
    x, y, loss = _graph(_mg, retain=True)
    tx, ty, tloss = _graph(lambda a: torch.tensor(a, requires_grad=True), retain=True)
    for k in range(3):
        last = k == 2
        _backward(loss, engine, scheduler, retain_graph=not last)
        tloss.backward(retain_graph=not last)
        np.testing.assert_allclose(y.grad, ty.grad.numpy(), rtol=1e-12)
        np.testing.assert_allclose(x.grad, tx.grad.numpy(), rtol=1e-12)
    assert y.retains_grad and ty.retains_grad


@pytest.mark.parametrize("engine,scheduler", LOOPS)
def test_every_loop_gives_the_same_bits(engine, scheduler):
    x0, y0, loss0 = _graph(_mg, retain=True)
    _backward(loss0, "reference", "sorted", retain_graph=True)
    _backward(loss0, "reference", "sorted")
    x, y, loss = _graph(_mg, retain=True)
    _backward(loss, engine, scheduler, retain_graph=True)
    _backward(loss, engine, scheduler)
    np.testing.assert_array_equal(y.grad, y0.grad)
    np.testing.assert_array_equal(x.grad, x0.grad)


def test_without_retain_grad_a_non_leaf_holds_its_latest_pass_only():
    """minigrad's difference from PyTorch (which gives None), kept on purpose: the
    lessons read every node's gradient.  Only retain_grad makes it accumulate."""
    torch = pytest.importorskip("torch")
    x, y, loss = _graph(_mg, retain=False)
    loss.backward(retain_graph=True)
    first = y.grad.copy()
    loss.backward()
    np.testing.assert_array_equal(y.grad, first)  # the latest pass, not a sum
    assert not y.retains_grad
    tx, ty, tloss = _graph(lambda a: torch.tensor(a, requires_grad=True), retain=False)
    (ty_grad,) = torch.autograd.grad(tloss, ty, retain_graph=True)
    np.testing.assert_allclose(first, ty_grad.numpy(), rtol=1e-12)  # the same dL/dy
    tloss.backward()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (torch warns that a non-leaf's .grad is read)
        assert ty.grad is None


def test_on_a_leaf_it_is_a_no_op_and_retains_grad_stays_false():
    torch = pytest.importorskip("torch")
    x, tx = _mg(X), torch.tensor(X, requires_grad=True)
    x.retain_grad()
    tx.retain_grad()
    assert x.retains_grad is False and tx.retains_grad is False
    assert x.origin is None or x.origin.hooks is None  # nothing recorded on a leaf
    (x * 2.0).sum().backward()
    np.testing.assert_array_equal(x.grad, np.full(3, 2.0))


def test_on_a_node_that_does_not_require_grad_it_is_pytorchs_error():
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as theirs:
        torch.tensor(X).retain_grad()
    for node in (Tensor(X), Value(1.0, requires_grad=False), Tensor(X) * 2.0):
        with pytest.raises(RuntimeError, match="can't retain_grad on .* requires_grad=False"):
            node.retain_grad()
    assert "can't retain_grad on Tensor that has requires_grad=False" in str(theirs.value)


def test_a_scalar_value_retains_its_grad_too():
    a = Value(2.0, requires_grad=True)
    b = a * a
    b.retain_grad()
    (b * 3.0).backward(retain_graph=True)
    assert b.grad == 3.0 and b.retains_grad
    c = b * 4.0
    c.backward()
    assert b.grad == 7.0 and a.grad == 7.0 * 4.0


def test_a_retained_root_accumulates_its_seed():
    torch = pytest.importorskip("torch")
    x = _mg(X)
    y = (x * 2.0).sum()
    y.retain_grad()
    y.backward(retain_graph=True)
    y.backward()
    tx = torch.tensor(X, requires_grad=True)
    ty = (tx * 2.0).sum()
    ty.retain_grad()
    ty.backward(retain_graph=True)
    ty.backward()
    assert float(y.grad) == float(ty.grad) == 2.0


def test_a_hooks_replacement_is_what_is_retained_in_either_registration_order():
    torch = pytest.importorskip("torch")
    for retain_first in (True, False):
        x, tx = _mg(X), torch.tensor(X, requires_grad=True)
        ys = []
        for node in (x, tx):
            y = node * 2.0
            if retain_first:
                y.retain_grad()
            y.register_hook(lambda g: g * 10.0)
            if not retain_first:
                y.retain_grad()
            y.sum().backward()
            ys.append(y)
        np.testing.assert_array_equal(ys[0].grad, ys[1].grad.numpy())


def test_setting_grad_to_none_between_passes_starts_again():
    x, y, loss = _graph(_mg, retain=True)
    loss.backward(retain_graph=True)
    first = y.grad.copy()
    y.grad = None
    loss.backward()
    np.testing.assert_array_equal(y.grad, first)


def test_with_create_graph_the_retained_grad_is_a_node_and_sums_as_pytorch():
    torch = pytest.importorskip("torch")
    x = _mg(X)
    y = x ** 2
    y.retain_grad()
    loss = (y * y).sum()
    tx = torch.tensor(X, requires_grad=True)
    ty = tx ** 2
    ty.retain_grad()
    tloss = (ty * ty).sum()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (torch's warning about create_graph and .grad)
        for _ in range(2):
            loss.backward(create_graph=True)
            tloss.backward(create_graph=True)
    assert isinstance(y.grad, Tensor) and y.grad.requires_grad
    np.testing.assert_allclose(y.grad.data, ty.grad.detach().numpy(), rtol=1e-12)
    # the kept gradient's graph differentiates: d(sum y.grad)/dx = d(sum 2·2y)/dx = 8x
    (gx,) = grad(y.grad.sum(), x)
    np.testing.assert_allclose(gx.data, 8 * X)


def test_autograd_grad_adds_into_a_retained_grad_and_leaves_others_alone():
    torch = pytest.importorskip("torch")
    x, y, loss = _graph(_mg, retain=True)
    tx, ty, tloss = _graph(lambda a: torch.tensor(a, requires_grad=True), retain=True)
    (g,) = grad(loss, x, retain_graph=True)
    (tg,) = torch.autograd.grad(tloss, tx, retain_graph=True)
    np.testing.assert_allclose(g, tg.numpy(), rtol=1e-12)
    np.testing.assert_allclose(y.grad, ty.grad.numpy(), rtol=1e-12)
    assert x.grad is None and tx.grad is None
    loss.backward()
    tloss.backward()
    np.testing.assert_allclose(y.grad, ty.grad.numpy(), rtol=1e-12)


def test_a_retaining_node_counts_while_it_lives_and_is_not_a_hooked_node():
    gc.collect()
    retaining, hooked = SWITCHES.retaining_nodes, SWITCHES.hooked_nodes
    x = _mg(X)
    y = x * 2.0
    y.retain_grad()
    y.retain_grad()  # twice: still one node
    assert (SWITCHES.retaining_nodes, SWITCHES.hooked_nodes) == (retaining + 1, hooked)
    handle = y.register_hook(lambda g: None)
    assert SWITCHES.hooked_nodes == hooked + 1
    handle.remove()  # removing its only hook: no longer hooked, still retaining
    assert y.retains_grad and SWITCHES.hooked_nodes == hooked
    assert SWITCHES.retaining_nodes == retaining + 1
    del y, handle
    gc.collect()
    assert (SWITCHES.retaining_nodes, SWITCHES.hooked_nodes) == (retaining, hooked)


def test_retaining_keeps_the_fast_loop(monkeypatch):
    """retain_grad needs nothing inside the loop, so the fast one still runs."""
    from minigrad.engines import fast

    calls = []
    real = fast.run_tensor
    monkeypatch.setattr(fast, "run_tensor", lambda *a: calls.append(1) or real(*a))
    x, y, loss = _graph(_mg, retain=True)
    loss.backward(retain_graph=True)
    loss.backward()
    assert len(calls) == 2
    x0, y0, loss0 = _graph(_mg, retain=True)
    _backward(loss0, "reference", "sorted", retain_graph=True)
    _backward(loss0, "reference", "sorted")
    np.testing.assert_array_equal(y.grad, y0.grad)
