"""The graph record shared by both engines, and the one way to make one.

A ``Node`` is one value in a computation together with how it was made:

====================  =========================================================
``data``              a float (``Value``) or a ``numpy.ndarray`` (``Tensor``)
``grad``              same kind as ``data``; ``None`` until a gradient flows in
``requires_grad``     whether gradients should flow to (and through) this node
``op``                the registry ``Op`` that produced it; ``None`` for a leaf
``parents``           the op's inputs, an ordered tuple; ``x*x`` lists ``x`` twice
``saved``             what the op kept for backward; ``None`` once released
``attrs``             the op's settings (axis, shapes, ...) or ``None``
``id``                a stable integer from a counter (never ``id()``): renderers
                      and tests can name nodes the same way run after run
``label``             an optional name shown by the renderers (``name`` is the same)
``origin``            ``None`` for an ordinary node; an ``Origin`` for a node made
                      by a ``create_graph`` backward pass (its derivative order and
                      the edge whose rule made it) or under anomaly mode (where it
                      was created), its gradient hooks (``hooks.py``) and its
                      forward-mode tangent (``forward_ad.py``).
                      ``node.order`` and ``node.trace`` read it.
``grads_fit_inputs``  True when each of the op's gradient rules already returns
                      its input's shape and dtype (an elementwise op that
                      broadcast and promoted nothing), so the fast engine adds
                      it in unchecked
====================  =========================================================

Every node is made by ``init_node``: all slots in one place, and, for an op's
result, the one decision whether to record the op at all (grad mode on, and
some input requires grad).  Inside a ``forward_ad.dual_level`` it is also where
forward mode happens: each op's result gets its tangent from its inputs'
tangents as it is made (``flow_tangent``), recorded or not.

Nodes hold references to their parents only, never to their children or to
closures over themselves, so a graph has no reference cycles and is freed by
reference counting the moment the last output goes out of scope.
"""

from __future__ import annotations

from . import engine, hooks
from .ids import next_id
from .state import GRAD_OFF, HOOKS, STATE
from .tangents import forward_rules, output_tangent

__all__ = ["Node", "Origin", "init_node", "announce", "tangent_of", "set_tangent",
           "flow_tangent"]


class Origin:
    """Where a node came from, kept only when someone asked.

    ``order``: 0 for the forward computation, *k* for a node built by the
    *k*-th nested ``create_graph`` backward pass (1: the graph of a first
    derivative, 2: of a second ...).  ``made_by``: ``(node id, input slot)`` of
    the edge whose gradient rule built it (slot ``None`` for an op with one
    ``vjp``), or ``None`` when it was made outside a rule (the engine's sums).
    ``trace``: the stack where it was made, under anomaly mode.  ``hooks``: its
    gradient hooks (``register_hook``), or ``None``.  ``tangent``: its forward-mode
    tangent (raw data like ``node.data``) while a dual level is active, else ``None``.
    (Here rather than in a slot of its own: a ``Node.tangent`` slot costs one store per
    node made, +0.3 to 0.9% instructions per tiny-chain step under callgrind, where
    this record costs nothing measurable while forward mode is off.)
    """

    __slots__ = ("order", "made_by", "trace", "hooks", "tangent", "__weakref__")

    def __init__(self, order: int = 0, made_by: tuple | None = None, trace=None):
        self.order = order
        self.made_by = made_by
        self.trace = trace
        self.hooks = None
        self.tangent = None

    def __repr__(self) -> str:
        return f"Origin(order={self.order}, made_by={self.made_by})"



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
        "origin",
        "grads_fit_inputs",
        "__weakref__",
    )

    #: The class an op on this node makes its result of: the engine class right below
    #: ``Node`` (``Value``, ``Tensor``), also for a subclass of it (an ``nn.Parameter``
    #: times a tensor is a plain ``Tensor``).  Set by ``__init_subclass__``.
    engine_class: type

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if Node in cls.__bases__:
            cls.engine_class = cls

    @staticmethod
    def apply(op, *inputs, **attrs):
        """Run a registry op on nodes of this engine and record it (``apply_op``); each
        engine class sets its own (``Tensor.apply``, ``Value.apply``)."""
        raise NotImplementedError

    @classmethod
    def constant(cls, data):
        """A constant of this engine (no history, needs no gradient) holding ``data``: how
        the engine turns a raw number or array into a node in a ``create_graph`` pass."""
        return init_node(object.__new__(cls.engine_class), data)

    @property
    def is_leaf(self) -> bool:
        """A leaf was made by the user (or is a constant), not by an op."""
        return self.op is None

    @property
    def order(self) -> int:
        """The derivative order of the pass that built this node: 0 for the forward
        computation, 1 for a node of a first derivative's graph (``create_graph``) ..."""
        origin = self.origin
        return 0 if origin is None else origin.order

    @property
    def trace(self):
        """Where this node was created (a list of frames), kept only under anomaly mode."""
        origin = self.origin
        return None if origin is None else origin.trace

    @property
    def name(self) -> str | None:
        """The node's name, shown by the renderers (``label`` is the same slot)."""
        return self.label

    @name.setter
    def name(self, value: str | None) -> None:
        self.label = value

    def backward(self, gradient=None, retain_graph: bool | None = None,
                 create_graph: bool = False, *, scheduler: str = "dfs") -> None:
        """Backpropagate from this node: fill ``.grad`` of every node it depends on.

        ``gradient`` is d(something)/d(self); it defaults to 1 for a scalar.
        Leaves accumulate (``+=``) across calls, like PyTorch; call
        ``zero_grad()`` between steps.  Saved values are released afterwards
        unless ``retain_graph=True``.  With ``create_graph=True`` every gradient
        is a node with its own graph, to differentiate again (``retain_graph``
        then defaults to True); ``minigrad.autograd.grad`` is usually the better
        tool for that, since it leaves ``.grad`` alone.  ``scheduler="ready-queue"``
        runs the nodes in PyTorch's way (dependency counts, a ready queue), same bits.
        """
        engine.backward(self, gradient, retain_graph, create_graph=create_graph,
                        scheduler=scheduler)

    def register_hook(self, hook) -> hooks.RemovableHandle:
        """Call ``hook(grad)`` with this node's gradient each backward pass; a return value
        other than ``None`` replaces the gradient (on a node made by an op, what flows
        upstream).  Returns a handle with ``.remove()``.  See ``autograd/hooks.py``."""
        return hooks.add_hook(self, hook, False, Origin)

    def register_post_accumulate_grad_hook(self, hook) -> hooks.RemovableHandle:
        """On a leaf: call ``hook(self)`` after backward has updated ``self.grad`` (e.g. an
        optimizer step per parameter).  Returns a handle with ``.remove()``."""
        return hooks.add_hook(self, hook, True, Origin)

    def zero_grad(self) -> None:
        """Forget this node's gradient (sets ``.grad`` to ``None``)."""
        self.grad = None


def init_node(node, data, op=None, parents=(), saved=(), attrs=None, grads_fit_inputs=False,
              requires_grad=False, label=None):
    """Fill every slot of a freshly allocated node: the one node constructor.

    A leaf is ``init_node(node, data, requires_grad=..., label=...)``.  An op's
    result is ``init_node(node, out, op, parents, saved, attrs)``, and this is
    also where minigrad decides whether to **record the op**: only when grad mode
    is on and some input requires grad.  Otherwise no gradient can flow through
    it, and the result is a constant leaf holding ``out``, with no history.
    (``GRAD_OFF`` is zero unless some thread turned grad mode off, so the usual
    case skips the thread-local read.)  Every node is announced to recorders.

    (No keyword-only parameters: they make every call, one per op, measurably dearer.)
    """
    if op is not None:  # an op's result: record the op?
        for p in parents:
            if p.requires_grad and (not GRAD_OFF[0] or STATE.grad_enabled):
                requires_grad = True
                break
        else:  # no gradient can flow through it: a constant leaf, with no history
            if HOOKS[0]:  # (but forward mode still needs the op: tangents flow graph-free)
                return _unrecorded(node, data, op, parents, saved, attrs, label)
            op, parents, saved, attrs, grads_fit_inputs = None, (), (), None, False
    node.data = data
    node.grad = None
    node.requires_grad = requires_grad
    node.op = op
    node.parents = parents
    node.saved = saved
    node.attrs = attrs
    node.id = next_id()
    node.label = label
    node.origin = None
    node.grads_fit_inputs = grads_fit_inputs
    if HOOKS[0]:
        announce(node)
    return node


def _unrecorded(node, data, op, parents, saved, attrs, label):
    """An op's result that no graph records: a constant leaf, whose tangent (inside a
    dual level) still comes from its op and inputs, which it does not keep."""
    init_node(node, data, label=label)
    if STATE.dual is not None:
        flow_tangent(node, op, parents, saved, attrs)
    return node


def announce(node) -> None:
    """Tell this thread's recorders a node exists.  Under anomaly mode keep its creation
    trace; inside a ``create_graph`` backward pass, its derivative order and the edge
    whose rule made it; inside a dual level, its tangent."""
    anomaly = STATE.anomaly
    if anomaly or STATE.order:
        trace = None
        if anomaly:
            from .anomaly import creation_trace

            trace = creation_trace()
        node.origin = Origin(STATE.order, STATE.making, trace)
    for recorder in STATE.recorders:
        recorder.created(node)
    if STATE.dual is not None and node.op is not None:
        flow_tangent(node, node.op, node.parents, node.saved, node.attrs)


# --- forward mode: the tangent of each new node ----------------------------------------
def tangent_of(node):
    """``node``'s forward-mode tangent (raw data, like ``node.data``), or ``None``."""
    origin = node.origin
    return None if origin is None else origin.tangent


def set_tangent(node, tangent) -> None:
    """Give ``node`` a tangent at the active dual level, which forgets it on exit."""
    origin = node.origin
    if origin is None:
        origin = node.origin = Origin()
    origin.tangent = tangent
    STATE.dual.carriers.add(origin)


def flow_tangent(node, op, parents, saved, attrs) -> None:
    """Forward mode for one op: ``ṫ_node = Σᵢ ∂node/∂parentᵢ · ṫᵢ`` from the parents'
    tangents (``tangents.output_tangent``), attached to ``node`` as it is made.

    Nothing here needs a graph: the parents are at hand while the op runs, so a
    result that no graph records gets its tangent too.  Recorders with a
    ``tangent`` method hear each edge's share (see ``trace.py``).
    """
    tangents = [tangent_of(p) for p in parents]
    if all(t is None for t in tangents):
        return
    parts = [] if STATE.recorders else None
    total = output_tangent(op, [p.data for p in parents], node.data, saved, attrs,
                           tangents, parts)
    if total is None:
        return
    set_tangent(node, total)
    if parts is not None:
        _announce_tangent(node, op, parents, saved, attrs, tangents, parts, total)


def _announce_tangent(node, op, parents, saved, attrs, tangents, parts, total) -> None:
    """Each edge's share of ``node``'s tangent, to recorders that listen for it: the
    parts of an op with one rule per input, else (one ``jvp``, ``linear``) each edge
    that brought a tangent, with slot and share ``None``: the rule took them at once.
    A scalar op's edge also tells its bare derivative, the rule at ṫ = 1."""
    listeners = [r.tangent for r in STATE.recorders if callable(getattr(r, "tangent", None))]
    if not listeners:
        return
    if not parts:
        parts = [(None, None, parent, t) for parent, t in zip(parents, tangents) if t is not None]
    else:
        parts = [(slot, part, parents[slot], tangents[slot]) for slot, part in parts]
    rules = forward_rules(op) if op.engine == "scalar" else ()
    for slot, part, parent, incoming in parts:
        derivative = (None if slot is None or not rules
                      else rules[slot](1.0, *saved, **(attrs or {})))
        for tell in listeners:
            tell(node, op, parent, slot, incoming, part, total, derivative)
