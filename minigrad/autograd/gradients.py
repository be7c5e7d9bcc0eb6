"""``minigrad.autograd.grad``: gradients returned, not stored in ``.grad``.

``loss.backward()`` adds into every leaf's ``.grad``, which is what a training
loop wants.  To differentiate a gradient again it is the wrong tool:

* ``x.grad`` after ``backward(create_graph=True)`` is a node whose graph goes
  back to ``x`` itself: a leaf now references its own gradient's graph
  (PyTorch warns about exactly this reference cycle), and the next
  ``backward`` adds into it;
* you usually want the gradient of *one* thing with respect to *some* inputs.

``grad(outputs, inputs)`` runs the same engine and hands the gradients back,
leaving every ``.grad`` as it was::

    (gx,) = grad(loss, [x], create_graph=True)   # dL/dx, a node
    (hv,) = grad(gx, [x], grad_outputs=[v])      # the Hessian times v
"""

from __future__ import annotations

from ..core.backward import seed_gradient
from ..core.order import ancestors
from ..engines.choose import run_backward
from ..engines.higher_order import seed_node
from ..engines.hooked import added, retains_grad

__all__ = ["grad"]


def grad(outputs, inputs, grad_outputs=None, retain_graph: bool | None = None,
         create_graph: bool = False, allow_unused: bool = False) -> tuple:
    """The gradients of ``outputs`` with respect to ``inputs``, one per input (a tuple).

    ``outputs``: a node or a sequence of nodes; ``grad_outputs``: d(something)/d(output)
    for each (required for an output with more than one element, as for
    ``backward``).  With ``create_graph=True`` each gradient is a node with a graph
    of its own, to differentiate again; ``retain_graph`` defaults to
    ``create_graph``.  An input that no output depends on is an error naming it,
    or ``None`` in the result with ``allow_unused=True``.  No ``.grad`` is changed.
    """
    outputs = _sequence(outputs, "outputs")
    inputs = _sequence(inputs, "inputs")
    if grad_outputs is None:
        grad_outputs = [None] * len(outputs)
    else:
        grad_outputs = list(_sequence(grad_outputs, "grad_outputs", nodes_only=False))
        if len(grad_outputs) != len(outputs):
            raise ValueError(f"grad: {len(grad_outputs)} grad_outputs for {len(outputs)} "
                             f"outputs; give one per output (None for a scalar output)")
    if retain_graph is None:
        retain_graph = create_graph
    for k, out in enumerate(outputs):
        if not out.requires_grad:
            raise RuntimeError(f"grad: output {k} does not require grad, so there is no "
                               f"graph to go back through (were the inputs created with "
                               f"requires_grad=True, and grad mode on?)")
    seeds = [seed_node(out, g) if create_graph else seed_gradient(out, g)
             for out, g in zip(outputs, grad_outputs)]

    reachable = ancestors(outputs)
    unused = [k for k, x in enumerate(inputs) if x.id not in reachable or not x.requires_grad]
    if unused and not allow_unused:
        k = unused[0]
        raise RuntimeError(f"grad: input {k}{_name(inputs[k])} is not used to compute the "
                           f"outputs (or does not require grad), so it has no gradient; "
                           f"pass allow_unused=True to get None for it")

    # Run the one engine, then put every .grad back: the results are read from
    # the inputs before that.
    kept = {n.id: (n, n.grad) for n in reachable.values()}
    for n, _ in kept.values():
        n.grad = None
    try:
        if any(n.op is not None for n in outputs):
            run_backward([o for o in outputs if o.op is not None],
                         [s for o, s in zip(outputs, seeds) if o.op is not None],
                         retain_graph, create_graph, post_hooks=False)
        for out, seed in zip(outputs, seeds):
            if out.op is None:  # an output that is a leaf: d out/d out = seed
                out.grad = seed if out.grad is None else out.grad + seed
        results = tuple(None if k in unused else x.grad for k, x in enumerate(inputs))
    finally:
        for n, g in kept.values():  # (a node that retains its .grad adds this call's to it)
            n.grad = added(g, n.grad) if retains_grad(n) else g
    if not allow_unused and any(r is None for r in results):
        k = next(k for k, r in enumerate(results) if r is None)
        raise RuntimeError(f"grad: no gradient reached input {k}{_name(inputs[k])} (every "
                           f"path to it was non-differentiable); pass allow_unused=True to "
                           f"get None for it")
    return results


def _sequence(x, what, nodes_only=True) -> tuple:
    if isinstance(x, (list, tuple)):
        items = tuple(x)
    else:
        items = (x,)
    if nodes_only:
        for k, n in enumerate(items):
            if not hasattr(n, "engine_class"):
                raise TypeError(f"grad: {what} must be Values or Tensors, got "
                                f"{type(n).__name__} at position {k}")
    if not items:
        raise ValueError(f"grad: {what} is empty")
    return items


def _name(x) -> str:
    return f" ('{x.label}')" if x.label else f" (node #{x.id})"
