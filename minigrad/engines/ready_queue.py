"""The ready-queue scheduler: the order PyTorch's engine runs a backward pass in.

The reference engine (``core/backward.py``) sorts the whole graph first and walks the
sorted list backwards.  PyTorch never sorts.  It asks a local question instead:
*has every node that uses me sent me its contribution?*

1. **Count.**  For every node, count the edges coming into it from the nodes
   backward will run: its *pending* contributions (``dependencies``).  ``x*x``
   counts two for ``x``: two edges, two contributions.
2. **Seed.**  The roots get their seeds; a root nobody else uses has nothing
   pending, so it is *ready*.
3. **Run a ready node.**  Take one from the ready queue; its gradient is
   complete (its *input buffer*, ``node.grad``, holds the sum of everything it
   received).  Run its op's rules and add each result into the parent's buffer
   (``core.backward.propagate``, exactly as the reference engine does), counting that
   parent down.  A parent whose count reaches zero has received its last
   contribution: it turns ready and joins the queue.  A leaf that turns ready
   has nothing to run: its ``.grad`` is final (its hooks run now).
4. Repeat until the queue is empty; release saved values as nodes finish.

**Which ready node first?**  PyTorch's ready queue is a priority queue keyed by
each node's *sequence number*, a counter taken when the node was created: the
node created last runs first.  Ours is the same, keyed by ``node.id``.  The
ready node with the largest id is always the largest unfinished one (every
node that uses it was created after it, so has a larger id and has run), so
the nodes run in exactly the reference engine's order, contributions arrive
in the same order, and the two give the same bits.  What the ready queue adds
is *why* that order is safe, node by node, which is what the stepper shows:
each node's pending count, and the queue, as the pass runs.

Recorders may listen to two more events (both optional methods):
``scheduled(counts)`` once, with ``{node id: pending}``; ``ready(node, queue)``
when a node's count reaches zero (after its last contribution), with the ids
waiting in the queue, next to run first.
"""

from __future__ import annotations

import heapq

from ..core.backward import PLAIN, Steps, propagate, release
from ..core.modes import STATE

__all__ = ["dependencies", "run_ready_queue"]


def dependencies(order) -> dict:
    """``{node id: number of edges into it from the nodes in order}``, for every node that
    needs a gradient: how many contributions it waits for before it is ready."""
    pending: dict = {}
    for node in order:
        for parent in node.parents:
            if parent.requires_grad:
                pending[parent.id] = pending.get(parent.id, 0) + 1
    return pending


def run_ready_queue(roots, order, retain_graph, steps: Steps = PLAIN) -> None:
    """Steps 1 to 4 (the module doc) over ``order``, the nodes made by an op reachable from
    ``roots``, whose seeds are already in ``.grad``.  Each node runs with the reference
    engine's ``propagate`` and the pass's ``steps``: the scheduler only decides when."""
    recorders = STATE.recorders
    leaf_done = getattr(steps, "leaf_done", None)  # (gradient hooks: a leaf is finished)
    pending = dependencies(order)
    tell_ready = [r.ready for r in recorders if callable(getattr(r, "ready", None))]
    for rec in recorders:
        scheduled = getattr(rec, "scheduled", None)
        if callable(scheduled):
            scheduled(dict(pending))
    for rec in recorders:
        for root in roots:
            rec.seeded(root, root.grad)
    queue: list = []  # a heap of (-id, node): the newest ready node comes out first

    def turn_ready(node) -> None:
        if node.op is not None:
            heapq.heappush(queue, (-node.id, node))
        for ready in tell_ready:
            ready(node, tuple(-key for key, _ in sorted(queue)))
        if node.op is None and leaf_done is not None:
            leaf_done(node)  # a leaf runs at once (PyTorch: AccumulateGrad first)

    def count_down(parent) -> None:
        n = pending.get(parent.id)
        if n is not None:  # (None: a parent that needs no gradient is not counted)
            pending[parent.id] = n - 1
            if n == 1:
                turn_ready(parent)

    seen = set()
    for root in roots:
        if root.id not in seen and not pending.get(root.id):
            seen.add(root.id)
            turn_ready(root)
    while queue:
        _, node = heapq.heappop(queue)
        g = node.grad  # complete: its count reached zero
        if g is not None:  # None: every path to it was non-differentiable
            g = steps.complete(node, g)
            for rec in recorders:
                rec.visit(node, g)
            propagate(node, g, recorders, steps, count_down)
        else:  # nothing to send, but its parents stop waiting for it
            for parent in node.parents:
                count_down(parent)
        if not retain_graph:
            release(node, recorders)
    steps.finish()
