"""The order backward visits nodes in, found without recursion.

Backward may run a node's rule only once that node's gradient is complete,
that is, once every node that *uses* it has sent its contribution.  A
topological order (every node after all of its inputs), walked backwards,
guarantees exactly that.

A recursive walk (micrograd's ``build_topo``) fails with ``RecursionError``
once a chain is about a thousand nodes deep.  Here the walk keeps its own
stack (or queue), so a million-node chain is as easy as a three-node one.
"""

from __future__ import annotations

from operator import attrgetter

__all__ = ["topological_order", "ancestors"]

_by_id = attrgetter("id")


def _as_roots(roots) -> tuple:
    """One node or several, as a tuple of roots."""
    if hasattr(roots, "parents"):  # a single node (a Tensor is iterable too)
        return (roots,)
    return tuple(roots)


def ancestors(roots, *, only_requiring_grad: bool = False, leaves: bool = True) -> dict:
    """Every node reachable from ``roots`` (roots included), as ``{node.id: node}``.

    An iterative depth-first search: pop a node, push the parents not seen yet.
    With ``only_requiring_grad`` the walk does not enter parents that need no
    gradient (constants, inputs).  With ``leaves=False`` it keeps only nodes
    made by an op: what backward visits, since leaves have no rule to run.
    """
    return {node.id: node for node in _reachable(roots, only_requiring_grad, leaves)}


def _reachable(roots, only_requiring_grad, leaves) -> list:
    """``ancestors`` as a list in discovery order (a set of ids and a list: cheaper
    than the dict on backward's path, which walks the graph on every call; depth first,
    except backward's walk, ``leaves=False``)."""
    nodes = []  # every node found, in the order found
    seen = set()  # their ids: "have I met this node already?" in one step
    for root in _as_roots(roots):  # (a root listed twice is one node)
        if root.id not in seen:
            seen.add(root.id)
            nodes.append(root)
    if not leaves:  # backward's walk; a node made by an op always requires grad
        # Breadth first, with the list it builds as its queue (a list iterator sees what
        # is appended while it runs): one append per node, no stack.  The order it finds
        # nodes in does not matter, since backward sorts them by id.
        for node in nodes:
            for parent in node.parents:
                if parent.op is not None:
                    i = parent.id
                    if i not in seen:
                        seen.add(i)
                        nodes.append(parent)
        return nodes
    # Depth first: the stack holds nodes found but not yet opened.  Opening one means
    # looking at its parents; each parent not met before is found, and waits its turn.
    # A node reached along two paths (``x`` in ``x*x + x``) is found once: ``seen``.
    stack = nodes[:]  # (not list(nodes): callgrind counts this walk ~20% dearer with it)
    while stack:
        for parent in stack.pop().parents:
            i = parent.id
            # (a constant's own parents, if any, cannot need a gradient either: skip them)
            if i not in seen and (parent.requires_grad or not only_requiring_grad):
                seen.add(i)
                nodes.append(parent)
                stack.append(parent)
    return nodes


def topological_order(roots, *, only_requiring_grad: bool = False, leaves: bool = True) -> list:
    """Every node reachable from ``roots``, each parent before all of its children.

    Each node appears once, even when it is reached along several paths
    (shared subexpressions).  Reversed, the list is the order backward visits
    nodes in: a node's gradient is complete once every node that uses it has
    been processed.

    How: collect the reachable nodes with an iterative depth-first search,
    then sort them by id.  Ids come from a counter at creation, and an op's
    inputs must exist before the op can run, so a parent's id is always
    smaller than its children's: creation order *is* a topological order (the
    idea behind a tape).  The sort makes the order deterministic too.

    The keyword arguments are those of ``ancestors``.
    """
    nodes = _reachable(roots, only_requiring_grad, leaves)
    # Sorting by id is enough: a parent is always made before its children, so it has
    # the smaller id (``node.py``).  The sort also makes the order the same every run.
    nodes.sort(key=_by_id)
    return nodes
