"""The op registry: every differentiable op is one ``Op`` entry.

An entry says everything the rest of the kit needs to know about an op:

* ``forward(*xs, **attrs) -> (out, saved)``: computes the output from the
  inputs' raw data and returns what backward will need (``saved``, a tuple).
  What is *saved* is not the same as the *parents*: ``add`` keeps two parents
  but saves nothing, ``tanh`` saves its own output.
* ``grads``: one rule per input, ``rule(g, *saved, **attrs)``, returning that
  input's share of the gradient, ``g * ∂out/∂input`` (a vector-Jacobian
  product).  Rules never touch the parents: the engine adds their results in,
  which is what lets a recorder report every edge's contribution.  Where
  ``∂out/∂input = 1`` (both inputs of ``a + b``) the rule is ``passthrough``,
  which the tensor engine recognises instead of calling it.
* ``symbol`` and ``formula``: what the renderers and the step-through panel
  show, e.g. ``"×"`` and ``"∂/∂a = b,  ∂/∂b = a"``.
* ``domain``: a safe input range per input for the registry-wide gradient
  tests (for tensor ops, ``cases(rng)`` yields concrete inputs and attrs).
* ``elementwise``: the output is computed element by element from inputs
  broadcast to one shape (``+``, ``tanh`` ...).  Such an op's rules return
  gradients in the output's shape and dtype, which lets the tensor engine
  skip its per-edge checks when no input was broadcast or promoted
  (see ``Node.fits``).

Adding an op is adding one entry: the renderer, the stepper and the gradient
tests find it here with no further code.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Op", "passthrough", "register", "get_op", "registered_ops"]


def passthrough(g, *saved, **attrs):
    """The rule of an input whose local derivative is 1: ``g · 1 = g``, unchanged.

    ``a + b`` sends its upstream gradient to both inputs as it is, and ``a − b``
    to ``a``.  It is one named function, not a ``lambda g: g`` per op, so that
    the tensor engine can spot it and pass ``g`` on without a Python call
    (about a tenth of backward's time in a chain of tiny ops).  Everything else
    (the observed walk, gradcheck, a student's own engine) calls it like any rule.
    """
    return g


@dataclass(frozen=True, eq=False)
class Op:
    name: str
    symbol: str
    forward: Callable[..., tuple[Any, tuple]]
    grads: tuple[Callable[..., Any], ...]
    formula: str
    engine: str = "scalar"
    domain: tuple[tuple[float, float], ...] | None = None
    cases: Callable[..., Any] | None = None
    label: Callable[[dict], str] | None = None
    doc: str = ""
    extra: dict = field(default_factory=dict)
    elementwise: bool = False

    @property
    def arity(self) -> int:
        """Number of inputs (parents) the op takes."""
        return len(self.grads)

    def display(self, attrs: dict | None = None) -> str:
        """Short text for a graph node: the symbol, refined by attrs when the op says how."""
        if self.label is not None and attrs:
            return self.label(attrs)
        return self.symbol

    def __repr__(self) -> str:
        return f"<Op {self.engine}.{self.name} '{self.symbol}'>"


_REGISTRY: dict[tuple[str, str], Op] = {}


def register(op: Op) -> Op:
    """Add ``op`` to the registry; registering the same (engine, name) twice is an error."""
    key = (op.engine, op.name)
    if key in _REGISTRY:
        raise ValueError(f"op {op.engine}.{op.name} is already registered")
    _REGISTRY[key] = op
    return op


def get_op(name: str, engine: str = "scalar") -> Op:
    """Look an op up by name, e.g. ``get_op("mul", "tensor")``."""
    try:
        return _REGISTRY[(engine, name)]
    except KeyError:
        known = ", ".join(sorted(n for e, n in _REGISTRY if e == engine))
        raise KeyError(f"no {engine} op named {name!r}; known: {known}") from None


def registered_ops(engine: str | None = None) -> Iterator[Op]:
    """All registered ops, optionally of one engine, in registration order."""
    return (op for (e, _), op in _REGISTRY.items() if engine is None or e == engine)
