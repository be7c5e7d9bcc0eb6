"""Neuron, Layer and MLP on the scalar engine, for the first lessons.

The same shape as micrograd's ``nn`` so a student can compare line by line
(``model.layers[0].neurons[0].w``, ``parameters()`` as a list, ``zero_grad()``),
but built on the same ``Module`` protocol as the tensor layers: named
parameters (``"layers.0.neurons.1.w.0"``), ``state_dict``, ``train``/``eval``,
and name scopes, so a drawing can fold each neuron into one box.
"""

from __future__ import annotations

import numbers
import random

from ..value import Value
from .module import Module, ModuleList

__all__ = ["Neuron", "Layer", "MLP"]


def _as_inputs(x):
    """``x`` as a sized sequence; one Value or number counts as a length-1 input.

    A ``Layer`` of one neuron returns a single Value, so the next layer must
    accept it (``MLP(3, [1, 2])``).
    """
    if isinstance(x, (Value, numbers.Real)):
        return [x]
    return x if hasattr(x, "__len__") else list(x)


class Neuron(Module):
    """``act(w · x + b)`` with one Value per weight; weights drawn from U(-1, 1)."""

    def __init__(self, nin: int, nonlin: bool = True, rng: random.Random | None = None):
        super().__init__()
        uniform = (rng or random).uniform
        w = [Value(uniform(-1, 1)) for _ in range(nin)]
        self.w = w
        for i, wi in enumerate(w):
            self.register_parameter(f"w.{i}", wi)
        self.register_parameter("b", Value(0.0))
        self.nonlin = nonlin

    def forward(self, x):
        x = _as_inputs(x)
        if len(x) != len(self.w):  # zip would silently drop the extra weights or inputs
            raise ValueError(f"Neuron({len(self.w)}) expects {len(self.w)} inputs, got "
                             f"{len(x)}")
        act = sum((wi * xi for wi, xi in zip(self.w, x)), self.b)
        return act.relu() if self.nonlin else act

    def extra_repr(self) -> str:
        return f"{len(self.w)}, nonlin={self.nonlin}"

    def __repr__(self):
        return f"{'ReLU' if self.nonlin else 'Linear'}Neuron({len(self.w)})"


class Layer(Module):
    """``nout`` neurons reading the same inputs; returns a list (or one Value if nout == 1)."""

    def __init__(self, nin: int, nout: int, rng: random.Random | None = None, **kwargs):
        super().__init__()
        self.neurons = ModuleList(Neuron(nin, rng=rng, **kwargs) for _ in range(nout))

    def forward(self, x):
        out = [n(x) for n in self.neurons]
        return out[0] if len(out) == 1 else out

    def __repr__(self):
        return f"Layer of [{', '.join(str(n) for n in self.neurons)}]"


class MLP(Module):
    """Layers of neurons; ReLU everywhere except the last layer, which is linear."""

    def __init__(self, nin: int, nouts: list[int], rng: random.Random | None = None):
        super().__init__()
        self.nin, self.nouts = int(nin), list(nouts)
        sizes = [nin] + list(nouts)
        self.layers = ModuleList(
            Layer(sizes[i], sizes[i + 1], rng=rng, nonlin=i != len(nouts) - 1)
            for i in range(len(nouts))
        )

    def forward(self, x):
        x = _as_inputs(x)
        if len(x) != self.nin:  # (each Neuron checks too; this names the model)
            raise ValueError(f"MLP({self.nin}, {self.nouts}) expects {self.nin} inputs, "
                             f"got {len(x)}")
        for layer in self.layers:
            x = layer(x)
        return x

    def __repr__(self):
        return f"MLP of [{', '.join(str(layer) for layer in self.layers)}]"
