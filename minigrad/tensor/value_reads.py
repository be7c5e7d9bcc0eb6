"""The hook for reading a tensor's values into Python: ``bool(t)``, ``t.item()``, ``t > 0`` ...

Some code must know when a value leaves the graph for Python.  ``jit.trace`` does:
a trace keeps ops, not Python control flow, so ``if t.sum() > 0:`` on a traced
tensor would freeze the branch taken, and tracing refuses it.  Rather than
change ``Tensor``'s methods while it runs, it registers a *watcher* here:

* the methods named in ``VALUE_READS`` begin with ``if VALUE_READ_WATCHERS:``,
  so with no watcher (the normal case) a read costs one truthiness test of a list;
* with watchers, each is called as ``watcher(tensor, method_name)`` before the
  value is read, and may raise to refuse it;
* ``watching_value_reads(watcher)`` adds a watcher for the length of a ``with``
  block (from any thread: the list is shared, as tracing's refusal always was).

Only what goes through these methods is seen: ``t.data`` is the raw array, and
reading it is not reported.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager

__all__ = ["VALUE_READS", "VALUE_READ_WATCHERS", "value_read", "watching_value_reads"]

#: Tensor's methods that read values into Python; each one reports to the watchers
VALUE_READS = ("__bool__", "item", "__float__", "__int__", "tolist", "numpy", "__array__",
               "__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__", "all", "any",
               "argmax", "argmin")

#: the active watchers, oldest first (empty unless someone is watching)
VALUE_READ_WATCHERS: list = []

_lock = threading.Lock()


def value_read(t, method: str) -> None:
    """Report that ``method`` is about to read ``t``'s values to every active watcher."""
    for watcher in tuple(VALUE_READ_WATCHERS):
        watcher(t, method)


@contextmanager
def watching_value_reads(watcher):
    """Call ``watcher(tensor, method_name)`` on every value read while the block runs."""
    with _lock:
        VALUE_READ_WATCHERS.append(watcher)
    try:
        yield watcher
    finally:
        with _lock:
            VALUE_READ_WATCHERS.remove(watcher)
