"""The graph record shared by both engines, and the one way to make one.

A ``Node`` is one value in a computation together with how it was made:

====================  =========================================================
``data``              a float (``Value``) or a ``numpy.ndarray`` (``Tensor``)
``grad``              same kind as ``data``; ``None`` until a gradient flows in
``requires_grad``     whether gradients should flow to (and through) this node
``op``                the ``Op`` that produced it (``op.py``); ``None`` for a leaf
``parents``           the op's inputs, an ordered tuple: ``x*x`` lists ``x`` twice
``saved``             what the op kept for backward; ``None`` once released
``attrs``             the op's settings (axis, shapes, ...) or ``None``
``id``                a stable integer from a counter (never ``id()``): renderers
                      and tests name nodes the same way run after run
``label``             an optional name shown by the renderers (``name`` is the same)
``origin``            ``None`` for an ordinary node; an ``Origin`` holding the
                      rarer facts some features add (below)
``grads_fit_inputs``  True when each of the op's gradient rules already returns
                      its input's shape and dtype (an elementwise op that
                      broadcast and promoted nothing): the fast loop may add
                      such a gradient in without fitting it first
====================  =========================================================

**Why ids from a counter.**  An op's inputs exist before the op runs, so a
parent's id is always smaller than its children's: sorting nodes by id is a
topological order (the idea behind a tape; ``order.py`` uses it).

**Why no cycles.**  A node holds references to its parents only, never to its
children or to a closure over itself, so a graph is freed by reference
counting the moment its last output goes out of scope.  (micrograd keeps a
``_backward`` closure per node, a cycle only Python's slower collector frees.)

Every node is made by ``init_node``: all slots in one place, and, for an op's
result, the one decision whether to record the op at all.
"""

from __future__ import annotations

import itertools

from .modes import COUNTS, STATE

__all__ = ["Node", "Origin", "init_node", "announce", "next_id", "origin_of"]

#: the next node id: one process-wide counter (in-place changes are stamped from it too)
next_id = itertools.count(1).__next__


class Origin:
    """The rarer facts about a node, kept in one record only when some feature asks.

    ``order``: 0 for the forward computation, *k* for a node built by the *k*-th
    nested ``create_graph`` backward pass.  ``made_by``: ``(node id, input slot)``
    of the edge whose gradient rule built it (slot ``None`` for an op with one
    ``vjp``).  ``stack``: where it was made, under anomaly mode.  ``hooks``: its
    gradient hooks.  ``tangent``: its forward-mode tangent while a dual level is
    active.  (One slot for all of them, rather than five slots on every node:
    each slot costs a store per node made, and these are empty almost always.)
    """

    __slots__ = ("order", "made_by", "stack", "hooks", "tangent", "__weakref__")

    def __init__(self, order: int = 0, made_by: tuple | None = None, stack=None):
        self.order = order
        self.made_by = made_by
        self.stack = stack
        self.hooks = None
        self.tangent = None

    def __repr__(self) -> str:
        return f"Origin(order={self.order}, made_by={self.made_by})"


def origin_of(node) -> Origin:
    """``node.origin``, made on first use."""
    origin = node.origin
    if origin is None:
        origin = node.origin = Origin()
    return origin


class Node:
    """One value in a graph and how it was made (the module doc lists the slots).

    ``Value`` and ``Tensor`` are the two engines' node classes; ``Node`` itself
    is only the record, shared by both.
    """

    __slots__ = ("data", "grad", "requires_grad", "op", "parents", "saved", "attrs", "id",
                 "label", "origin", "grads_fit_inputs", "__weakref__")

    #: The class an op on this node makes its result of: the engine class (``Value``,
    #: ``Tensor``), also for a subclass of it (an ``nn.Parameter`` times a tensor is a
    #: plain ``Tensor``).  An engine class says so with ``engine=True``.
    engine_class: type

    def __init_subclass__(cls, engine: bool = False, **kwargs):
        super().__init_subclass__(**kwargs)
        if engine:
            cls.engine_class = cls

    @staticmethod
    def apply(op, *inputs, **attrs):
        """Run an op on nodes of this engine and record it: what ``Op.__call__`` calls
        when given a node.  Each engine class defines its own (``Value``, ``Tensor``)."""
        raise NotImplementedError

    @classmethod
    def constant(cls, data):
        """A constant of this engine (no history, needs no gradient) holding ``data``: how
        the engine turns a raw number or array into a node in a ``create_graph`` pass."""
        return init_node(object.__new__(cls.engine_class), data)

    @property
    def is_leaf(self) -> bool:
        """A leaf was made by the user (or is a constant), not by an op.

        Leaves are where gradients end up: ``w.grad`` of a weight accumulates across
        backward passes (``+=``), while a non-leaf's ``.grad`` holds one pass's sum.
        """
        return self.op is None

    @property
    def order(self) -> int:
        """The derivative order of the pass that built this node: 0 for the forward
        computation, 1 for a node of a first derivative's graph (``create_graph``) ..."""
        origin = self.origin
        return 0 if origin is None else origin.order

    @property
    def name(self) -> str | None:
        """The node's name, shown by the renderers (``label`` is the same slot)."""
        return self.label

    @name.setter
    def name(self, value: str | None) -> None:
        self.label = value


def init_node(node, data, op=None, parents=(), saved=(), attrs=None, grads_fit_inputs=False,
              requires_grad=False, label=None):
    """Fill every slot of a freshly allocated node: the one node constructor.

    A leaf is ``init_node(node, data, requires_grad=..., label=...)``.  An op's
    result is ``init_node(node, out, op, parents, saved, attrs)``, and this is
    where minigrad decides whether to **record the op**: only when grad mode is
    on and some input requires grad.  Otherwise no gradient can flow through it,
    and the result is a constant leaf holding ``out``, with no history.  Then
    every watcher sees the new node (``announce``).

    (``COUNTS.no_grad_threads`` is zero unless some thread turned grad mode off,
    so the usual case skips the thread-local read.  No keyword-only parameters:
    they make every call, one per op, measurably dearer.)
    """
    if op is not None:  # an op's result: record the op?
        # Only if a gradient could flow through it: some input requires grad (and
        # grad mode is on).  ``for ... else``: the else runs when no input does.
        for p in parents:
            if p.requires_grad and (not COUNTS.no_grad_threads or STATE.grad_enabled):
                requires_grad = True
                break
        else:  # no gradient can flow through it: a constant leaf, with no history
            # (keeping the op would cost memory for saved values no backward will use)
            if COUNTS.watchers:  # (forward mode still needs the op: tangents flow graph-free)
                return _unrecorded(node, data, op, parents, saved, attrs, label)
            op, parents, saved, attrs, grads_fit_inputs = None, (), (), None, False
    # Every slot, always, in one place: a node never lacks an attribute, and a
    # reader of this function has read the whole record.
    node.data = data
    node.grad = None  # no gradient until backward puts one here
    node.requires_grad = requires_grad
    node.op = op
    node.parents = parents
    node.saved = saved
    node.attrs = attrs
    node.id = next_id()  # bigger than every id before it: its parents' too
    node.label = label
    node.origin = None
    node.grads_fit_inputs = grads_fit_inputs
    if COUNTS.watchers:  # someone, in some thread, wants to see new nodes
        announce(node)
    return node


class Unrecorded:
    """What watchers see of an op whose result no graph records: the op and its inputs,
    which the constant leaf it made does not keep (forward mode reads them)."""

    __slots__ = ("op", "parents", "saved", "attrs")

    def __init__(self, op, parents, saved, attrs):
        self.op, self.parents, self.saved, self.attrs = op, parents, saved, attrs


def _unrecorded(node, data, op, parents, saved, attrs, label):
    """An op's result that no graph records: a constant leaf.  Its watchers still hear
    which op made it, for one call (``STATE.unrecorded``), and then it is forgotten."""
    STATE.unrecorded = Unrecorded(op, parents, saved, attrs)
    try:
        init_node(node, data, label=label)
    finally:
        STATE.unrecorded = None
    return node


def announce(node) -> None:
    """Show a new node to this thread's watchers, stage by stage (``modes.watch``).

    This is the one door through which every feature that needs to see nodes as
    they are made comes in; the core itself has no idea what they do."""
    for _, watcher in STATE.watchers:  # sorted by stage (``modes.DESCRIBE`` first)
        watcher(node)
