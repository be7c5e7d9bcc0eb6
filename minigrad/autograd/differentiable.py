"""What a user does with a node of either engine: ``backward()``, hooks, ``zero_grad()``.

``core.node.Node`` is the record, and reads in the afternoon; the verbs a user
calls on a ``Value`` or a ``Tensor`` need the loops that run
(``engines/choose.py``) and the hooks (``engines/hooked.py``), which sit
above the core.  So they live here, in the one class both engine classes
derive from.  (PyTorch puts them on ``torch.Tensor`` for the same reason:
``backward`` is the user's door into the engine.)
"""

from __future__ import annotations

from ..core.node import Node
from ..engines import choose
from ..engines.hooked import RemovableHandle, add_hook, retain_grad, retains_grad

__all__ = ["Differentiable"]


class Differentiable(Node):
    """A graph node a user differentiates: the base of ``Value`` and ``Tensor``."""

    __slots__ = ()

    def backward(self, gradient=None, retain_graph: bool | None = None,
                 create_graph: bool = False, *, scheduler: str = "sorted") -> None:
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
        choose.backward(self, gradient, retain_graph, create_graph=create_graph,
                        scheduler=scheduler)

    def register_hook(self, hook) -> RemovableHandle:
        """Call ``hook(grad)`` with this node's gradient each backward pass; a return value
        other than ``None`` replaces the gradient (on a node made by an op, what flows
        upstream).  Returns a handle with ``.remove()``.  See ``engines/hooked.py``."""
        return add_hook(self, hook, False)

    def retain_grad(self) -> None:
        """Keep this non-leaf's ``.grad`` as PyTorch does: accumulated across backward passes.

        Where minigrad differs: PyTorch stores ``.grad`` on leaves only, and a
        non-leaf's ``.grad`` is ``None`` unless you call ``retain_grad()``.  minigrad
        gives *every* node its gradient, ``dL/dnode`` of the latest pass (a picture of
        the graph shows them all, which is what the lessons are about), so here the
        call changes one thing: from now on the node's ``.grad`` adds up across
        passes (``y.grad`` after two ``backward()`` calls is the sum of both, as for a
        leaf), ``autograd.grad`` adds into it too, and ``retains_grad`` is ``True``.
        Like PyTorch: a no-op on a leaf; an error on a node that does not require
        grad; a ``register_hook`` replacement is what is kept; with
        ``create_graph=True`` the kept gradient is a node.  PyTorch makes it a hook;
        here backward adds the kept gradient back after the pass, so every loop,
        the fast one too, runs as before (``engines/hooked.py``).
        """
        retain_grad(self)

    @property
    def retains_grad(self) -> bool:
        """``True`` on a non-leaf after ``retain_grad()`` (on a leaf always ``False``,
        as in PyTorch: a leaf's ``.grad`` accumulates anyway)."""
        return retains_grad(self)

    def register_post_accumulate_grad_hook(self, hook) -> RemovableHandle:
        """On a leaf: call ``hook(self)`` after backward has updated ``self.grad`` (e.g. an
        optimizer step per parameter).  Returns a handle with ``.remove()``."""
        return add_hook(self, hook, True)

    def zero_grad(self) -> None:
        """Forget this node's gradient (sets ``.grad`` to ``None``)."""
        self.grad = None
