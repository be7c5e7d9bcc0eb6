"""Per-thread switches the engine consults on every op: grad mode, recorders, anomaly mode.

They live in one ``threading.local`` so that ``no_grad()`` in one thread does
not silently disable graph building in another (PyTorch behaves the same way).

Reading a thread-local attribute costs ~100 ns, several times a plain lookup,
and the scalar engine pays it on every op.  So two process-wide counters sit in
front of it: ``GRAD_OFF[0]`` counts threads that may have grad mode off, and
``HOOKS[0]`` counts active recorders and anomaly modes.  While a counter is
zero (the usual case) the hot path skips the thread-local read entirely.

Forward mode (``forward_ad.dual_level``) counts in ``HOOKS`` too: while a dual
level is active every new node takes the announcing path, which is where its
tangent is computed (``node.announce``), so with forward mode off it costs no
check at all beyond the one every op already makes.

A third, ``GRAD_HOOKS[0]``, counts live nodes with gradient hooks
(``register_hook``, ``hooks.py``): while it is zero, backward takes the fast
engine with no further look at hooks (one check per backward call).
"""

from __future__ import annotations

import threading


class _State(threading.local):
    # Class attributes are the defaults every new thread starts from.
    grad_enabled = True
    recorders: tuple = ()
    anomaly = False
    #: inside a ``create_graph`` backward pass: the derivative order its new nodes get
    #: (0 outside), and the (node id, slot) of the edge whose rule is running
    order = 0
    making: tuple | None = None
    #: the active forward-mode level (``forward_ad.dual_level``), or ``None``
    dual = None


STATE = _State()
GRAD_OFF = [0]
HOOKS = [0]
#: live nodes that have gradient hooks (process-wide, like the hooks themselves)
GRAD_HOOKS = [0]
#: The stamp (``node.mark_modified``) of the latest in-place change in any thread,
#: 0 if none yet.  Backward inspects a graph for stale saved arrays only when this
#: is newer than the graph's oldest node: one comparison per backward call.
MODIFIED = [0]
_lock = threading.Lock()


def grad_enabled() -> bool:
    return not GRAD_OFF[0] or STATE.grad_enabled


def set_grad_mode(flag: bool) -> bool:
    """Set this thread's grad mode; returns the previous mode."""
    with _lock:
        prev = STATE.grad_enabled
        if prev and not flag:
            GRAD_OFF[0] += 1
        elif flag and not prev:
            GRAD_OFF[0] -= 1
        STATE.grad_enabled = flag
    return prev


def set_recorders(recorders: tuple) -> tuple:
    with _lock:
        prev = STATE.recorders
        HOOKS[0] += len(recorders) - len(prev)
        STATE.recorders = recorders
    return prev


def set_anomaly(flag: bool) -> bool:
    with _lock:
        prev = STATE.anomaly
        HOOKS[0] += int(flag) - int(prev)
        STATE.anomaly = flag
    return prev


def set_order(order: int, making) -> tuple:
    """Enter (``order`` > 0) or leave (0) a ``create_graph`` backward pass; returns the
    previous ``(order, making)``.  While inside, every new node is announced, so that
    it can be tagged: the pass counts in ``HOOKS``."""
    with _lock:
        prev = (STATE.order, STATE.making)
        HOOKS[0] += int(order > 0) - int(prev[0] > 0)
        STATE.order, STATE.making = order, making
    return prev


def count_hooked(delta: int) -> None:
    """A node gained its first gradient hook (+1) or lost its last one (-1)."""
    with _lock:
        GRAD_HOOKS[0] += delta


def set_dual(level) -> object:
    """Enter (a level object) or leave (``None``) forward mode in this thread; returns
    the previous level.  While one is active every new node is announced, so that
    its tangent can be computed: the level counts in ``HOOKS``."""
    with _lock:
        prev = STATE.dual
        HOOKS[0] += int(level is not None) - int(prev is not None)
        STATE.dual = level
    return prev
