"""Small Value graphs for the checks, rebuilt identically from a seed.

Building the same graph twice gives two structurally identical graphs whose
nodes line up by creation order: one for the student's code, one for
minigrad's engine as the reference.
"""

from __future__ import annotations

import numpy as np

import minigrad
from minigrad import Value


def built(build):
    """Run ``build()`` while recording: ``(root, {label: leaf}, nodes in creation order)``."""
    with minigrad.record() as tape:
        root = build()
    nodes = tape.nodes
    leaves = {n.label: n for n in nodes if n.op is None and n.label}
    return root, leaves, nodes


def random_expression(seed: int, n_leaves: int = 3, n_ops: int = 24):
    """A random expression with shared subexpressions (nodes used 2+ times), constants,
    and unary and binary ops; values stay within a few units, so gradients are tame."""

    def build():
        rng = np.random.default_rng(seed)
        pool = [Value(float(rng.uniform(-1.5, 1.5)), label="abcdefgh"[i]) for i in range(n_leaves)]
        for _ in range(n_ops):
            recent = pool[int(rng.integers(max(0, len(pool) - 5), len(pool)))]
            other = pool[int(rng.integers(len(pool)))]  # often an old node: reuse
            kind = int(rng.integers(8))
            if kind == 0:
                z = recent + other
            elif kind == 1:
                z = recent * other
            elif kind == 2:
                z = recent - other
            elif kind == 3:
                z = recent.tanh()
            elif kind == 4:
                z = recent.sigmoid() * 2.0
            elif kind == 5:
                z = (recent * 0.5).sin() + other
            elif kind == 6:
                z = recent * recent
            else:
                z = other.exp() if abs(other.data) < 1.5 else other.tanh()
            if abs(z.data) > 3:
                z = z.tanh()
            pool.append(z)
        return pool[-1] * pool[-2] + pool[-3]

    return built(build)


def diamond():
    """``x`` feeds two branches that meet again: dL/dx sums both paths."""

    def build():
        x = Value(0.7, label="x")
        left = x * 3.0
        right = x.exp()
        return (left * right).tanh()

    return built(build)


def square():
    """``x * x``: one node, two edges into it."""

    def build():
        x = Value(-1.3, label="x")
        return x * x

    return built(build)


def mul_add():
    """``a * b + a``: the example of lesson 2."""

    def build():
        a, b = Value(2.0, label="a"), Value(-3.0, label="b")
        return a * b + a

    return built(build)


def chain(length: int):
    """``x`` through ``length`` unary ops: deeper than Python's recursion limit."""

    def build():
        v = Value(0.1, label="x")
        for i in range(length):
            v = v.sin() if i % 2 else v * 1.0001
        return v

    return built(build)


def uses(nodes) -> dict:
    """How many edges leave each node (by node id): 2+ means a shared subexpression."""
    count = {}
    for n in nodes:
        for p in n.parents:
            count[p.id] = count.get(p.id, 0) + 1
    return count


def graph_ids(root) -> set:
    """Ids of every node ``root`` depends on (``root`` included)."""
    from minigrad.core.order import ancestors

    return set(ancestors(root))
