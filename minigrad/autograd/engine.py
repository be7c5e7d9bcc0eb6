"""The backward engine: the chain rule, applied edge by edge.

For a root ``L`` and every node ``v`` it depends on, backward computes
``v.grad = dL/dv`` by summing over the edges leaving ``v``:

    dL/dv = Σ over children c of v:  dL/dc · ∂c/∂v

Each op's rule computes one term, ``g · ∂c/∂v`` with ``g = dL/dc``; the engine
adds the terms up (``accumulate``).  This module is the *reference engine*, the
one to read aloud:

1. seed ``dL/dL = 1`` (or the given upstream gradient);
2. order the graph: ``topological_order`` (an iterative walk, so a
   million-node chain works) lists every node after all of its inputs;
3. walk that order backwards, from the root towards the leaves.  A node is
   reached only after every node that uses it, so its ``.grad`` is complete:
   call its op's rules with it, and add each result into the parent it
   belongs to, summed down to the parent's shape (``unbroadcast``);
4. release what the ops saved, unless ``retain_graph=True``.

Every step is announced to active recorders (``seeded``, ``visit``,
``contribute``), which is how the stepper and the HTML player replay backward.

When no recorder or anomaly mode is watching, ``backward`` runs the *fast
engine* (``fast.py``) instead: the same walk with shortcuts for speed, each
listed there with the test that proves it, and a test over the whole op
registry proves the two give bit-identical gradients.

Two keywords choose how a pass runs, and they answer different questions:

* ``scheduler`` is *in which order* nodes run.  ``"dfs"`` (the default) is the
  walk above: sort once, go backwards.  ``"ready-queue"`` is PyTorch's engine
  (``scheduler.py``): count each node's pending contributions, run a node when
  its count reaches zero.  Both run each node with ``propagate`` below, and
  give the same bits (a registry-wide test).
* ``engine`` is *how much is announced*: ``"reference"`` (every step, to
  recorders and anomaly mode) or ``"fast"`` (the shortcuts, nothing announced;
  it has only the dfs order).  ``None`` picks the fast one when nobody watches.
  ``scheduler="ready-queue"`` always announces, so it refuses ``engine="fast"``.

Gradient hooks (``register_hook``, ``hooks.py``) run in every one of these
loops; while any node has hooks, backward takes the announced loop, never the
fast one (``engine="fast"`` included).  With no hooks the cost is one check.
Saved values packed by ``saved_tensors_hooks`` (``saved.py``) are unpacked in
``local_gradients``, so the same holds while any packed graph lives.

Leaves accumulate across calls (PyTorch semantics: call ``zero_grad``).  Every
non-leaf's gradient is reset at the start of a pass, so nothing from an earlier
pass leaks in; after the pass it holds this pass's ``dL/dv``, for the renderers.
"""

from __future__ import annotations

import math

import numpy as np

from . import fast, higher
from . import scheduler as ready_queue
from .accumulate import accumulate, unbroadcast, unbroadcastable, vjp_results
from .anomaly import anomaly_error
from .graph import topological_order
from .hooks import HookedPass
from .inplace import check_unmodified
from .output_grads import OutputGrads
from .saved import Packed
from .state import GRAD_HOOKS, HOOKS, MODIFIED, PACKED, STATE
from .trace import release

__all__ = ["backward", "run_backward", "run_reference", "propagate", "seed_gradient",
           "local_gradients", "unbroadcast", "unbroadcastable",
           "GraphReleasedError", "BACKWARD_ENGINES", "SCHEDULERS"]

#: the two ways to run a backward pass (``backward(..., engine=...)``); not to be confused
#: with ``registry.ENGINES``, the engines an op runs on (``Value``, ``Tensor``)
BACKWARD_ENGINES = ("reference", "fast")
#: the orders a backward pass can run its nodes in (``backward(..., scheduler=...)``)
SCHEDULERS = ("dfs", "ready-queue")


class GraphReleasedError(RuntimeError):
    """Backward reached a node whose saved values were already freed."""


def backward(root, gradient=None, retain_graph: bool | None = None, *,
             create_graph: bool = False, engine: str | None = None, scheduler: str = "dfs"):
    """Compute d(root)/d(node) for every node ``root`` depends on (see the module doc).

    ``create_graph=True`` runs the same loop on the engine's own values, so each
    gradient is a node with a graph of its own (``higher.py``), which can be
    differentiated again; ``retain_graph`` then defaults to True, since the
    gradient's graph goes through the forward graph's saved values.

    ``engine`` picks the loop: ``"reference"`` (this module's, announcing every
    step) or ``"fast"``; by default the reference one runs when a recorder or
    anomaly mode is watching (or a graph is being built), the fast one
    otherwise.  Both give the same bits.  ``scheduler`` picks the order: ``"dfs"`` or
    ``"ready-queue"`` (see the module doc for how the two keywords combine).
    """
    if engine is not None and engine not in BACKWARD_ENGINES:
        raise ValueError(f"backward: engine must be one of {BACKWARD_ENGINES}, got {engine!r}")
    if scheduler != "dfs":
        check_scheduler(scheduler, engine)
    if create_graph and engine == "fast":
        raise ValueError("backward: create_graph=True runs the reference engine (the fast "
                         "one works on raw arrays only); leave engine=None")
    if retain_graph is None:
        retain_graph = bool(create_graph)
    if not root.requires_grad:
        raise RuntimeError(
            "backward(): this output does not require grad, so there is no graph to "
            "go back through. Create the inputs with requires_grad=True (and make "
            "sure grad mode was on, i.e. not inside no_grad())."
        )
    seed = seed_gradient(root, gradient, create_graph)
    if root.op is None:  # backward() on a leaf: dL/dL = 1 accumulates like any leaf
        hooked = HookedPass(STATE.recorders, create_graph) if GRAD_HOOKS[0] else None
        if hooked is not None:
            hooked.receiving(root)
        if root.grad is not None:
            root.grad = root.grad + seed
        else:  # the leaf's .grad is its own, not the caller's gradient array
            given = gradient is not None and isinstance(seed, np.ndarray)
            root.grad = seed.copy() if given else seed
        if hooked is not None:
            hooked.finish()
        return
    run_backward((root,), (seed,), retain_graph, create_graph, engine, scheduler)


def check_scheduler(scheduler: str, engine: str | None = None) -> None:
    if scheduler not in SCHEDULERS:
        raise ValueError(f"backward: scheduler must be one of {SCHEDULERS}, got {scheduler!r}")
    if scheduler != "dfs" and engine == "fast":
        raise ValueError("backward: the fast engine runs the dfs order only; "
                         "scheduler='ready-queue' is an announced loop, like "
                         "engine='reference' (leave engine=None)")


def run_backward(roots, seeds, retain_graph: bool, create_graph: bool = False,
                 engine: str | None = None, scheduler: str = "dfs",
                 post_hooks: bool = True) -> list:
    """Steps 2 to 4 from one or more roots, each with its seed; returns the order walked.

    (``backward`` is this with one root; ``autograd.grad`` may give several, and passes
    ``post_hooks=False``: it accumulates no ``.grad``, so post-accumulate hooks stay quiet.)
    """
    # Only nodes made by an op have a rule to run; leaves just receive.
    order = topological_order(roots, leaves=False)
    if MODIFIED[0] > order[0].id:  # something changed in place since this graph began
        check_unmodified(order)
    for node in order:
        # Refuse before anything is added anywhere: finding a released node halfway
        # would leave the leaves' .grad half-updated.
        if node.saved is None:
            raise _released_error(node)
        node.grad = None  # a non-leaf's .grad holds this pass's sum only
    for root, seed in zip(roots, seeds):  # (a root given twice gets both seeds)
        root.grad = seed if root.grad is None else root.grad + seed
    watched = HOOKS[0] and (STATE.recorders or STATE.anomaly)
    loop = run_reference if scheduler == "dfs" else _run_ready_queue
    # Like PyTorch, backward produces inf/nan silently (d sqrt(x)/dx at 0 is inf);
    # detect_anomaly() is the tool that finds where they come from.
    with np.errstate(all="ignore"):
        if create_graph:
            with higher.differentiating(higher.derivative_order(order)):
                hooked = HookedPass(STATE.recorders, True, post_hooks) if GRAD_HOOKS[0] else None
                loop(roots, order, retain_graph, True, hooked)
        elif GRAD_HOOKS[0]:  # some node has hooks: the announced loop runs them
            loop(roots, order, retain_graph, False, HookedPass(STATE.recorders, False, post_hooks))
        elif (engine == "reference" or loop is not run_reference or (engine is None and watched)
              or PACKED[0]):  # (packed saved values: the fast loops do not unpack)
            loop(roots, order, retain_graph)
        elif isinstance(seeds[0], np.ndarray):
            fast.run_tensor(order, retain_graph)
        else:
            fast.run_scalar(order, retain_graph)
    return order


def run_reference(roots, order, retain_graph, create_graph: bool = False,
                  hooked: HookedPass | None = None) -> None:
    """Steps 3 and 4: the chain rule over ``order`` (parents first), announced.

    With ``create_graph`` the gradients are nodes, and so is what each rule
    returns (``higher.py``); the loop is the same.  ``hooked`` runs gradient
    hooks (``hooks.py``) when some node has them.
    """
    recorders = STATE.recorders
    anomaly = STATE.anomaly
    for rec in recorders:
        for root in roots:
            rec.seeded(root, root.grad)
    for node in reversed(order):
        g = node.grad  # dL/dnode, complete: every node that uses this one came first
        if g is not None:  # None: no differentiable path from the root reaches it
            if hooked is not None:
                g = hooked.complete(node, g)  # its hooks may replace it
            for rec in recorders:
                rec.visit(node, g)
            propagate(node, g, create_graph, recorders, anomaly, hooked)
        if not retain_graph:
            release(node, recorders)
    if hooked is not None:
        hooked.finish()  # hooked leaves: hooks on this pass's sum, then into .grad


def propagate(node, g, create_graph, recorders, anomaly, hooked=None, on_edge=None) -> None:
    """Run one node: its op's rules on ``g``, each result added into its parent, announced.

    What running a node means is the same in every order; the loops differ only
    in *when* they call this.  ``on_edge(parent)`` is called after each edge (the
    ready-queue scheduler counts down there).
    """
    locals_ = local_gradients(node, g, create_graph)
    for slot, (parent, local) in enumerate(zip(node.parents, locals_)):
        if local is not None:  # None: the parent needs no gradient, or the op gives none
            if anomaly and _not_finite(local):  # detect_anomaly(): name the op
                raise anomaly_error(node, parent, slot, local)
            if hooked is not None and parent.op is None:
                hooked.receiving(parent)
            before = parent.grad
            if create_graph:
                higher.making(node.id, slot)  # (the sum is built by this edge too)
            accumulate(parent, local)  # parent.grad += g · ∂node/∂parent
            for rec in recorders:
                rec.contribute(node, parent, slot, local, before, parent.grad)
        if on_edge is not None:
            on_edge(parent)


def _run_ready_queue(roots, order, retain_graph, create_graph=False, hooked=None) -> None:
    ready_queue.run_ready_queue(roots, order, retain_graph, create_graph, hooked, propagate)


def local_gradients(node, g, create_graph: bool = False) -> list:
    """``g · ∂node/∂parent`` for each parent, in order: what the op's rules return.

    ``None`` for a parent that needs no gradient (its rule is not even called).
    An op gives its rules either one per input (``grads``) or as one ``vjp``
    returning a gradient per input (a custom Function, ``cat``); both come out
    here the same way.  With ``create_graph`` the rules get the saved values
    as nodes and their results are nodes (``higher.py``).
    """
    op = node.op
    attrs = node.attrs or {}
    if create_graph:
        saved = higher.saved_as_nodes(node)
        if op.grads:
            out = []
            for slot, (parent, rule) in enumerate(zip(node.parents, op.grads)):
                if not parent.requires_grad:
                    out.append(None)
                    continue
                higher.making(node.id, slot)
                local = rule(g, *saved, **attrs)
                out.append(None if local is None else higher.as_node(parent, local))
            return out
        higher.making(node.id, None)
        grads = op.vjp(g, *saved, **attrs)
        # (an output's share of a multi-output record, ``OutputGrads``, is no node: the
        # record adds it up slot by slot; see ``outputs.py``)
        return [None if grad is None or not parent.requires_grad
                else grad if grad.__class__ is OutputGrads else higher.as_node(parent, grad)
                for parent, grad in zip(node.parents, vjp_results(node, grads))]
    saved = node.saved
    if saved.__class__ is Packed:  # saved_tensors_hooks: unpack, once for this use
        saved = saved.unpack(node)
    if op.grads:
        return [rule(g, *saved, **attrs) if parent.requires_grad else None
                for parent, rule in zip(node.parents, op.grads)]
    grads = op.vjp(g, *saved, **attrs)
    return [grad if parent.requires_grad else None
            for parent, grad in zip(node.parents, vjp_results(node, grads))]


def seed_gradient(root, gradient, create_graph: bool = False):
    """The starting gradient dL/dL, checked against the root's kind and shape.

    With ``create_graph`` it is a node: a constant, or the ``gradient`` node given
    (which may itself require grad: a vector-Jacobian product of a gradient)."""
    if create_graph:
        if isinstance(gradient, root.engine_class) and gradient.requires_grad:
            seed_gradient(root, gradient.data)  # (the same checks, on its value)
            return gradient
        return root.engine_class.constant(seed_gradient(root, gradient))
    data = root.data
    if isinstance(data, np.ndarray):
        if gradient is None:
            if data.size != 1:
                raise RuntimeError(
                    f"backward() on a non-scalar output of shape {data.shape} needs a "
                    f"gradient: pass backward(gradient) with an array of shape "
                    f"{data.shape} (d(something)/d(output)), or reduce the output to a "
                    f"scalar first, e.g. out.sum().backward()"
                )
            return np.ones_like(data)
        g = np.asarray(_raw(gradient), dtype=data.dtype)
        if g.shape != data.shape:
            raise ValueError(
                f"backward(gradient): gradient has shape {g.shape} but the output "
                f"has shape {data.shape}; they must match"
            )
        return g
    if gradient is None:
        return 1.0
    g = _raw(gradient)
    if isinstance(g, (np.ndarray, np.generic)) and np.size(g) == 1:
        g = g.item()
    if not isinstance(g, (int, float)) or isinstance(g, bool):
        raise TypeError(f"backward(gradient): expected a number, got {type(gradient).__name__}")
    return float(g)


def _raw(gradient):
    """A node's data, anything else as given (a numpy array's or number's ``.data`` is
    its raw memory, not a value)."""
    if isinstance(gradient, (np.ndarray, np.generic)):
        return gradient
    return getattr(gradient, "data", gradient)


def _released_error(node):
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


def _not_finite(x) -> bool:
    if x.__class__ is OutputGrads:  # what an output sends its multi-output record
        return not x.finite()
    if hasattr(x, "engine_class"):  # a create_graph pass: look at the node's value
        x = x.data
    if isinstance(x, np.ndarray):
        return not np.isfinite(x).all()
    return not math.isfinite(x)
