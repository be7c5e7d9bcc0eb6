"""Exercise 17 · a Newton step and a Hessian-vector product with autograd.grad (lesson 11).

``minigrad.autograd.grad(outputs, inputs, create_graph=True)`` returns the
gradients as graph nodes, with a graph of their own: differentiate them again
with another ``grad`` call.  Without ``create_graph=True`` they are plain
numbers (a float for a ``Value``, an array for a ``Tensor``), and the second
call has nothing to go back through.  ``grad`` hands the gradients back and
leaves every ``.grad`` as it was: use it, not ``.backward()`` and ``.grad``
(``backward`` *adds* into ``.grad``, so a second pass mixes both derivatives).

Part 1.  ``newton_step(f, x)``: ``f`` maps a ``Value`` to a ``Value``; ``x`` is a
float.  Return the next point of Newton's method for minimising ``f``,

    x − f'(x) / f''(x)

as a float.  Make a leaf ``Value(x)``, get ``f'`` with ``grad(..., create_graph=True)``,
then ``f''`` by differentiating ``f'``.  (No finite differences: the check wants
the exact derivatives, to 1e-9.)

Part 2.  ``hvp(f, xs, vs)``: ``f`` maps a list of Tensors to a scalar Tensor;
``xs`` is that list (float64 leaves with ``requires_grad=True``), ``vs`` a list of
numpy arrays of the same shapes.  Return the Hessian of ``f`` times the vector
``v = (vs[0], vs[1], ...)``, as a list of numpy arrays shaped like ``xs``, without
forming the Hessian:

    g = ∇f(x)            (a graph: create_graph=True)
    Hv = ∇(Σ_i g_i · v_i)  (differentiate one scalar once more)

The inputs may arrive carrying an old ``.grad``: leave it as it is.

Check it:  python -m exercises ex17   (in a notebook: ``check("ex17")``)
"""

from minigrad import Tensor, Value  # noqa: F401  (you will want them)
from minigrad.autograd import grad  # noqa: F401

__all__ = ["newton_step", "hvp"]


def newton_step(f, x: float) -> float:
    """One Newton step for minimising ``f`` from ``x``: ``x − f'(x) / f''(x)``."""
    raise NotImplementedError


def hvp(f, xs: list, vs: list) -> list:
    """The Hessian of ``f`` at ``xs`` times ``vs``, one array per input, by double backward."""
    raise NotImplementedError
