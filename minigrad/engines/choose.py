"""Which backward loop runs: decided here, and only here.

``c.backward()`` and ``autograd.grad`` come here.  The loops compute the
same gradients (``tests/minigrad/engines`` proves it, bit for bit, over the
whole op table); they differ in what they do besides:

==========================  ===========================================  ===========================
loop                        runs when                                    where
==========================  ===========================================  ===========================
fast (floats / arrays)      nobody watches: the usual case               ``fast.py``
reference, announced        a recorder watches (the stepper, anomaly     ``core/backward.py``
                            mode), saved values are packed, or
                            ``engine="reference"``
hooked                      some live node has gradient hooks            ``hooked.py`` (its Steps)
graph-building              ``create_graph=True``                        ``higher_order.py``
ready queue                 ``scheduler="ready-queue"``: PyTorch's       ``ready_queue.py``
                            order, with the hooked or graph-building
                            steps when those apply
==========================  ===========================================  ===========================

The switches read here (``switches.py``, and the recorders in
``core/modes.py``) are read nowhere else.

Two keywords choose how a pass runs, and they answer different questions:
``scheduler`` is *in which order* nodes run (``"sorted"``: sort once by id,
walk backwards; ``"ready-queue"``: PyTorch's dependency counts; ``"dfs"``, the
older name of ``"sorted"``, is still accepted: the walk that finds the nodes is
breadth first, so the name said less than the truth), and ``engine`` is *how
much is announced* (``"reference"``: every step; ``"fast"``: the shortcuts,
nothing announced, which has only the sorted order).  ``None`` picks
the fast one when nobody watches.
"""

from __future__ import annotations

import numpy as np

from ..core.backward import run_reference, seed_gradient, start
from ..core.modes import STATE
from ..core.order import topological_order
from . import fast, higher_order
from .hooked import HookedPass, add_retained, retained_grads
from .inplace import check_unmodified
from .ready_queue import run_ready_queue
from .switches import SWITCHES

__all__ = ["backward", "run_backward", "run_loop", "check_keywords", "scheduler_name",
           "BACKWARD_ENGINES",
           "SCHEDULERS"]

#: the two ways to run a backward pass (``backward(..., engine=...)``); not to be confused
#: with ``Op.engine``, the engines an op runs on (``Value``, ``Tensor``)
BACKWARD_ENGINES = ("reference", "fast")
#: the orders a backward pass can run its nodes in (``backward(..., scheduler=...)``)
SCHEDULERS = ("sorted", "ready-queue")
#: older names of schedulers, still accepted
_OLD_NAMES = {"dfs": "sorted"}


def backward(root, gradient=None, retain_graph: bool | None = None, *,
             create_graph: bool = False, engine: str | None = None,
             scheduler: str = "sorted"):
    """Compute d(root)/d(node) for every node ``root`` depends on, with the loop that fits.

    ``create_graph=True`` makes each gradient a node with a graph of its own
    (``higher_order.py``), to differentiate again; ``retain_graph`` then defaults
    to True, since the gradient's graph goes through the forward graph's saved
    values.  ``engine`` and ``scheduler``: see the module doc.
    """
    scheduler = check_keywords(engine, scheduler, create_graph)
    if retain_graph is None:
        retain_graph = bool(create_graph)
    if not root.requires_grad:
        raise RuntimeError(
            "backward(): this output does not require grad, so there is no graph to "
            "go back through. Create the inputs with requires_grad=True (and make "
            "sure grad mode was on, i.e. not inside no_grad())."
        )
    seed = higher_order.seed_node(root, gradient) if create_graph else seed_gradient(root, gradient)
    if root.op is None:  # backward() on a leaf: dL/dL = 1 accumulates like any leaf
        _backward_on_leaf(root, gradient, seed, create_graph)
        return
    run_backward((root,), (seed,), retain_graph, create_graph, engine, scheduler)


def scheduler_name(scheduler: str) -> str:
    """Today's name of a scheduler (``"dfs"`` is the older name of ``"sorted"``); an
    unknown one is refused, naming the known ones."""
    scheduler = _OLD_NAMES.get(scheduler, scheduler)
    if scheduler not in SCHEDULERS:
        raise ValueError(f"backward: scheduler must be one of {SCHEDULERS}, got {scheduler!r}")
    return scheduler


def check_keywords(engine, scheduler, create_graph=False) -> str:
    """Refuse an unknown engine or scheduler, or a combination no loop runs; returns the
    scheduler's name (an older name replaced by today's)."""
    if engine is not None and engine not in BACKWARD_ENGINES:
        raise ValueError(f"backward: engine must be one of {BACKWARD_ENGINES}, got {engine!r}")
    if scheduler not in SCHEDULERS:  # (one test in the usual case; ``scheduler_name`` else)
        scheduler = scheduler_name(scheduler)
    if scheduler != "sorted" and engine == "fast":
        raise ValueError("backward: the fast engine runs the sorted order only; "
                         "scheduler='ready-queue' is an announced loop, like "
                         "engine='reference' (leave engine=None)")
    if create_graph and engine == "fast":
        raise ValueError("backward: create_graph=True runs the reference engine (the fast "
                         "one works on raw arrays only); leave engine=None")
    return scheduler


def _backward_on_leaf(root, gradient, seed, create_graph) -> None:
    hooked = HookedPass(STATE.recorders, create_graph) if SWITCHES.hooked_nodes else None
    if hooked is not None:
        hooked.receiving(root)
    if root.grad is not None:
        root.grad = root.grad + seed
    else:  # the leaf's .grad is its own, not the caller's gradient array
        given = gradient is not None and isinstance(seed, np.ndarray)
        root.grad = seed.copy() if given else seed
    if hooked is not None:
        hooked.finish()


def run_backward(roots, seeds, retain_graph: bool, create_graph: bool = False,
                 engine: str | None = None, scheduler: str = "sorted",
                 post_hooks: bool = True) -> list:
    """Order the graph of ``roots``, seed it, and run the loop that fits; returns the order.

    (``backward`` is this with one root; ``autograd.grad`` may give several, and passes
    ``post_hooks=False``: it accumulates no ``.grad``, so post-accumulate hooks stay quiet.)
    """
    order = topological_order(roots, leaves=False)
    if SWITCHES.latest_inplace_change > order[0].id:  # changed in place since it began
        check_unmodified(order)
    # non-leaves that retain_grad(): their .grad adds this pass's to what it held
    kept = retained_grads(order) if SWITCHES.retaining_nodes else None
    start(order, roots, seeds)
    run_loop(roots, order, retain_graph, create_graph, engine, scheduler, post_hooks)
    if kept:
        add_retained(kept)
    return order


def run_loop(roots, order, retain_graph: bool, create_graph: bool = False,
             engine: str | None = None, scheduler: str = "sorted", post_hooks: bool = True,
             hooks: bool = True) -> None:
    """Run the loop that fits over ``order``, whose seeds are already in place
    (``scheduler`` by today's name: ``check_keywords`` translated an older one).

    (``utils.checkpoint`` calls this for the block it recomputes, with ``hooks=False``:
    the block's inner nodes are its own, and the outer pass runs the hooks.)"""
    recorders = STATE.recorders
    hooked = hooks and SWITCHES.hooked_nodes
    # Like PyTorch, backward produces inf/nan silently (d sqrt(x)/dx at 0 is inf);
    # detect_anomaly() is the tool that finds where they come from.
    with np.errstate(all="ignore"):
        if create_graph:
            with higher_order.differentiating(higher_order.derivative_order(order)):
                steps = higher_order.GraphSteps(
                    HookedPass(recorders, True, post_hooks) if hooked else None)
                _announced(scheduler)(roots, order, retain_graph, steps)
        elif hooked:  # some node has hooks: the announced loop runs them
            _announced(scheduler)(roots, order, retain_graph,
                                  HookedPass(recorders, False, post_hooks))
        elif (engine == "reference" or scheduler != "sorted" or (engine is None and recorders)
              or SWITCHES.packed_records):  # (packed saved values: the fast loops do not unpack)
            _announced(scheduler)(roots, order, retain_graph)
        elif isinstance(roots[0].data, np.ndarray):
            fast.run_tensor(order, retain_graph)
        else:
            fast.run_scalar(order, retain_graph)


def _announced(scheduler):
    """The announced loop that runs nodes in ``scheduler``'s order."""
    return run_ready_queue if scheduler == "ready-queue" else run_reference
