"""Gradient hooks (``engines/hooked.py``): ``register_hook`` and
``register_post_accumulate_grad_hook`` on ``Tensor`` and ``Value``, in every loop.

Values are checked against the chain rule worked by hand in the test; the same
graphs against PyTorch itself in
``tests/minigrad/autograd/test_differentiable_hooks_match_torch.py``.
"""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

from minigrad import Tensor, Value, no_grad, record
from minigrad.autograd import grad, is_grad_enabled
from minigrad.engines import choose, fast
from minigrad.engines.switches import SWITCHES

SCHEDULERS = ("sorted", "ready-queue")


@pytest.fixture(autouse=True)
def _no_hooks_left_behind():
    gc.collect()
    before = SWITCHES.hooked_nodes
    yield
    gc.collect()
    assert SWITCHES.hooked_nodes == before, "a test left a hooked node alive or miscounted"


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_a_hook_on_a_non_leaf_replaces_what_flows_upstream(scheduler):
    x = Tensor(np.array([1.0, -2.0, 3.0]), requires_grad=True)
    h = x * x  # dh/dx = 2x
    seen = []
    h.register_hook(lambda g: seen.append(g.copy()) or g * 10)
    loss = (h * 3.0).sum()
    loss.backward(scheduler=scheduler)
    np.testing.assert_array_equal(seen[0], np.full(3, 3.0))  # dL/dh, before the hook
    np.testing.assert_array_equal(h.grad, np.full(3, 30.0))  # the node keeps the replacement
    np.testing.assert_array_equal(x.grad, 30.0 * 2 * x.data)


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_a_hook_on_a_leaf_sees_the_pass_sum_once_and_its_result_accumulates(scheduler):
    x = Value(2.0, requires_grad=True)
    calls = []
    x.register_hook(lambda g: calls.append(g) or g + 1.0)
    for _ in range(2):  # two passes: .grad accumulates the hooks' results
        y = x * 3.0 + x * x + x  # dy/dx = 3 + 2x + 1 = 8
        y.backward(scheduler=scheduler)
    assert calls == [8.0, 8.0]
    assert x.grad == 18.0


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_hooks_run_in_registration_order_each_on_the_previous_result(scheduler):
    x = Value(1.0, requires_grad=True)
    h = x * 3.0
    h.register_hook(lambda g: g + 1.0)
    h.register_hook(lambda g: None)  # an observer keeps it
    h.register_hook(lambda g: g * 10.0)
    h.backward(scheduler=scheduler)
    assert h.grad == 20.0 and x.grad == 60.0


def test_a_hook_on_the_root_changes_the_seed():
    x = Tensor(np.array([1.0, 2.0]), requires_grad=True)
    loss = (x * x).sum()
    loss.register_hook(lambda g: g * 3)
    loss.backward()
    np.testing.assert_array_equal(x.grad, 6 * x.data)


def test_a_hook_on_a_leaf_runs_when_backward_starts_at_that_leaf():
    x = Tensor(np.array([1.0, 2.0]), requires_grad=True)
    x.register_hook(lambda g: g * 7)
    x.backward(np.array([1.0, 1.0]))
    np.testing.assert_array_equal(x.grad, [7.0, 7.0])


def test_remove_takes_a_hook_off_and_twice_is_harmless():
    x = Value(1.0, requires_grad=True)
    handle = x.register_hook(lambda g: g * 100.0)
    before = SWITCHES.hooked_nodes
    handle.remove()
    handle.remove()
    assert SWITCHES.hooked_nodes == before - 1
    (x * 2.0).backward()
    assert x.grad == 2.0
    with x.register_hook(lambda g: g * 5.0):
        (x * 1.0).backward()
    (x * 1.0).backward()
    assert x.grad == 2.0 + 5.0 + 1.0


def test_a_hook_gets_a_read_only_gradient():
    x = Tensor(np.array([1.0, 2.0]), requires_grad=True)
    h = x + x  # add hands one gradient to both of its inputs

    def in_place(g):
        g *= 2

    h.register_hook(in_place)
    with pytest.raises(ValueError, match="read-only"):
        h.sum().backward()


@pytest.mark.parametrize("make, message", [
    (lambda g: g[:1], r"hook '<lambda>' on node #\d+ 'h' \(mul\) returned a gradient of shape"),
    (lambda g: g.astype(np.float32), r"returned a gradient of dtype float32.*float64"),
    (lambda g: g.tolist(), r"hook '<lambda>' on node #\d+ 'h' \(mul\) returned a list"),
])
def test_a_hook_returning_the_wrong_gradient_names_the_node_and_the_hook(make, message):
    x = Tensor(np.array([1.0, 2.0]), requires_grad=True)
    h = x * 2.0
    h.name = "h"
    h.register_hook(make)
    with pytest.raises((RuntimeError, TypeError), match=message):
        h.sum().backward()


def test_a_value_hook_must_return_a_number():
    x = Value(1.0, requires_grad=True)

    def halve(g):
        return str(g / 2)

    x.register_hook(halve)
    with pytest.raises(TypeError, match=r"hook 'halve' on node #\d+ \(leaf\) returned a str"):
        (x * 2.0).backward()


def test_a_zero_dim_gradient_doubled_is_accepted():
    """``g * 2`` on a 0-d array gives a numpy scalar: still a gradient of the right shape."""
    x = Tensor(np.array(3.0), requires_grad=True)
    x.register_hook(lambda g: g * 2)
    (x * x).backward()
    assert isinstance(x.grad, np.ndarray) and x.grad == 12.0


def test_registering_where_no_gradient_can_arrive_is_an_error():
    c = Tensor(np.array([1.0]))
    with pytest.raises(RuntimeError, match="does not require grad"):
        c.register_hook(print)
    x = Value(1.0, requires_grad=True)
    with pytest.raises(RuntimeError, match="not a leaf"):
        (x * 2.0).register_post_accumulate_grad_hook(print)
    with pytest.raises(TypeError, match="expected a function"):
        x.register_hook(3)


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_a_post_accumulate_hook_sees_the_updated_grad_with_grad_mode_off(scheduler):
    w = Tensor(np.array([1.0, 2.0]), requires_grad=True)
    seen = []

    def sgd(p):
        seen.append((p.grad.copy(), is_grad_enabled()))
        p.data -= 0.5 * p.grad

    w.register_post_accumulate_grad_hook(sgd)
    (w * w).sum().backward(scheduler=scheduler)
    np.testing.assert_array_equal(seen[0][0], [2.0, 4.0])
    assert seen[0][1] is False
    np.testing.assert_array_equal(w.data, [0.0, 0.0])


def test_a_post_accumulate_hook_must_return_none_and_is_skipped_by_grad():
    w = Value(1.0, requires_grad=True)
    calls = []
    w.register_post_accumulate_grad_hook(lambda p: calls.append(p.grad))
    (gw,) = grad(w * 3.0, [w])
    assert gw == 3.0 and calls == [] and w.grad is None
    handle = w.register_post_accumulate_grad_hook(lambda p: 1)
    with pytest.raises(TypeError, match="must return None"):
        (w * 3.0).backward()
    handle.remove()


def test_hooks_run_when_the_fast_engine_would_have_run():
    """With a hook anywhere backward takes the announced loop; without, the fast one."""
    calls = []
    real = fast.run_tensor

    def spy(order, retain_graph):
        calls.append(len(order))
        real(order, retain_graph)

    fast.run_tensor = spy
    try:
        x = Tensor(np.array([1.0, 2.0]), requires_grad=True)
        choose.backward((x * x).sum())
        assert len(calls) == 1
        with x.register_hook(lambda g: g * 2):
            x.grad = None
            choose.backward((x * x).sum(), engine="fast")
        assert len(calls) == 1
        np.testing.assert_array_equal(x.grad, 4 * x.data)
    finally:
        fast.run_tensor = real


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_hooks_in_a_create_graph_pass_get_nodes_and_shape_the_second_derivative(scheduler):
    a = Value(2.0, requires_grad=True)
    b = a * a
    c = b * b  # c = a⁴; dc/db = 2b
    got = []
    handle = b.register_hook(lambda g: got.append(g) or g * a)  # dc/da: 2b · a · 2a = 4a⁴
    c.backward(create_graph=True, scheduler=scheduler)
    assert isinstance(got[0], Value) and got[0].requires_grad
    assert a.grad.data == 4 * 2.0 ** 4
    handle.remove()  # (still on, it would run again: b is in the gradient's graph too)
    (d2,) = grad(a.grad, [a])  # d(4a⁴)/da = 16a³
    assert d2 == 16 * 2.0 ** 3


def test_a_recorder_is_told_when_a_hook_changed_a_gradient():
    x = Tensor(np.array([1.0, -1.0]), requires_grad=True)

    def clip(g):
        return np.clip(g, -1.0, 1.0)

    with record() as tape:
        h = x * 5.0
        h.register_hook(lambda g: None)  # looked, changed nothing: no event
        h.register_hook(clip)
        (h * h).sum().backward()
    hooked = [e for _, e in tape.notes if e.kind == "hooked"]
    assert [(e.node.id, e.hook) for e in hooked] == [(h.id, "clip")]
    np.testing.assert_array_equal(hooked[0].before, 2 * h.data)
    np.testing.assert_array_equal(hooked[0].after, [1.0, -1.0])
    position = next(i for i, e in enumerate(tape.timeline) if e.kind == "hooked")
    after = tape.timeline[position + 1]
    assert after.kind == "visit" and after.node is h
    np.testing.assert_array_equal(after.upstream, [1.0, -1.0])
    assert "1 hooked" in repr(tape)


def test_a_hooked_node_that_dies_is_forgotten_even_if_its_hook_refers_to_it():
    x = Tensor(np.array([1.0]), requires_grad=True)
    before = SWITCHES.hooked_nodes
    h = x * 2.0
    h.register_hook(lambda g, me=h: g * me.data)  # a cycle through the hook
    assert SWITCHES.hooked_nodes == before + 1
    alive = weakref.ref(h)
    del h
    gc.collect()
    assert alive() is None
    assert SWITCHES.hooked_nodes == before


def test_no_grad_does_not_stop_hooks_on_an_existing_graph():
    x = Value(1.5, requires_grad=True)
    y = x * x
    y.register_hook(lambda g: g * 0.0)
    with no_grad():
        y.backward()
    assert x.grad == 0.0


def test_a_hook_may_return_a_tensor_whose_data_is_used():
    x = Tensor(np.array([1.0, 2.0]), requires_grad=True)
    h = x * 1.0
    h.register_hook(lambda g: Tensor(g * 4))
    h.sum().backward()
    assert type(x.grad) is np.ndarray
    np.testing.assert_array_equal(x.grad, [4.0, 4.0])
