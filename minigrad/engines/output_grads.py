"""The values of a multi-output op's record (``autograd/outputs.py``): its data, ``Outputs``, and
its gradient, ``OutputGrads``.  Kept apart from it (which makes nodes) so
that the engines can import them without an import cycle."""

from __future__ import annotations

import numpy as np

from ..core.standin import ARRAYS

__all__ = ["Outputs", "OutputGrads", "differentiable"]


class Outputs(tuple):
    """A record node's ``data``: the op's outputs, in order (``output_nr`` 0, 1, ...)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"Outputs({', '.join(_describe(x) for x in self)})"


class OutputGrads:
    """A record node's gradient: one entry per output (``None``: none arrived yet).

    ``a + b`` merges two of them slot by slot (a slot in both is summed), which
    is how the engines' ordinary ``parent.grad + local`` accumulates a record.
    """

    __slots__ = ("outs", "grads")

    def __init__(self, outs: Outputs, grads: tuple):
        self.outs = outs
        self.grads = grads

    @classmethod
    def one(cls, outs: Outputs, k: int, g) -> OutputGrads:
        """Output ``k``'s gradient ``g``, nothing for the others."""
        return cls(outs, tuple(g if i == k else None for i in range(len(outs))))

    def __add__(self, other: OutputGrads) -> OutputGrads:
        if not isinstance(other, OutputGrads):
            return NotImplemented
        return OutputGrads(self.outs, tuple(
            b if a is None else a if b is None else a + b
            for a, b in zip(self.grads, other.grads)))

    def filled(self) -> tuple:
        """One gradient per output: zeros for a differentiable output that got none,
        ``None`` for one that cannot have a gradient (integer indices)."""
        return tuple(g if g is not None else _zeros(x) if differentiable(x) else None
                     for g, x in zip(self.grads, self.outs))

    def finite(self) -> bool:
        """No inf or NaN in any slot (anomaly mode's check)."""
        for g in self.grads:
            if g is not None:
                data = getattr(g, "data", g)
                if not np.isfinite(np.asarray(data)).all():
                    return False
        return True

    def __repr__(self) -> str:
        return f"OutputGrads({', '.join(_describe(g) for g in self.grads)})"


def _describe(x) -> str:
    if x is None:
        return "None"
    data = x if isinstance(x, np.ndarray) else getattr(x, "data", x)  # (a node's data)
    if isinstance(data, np.ndarray):
        return f"<{data.shape} {data.dtype}>"
    return repr(data)


def _zeros(x):
    return np.zeros_like(x) if isinstance(x, ARRAYS) else 0.0


def differentiable(x) -> bool:
    """A float output (array or Python float) can carry a gradient; integers cannot."""
    if isinstance(x, ARRAYS):
        return x.dtype.kind == "f"
    return isinstance(x, float)
