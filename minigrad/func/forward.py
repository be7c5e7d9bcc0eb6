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
so one forward-mode pass through the gradient gives ``H·v``.  A ``jvp`` *inside*
another transform (``grad`` of a ``jvp``, ``jacrev(jacfwd(f))``, ``jacfwd`` of
``jacfwd``) goes by reverse mode instead (``_jvp_by_reverse``): a tangent is raw
data no outer transform can differentiate, and forward-mode levels do not nest.

``jacfwd``'s columns go through one function, ``jvp_columns``, which takes a
*stack* of tangents (``k`` directions along a new first axis) and returns a
stack of columns per output, by ``vmap`` of ``jvp`` over the stack: one forward
pass whose tangents are a batch of ``k`` (``count_passes``: 1 forward pass
carrying ``k`` directions; ``chunk_size=1`` is the loop of ``k`` passes).
``jacfwd`` feeds it the standard basis of the chosen arguments in chunks of
``chunk_size`` directions (all at once by default).
"""

from __future__ import annotations

import numpy as np

from ..autograd import forward_ad
from ..autograd.forward_ad import tangent_of
from ..autograd.gradients import grad as autograd_grad
from ..core.modes import enable_grad, no_grad
from ..tensor import Tensor
from ..value import Value
from . import counting
from ._inputs import (
    argnums_tuple,
    check_chunk_size,
    check_input,
    checked_like,
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
from .reverse import jacrev, value_and_grad
from .vmap import vmap

__all__ = ["jvp", "jacfwd", "hessian", "hvp", "jvp_columns"]


def jvp(func, primals, tangents, *, has_aux: bool = False):
    """``(f(*primals), J·tangents)`` in one forward pass that carries the tangents.

    ``primals`` and ``tangents`` are tuples (or lists) of equal length, each
    tangent shaped and typed like its primal.  ``f`` may return a Tensor/Value
    or a tuple (or list) of them; the tangent out has the same structure.

    Inside another transform the result is a node that transform differentiates,
    computed by two backward passes instead (see ``_jvp_by_reverse``).
    """
    primals, tangents = _pair_up(primals, tangents)
    if in_transform():
        return _jvp_by_reverse(func, primals, tangents, has_aux)
    # fresh nodes on the same data, needing no grad: forward mode builds no graph
    inputs = [constant_like(p, p.data) for p in primals]
    with forward_ad.dual_level():
        duals = [forward_ad.make_dual(x, t) for x, t in zip(inputs, tangents)]
        counting.forward_pass()
        # Forward mode needs no graph: at the top level nothing is recorded (the
        # parameters of a model would otherwise make every op a graph node too).
        with inside(), no_grad():
            result = func(*duals)
        out, aux = split_aux(result, has_aux, "jvp")
        outs, structure = outputs_of(out, "jvp")
        # (each output's tangent as it is: unpack_dual would make a primal view node per
        # output, which only an outer differentiation of the primal needs)
        primal_out = tuple(live_result(o, False) for o in outs)
        tangent_out = tuple(_tangent_result(o, tangent_of(o)) for o in outs)
    primal_out, tangent_out = nest(structure, primal_out), nest(structure, tangent_out)
    return (primal_out, tangent_out, aux) if has_aux else (primal_out, tangent_out)


@enable_grad()  # (even in an outer jvp's no_grad: this pass needs its graph)
def _jvp_by_reverse(func, primals, tangents, has_aux):
    """``jvp`` inside another transform: ``J·t`` by reverse mode, twice.

    A tangent here is raw data, which no outer transform can differentiate (and
    forward-mode levels do not nest), yet ``grad(lambda w: jvp(lambda x: f(w, x),
    (x,), (t,))[1].sum())`` needs ``J·t`` as a function of ``w``.  So, nested, jvp
    runs ``f`` once recording a graph and goes back through it with a cotangent
    ``u`` that is itself a variable: ``g(u) = uᵀ·J``, linear in ``u``, so its
    derivative along ``t`` is ``∂(g·t)/∂u = J·t``: a second backward pass, both
    building graphs (``create_graph``), so the result is a node the outer
    transform differentiates (the *double-vjp trick*: two backward passes instead of
    one forward pass, counted as such).
    """
    feed, inputs, _ = lift_inputs(list(primals))
    counting.forward_pass(nested=True)
    with inside():
        result = func(*feed)
    out, aux = split_aux(result, has_aux, "jvp")
    outs, structure = outputs_of(out, "jvp")
    us = [Value(0.0, requires_grad=True) if isinstance(o, Value)
          else Tensor(np.zeros_like(o.data), requires_grad=True) for o in outs]
    rows = _pull_back(outs, inputs, us)  # g(u) = uᵀ·J, one per input
    columns = _pull_back(rows, us, tangents)  # ∂(g·t)/∂u = J·t, one per output
    tangent_out = nest(structure, [constant_like(o, 0.0) if c is None else c
                                   for o, c in zip(outs, columns)])
    primal_out = nest(structure, list(outs))
    return (primal_out, tangent_out, aux) if has_aux else (primal_out, tangent_out)


def _pull_back(outs, inputs, cotangents):
    """One backward pass building a graph: ``Σ cᵢᵀ·∂outᵢ/∂inputs``, None for an input no
    output reaches (outputs that are None or constants are left out)."""
    pairs = [(o, c) for o, c in zip(outs, cotangents) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    counting.backward_pass()
    return autograd_grad([o for o, _ in pairs], list(inputs), grad_outputs=[c for _, c in pairs],
                         retain_graph=True, create_graph=True, allow_unused=True)


def jacfwd(func, argnums=0, has_aux: bool = False, *, randomness: str = "error",
           chunk_size=None):
    """``jacfwd(f)(*args)``: the Jacobian of ``f`` with respect to ``args[argnums]`` by
    forward mode, shaped ``out.shape + arg.shape``: one column ``J·e_j`` per *input*
    element, from one forward pass carrying all the basis tangents as a batch.

    Tuple outputs and tuple ``argnums`` nest as in ``jacrev``: ``jac[i][k] =
    ∂out_i/∂args[k]``.  ``chunk_size`` pushes that many columns through
    ``jvp_columns`` at a time (None: all at once).  (``torch.func.jacfwd`` has no
    ``chunk_size``; here it mirrors ``jacrev``'s.)

    ``randomness`` is ``torch.func.jacfwd``'s, passed to the ``vmap`` over the
    columns: ``"error"`` refuses a random draw (dropout) in ``f``, since the columns
    run as one vmapped pass; ``"same"`` gives every column of a pass the same draw,
    the Jacobian of one sampled function (one draw per chunk: keep ``chunk_size``
    None for one draw in all; ``chunk_size=1``, the loop, draws once per column).
    """
    chunk_size = check_chunk_size(chunk_size, "jacfwd")

    def jacobian_of(*args, **kwargs):
        nums, many = argnums_tuple(argnums, len(args), "jacfwd")
        chosen = tuple(check_input(x, "jacfwd") for x in pick(args, nums))

        def at(*xs):
            return func(*replace(args, nums, xs), **kwargs)

        # one stack of columns per output: column c is the derivative along input
        # element c (the elements of all the chosen arguments, in order)
        chunks = [jvp_columns(at, chosen, tangents, has_aux, randomness)
                  for tangents in basis_chunks(chosen, chunk_size)]
        outs, structure, _, aux = chunks[-1]
        # (nested, the columns may carry an outer jvp's tangent: cut them as nodes)
        live = in_transform() or any(_has_graph(stack) for c in chunks for stack in c[2])
        columns = [join_chunks([c[2][i] for c in chunks], live) for i in range(len(outs))]
        jacs = []
        for i, o in enumerate(outs):
            per_arg, start = [], 0
            for x in chosen:
                stop = start + size_of(x)
                per_arg.append(jacobian_block(columns[i], start, stop, o, x, live,
                                              "jacfwd", columns=True))
                start = stop
            jacs.append(tuple(per_arg) if many else per_arg[0])
        jac = nest(structure, jacs)
        return (jac, aux) if has_aux else jac

    jacobian_of.__name__ = f"jacfwd_{getattr(func, '__name__', 'f')}"
    return jacobian_of


def jvp_columns(func, primals, tangents, has_aux=False, randomness="error"):
    """Push a stack of tangents forward: **one batched forward pass**.

    ``tangents`` holds one array per primal, shaped ``(k,) + primal.shape``: ``k``
    directions.  Returns ``(outs, structure, columns, aux)``: the outputs (a tuple)
    and their structure (``outputs_of``), and one stack per output, shaped ``(k,) +
    out.shape``, entry ``j`` being ``J·tangents[:][j]``.

    The pass is ``vmap`` of ``jvp`` over the stack: the primal runs once, for one
    example, and only the tangents are a batch of ``k`` (a Linear's tangent ``ṫ·Wᵀ``
    becomes one ``(k, n)·(n, m)`` product).  ``count_passes`` counts one forward pass
    carrying ``k`` directions.  ``k == 1`` (``chunk_size=1``) is one plain pass per
    direction: the loop, before vmap.  Values (the scalar engine) keep the loop.
    """
    k = len(tangents[0])
    if k == 1 or any(isinstance(p, Value) for p in primals):
        return _columns_one_by_one(func, primals, tangents, has_aux)
    seen = {}

    def push(*ts):
        result = jvp(func, primals, ts, has_aux=has_aux)
        # (the outputs and aux do not depend on the tangents: kept as they are, not batched)
        seen["out"], seen["aux"] = result[0], (result[2] if has_aux else None)
        return result[1]

    with counting.carrying(k):
        columns = vmap(push, randomness=randomness)(*(Tensor(t) for t in tangents))
    out = seen["out"]
    structure = None if isinstance(out, (Tensor, Value)) else type(out)
    outs = (out,) if structure is None else tuple(out)
    columns = (columns,) if structure is None else tuple(columns)
    # (nested, the columns may carry an outer jvp's tangent: kept as nodes)
    if not in_transform() and not any(c.requires_grad for c in columns):
        columns = tuple(Tensor(c.data) for c in columns)
    return outs, structure, columns, seen["aux"]


def _columns_one_by_one(func, primals, tangents, has_aux):
    """The loop: one forward pass per direction (Values: the scalar engine has no batch)."""
    results = []
    for j in range(len(tangents[0])):
        result = jvp(func, primals, tuple(t[j] for t in tangents), has_aux=has_aux)
        results.append(result)
    out, aux = results[-1][0], (results[-1][2] if has_aux else None)
    structure = None if isinstance(out, (Tensor, Value)) else type(out)
    outs = (out,) if structure is None else tuple(out)
    per_output = [[r[1] if structure is None else r[1][i] for r in results]
                  for i in range(len(outs))]
    live = in_transform() or any(getattr(p, "requires_grad", False)
                                 for col in per_output for p in col)
    return outs, structure, tuple(stack_parts(col, o, live)
                                  for col, o in zip(per_output, outs)), aux


def hessian(func, argnums=0, *, chunk_size=None):
    """``hessian(f)(*args)``: the matrix of second derivatives, ``jacfwd(jacrev(f))``:
    reverse mode for the gradient (one backward pass: f is scalar), forward mode
    over it (one pass carrying every input element's tangent, ``chunk_size`` at a
    time), shaped ``arg.shape + arg.shape``.

    With a tuple ``argnums`` every block: ``h[i][k] = ∂²f/∂args[i]∂args[k]``.
    ``chunk_size`` is the forward (outer) pass's, as for ``jacfwd``.
    """
    return jacfwd(jacrev(func, argnums), argnums, chunk_size=chunk_size)


def hvp(func, primals, tangents):
    """``(f(*primals), H·tangents)`` by forward over reverse, without forming ``H``: one
    forward-mode pass through the gradient computation (``jvp`` of ``grad``).  The
    product is a tuple with one entry per primal."""
    primals, tangents = _pair_up(primals, tangents, "hvp")
    gradient = value_and_grad(func, argnums=tuple(range(len(primals))))

    def grad_with_value(*xs):
        value, grads = gradient(*xs)
        return grads, value

    _, products, value = jvp(grad_with_value, primals, tangents, has_aux=True)
    return live_result(value, False) if isinstance(value, (Tensor, Value)) else value, products


def _pair_up(primals, tangents, where: str = "jvp"):
    """The primals and their tangents' raw data, checked; ``where`` names the function the
    student called (``hvp`` pairs its vectors with its points the same way)."""
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError(f"{where}: primals and tangents must be tuples (or lists), e.g. "
                        f"{where}(f, (x,), (t,))")
    if len(primals) != len(tangents):
        raise ValueError(f"{where}: {len(primals)} primals but {len(tangents)} tangents; give "
                         f"one tangent per primal")
    if not primals:
        raise ValueError(f"{where}: no primals given")
    primals = tuple(check_input(p, where, "primal") for p in primals)
    return primals, tuple(_check_tangent(p, t, k, where) for k, (p, t) in
                          enumerate(zip(primals, tangents)))


def _check_tangent(primal, tangent, k, where: str = "jvp"):
    """The tangent's raw data, checked against its primal's shape and dtype."""
    return checked_like(tangent, primal, where, f"tangent {k}", "its primal")


def _has_graph(stack) -> bool:
    """Whether a stack of columns (a Tensor, or a list of Values) is part of an outer
    differentiation, so the Jacobian must be cut from it as a graph too."""
    return any(v.requires_grad for v in stack) if isinstance(stack, list) else stack.requires_grad


def _tangent_result(out, tangent):
    """The output's tangent as a node: zeros when no tangent reached it."""
    if tangent is None:
        return constant_like(out, 0.0)
    if isinstance(tangent, (Tensor, Value)):
        return tangent
    return constant_like(out, tangent)

