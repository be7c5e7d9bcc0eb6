"""The leanest closure-free scalar engine we could write, as a speed floor.

Four slots, ops as small integers, backward as one ``if`` chain, no registry,
no recorder hooks, no release: it does nothing but the arithmetic.  It is not
part of the kit; ``benchmarks/scalar.py`` times it beside minigrad to show
what the metadata and the teaching hooks cost, and how much of a step is
Python's cyclic GC, which no design that keeps the graph alive can avoid.
"""

from __future__ import annotations

import random

ADD, MUL, RELU = 0, 1, 2


class Value:
    __slots__ = ("data", "grad", "prev", "op")

    def __init__(self, data, prev=(), op=None):
        self.data = data
        self.grad = 0.0
        self.prev = prev
        self.op = op

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return Value(self.data + other.data, (self, other), ADD)

    __radd__ = __add__

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return Value(self.data * other.data, (self, other), MUL)

    __rmul__ = __mul__

    def __neg__(self):
        return self * -1

    def relu(self):
        return Value(self.data if self.data > 0 else 0.0, (self,), RELU)

    def backward(self):
        seen, order, stack = set(), [], [(self, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                order.append(node)
            elif id(node) not in seen:
                seen.add(id(node))
                stack.append((node, True))
                stack.extend((p, False) for p in node.prev)
        self.grad = 1.0
        for node in reversed(order):
            g, op = node.grad, node.op
            if op == ADD:
                node.prev[0].grad += g
                node.prev[1].grad += g
            elif op == MUL:
                a, b = node.prev
                a.grad += g * b.data
                b.grad += g * a.data
            elif op == RELU and node.data > 0:
                node.prev[0].grad += g


class Neuron:
    def __init__(self, nin, nonlin=True):
        self.w = [Value(random.uniform(-1, 1)) for _ in range(nin)]
        self.b = Value(0.0)
        self.nonlin = nonlin

    def __call__(self, x):
        act = sum((wi * xi for wi, xi in zip(self.w, x)), self.b)
        return act.relu() if self.nonlin else act

    def parameters(self):
        return self.w + [self.b]


class MLP:
    def __init__(self, nin, nouts):
        sizes = [nin] + nouts
        self.layers = [
            [Neuron(sizes[i], nonlin=i != len(nouts) - 1) for _ in range(sizes[i + 1])]
            for i in range(len(nouts))
        ]

    def __call__(self, x):
        for layer in self.layers:
            x = [n(x) for n in layer]
            x = x[0] if len(x) == 1 else x
        return x

    def parameters(self):
        return [p for layer in self.layers for n in layer for p in n.parameters()]

    def zero_grad(self):
        for p in self.parameters():
            p.grad = 0.0
