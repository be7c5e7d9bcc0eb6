"""Reverse-mode transforms: ``grad``, ``value_and_grad``, ``vjp``, ``jacrev``.

Each is a thin layer over the one backward engine (``autograd.grad``): run
``f`` once, recording a graph, then go back through it.  One backward pass
gives ``cᵀ·J`` for one cotangent ``c``, a whole *row* of the Jacobian at a time,
which is why reverse mode is the right tool for ``f: ℝⁿ → ℝ`` (a loss: one
pass for all n gradients) and the wrong one for a tall Jacobian (one pass per
output).  ``jacrev`` makes that cost visible: it runs one backward pass per
output element (``count_passes`` counts them).

The names and semantics are ``torch.func``'s: ``grad(f)`` is a function, the
arguments to differentiate are chosen by ``argnums``, and ``.grad`` of the
caller's nodes is never touched.
"""

from __future__ import annotations

import numpy as np

from ..autograd.gradients import grad as autograd_grad
from ..core.modes import enable_grad
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
from ._lift import constant_like, in_transform, inside, lift_inputs, live_result, stack_rows

__all__ = ["grad", "value_and_grad", "vjp", "jacrev"]


def grad(func, argnums=0, has_aux: bool = False):
    """``grad(f)(*args)``: the gradient of the scalar ``f(*args)`` with respect to
    ``args[argnums]``, each shaped like its argument (a tuple for a tuple ``argnums``).

    >>> f = lambda x: (x * x).sum()
    >>> grad(f)(minigrad.tensor([1.0, 2.0]))     # 2x
    Tensor([2., 4.])

    With ``has_aux=True``, ``f`` returns ``(output, aux)`` and the result is
    ``(gradient, aux)``.
    """
    def grad_of(*args, **kwargs):
        gradient, (_, aux) = _value_and_grad(func, argnums, has_aux, "grad", args, kwargs)
        return (gradient, aux) if has_aux else gradient

    grad_of.__name__ = f"grad_{getattr(func, '__name__', 'f')}"
    grad_of.__doc__ = f"The gradient of {getattr(func, '__name__', 'f')} (minigrad.func.grad)."
    return grad_of


def value_and_grad(func, argnums=0, has_aux: bool = False):
    """Like ``grad``, but returns ``(f(*args), gradient)`` from the same single pass
    (``((output, aux), gradient)`` with ``has_aux``)."""
    def value_and_grad_of(*args, **kwargs):
        gradient, (value, aux) = _value_and_grad(func, argnums, has_aux, "value_and_grad",
                                                 args, kwargs)
        return ((value, aux) if has_aux else value), gradient

    value_and_grad_of.__name__ = f"value_and_grad_{getattr(func, '__name__', 'f')}"
    return value_and_grad_of


@enable_grad()
def _value_and_grad(func, argnums, has_aux, where, args, kwargs):
    # (grad mode on inside, whatever the caller's: like torch.func, a transform ignores
    # an outer no_grad; so does jvp's, which runs its function with grad mode off)
    nums, many = argnums_tuple(argnums, len(args), where)
    feed, inputs, live = lift_inputs([check_input(x, where) for x in pick(args, nums)])
    counting.forward_pass(in_transform())
    with inside():
        result = func(*replace(args, nums, feed), **kwargs)
    out, aux = split_aux(result, has_aux, where)
    check_output(out, where, scalar=True)
    grads = _backward(out, inputs, None, live, where)
    value = live_result(out, live)
    return (grads if many else grads[0]), (value, aux)


@enable_grad()
def vjp(func, *primals, has_aux: bool = False):
    """``(f(*primals), vjp_fn)``: ``vjp_fn(c)`` is ``cᵀ·J``, one gradient per primal (a
    tuple), for a cotangent ``c`` shaped like the output.  ``f`` runs once;
    ``vjp_fn`` may be called many times, each call one backward pass."""
    if not primals:
        raise TypeError("vjp: give the function's inputs (primals) after the function")
    feed, inputs, live = lift_inputs([check_input(x, "vjp", "primal") for x in primals])
    counting.forward_pass(in_transform())
    with inside():
        out, aux = split_aux(func(*feed), has_aux, "vjp")
    check_output(out, "vjp")

    @enable_grad()
    def vjp_fn(cotangent):
        cotangent = _cotangent(cotangent, out)
        return _backward(out, inputs, cotangent, live, "vjp", retain=True)

    value = live_result(out, live)
    return (value, vjp_fn, aux) if has_aux else (value, vjp_fn)


def jacrev(func, argnums=0, has_aux: bool = False):
    """``jacrev(f)(*args)``: the Jacobian of ``f`` with respect to ``args[argnums]`` by
    reverse mode, shaped ``out.shape + arg.shape``: one forward pass, then one
    backward pass per *output* element, each giving one row ``e_iᵀ·J``."""
    @enable_grad()
    def jacobian_of(*args, **kwargs):
        nums, many = argnums_tuple(argnums, len(args), "jacrev")
        feed, inputs, live = lift_inputs([check_input(x, "jacrev") for x in pick(args, nums)])
        counting.forward_pass(in_transform())
        with inside():
            result = func(*replace(args, nums, feed), **kwargs)
        out, aux = split_aux(result, has_aux, "jacrev")
        check_output(out, "jacrev")
        if isinstance(out, Value):
            rows = [_backward(out, inputs, None, live, "jacrev", retain=True)]
            jac = tuple(r for r in rows[0])
        else:
            n = out.data.size
            rows = []
            for i in range(n):
                basis = np.zeros(n, dtype=out.data.dtype)
                basis[i] = 1
                rows.append(_backward(out, inputs, basis.reshape(out.data.shape), live,
                                      "jacrev", retain=True))
            jac = tuple(stack_rows([row[k] for row in rows], out.data.shape,
                                   inputs[k].data.shape, live, axis=0)
                        for k in range(len(inputs)))
        jac = jac if many else jac[0]
        return (jac, aux) if has_aux else jac

    jacobian_of.__name__ = f"jacrev_{getattr(func, '__name__', 'f')}"
    return jacobian_of


def _backward(out, inputs, cotangent, live, where, retain=False):
    """One backward pass from ``out`` to ``inputs``: the gradients as constants (or, when
    an outer transform differentiates them again, as nodes with their graph)."""
    if not out.requires_grad:  # the output does not depend on any input: zero gradients
        counting.backward_pass()
        return tuple(constant_like(x, 0.0) for x in inputs)
    counting.backward_pass()
    grads = autograd_grad(out, list(inputs), grad_outputs=None if cotangent is None else
                          [cotangent], retain_graph=retain or live, create_graph=live,
                          allow_unused=True)
    return tuple(constant_like(x, 0.0) if g is None else g if live else constant_like(x, g)
                 for x, g in zip(inputs, grads))


def _cotangent(c, out):
    """A cotangent for ``out``: a Tensor/array of its shape and dtype (a float for a Value);
    a Tensor that requires grad is kept as a node (an outer transform differentiates it)."""
    data = checked_like(c, out, "vjp", "the cotangent", "the output")
    return c if isinstance(c, Tensor) and c.requires_grad else data

