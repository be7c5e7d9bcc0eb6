"""Grad mode as a function, a context and a decorator, per thread (``core/modes.py``)."""

import threading

import pytest

import minigrad
from minigrad import Value


def test_set_grad_enabled_function_and_context():
    x = Value(1.0)
    with minigrad.set_grad_enabled(False):
        assert (x * 2).op is None
        with minigrad.enable_grad():
            assert (x * 2).op is not None
    assert minigrad.is_grad_enabled()
    minigrad.set_grad_enabled(False)
    try:
        assert not minigrad.is_grad_enabled()
    finally:
        minigrad.set_grad_enabled(True)
    with pytest.raises(TypeError):
        minigrad.set_grad_enabled("no")


def test_no_grad_as_decorator():
    @minigrad.no_grad()
    def f(v):
        return v * 2

    assert f(Value(1.0)).op is None and minigrad.is_grad_enabled()


def test_grad_mode_is_thread_local():
    seen = {}

    def worker():
        seen["other"] = minigrad.is_grad_enabled()
        seen["node"] = (Value(1.0) * 2).op is not None

    with minigrad.no_grad():
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        assert not minigrad.is_grad_enabled()
    assert seen == {"other": True, "node": True}
