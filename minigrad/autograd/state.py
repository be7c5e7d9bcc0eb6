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

Their sum, ``UNUSUAL[0]``, is the one read the Tensor operators make before
building a node by hand: zero means grad mode is on in every thread and nobody
listens.

A third, ``GRAD_HOOKS[0]``, counts live nodes with gradient hooks
(``register_hook``, ``hooks.py``): while it is zero, backward takes the fast
engine with no further look at hooks (one check per backward call).

Saved-tensor hooks (``graph.saved_tensors_hooks``) use the same two tiers: an
active context counts in ``HOOKS`` (new nodes are announced, and ``announce``
packs what they saved), and ``PACKED[0]`` counts live packed records, so that
backward takes the loop that unpacks them with one check per call (``saved.py``).
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
    #: the active ``saved_tensors_hooks`` as ``(pack, unpack)`` pairs, innermost last
    saved_hooks: tuple = ()


STATE = _State()
GRAD_OFF = [0]
HOOKS = [0]
#: ``GRAD_OFF[0] + HOOKS[0]``: zero in the usual case, where an op's result is recorded
#: without a look at grad mode and announced to nobody.  One read tells the Tensor
#: operators' inlined node construction (``tensor_operators.py``) that it may run;
#: otherwise they leave the node to ``node.init_node``.
UNUSUAL = [0]
#: live nodes that have gradient hooks (process-wide, like the hooks themselves)
GRAD_HOOKS = [0]
#: The stamp (``node.mark_modified``) of the latest in-place change in any thread,
#: 0 if none yet.  Backward inspects a graph for stale saved arrays only when this
#: is newer than the graph's oldest node: one comparison per backward call.
MODIFIED = [0]
#: live packed saved records (``saved.Packed``): while zero, backward never unpacks
PACKED = [0]
_lock = threading.Lock()
# (re-entrant and apart from ``_lock``: a packed record's ``__del__`` counts down, and
# it may run wherever a reference is dropped, in any thread, lock held or not)
_packed_lock = threading.RLock()


def _count(counter: list, delta: int) -> None:
    """Move ``GRAD_OFF`` or ``HOOKS`` by ``delta``, and ``UNUSUAL`` with it (lock held)."""
    counter[0] += delta
    UNUSUAL[0] += delta


def grad_enabled() -> bool:
    return not GRAD_OFF[0] or STATE.grad_enabled


def set_grad_mode(flag: bool) -> bool:
    """Set this thread's grad mode; returns the previous mode."""
    with _lock:
        prev = STATE.grad_enabled
        if prev and not flag:
            _count(GRAD_OFF, 1)
        elif flag and not prev:
            _count(GRAD_OFF, -1)
        STATE.grad_enabled = flag
    return prev


def set_recorders(recorders: tuple) -> tuple:
    with _lock:
        prev = STATE.recorders
        _count(HOOKS, len(recorders) - len(prev))
        STATE.recorders = recorders
    return prev


def set_anomaly(flag: bool) -> bool:
    with _lock:
        prev = STATE.anomaly
        _count(HOOKS, int(flag) - int(prev))
        STATE.anomaly = flag
    return prev


def set_order(order: int, making) -> tuple:
    """Enter (``order`` > 0) or leave (0) a ``create_graph`` backward pass; returns the
    previous ``(order, making)``.  While inside, every new node is announced, so that
    it can be tagged: the pass counts in ``HOOKS``."""
    with _lock:
        prev = (STATE.order, STATE.making)
        _count(HOOKS, int(order > 0) - int(prev[0] > 0))
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
        _count(HOOKS, int(level is not None) - int(prev is not None))
        STATE.dual = level
    return prev
def set_saved_hooks(hooks: tuple) -> tuple:
    """Set this thread's ``saved_tensors_hooks`` stack; returns the previous one.  A
    non-empty stack counts in ``HOOKS``, so that every new node is announced (and packed)."""
    with _lock:
        prev = STATE.saved_hooks
        _count(HOOKS, int(bool(hooks)) - int(bool(prev)))
        STATE.saved_hooks = hooks
    return prev


def count_packed(delta: int) -> None:
    """A packed saved record was made (+1) or freed (-1)."""
    with _packed_lock:
        PACKED[0] += delta
