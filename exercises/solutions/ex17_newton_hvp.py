"""Reference solution for exercise 17 (a Newton step, a Hessian-vector product)."""

from minigrad import Tensor, Value
from minigrad.autograd import grad

__all__ = ["newton_step", "hvp"]


def newton_step(f, x: float) -> float:
    """One Newton step for minimising ``f`` from ``x``: ``x − f'(x) / f''(x)``."""
    leaf = Value(x)
    (d1,) = grad(f(leaf), [leaf], create_graph=True)
    (d2,) = grad(d1, [leaf])
    return x - d1.data / d2


def hvp(f, xs: list, vs: list) -> list:
    """The Hessian of ``f`` at ``xs`` times ``vs``, one array per input, by double backward."""
    gs = grad(f(xs), xs, create_graph=True)
    gv = sum((g * Tensor(v)).sum() for g, v in zip(gs, vs, strict=True))
    return list(grad(gv, xs))
