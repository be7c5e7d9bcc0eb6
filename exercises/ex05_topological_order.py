"""Exercise 05 · a topological sort without recursion (lesson 2).

Backward must visit a node only after every node that *uses* it, because a
node's gradient is complete only once all of its users have added their
contributions.  So the engine first lists the graph in *topological order*:
every parent before the nodes made from it.  Reversed, that list is the
backward order.

Each minigrad node knows its inputs as ``node.parents``, an ordered tuple
(``x * x`` lists ``x`` twice; leaves have ``()``).  Write
``topological_order(root)`` returning a list of every node ``root`` depends on,
``root`` included, each exactly once, each after all of its parents.

The classic answer is a depth-first search that appends a node once all its
parents are done (post-order).  Written recursively (as micrograd does) it
fails with ``RecursionError`` on a graph a thousand nodes deep, such as a long
training loop or an RNN.  Write it **without recursion**: keep your own stack
(a list of nodes still to finish), and a set of nodes already seen, so that a
shared subexpression is listed once.

Use ``node.parents`` only (not minigrad's own ``topological_order``).  When it
passes, read ``minigrad/autograd/graph.py`` for another way to get the order.

Check it:  python -m exercises ex05   (in a notebook: ``check("ex05")``)
"""

__all__ = ["topological_order"]


def topological_order(root) -> list:
    """Every node ``root`` depends on (``root`` included), once each, parents first."""
    raise NotImplementedError
