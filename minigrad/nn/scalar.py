"""Neuron, Layer and MLP on the scalar engine, for the first lessons.

The same shape as micrograd's ``nn`` so a student can compare line by line,
but sharing the ``Module`` protocol of the tensor layers: ``parameters()``,
``zero_grad()``, ``__call__``.
"""

from __future__ import annotations

import random

from ..value import Value

__all__ = ["Neuron", "Layer", "MLP"]


class _ScalarModule:
    def parameters(self) -> list[Value]:
        return []

    def zero_grad(self) -> None:
        for p in self.parameters():
            p.grad = None


class Neuron(_ScalarModule):
    """``act(w · x + b)`` with one Value per weight; weights drawn from U(-1, 1)."""

    def __init__(self, nin: int, nonlin: bool = True, rng: random.Random | None = None):
        uniform = (rng or random).uniform
        self.w = [Value(uniform(-1, 1)) for _ in range(nin)]
        self.b = Value(0.0)
        self.nonlin = nonlin

    def __call__(self, x):
        act = sum((wi * xi for wi, xi in zip(self.w, x)), self.b)
        return act.relu() if self.nonlin else act

    def parameters(self):
        return self.w + [self.b]

    def __repr__(self):
        return f"{'ReLU' if self.nonlin else 'Linear'}Neuron({len(self.w)})"


class Layer(_ScalarModule):
    def __init__(self, nin: int, nout: int, rng: random.Random | None = None, **kwargs):
        self.neurons = [Neuron(nin, rng=rng, **kwargs) for _ in range(nout)]

    def __call__(self, x):
        out = [n(x) for n in self.neurons]
        return out[0] if len(out) == 1 else out

    def parameters(self):
        return [p for n in self.neurons for p in n.parameters()]

    def __repr__(self):
        return f"Layer of [{', '.join(str(n) for n in self.neurons)}]"


class MLP(_ScalarModule):
    """Layers of neurons; ReLU everywhere except the last layer, which is linear."""

    def __init__(self, nin: int, nouts: list[int], rng: random.Random | None = None):
        sizes = [nin] + list(nouts)
        self.layers = [
            Layer(sizes[i], sizes[i + 1], rng=rng, nonlin=i != len(nouts) - 1)
            for i in range(len(nouts))
        ]

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]

    def __repr__(self):
        return f"MLP of [{', '.join(str(layer) for layer in self.layers)}]"
