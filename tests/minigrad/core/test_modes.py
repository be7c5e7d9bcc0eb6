"""no_grad / enable_grad used as bare decorators (no parentheses), on plain functions
from several threads and on generators.  Each test failed before its fix."""

from __future__ import annotations

import threading

import pytest

import minigrad
from minigrad import Tensor


# --- no_grad / enable_grad as bare decorators -------------------------------------------
def test_no_grad_and_enable_grad_work_as_bare_decorators():
    @minigrad.no_grad
    def evaluate(t):
        """Docstring kept."""
        return t * 2, minigrad.is_grad_enabled()

    @minigrad.enable_grad
    def train_step(t):
        return t * 2

    x = Tensor([1.0], requires_grad=True)
    y, enabled = evaluate(x)
    assert y.op is None and not enabled and minigrad.is_grad_enabled()
    assert evaluate.__name__ == "evaluate" and evaluate.__doc__ == "Docstring kept."
    with minigrad.no_grad():
        assert train_step(x).op is not None
        assert not minigrad.is_grad_enabled()
    with minigrad.no_grad() as ctx:  # still a context manager, and with parentheses
        assert isinstance(ctx, minigrad.no_grad)
    assert minigrad.no_grad()(lambda: minigrad.is_grad_enabled())() is False
    with pytest.raises(TypeError, match="no_grad"):
        minigrad.no_grad(3)


def test_bare_decorated_function_is_thread_safe():
    @minigrad.no_grad
    def inside(barrier, out, key):
        barrier.wait()  # both threads are inside at once
        out[key] = minigrad.is_grad_enabled()
        barrier.wait()

    out, barrier = {}, threading.Barrier(2)
    threads = [threading.Thread(target=inside, args=(barrier, out, k)) for k in "ab"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert out == {"a": False, "b": False} and minigrad.is_grad_enabled()


def test_no_grad_on_a_generator_covers_its_body_not_the_caller():
    import minigrad as mg

    @mg.no_grad
    def evaluate(n):
        for _ in range(n):
            got = yield mg.is_grad_enabled()
            assert got is None or got == "ping"
        return "done"

    seen = []
    gen = evaluate(3)
    for flag in gen:
        seen.append((flag, mg.is_grad_enabled()))  # the caller's own mode between items
    assert seen == [(False, True)] * 3

    gen = evaluate(2)
    assert next(gen) is False
    assert gen.send("ping") is False
    with pytest.raises(StopIteration) as stop:
        gen.send(None)
    assert stop.value.value == "done"

    closed = []

    @mg.no_grad()
    def closing():
        try:
            yield 1
        finally:
            closed.append(mg.is_grad_enabled())

    g = closing()
    next(g)
    g.close()
    assert closed == [False] and mg.is_grad_enabled()

