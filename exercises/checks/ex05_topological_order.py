"""Checks for exercise 05: every node once, parents first, no recursion, nothing extra."""

import minigrad
from minigrad import Value
from minigrad.core import order

from . import _graphs
from ._support import call, fail, fmt, forbidding

WHY = "ex05: write the walk yourself instead of calling minigrad's own topological_order"


def _unrelated():
    """``z = a + b`` is built from the same leaves but is not an ancestor of the root."""

    def build():
        a, b = Value(1.5, label="a"), Value(-0.5, label="b")
        y = a * b
        _z = a + b  # noqa: F841  (a node that root does not depend on)
        return y.tanh()

    return _graphs.built(build)


def _cases():
    leaf = Value(4.0, label="x")
    yield "a single leaf x", leaf
    for name, graph_ in (("a*b + a", _graphs.mul_add()), ("x*x", _graphs.square()),
                         ("the diamond tanh((3x)·exp(x))", _graphs.diamond()),
                         ("tanh(a*b) next to an unrelated a+b", _unrelated())):
        yield name, graph_[0]
    for seed in (1, 2, 3):
        yield f"a random expression (seed {seed})", _graphs.random_expression(seed)[0]
    yield "a chain 3000 nodes deep", _graphs.chain(3000)[0]


def verify(result, root, name):
    context = f"topological_order(root) on {name}"
    if not isinstance(result, (list, tuple)):
        fail(f"{context} should return a list of nodes, got {type(result).__name__}")
    reachable = order.ancestors(root)  # {id: node}
    seen = {}
    for pos, node in enumerate(result):
        if not hasattr(node, "parents"):
            fail(f"{context}: item {pos} is {fmt(node)}, not a graph node")
        if id(node) in seen:
            fail(f"{context}: {fmt(node)} appears twice (positions {seen[id(node)]} and {pos})",
                 "remember which nodes you have already seen (a set): a node used by two "
                 "others is reached twice but listed once")
        seen[id(node)] = pos
        if reachable.get(node.id) is not node:
            fail(f"{context}: {fmt(node)} is listed, but root does not depend on it",
                 "start from root and follow .parents only")
    if id(root) not in seen and len(result) == len(reachable) - 1:
        fail(f"{context}: the root {fmt(root)} is missing ({len(result)} of {len(reachable)} "
             f"nodes listed)", "the root itself belongs in the list, as its last item")
    for node in reachable.values():
        if id(node) not in seen:
            fail(f"{context}: {fmt(node)} is missing ({len(result)} of {len(reachable)} "
                 f"nodes listed)", "follow .parents all the way down to the leaves")
    # Every node's parents listed after it: the whole list is reversed (root first), a
    # different slip from listing some node too early.
    if len(result) > 1 and all(seen[id(p)] > seen[id(n)] for n in result for p in n.parents):
        fail(f"{context}: the order is reversed: the root is at position {seen[id(root)]} "
             f"and the leaves come last",
             "parents must come before children (the root last): reverse the list, or "
             "append each node after its parents (post-order)")
    for node in result:
        for parent in node.parents:
            if seen[id(parent)] > seen[id(node)]:
                fail(f"{context}: {fmt(node)} is at position {seen[id(node)]}, before its "
                     f"parent {fmt(parent)} at position {seen[id(parent)]}",
                     "append a node only after all of its parents are in the list "
                     "(post-order), not when you first reach it")


def check_topological_order(topological_order):
    cases = list(_cases())  # built before the walk functions are hidden
    hidden = [(minigrad, "topological_order"), (minigrad.autograd, "topological_order"),
              (order, "topological_order"), (order, "ancestors")]
    for name, root in cases:
        reference = dict(order.ancestors(root))
        with forbidding(topological_order, hidden, WHY):
            result = call(topological_order, "topological_order", {"root": root},
                          context=f"topological_order(root) on {name}")
        assert order.ancestors(root) == reference
        verify(result, root, name)
