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
``trace``             where the node was created, kept only under anomaly mode
``grads_fit_inputs``  True when each of the op's gradient rules already returns
                      its input's shape and dtype (an elementwise op that
                      broadcast and promoted nothing), so the fast engine adds
                      it in unchecked
====================  =========================================================

Every node is made by ``init_node``: all slots in one place, and, for an op's
result, the one decision whether to record the op at all (grad mode on, and
some input requires grad).

Nodes hold references to their parents only, never to their children or to
closures over themselves, so a graph has no reference cycles and is freed by
reference counting the moment the last output goes out of scope.
"""

from __future__ import annotations

from . import engine
from .ids import next_id
from .state import GRAD_OFF, HOOKS, STATE

__all__ = ["Node", "init_node", "announce"]



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

    @property
    def is_leaf(self) -> bool:
        """A leaf was made by the user (or is a constant), not by an op."""
        return self.op is None

    @property
    def name(self) -> str | None:
        """The node's name, shown by the renderers (``label`` is the same slot)."""
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
    node.trace = None
    node.grads_fit_inputs = grads_fit_inputs
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
