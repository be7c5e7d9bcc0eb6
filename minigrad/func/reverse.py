"""Reverse-mode transforms: ``grad``, ``value_and_grad``, ``vjp``, ``jacrev``.

Each is a thin layer over the one backward engine (``autograd.grad``): run
``f`` once, recording a graph, then go back through it.  One backward pass
gives ``cᵀ·J`` for one cotangent ``c``, a whole *row* of the Jacobian at a time,
which is why reverse mode is the right tool for ``f: ℝⁿ → ℝ`` (a loss: one
pass for all n gradients) and the wrong one for a tall Jacobian (one pass per
output).  ``jacrev`` needs one row per output element.

The rows go through one function, ``vjp_rows``, which takes a *stack* of
cotangents (``k`` directions along a new first axis) and returns a stack of
rows, by ``vmap`` of one backward pass over the stack: the rows cost one batched
pass, whose every rule runs on ``k`` upstream gradients at once (``count_passes``
counts 1 backward pass carrying ``k`` directions; ``chunk_size=1`` is the loop of
``k`` passes it replaces).  ``jacrev`` feeds it the standard basis of the outputs
in chunks of ``chunk_size`` directions (all at once by default), and cuts each
block ``∂outᵢ/∂argₖ`` out of the stacked rows.

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
    check_chunk_size,
    check_input,
    check_output,
    matched_cotangents,
    nest,
    outputs_of,
    pick,
    replace,
    split_aux,
)
from ._lift import (
    basis_chunks,
    constant_like,
    in_transform,
    inside,
    jacobian_block,
    join_chunks,
    lift_inputs,
    live_result,
    size_of,
    stack_parts,
)
from .vmap import vmap

__all__ = ["grad", "value_and_grad", "vjp", "jacrev", "vjp_rows"]


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
    grad_of.__wrapped__ = func  # (functools.wraps's: inspect.signature gives f's parameters)
    return grad_of


def value_and_grad(func, argnums=0, has_aux: bool = False):
    """Like ``grad``, but returns ``(f(*args), gradient)`` from the same single pass
    (``((output, aux), gradient)`` with ``has_aux``)."""
    def value_and_grad_of(*args, **kwargs):
        gradient, (value, aux) = _value_and_grad(func, argnums, has_aux, "value_and_grad",
                                                 args, kwargs)
        return ((value, aux) if has_aux else value), gradient

    value_and_grad_of.__name__ = f"value_and_grad_{getattr(func, '__name__', 'f')}"
    value_and_grad_of.__wrapped__ = func
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
    grads = _backward((out,), inputs, (None,), live, where)
    value = live_result(out, live)
    return (grads if many else grads[0]), (value, aux)


@enable_grad()
def vjp(func, *primals, has_aux: bool = False):
    """``(f(*primals), vjp_fn)``: ``vjp_fn(c)`` is ``cᵀ·J``, one gradient per primal (a
    tuple), for a cotangent ``c`` shaped like the output.  ``f`` runs once;
    ``vjp_fn`` may be called many times, each call one backward pass.

    When ``f`` returns a tuple of outputs, ``vjp_fn`` takes a tuple of cotangents,
    one per output in order, and gives ``Σᵢ cᵢᵀ·Jᵢ``.
    """
    if not primals:
        raise TypeError("vjp: give the function's inputs (primals) after the function")
    feed, inputs, live = lift_inputs([check_input(x, "vjp", "primal") for x in primals])
    counting.forward_pass(in_transform())
    with inside():
        out, aux = split_aux(func(*feed), has_aux, "vjp")
    outs, structure = outputs_of(out, "vjp")

    @enable_grad()
    def vjp_fn(cotangents):
        cotangents = matched_cotangents(cotangents, outs, structure, "vjp")
        return _backward(outs, inputs, cotangents, live, "vjp", retain=True)

    value = nest(structure, [live_result(o, live) for o in outs])
    return (value, vjp_fn, aux) if has_aux else (value, vjp_fn)


def jacrev(func, argnums=0, has_aux: bool = False, *, chunk_size=None):
    """``jacrev(f)(*args)``: the Jacobian of ``f`` with respect to ``args[argnums]`` by
    reverse mode, shaped ``out.shape + arg.shape``: one forward pass, then the rows
    ``e_iᵀ·J``, one per *output* element, from one backward pass batched over them.

    For a function returning a tuple, a tuple with one Jacobian per output; for a
    tuple ``argnums``, a tuple per argument; both: ``jac[i][k] = ∂out_i/∂args[k]``
    (``torch.func``'s nesting).  ``chunk_size`` pushes that many rows through
    ``vjp_rows`` at a time, one batched pass each (None: all at once), bounding the
    memory a batched pass needs; ``chunk_size=1`` is one plain pass per row.
    """
    chunk_size = check_chunk_size(chunk_size, "jacrev")

    @enable_grad()
    def jacobian_of(*args, **kwargs):
        nums, many = argnums_tuple(argnums, len(args), "jacrev")
        feed, inputs, live = lift_inputs([check_input(x, "jacrev") for x in pick(args, nums)])
        counting.forward_pass(in_transform())
        with inside():
            result = func(*replace(args, nums, feed), **kwargs)
        out, aux = split_aux(result, has_aux, "jacrev")
        outs, structure = outputs_of(out, "jacrev")
        # one stack of rows per input: row r is output element r's gradient (the
        # elements of all the outputs, in order)
        chunks = [vjp_rows(outs, inputs, cotangents, live, "jacrev")
                  for cotangents in basis_chunks(outs, chunk_size)]
        rows = [join_chunks([c[k] for c in chunks], live) for k in range(len(inputs))]
        jacs, start = [], 0
        for o in outs:
            stop = start + size_of(o)
            per_arg = tuple(jacobian_block(rows[k], start, stop, o, x, live, "jacrev")
                            for k, x in enumerate(inputs))
            jacs.append(per_arg if many else per_arg[0])
            start = stop
        jac = nest(structure, jacs)
        return (jac, aux) if has_aux else jac

    jacobian_of.__name__ = f"jacrev_{getattr(func, '__name__', 'f')}"
    return jacobian_of


def vjp_rows(outs, inputs, cotangents, live, where):
    """Pull a stack of cotangents back: **one batched backward pass**.

    ``cotangents`` holds one array per output, shaped ``(k,) + out.shape``: ``k``
    directions.  The result holds one stack per input, shaped ``(k,) + input.shape``:
    entry ``j`` is ``Σᵢ cotangents[i][j]ᵀ·∂outᵢ/∂input``.

    The pass is ``vmap`` of one backward pass over the stack: the graph was recorded
    once, for one example, and every rule runs on a batch of ``k`` upstream gradients
    (the matmul's ``g·W`` becomes one ``(k, m)·(m, n)`` product).  ``count_passes``
    counts one backward pass carrying ``k`` directions.  ``k == 1`` (``chunk_size=1``)
    is one plain pass per direction: the loop, before vmap.  Values (the scalar
    engine) cannot be batched and keep the loop.
    """
    k = len(cotangents[0])
    if any(isinstance(x, Value) for x in tuple(inputs) + tuple(outs)):
        return _rows_one_by_one(outs, inputs, cotangents, live, where)
    if k == 1:
        rows = _backward(outs, inputs, tuple(c[0] for c in cotangents), live, where,
                         retain=True)
        return tuple(r.reshape((1,) + r.shape) if live else Tensor(r.data[None])
                     for r in rows)

    def one_row(*cs):
        return _backward(outs, inputs, cs, live, where, retain=True)

    with counting.carrying(k):
        rows = vmap(one_row)(*(Tensor(c) for c in cotangents))
    return rows if live else tuple(Tensor(r.data) for r in rows)


def _rows_one_by_one(outs, inputs, cotangents, live, where):
    """The loop: one backward pass per direction (Values: the scalar engine has no batch)."""
    k = len(cotangents[0])
    passes = [_backward(outs, inputs, tuple(c[j] for c in cotangents), live, where,
                        retain=True) for j in range(k)]
    return tuple(stack_parts([p[i] for p in passes], x, live) for i, x in enumerate(inputs))


def _backward(outs, inputs, cotangents, live, where, retain=False):
    """One backward pass from ``outs`` (a tuple of nodes, with one cotangent each; None
    for a scalar) to ``inputs``: the gradients as constants (or, when an outer
    transform differentiates them again, as nodes with their graph)."""
    grads = _gradients(outs, inputs, cotangents, live, retain)
    return tuple(constant_like(x, 0.0) if g is None else g if live else constant_like(x, g)
                 for x, g in zip(inputs, grads))


def _gradients(outs, inputs, cotangents, live, retain):
    """The engine's gradients for one backward pass (None for an input nothing depends
    on).  Outputs that depend on no input, and zero cotangents, contribute nothing and
    are left out."""
    counting.backward_pass()
    if len(outs) == 1:
        pairs = [(outs[0], _for(outs[0], cotangents[0]))] if outs[0].requires_grad else []
    else:
        pairs = [(o, _for(o, c)) for o, c in zip(outs, cotangents)
                 if o.requires_grad and not _is_zero(c)]
    if not pairs:  # nothing depends on the inputs
        return (None,) * len(inputs)
    return autograd_grad([o for o, _ in pairs], list(inputs),
                         grad_outputs=[c for _, c in pairs], retain_graph=retain or live,
                         create_graph=live, allow_unused=True)


def _for(out, c):
    """A cotangent as the engine takes it: a float for a Value output."""
    if isinstance(out, Value) and c is not None and not isinstance(c, Value):
        return float(c)
    return c


def _is_zero(c) -> bool:
    """Whether a cotangent is known to be zero (a constant; a node is never skipped)."""
    if isinstance(c, np.ndarray):
        return not c.any()
    return isinstance(c, (int, float)) and c == 0
