"""Numerical gradient checking: does backward agree with the definition?

The derivative is a limit, ``f'(x) = lim (f(x+h) - f(x-h)) / 2h``.  With a
small ``h`` (``eps``) the central difference is accurate to O(h²), so in
float64 it matches a correct analytic gradient to ~1e-8.  We check a whole
vector-Jacobian product at once: pick a random upstream gradient ``u``, and
compare the analytic ``d<u, f(x)>/dx`` from backward with the numerical one.
A random ``u`` (rather than all ones) catches a rule that forgets to multiply
by its incoming gradient.
"""

from __future__ import annotations

import numpy as np

from ..core.modes import no_grad
from ..core.node import Node

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(AssertionError):
    """The analytic and numerical gradients disagree."""


def _float64_copy(x):
    """A float64 leaf with the same value, so finite differences are accurate."""
    # (the engine class, not the node's own: a Parameter is float32, which would
    # defeat the float64 copy)
    cls = x.engine_class
    data = np.array(x.data, dtype=np.float64) if isinstance(x.data, np.ndarray) else float(x.data)
    copy = cls(data, requires_grad=x.requires_grad)
    copy.label = x.label  # so that an error can name the input
    return copy


def _leaves(inputs, who) -> tuple[list, list]:
    """The inputs as float64 leaves (others passed through), and the positions to check."""
    if len(inputs) == 1 and isinstance(inputs[0], (tuple, list)):
        inputs = tuple(inputs[0])  # PyTorch's form: the inputs as one sequence
    leaves = [_float64_copy(x) if isinstance(x, Node) else x for x in inputs]
    checked = [i for i, x in enumerate(leaves) if isinstance(x, Node) and x.requires_grad]
    if not checked:
        raise ValueError(f"{who}: no input requires grad, so there is nothing to check")
    return leaves, checked


def _as_array(x) -> np.ndarray:
    return np.asarray(x.data if isinstance(x, Node) else x, dtype=np.float64)


def gradcheck(fn, *inputs, eps=1e-6, atol=1e-5, rtol=1e-3, seed=0, upstream=None) -> bool:
    """Check ``fn``'s gradients against central differences; True or ``GradcheckError``.

    ``inputs`` are Values or Tensors (arguments that are not nodes are passed
    through as constants), given one by one, ``gradcheck(fn, x, y)``, or as
    one tuple or list, ``gradcheck(fn, (x, y))``, the way PyTorch takes them;
    either way ``fn`` is called as ``fn(x, y)``.  They are copied to float64
    leaves; only those with ``requires_grad`` are checked.  The error names the
    input and the worst element.

    The numbers compared are ``d<u, f(x)>/dx``, the gradient of ``sum(u * f(x))``,
    for a random upstream gradient ``u`` drawn from ``seed``.  Pass
    ``upstream=1.0`` (broadcast to the output's shape) to compare
    ``d sum(f(x))/dx`` instead: for an elementwise ``f`` that is ``f'(x)``
    itself, the number a student can check against their formula.
    """
    leaves, checked = _leaves(inputs, "gradcheck")
    rng = np.random.default_rng(seed)

    out = fn(*leaves)
    if not isinstance(out, Node):
        raise TypeError(f"gradcheck: fn must return a Value or Tensor, got {type(out).__name__}")
    out_shape = np.shape(out.data)
    if upstream is None:
        u = rng.standard_normal(out_shape)
    else:
        try:
            u = np.array(np.broadcast_to(np.asarray(upstream, np.float64), out_shape))
        except ValueError:
            raise ValueError(f"gradcheck: upstream of shape {np.shape(upstream)} does not "
                             f"broadcast to the output's shape {out_shape}") from None
    if not out.requires_grad:
        raise GradcheckError("gradcheck: the output does not depend on an input that requires grad")
    out.backward(u if isinstance(out.data, np.ndarray) else float(u))

    def objective() -> float:
        with no_grad():
            return float(np.sum(u * _as_array(fn(*leaves))))

    for i in checked:
        x = leaves[i]
        analytic = np.zeros(np.shape(x.data)) if x.grad is None else _as_array(x.grad)
        weighted = (
            "the gradient of sum(upstream * f)." if upstream is not None else
            f"∂f/∂x weighted by a random upstream gradient u (seed={seed}), which "
            f"catches a rule that ignores grad_out; upstream=1.0 shows them unweighted."
        )
        _compare("gradcheck", i, x, analytic, _numerical(objective, x, eps), atol, rtol,
                 weighted)
    return True


def _numerical(objective, x, eps) -> np.ndarray:
    """Central differences of ``objective()`` with respect to each element of leaf ``x``."""
    numeric = np.zeros(np.shape(x.data))
    is_array = isinstance(x.data, np.ndarray)
    for idx in np.ndindex(*np.shape(x.data)):
        original = x.data[idx] if is_array else x.data
        vals = []
        for step in (eps, -eps):
            if is_array:
                x.data[idx] = original + step
            else:
                x.data = original + step
            vals.append(objective())
        if is_array:
            x.data[idx] = original
        else:
            x.data = original
        numeric[idx] = (vals[0] - vals[1]) / (2 * eps)
    return numeric


def _compare(what, i, x, analytic, numeric, atol, rtol, weighted) -> None:
    """Raise ``GradcheckError`` naming the input and its worst element if they disagree."""
    err = np.abs(analytic - numeric) - (atol + rtol * np.abs(numeric))
    bad = ~(err <= 0)  # also catches NaN
    if bad.any():
        gap = np.where(bad, np.abs(analytic - numeric), -1.0)
        worst = np.unravel_index(int(np.nanargmax(gap)), err.shape) if err.ndim else ()
        name = getattr(x, "label", None)
        who = (f"input {i}" if isinstance(i, int) else "the upstream gradient") + (
            f" ('{name}')" if name else "")
        at = f" at index {tuple(int(k) for k in worst)}" if worst else ""
        raise GradcheckError(
            f"{what} failed for {who}{at}: analytic {float(analytic[worst]):.6g} vs "
            f"numerical {float(numeric[worst]):.6g} (atol={atol}, rtol={rtol}); "
            f"{int(bad.sum())} of {bad.size} elements disagree. Both numbers are "
            f"{weighted}"
        )


def gradgradcheck(fn, *inputs, eps=1e-6, atol=1e-5, rtol=1e-3, seed=0) -> bool:
    """Check ``fn``'s second derivatives against central differences of its gradient.

    The first derivative is computed the way a user would, ``grad(fn(x), x,
    grad_outputs=u, create_graph=True)``, for a random upstream ``u``; then the
    gradient of ``Σᵢ <vᵢ, ∂<u, f>/∂xᵢ>`` (a random second-order upstream ``vᵢ`` per
    input) goes back through that graph, and is compared with central
    differences of the same number computed by ordinary first-order backward
    passes.  That is ``vᵀ H u``-style information: a rule whose own gradient is
    wrong, or that cuts the graph (a raw number where a node should be), fails.
    Inputs as in ``gradcheck``; True or ``GradcheckError`` naming the input.
    """
    from .gradients import grad

    leaves, checked = _leaves(inputs, "gradgradcheck")
    rng = np.random.default_rng(seed)
    out = fn(*leaves)
    if not isinstance(out, Node) or not out.requires_grad:
        raise GradcheckError("gradgradcheck: fn must return a Value or Tensor that depends on "
                             "an input that requires grad")
    # The upstream gradient u is a leaf too, so that the rules see a g that requires
    # grad (as they do deep inside any second backward pass): a rule that drops g
    # out of the graph fails here even when it is linear in its input.
    u = rng.standard_normal(np.shape(out.data))
    u = out.engine_class(u if isinstance(out.data, np.ndarray) else float(u),
                         requires_grad=True)
    u.label = "grad_output"
    xs = [leaves[i] for i in checked] + [u]
    vs = [rng.standard_normal(np.shape(x.data)) for x in xs]
    vs = [v if isinstance(x.data, np.ndarray) else float(v) for v, x in zip(vs, xs)]

    def first_order(create_graph):
        grads = grad(fn(*leaves), xs[:-1], grad_outputs=[u], create_graph=create_graph,
                     allow_unused=True)
        total = 0.0
        for v, g in zip(vs, grads):
            if g is not None:
                term = v * g
                total = total + (term.sum() if hasattr(term, "sum") else term)
        return total

    total = first_order(True)
    if isinstance(total, Node) and total.requires_grad:
        second = grad(total, xs, allow_unused=True)
    else:  # the gradient does not depend on the inputs (fn is linear in them)
        second = [None] * len(xs)

    def objective() -> float:
        return float(np.sum(_as_array(first_order(False))))

    for i, x, analytic in zip(checked + ["grad_output"], xs, second):
        analytic = np.zeros(np.shape(x.data)) if analytic is None else _as_array(analytic)
        _compare("gradgradcheck", i, x, analytic, _numerical(objective, x, eps), atol, rtol,
                 f"second derivatives: d/dx of Σ v·(d<u, f>/dx) for random u, v (seed={seed})")
    return True
