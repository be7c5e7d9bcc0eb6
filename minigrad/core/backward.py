"""The reference backward pass: the chain rule, applied edge by edge.

For a root ``L`` and every node ``v`` it depends on, backward computes
``v.grad = dL/dv`` by summing over the edges leaving ``v``:

    dL/dv = Σ over children c of v:  dL/dc · ∂c/∂v

Each op's rule computes one term, ``g · ∂c/∂v`` with ``g = dL/dc`` (a
vector-Jacobian product); the engine adds the terms up (``accumulate``).
Four steps, the whole algorithm:

1. **seed** ``dL/dL = 1`` (or the upstream gradient the caller gives);
2. **order** the graph (``order.topological_order``): every node after all
   of its inputs;
3. **walk that order backwards**, from the root towards the leaves.  A node
   is reached only after every node that uses it, so its ``.grad`` is
   complete: call its op's rules with it, and add each result into the parent
   it belongs to, summed down to the parent's shape (``accumulate``);
4. **release** what the ops saved, unless ``retain_graph=True``: the memory a
   graph holds is mostly its saved values.

Every step is announced to the active recorders (``seeded``, ``visit``,
``contribute``, ``freed``), which is how the stepper replays backward.

This is the *spec*.  The loops that usually run (``minigrad/engines``) take
shortcuts for speed, schedule nodes PyTorch's way, run gradient hooks or
build the graph of a gradient; a test over the whole op table proves that
each gives these loops' bits, and ``engines/choose.py`` says which one runs.
"""

from __future__ import annotations

import numpy as np

from .accumulate import accumulate, vjp_results
from .modes import STATE
from .order import topological_order
from .standin import ARRAYS, StandIn, StandInRefused, per_example

__all__ = ["backward", "run_reference", "propagate", "local_gradients", "seed_gradient",
           "release", "start", "Steps", "GraphReleasedError", "released_error"]


class GraphReleasedError(RuntimeError):
    """Backward reached a node whose saved values were already freed."""


def backward(root, gradient=None, retain_graph: bool = False) -> None:
    """The four steps of the module doc, from one root, announced to every recorder.

    ``c = a*b + a; backward(c)`` leaves ``a.grad == b.data + 1``: ``a`` is
    used twice, so two edges bring it a contribution and the engine adds them.
    (``c.backward()`` runs ``engines.choose.backward``, which picks the loop.)
    """
    seed = seed_gradient(root, gradient)                 # step 1
    order = topological_order((root,), leaves=False)    # step 2 (leaves have no rule to run)
    start(order, (root,), (seed,))
    run_reference((root,), order, retain_graph)          # steps 3 and 4


def start(order, roots, seeds) -> None:
    """What every loop does before step 3, on ``order`` (the nodes made by an op).

    A released node is refused *before* anything is added anywhere (finding it
    halfway would leave the leaves' ``.grad`` half updated).  Every non-leaf's
    ``.grad`` is reset, so it holds this pass's sum only (leaves accumulate across
    passes, as in PyTorch).  Then the seeds go in.
    """
    for node in order:
        if node.saved is None:  # released by an earlier backward (step 4)
            raise released_error(node)
        node.grad = None  # a non-leaf's .grad holds this pass's sum only
    # The seeds go in last, after the reset: a root is a non-leaf too, and its seed is
    # the first thing its .grad holds in this pass.
    for root, seed in zip(roots, seeds):  # (a root given twice gets both seeds)
        root.grad = seed if root.grad is None else root.grad + seed


class Steps:
    """What a pass adds to the spec, at four points; these add nothing.

    The loops in ``minigrad/engines`` that run gradient hooks or build the graph
    of a gradient (``create_graph``) are this loop with a ``Steps`` of their own,
    so there is one chain-rule loop to read, not one per feature.
    """

    def complete(self, node, g):
        """``node``'s gradient is complete: the gradient its rules will get (hooks may
        replace it)."""
        return g

    def rules(self, node, g) -> list:
        """The gradient each edge out of ``node`` carries (``local_gradients``)."""
        return local_gradients(node, g)

    def before_add(self, node, parent, slot) -> None:
        """Just before edge ``slot`` of ``node`` adds its gradient into ``parent``."""

    def finish(self) -> None:
        """Every node has run."""


#: the steps of a pass that adds nothing: the reference loop as the module doc tells it
PLAIN = Steps()


def run_reference(roots, order, retain_graph: bool, steps: Steps = PLAIN) -> None:
    """Steps 3 and 4: the chain rule over ``order`` (parents first), announced."""
    recorders = STATE.recorders  # (an empty tuple unless someone records: loops do nothing)
    for rec in recorders:
        for root in roots:
            rec.seeded(root, root.grad)  # step 1, announced: dL/dL went into the root
    # ``order`` lists parents before children; reversed, every node comes after all
    # of the nodes that use it, which is exactly when its gradient is complete.
    for node in reversed(order):
        g = node.grad  # dL/dnode, complete: every node that uses this one came first
        if g is not None:  # None: no differentiable path from the root reaches it
            g = steps.complete(node, g)
            for rec in recorders:
                rec.visit(node, g)
            propagate(node, g, recorders, steps)  # its rules, added into its parents
        if not retain_graph:
            # Step 4, right away: nothing after this node in the walk needs what it
            # saved (its users have run), so a long chain never holds all of it at once.
            release(node, recorders)
    steps.finish()


def propagate(node, g, recorders=(), steps: Steps = PLAIN, after_edge=None) -> None:
    """Run one node: its op's rules on ``g``, each result added into its parent, announced.

    What running a node means is the same in every loop; loops differ only in
    *when* they call this (the ready queue, ``engines/ready_queue.py``, counts
    down in ``after_edge(parent)``) and in their ``steps``.
    """
    # One edge per parent, in order: ``x*x`` has two edges into ``x``, and each brings
    # its own contribution, ``g · x``; the sum of the two is ``2·g·x``.
    for slot, (parent, local) in enumerate(zip(node.parents, steps.rules(node, g))):
        if local is not None:  # None: the parent needs no gradient, or the op gives none
            steps.before_add(node, parent, slot)
            before = parent.grad  # (for the recorders: what the sum was before this edge)
            accumulate(parent, local)  # parent.grad += g · ∂node/∂parent
            for rec in recorders:
                rec.contribute(node, parent, slot, local, before, parent.grad)
        if after_edge is not None:
            after_edge(parent)


def local_gradients(node, g) -> list:
    """``g · ∂node/∂parent`` for each parent, in order: what the op's rules return.

    ``None`` for a parent that needs no gradient (its rule is not even called).
    An op gives its rules either one per input (``grads``) or as one ``vjp``
    returning a gradient per input (a custom Function, ``cat``); both come out
    here the same way.  Rules get what the op saved and its settings.
    """
    op = node.op
    attrs = node.attrs or {}  # the op's settings (axis=...), passed to every rule
    saved = node.saved  # what the forward kept: inputs, output, masks, shapes ...
    unpack = getattr(saved, "unpack", None)
    if unpack is not None:  # packed by saved_tensors_hooks: it unpacks itself, once per use
        saved = unpack(node)
    try:
        return _run_rules(node, op, g, saved, attrs)
    except StandInRefused:  # inside vmap, a rule that cannot run on batches: per example
        return list(per_example(f"op '{op.name}' (backward)",
                                lambda g, *saved: tuple(_run_rules(node, op, g, saved, attrs)),
                                (g,) + tuple(saved)))


def _run_rules(node, op, g, saved, attrs) -> list:
    if op.grads:  # one rule per input: call each (for ``mul``: g·b for a, g·a for b)
        return [rule(g, *saved, **attrs) if parent.requires_grad else None
                for parent, rule in zip(node.parents, op.grads)]
    # One rule for all inputs (``cat``, a custom Function): it returns a tuple with a
    # gradient (or None) per input, checked to be as long as the parents.
    grads = op.vjp(g, *saved, **attrs)
    return [grad if parent.requires_grad else None
            for parent, grad in zip(node.parents, vjp_results(node, grads))]


def release(node, recorders=()) -> None:
    """Step 4 for one node: free what its op saved, and say so to each recorder that
    listens for it (``freed``, with what was held: a memory ledger weighs it)."""
    saved = node.saved
    node.saved = None  # the last reference the graph held: the arrays can be freed now
    for rec in recorders:
        freed = getattr(rec, "freed", None)
        if freed is not None:
            freed(node, saved)


def seed_gradient(root, gradient):
    """Step 1: the starting gradient dL/dL as raw data, checked against the root.

    For a one-element output it may be left out (it is 1).  For any other
    output it says how much each element matters, d(something)/d(output), and
    must match the output's shape."""
    data = root.data
    if isinstance(data, ARRAYS):  # the tensor engine: dL/dL is an array like the root
        if gradient is None:
            if data.size != 1:
                raise RuntimeError(
                    f"backward() on a non-scalar output of shape {data.shape} needs a "
                    f"gradient: pass backward(gradient) with an array of shape "
                    f"{data.shape} (d(something)/d(output)), or reduce the output to a "
                    f"scalar first, e.g. out.sum().backward()"
                )
            return np.ones_like(data)
        g = _raw(gradient)
        # (a batch of seeds, inside vmap: vmap(vjp_fn) maps over cotangents)
        g = g.astype(data.dtype) if isinstance(g, StandIn) else np.asarray(g, data.dtype)
        if g.shape != data.shape:
            raise ValueError(
                f"backward(gradient): gradient has shape {g.shape} but the output "
                f"has shape {data.shape}; they must match"
            )
        return g
    # The scalar engine: dL/dL is a float, 1.0 unless the caller says otherwise.
    if gradient is None:
        return 1.0
    g = _raw(gradient)
    if isinstance(g, (np.ndarray, np.generic)) and np.size(g) == 1:
        g = g.item()
    if not isinstance(g, (int, float)) or isinstance(g, bool):
        raise TypeError(f"backward(gradient): expected a number, got {type(gradient).__name__}")
    return float(g)


def _raw(gradient):
    """A node's data, anything else as given (so ``backward(gradient)`` takes a node, an
    array or a number alike) (a numpy array's or number's ``.data`` is
    its raw memory, not a value)."""
    if isinstance(gradient, (np.ndarray, np.generic)):
        return gradient
    return getattr(gradient, "data", gradient)


def released_error(node) -> GraphReleasedError:
    """Why backward cannot go through ``node`` again, and what to do instead.

    The message names the node and the usual cause in a training loop, because
    "saved values released" alone tells a student nothing they can act on."""
    label = f" '{node.label}'" if node.label else ""
    return GraphReleasedError(
        f"Trying to backward through the graph a second time: node #{node.id}{label} "
        f"({node.op.name}) has already released its saved values. Pass "
        f"retain_graph=True to the first backward() if you need to call it twice, "
        f"or recompute the forward pass. (In a training loop this usually means a "
        f"parameter was rebound outside no_grad, e.g. `w = w - lr * w.grad`, so it "
        f"became part of the previous step's graph: update it in place under "
        f"no_grad() instead.)"
    )
