"""Exercise 21 · backward with dependency counts and a ready queue (lesson 13).

Exercise 06 ran backward over a topological order: sort the whole graph first,
then walk it from the output.  PyTorch's engine never sorts.  It asks a local
question instead: *has every node that uses me sent me its contribution?*

Part 1.  ``pending_counts(root)``: for every node ``root`` depends on that
requires grad, how many contributions it will receive, i.e. how many edges
come into it from nodes made by an op (``node.parents`` of every op node
reachable from ``root``).  Return ``{node.id: count}``.  Count *edges*, not
users: ``x * x`` lists ``x`` twice in its parents, so ``x`` waits for two
contributions.  Leave out nodes with ``requires_grad`` False (constants: they get
no gradient) and nodes nothing uses (the root, unless something reachable uses
it).  Any walk that meets every node once will do: keep a stack (a list) and a
set of the ids you have seen.  No sort, and no recursion (a deep graph has
thousands of nodes).

Part 2.  ``ready_queue_backward(root, gradient=1.0)``: fill ``.grad`` of every
node ``root`` depends on, as ``backward`` does, in this order:

1. count (your ``pending_counts``);
2. seed ``root.grad = gradient``; the root is *ready* (nothing is pending for it);
3. take a ready node off the queue (a ``collections.deque`` or a list) and run it:
   for each parent that requires grad, add ``rule(node.grad, *node.saved)`` into
   ``parent.grad`` (``rule`` from ``node.op.grads``, one per parent, as in
   exercise 06) and count the parent down.  A parent whose count reaches zero
   has received its last contribution: its gradient is complete, so it is ready.
   A leaf that turns ready has nothing to run (its ``.grad`` is final);
4. repeat until the queue is empty.

Return the nodes you ran (those made by an op), in the order you ran them: the
check verifies that each ran exactly once, after every node that uses it.
Which ready node you take first is up to you (first in, first out is fine; PyTorch
takes the newest): any order that only runs complete nodes gives the same
gradients.  Every ``.grad`` is ``None`` at the start.  Do not call minigrad's
``backward`` or ``topological_order``: the point is that counts need no sort.

Check it:  python -m exercises ex21   (in a notebook: ``check("ex21")``)
"""

from collections import deque  # noqa: F401  (you will want it)

__all__ = ["pending_counts", "ready_queue_backward"]


def pending_counts(root) -> dict:
    """``{node.id: edges into it from op nodes}`` for every node ``root`` depends on
    that requires grad and that something uses."""
    raise NotImplementedError


def ready_queue_backward(root, gradient: float = 1.0) -> list:
    """Fill ``.grad`` by running each node when its count reaches zero; return the op
    nodes in the order they ran."""
    raise NotImplementedError
