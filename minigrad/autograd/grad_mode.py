"""Grad mode: whether ops record a graph at all.

Inside ``no_grad()`` every op returns a plain leaf (``requires_grad=False``,
``op=None``): nothing is saved for backward, so evaluation and optimiser
updates cost no memory for a graph.  The modes nest and are restored even when
the body raises, because each context manager remembers the previous value.
"""

from __future__ import annotations

import functools
import inspect

from .state import grad_enabled, set_grad_mode

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled"]


def is_grad_enabled() -> bool:
    """True when new ops record a graph (the default)."""
    return grad_enabled()


class set_grad_enabled:
    """Switch graph recording on or off.

    Works both as a function call (``set_grad_enabled(False)`` switches now,
    for this thread) and as a context manager (``with set_grad_enabled(False):``
    switches for the block and restores the previous mode afterwards).
    """

    def __init__(self, mode: bool):
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled expects a bool, got {type(mode).__name__}")
        self.mode = mode
        self.prev = set_grad_mode(mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        set_grad_mode(self.prev)
        return False


class _GradModeContext:
    """Base for ``no_grad`` / ``enable_grad``: a context manager and a decorator.

    Both ``@no_grad()`` and ``@no_grad`` decorate (as in PyTorch): given a
    function, ``__new__`` returns the wrapped function instead of an instance.
    Each call of the wrapper enters a fresh instance, so one decorated function
    is safe to call from several threads at once.
    """

    mode = True

    def __new__(cls, fn=None):
        self = super().__new__(cls)
        if fn is None:
            return self
        if not callable(fn):
            raise TypeError(f"{cls.__name__}() takes no arguments (or, used as a bare "
                            f"decorator, a function); got {type(fn).__name__}")
        return self(fn)  # not an instance of cls, so __init__ is skipped

    def __enter__(self):
        self.prev = set_grad_mode(self.mode)
        return self

    def __exit__(self, *exc):
        set_grad_mode(self.prev)
        return False

    def __call__(self, fn):
        if not callable(fn):
            raise TypeError(f"{type(self).__name__}() decorates a function, got "
                            f"{type(fn).__name__}")
        mode = type(self)
        if inspect.isgeneratorfunction(fn):
            return _generator_in_mode(fn, mode)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with mode():
                return fn(*args, **kwargs)

        return wrapper


def _generator_in_mode(fn, mode):
    """Decorate a generator function: its body runs in ``mode`` at every resume.

    Calling a generator function only creates the generator, so wrapping the call
    alone would leave the body in the caller's mode; and holding the mode across
    ``yield`` would leak it into the caller's code between items.  So each step
    (send, throw, close) enters the mode around the generator's own code.
    """

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        gen = fn(*args, **kwargs)
        try:
            with mode():
                value = gen.send(None)
            while True:
                try:
                    sent = yield value
                except GeneratorExit:
                    with mode():
                        gen.close()
                    raise
                except BaseException as exc:  # thrown in by the caller: pass it on
                    with mode():
                        value = gen.throw(exc)
                else:
                    with mode():
                        value = gen.send(sent)
        except StopIteration as stop:
            return stop.value

    return wrapper


class no_grad(_GradModeContext):
    """Build no graph inside the block (or the decorated function or generator).

    Use it for evaluation, and for parameter updates written with tensor ops:
    ``w -= lr * w.grad`` on a leaf that requires grad is refused outside it (it
    would have to be recorded), and ``w = w - lr * w.grad`` outside it makes ``w``
    a node of the old graph.  (``p.data -= ...`` works on the raw array and
    records nothing either way.)
    """

    mode = False


class enable_grad(_GradModeContext):
    """Re-enable graph recording inside a ``no_grad`` block."""

    mode = True
