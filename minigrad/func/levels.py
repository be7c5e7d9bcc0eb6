"""Levels: one transform's variable, as the transform nested inside it sees it.

In ``grad(lambda x: x * grad(lambda y: x * y)(x))`` the inner ``grad``
differentiates with respect to its own argument ``y``, which *is* the outer
``x``, while ``x`` also enters ``x * y`` through the closure.  The inner
derivative must count the ``y`` path only (``∂(x·y)/∂y = x``, so the whole is
``d(x²)/dx = 2x``); differentiating with respect to the node ``x`` itself
would count both uses (``2x``, then ``4x``): *perturbation confusion*.
``torch.func`` keeps the two apart with levels; here the inner transform runs
its function on a ``lift`` node of ``x``: the same value, a node of its own
(the inner transform differentiates with respect to it alone), with
gradients (and a forward-mode tangent) passing straight through to ``x``, so
the outer transform still sees every path.

The other half of levels is ``_lift.lift_inputs``: whenever an outer
differentiation is running, every transform builds its result as a graph
(``create_graph``), even when its own arguments are plain: its function may
close over the outer variable (``grad(lambda w: jacrev(lambda x: (w @ x).tanh())(x)
.sum())``), and a constant result would silently give the outer transform zeros.
"""

from __future__ import annotations

from ..core.op import OpExample, define_op, op_example, passthrough
from ..value import Value

__all__ = ["lift"]


def _same(x):
    return x, ()


def _lift_op(engine: str):
    cases = ({"cases": lambda rng: [((rng.uniform(-2, 2, s),), {}) for s in ((), (3, 4))]}
             if engine == "tensor" else {"domain": ((-2.0, 2.0),)})
    return define_op(
        internal=True, name="lift", engine=engine, symbol="lift", forward=_same,
        grads=(passthrough,), formulas=("∂/∂x = 1",), linear=True,
        elementwise=engine == "tensor", **cases,
        doc="An outer transform's variable, seen by a nested transform as a node of its "
            "own; gradients pass through.")


#: the ``lift`` op of each engine
LIFT_OPS = {"tensor": _lift_op("tensor"), "scalar": _lift_op("scalar")}


def lift(x):
    """A new node with ``x``'s value for a nested transform to differentiate with respect
    to: gradients and tangents pass through it to ``x``."""
    return x.engine_class.apply(LIFT_OPS["scalar" if isinstance(x, Value) else "tensor"], x)


@op_example("lift")
def _lift_examples() -> list:
    """The table tests' inputs for ``lift``: the op itself (the identity) on each engine."""
    return [OpExample(op=op, cases=op.cases) for op in LIFT_OPS.values()]
