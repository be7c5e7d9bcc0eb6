"""The leanest numpy tensor engine we could write for the tiny-op chains, as a speed floor.

Four slots, ops as small integers, backward as one ``if`` chain: no registry, no
metadata, no dtype or shape checks beyond the one broadcast the chains use (a
bias row), no copies (a leaf's gradient may alias another node's), no release,
no recorder hooks.  It is not part of the kit; ``benchmarks/tensor_ops.py``
times it beside minigrad to show how much of the tiny-op ratio any Python
engine pays (a node object and a function call per op, a graph walk) and how
much is minigrad's own safety and teaching machinery.
"""

from __future__ import annotations

import numpy as np

MUL, ADD, MATMUL, TANH, SUM = range(5)


class Tensor:
    __slots__ = ("data", "grad", "prev", "op")

    def __init__(self, data, prev=(), op=None):
        self.data = data
        self.grad = None
        self.prev = prev
        self.op = op

    def __mul__(self, other):
        return Tensor(self.data * other.data, (self, other), MUL)

    def __add__(self, other):
        return Tensor(self.data + other.data, (self, other), ADD)

    def __matmul__(self, other):
        return Tensor(self.data @ other.data, (self, other), MATMUL)

    def tanh(self):
        return Tensor(np.tanh(self.data), (self,), TANH)

    def sum(self):
        return Tensor(np.asarray(self.data.sum()), (self,), SUM)

    def backward(self):
        # Post-order DFS without recursion: a node is emitted after its parents.
        order, seen, stack = [], set(), [(self, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                order.append(node)
            elif id(node) not in seen and node.op is not None:
                seen.add(id(node))
                stack.append((node, True))
                stack.extend((p, False) for p in node.prev)
        self.grad = np.ones_like(self.data)
        for node in reversed(order):
            g, op, prev = node.grad, node.op, node.prev
            if op == MUL:
                a, b = prev
                _add(a, g * b.data)
                _add(b, g * a.data)
            elif op == ADD:
                a, b = prev
                _add(a, g)
                _add(b, g if b.data.shape == g.shape else g.sum(axis=0))
            elif op == MATMUL:
                a, b = prev
                _add(a, g @ b.data.T)
                _add(b, a.data.T @ g)
            elif op == TANH:
                out = node.data
                _add(prev[0], g - g * out * out)
            else:  # SUM
                _add(prev[0], np.broadcast_to(g, prev[0].data.shape))


def _add(node, local):
    node.grad = local if node.grad is None else node.grad + local
