"""The graph record shared by both engines.

A ``Node`` is one value in a computation together with how it was made:

===================  ==========================================================
``data``             a float (``Value``) or a ``numpy.ndarray`` (``Tensor``)
``grad``             same kind as ``data``; ``None`` until a gradient flows in
``requires_grad``    whether gradients should flow to (and through) this node
``op``               the registry ``Op`` that produced it; ``None`` for a leaf
``parents``          the op's inputs, an ordered tuple; ``x*x`` lists ``x`` twice
``saved``            what the op kept for backward; ``None`` once released
``attrs``            op settings (axis, shapes, ...) or ``None``
``id``               a stable integer from a counter (never ``id()``): renderers
                     and tests can name nodes the same way run after run
``label``            an optional name shown by the renderers
``trace``            where the node was created, kept only under anomaly mode
``fits``             True when the op is elementwise and no input was broadcast
                     or promoted: each rule's result already has its input's
                     shape and dtype, so backward adds it in unchecked
===================  ==========================================================

In-place changes are tracked the way PyTorch's version counters are, at no
cost per op: ``mark_modified`` stamps the changed tensor with a fresh value of
the same counter that numbers nodes, so "changed after node ``n`` was made" is
simply ``stamp > n.id``; backward then checks whether ``n`` saved memory of it.

Nodes hold references to their parents only, never to their children or to
closures over themselves, so a graph has no reference cycles and is freed by
reference counting the moment the last output goes out of scope.
"""

from __future__ import annotations

import itertools
import weakref
from functools import partial

from . import engine
from .state import HOOKS, MODIFIED, STATE

__all__ = ["Node", "next_id", "init_node", "announce", "mark_modified", "changed_since"]

_ids = itertools.count(1)
next_id = _ids.__next__


class Node:
    __slots__ = (
        "data",
        "grad",
        "requires_grad",
        "op",
        "parents",
        "saved",
        "attrs",
        "id",
        "label",
        "trace",
        "fits",
        "__weakref__",
    )

    @property
    def is_leaf(self) -> bool:
        """A leaf was made by the user (or is a constant), not by an op."""
        return self.op is None

    @property
    def name(self) -> str | None:
        """Alias of ``label`` (PyTorch-style modules say *name*)."""
        return self.label

    @name.setter
    def name(self, value: str | None) -> None:
        self.label = value

    def backward(self, gradient=None, retain_graph: bool = False) -> None:
        """Backpropagate from this node: fill ``.grad`` of every node it depends on.

        ``gradient`` is d(something)/d(self); it defaults to 1 for a scalar.
        Leaves accumulate (``+=``) across calls, like PyTorch; call
        ``zero_grad()`` between steps.  Saved values are released afterwards
        unless ``retain_graph=True``.
        """
        engine.backward(self, gradient, retain_graph=retain_graph)

    def zero_grad(self) -> None:
        """Forget this node's gradient (sets ``.grad`` to ``None``)."""
        self.grad = None


def init_node(node, data, requires_grad, op, parents, saved, attrs, label):
    """Fill every slot of a freshly allocated node and announce it to any listeners.

    Kept as one flat function because it runs once per op.  (The scalar
    engine's ``Value`` inlines the same assignments in its own hot path.)
    """
    node.data = data
    node.grad = None
    node.requires_grad = requires_grad
    node.op = op
    node.parents = parents
    node.saved = saved
    node.attrs = attrs
    node.id = next_id()
    node.label = label
    node.trace = None
    node.fits = False
    if HOOKS[0]:
        announce(node)
    return node


def announce(node) -> None:
    """Tell this thread's recorders a node exists; keep its creation trace in anomaly mode."""
    if STATE.anomaly:
        from .anomaly import creation_trace

        node.trace = creation_trace()
    for recorder in STATE.recorders:
        recorder.created(node)


def mark_modified(nodes) -> None:
    """Record that these tensors' ``data`` just changed in place.

    ``t += 1`` under ``no_grad()``, an optimizer step or ``load_state_dict``
    overwrite arrays that a graph built earlier may have saved for backward
    (``x * w`` saves ``w``, ``x @ w.T`` a view of it).  Backward then refuses
    to run on stale values instead of returning a wrong gradient (see
    ``engine.check_unmodified``).  Writing to ``t.data`` yourself is not
    tracked, as in PyTorch.
    """
    stamp = next_id()
    for node in nodes:
        key = id(node)
        _CHANGED[key] = (weakref.ref(node, partial(_forget, key)), stamp)
    MODIFIED[0] = stamp


#: id(node) -> (weak reference to it, stamp of its latest in-place change), for
#: live nodes only: an entry leaves when its node dies.
_CHANGED: dict = {}


def _forget(key, ref) -> None:
    entry = _CHANGED.get(key)
    if entry is not None and entry[0] is ref:  # not a newer node that reused the id
        del _CHANGED[key]


def changed_since(first_id: int) -> list:
    """``[(node, stamp)]`` for live nodes changed in place after node ``first_id`` was made."""
    out = []
    for ref, stamp in list(_CHANGED.values()):
        if stamp > first_id:
            node = ref()
            if node is not None:
                out.append((node, stamp))
    return out
