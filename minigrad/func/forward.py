"""Forward-mode transforms: ``jvp``, ``jacfwd``, and with reverse mode, ``hessian``, ``hvp``.

Forward mode runs the function once with a *tangent* riding along each value
(``minigrad.autograd.forward_ad``: a dual number ``x + ẋε`` with ``ε² = 0``),
and every op passes on ``ṫ_out = Σᵢ ∂out/∂xᵢ · ṫᵢ``.  No graph is kept and
nothing runs backward.  One pass gives ``J·t`` for one direction ``t``: a whole
*column* of the Jacobian when ``t`` is a basis vector.  So forward mode wins
on a tall Jacobian (few inputs, many outputs: one pass per input) and reverse
mode on a wide one (a loss: one pass for every input at once).

``hessian(f) = jacfwd(jacrev(f))`` and ``hvp`` are *forward-over-reverse*: the
tangents ride through the graph that a ``create_graph`` backward pass builds,
so one forward-mode pass through the gradient gives ``H·v``.
"""

from __future__ import annotations

from contextlib import nullcontext

import numpy as np

from ..autograd import forward_ad
from ..autograd.forward_ad import tangent_of
from ..core.modes import no_grad
from ..tensor import Tensor
from ..value import Value
from . import counting
from ._inputs import (
    argnums_tuple,
    check_input,
    check_output,
    checked_like,
    pick,
    replace,
    split_aux,
)
from ._lift import constant_like, in_transform, inside, live_result, stack_rows
from .reverse import jacrev, value_and_grad

__all__ = ["jvp", "jacfwd", "hessian", "hvp"]


def jvp(func, primals, tangents, *, has_aux: bool = False):
    """``(f(*primals), J·tangents)`` in one forward pass that carries the tangents.

    ``primals`` and ``tangents`` are tuples (or lists) of equal length, each
    tangent shaped and typed like its primal.  ``f`` may return a Tensor/Value
    or a tuple of them; the tangent out has the same structure.
    """
    primals, tangents = _pair_up(primals, tangents)
    if in_transform() and any(p.requires_grad for p in primals):
        raise NotImplementedError(
            "jvp: differentiating a forward-mode transform by reverse mode (e.g. "
            "jacrev(jacfwd(f)), grad of a jvp) is not supported; use forward over reverse "
            "instead: jacfwd(jacrev(f)), or hessian(f)")
    # fresh nodes on the same data, needing no grad: forward mode builds no graph
    inputs = [constant_like(p, p.data) for p in primals]
    live = in_transform()
    with forward_ad.dual_level():
        duals = [forward_ad.make_dual(x, t) for x, t in zip(inputs, tangents)]
        counting.forward_pass(in_transform())
        # Forward mode needs no graph: at the top level nothing is recorded (the
        # parameters of a model would otherwise make every op a graph node too).
        with inside(), (nullcontext() if live else no_grad()):
            result = func(*duals)
        out, aux = split_aux(result, has_aux, "jvp")
        outs = out if isinstance(out, tuple) else (out,)
        for o in outs:
            check_output(o, "jvp")
        # (each output's tangent as it is: unpack_dual would make a primal view node per
        # output, which only an outer differentiation of the primal needs)
        primal_out = tuple(live_result(o, live) for o in outs)
        tangent_out = tuple(_tangent_result(o, tangent_of(o), live) for o in outs)
    if not isinstance(out, tuple):
        primal_out, tangent_out = primal_out[0], tangent_out[0]
    return (primal_out, tangent_out, aux) if has_aux else (primal_out, tangent_out)


def jacfwd(func, argnums=0, has_aux: bool = False):
    """``jacfwd(f)(*args)``: the Jacobian of ``f`` with respect to ``args[argnums]`` by
    forward mode, shaped ``out.shape + arg.shape``: one forward pass per *input*
    element, each carrying a basis tangent and giving one column ``J·e_j``."""
    def jacobian_of(*args, **kwargs):
        nums, many = argnums_tuple(argnums, len(args), "jacfwd")
        chosen = [check_input(x, "jacfwd") for x in pick(args, nums)]
        jacs, aux = [], None
        for k, x in enumerate(chosen):
            columns = []
            for tangents in _basis(chosen, k):
                def at(*xs):
                    return func(*replace(args, nums, xs), **kwargs)
                result = jvp(at, tuple(chosen), tangents, has_aux=has_aux)
                out, column = result[0], result[1]
                aux = result[2] if has_aux else None
                columns.append(column)
            check_output(out, "jacfwd")
            if isinstance(x, Value):
                jacs.append(columns[0])
            else:
                out_shape = () if isinstance(out, Value) else out.data.shape
                jacs.append(stack_rows(columns, out_shape, x.data.shape,
                                       any(c.requires_grad for c in columns if
                                           not isinstance(c, Value)), axis=-1))
        jac = tuple(jacs) if many else jacs[0]
        return (jac, aux) if has_aux else jac

    jacobian_of.__name__ = f"jacfwd_{getattr(func, '__name__', 'f')}"
    return jacobian_of


def hessian(func, argnums=0):
    """``hessian(f)(*args)``: the matrix of second derivatives, ``jacfwd(jacrev(f))``:
    reverse mode for the gradient (one backward pass: f is scalar), forward mode
    over it (one pass per input element), shaped ``arg.shape + arg.shape``."""
    return jacfwd(jacrev(func, argnums), argnums)


def hvp(func, primals, tangents):
    """``(f(*primals), H·tangents)`` by forward over reverse, without forming ``H``: one
    forward-mode pass through the gradient computation (``jvp`` of ``grad``).  The
    product is a tuple with one entry per primal."""
    primals, tangents = _pair_up(primals, tangents)
    gradient = value_and_grad(func, argnums=tuple(range(len(primals))))

    def grad_with_value(*xs):
        value, grads = gradient(*xs)
        return grads, value

    _, products, value = jvp(grad_with_value, primals, tangents, has_aux=True)
    return live_result(value, False) if isinstance(value, (Tensor, Value)) else value, products


def _pair_up(primals, tangents):
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError("jvp: primals and tangents must be tuples (or lists), e.g. "
                        "jvp(f, (x,), (t,))")
    if len(primals) != len(tangents):
        raise ValueError(f"jvp: {len(primals)} primals but {len(tangents)} tangents; give "
                         f"one tangent per primal")
    if not primals:
        raise ValueError("jvp: no primals given")
    primals = tuple(check_input(p, "jvp", "primal") for p in primals)
    return primals, tuple(_check_tangent(p, t, k) for k, (p, t) in
                          enumerate(zip(primals, tangents)))


def _check_tangent(primal, tangent, k):
    """The tangent's raw data, checked against its primal's shape and dtype."""
    return checked_like(tangent, primal, "jvp", f"tangent {k}", "its primal")


def _basis(chosen, k):
    """One tangent tuple per element of ``chosen[k]``: a one-hot there, zeros elsewhere."""
    x = chosen[k]
    zeros = [0.0 if isinstance(y, Value) else np.zeros(y.data.shape, y.data.dtype)
             for y in chosen]
    if isinstance(x, Value):
        yield tuple(1.0 if i == k else z for i, z in enumerate(zeros))
        return
    for j in range(x.data.size):
        e = np.zeros(x.data.size, dtype=x.data.dtype)
        e[j] = 1
        yield tuple(e.reshape(x.data.shape) if i == k else z for i, z in enumerate(zeros))


def _tangent_result(out, tangent, live):
    """The output's tangent as a node: zeros when no tangent reached it."""
    if tangent is None:
        return constant_like(out, 0.0)
    if isinstance(tangent, (Tensor, Value)):
        return tangent
    return constant_like(out, tangent)

