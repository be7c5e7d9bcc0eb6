"""Wrong answers that ``checks/ex20_choose_the_mode.py`` must reject (lesson 12)."""

from __future__ import annotations

from minigrad import no_grad
from minigrad.func import jacfwd, jacrev, jvp, vjp

from ._registry import mistake


def _sizes(f, x):
    with no_grad():
        return x.shape[0], f(x).shape[0]


mistake("ex20", "jacobian", "always reverse mode", "jacfwd, one forward pass per input")(
    lambda f, x: jacrev(f)(x).data)
mistake("ex20", "jacobian", "always forward mode", "jacrev, one backward pass per output")(
    lambda f, x: jacfwd(f)(x).data)


@mistake("ex20", "jacobian", "swapped choice", "jacfwd, one forward pass per input")
def _swapped(f, x):
    n, m = _sizes(f, x)
    return (jacrev if n <= m else jacfwd)(f)(x).data


@mistake("ex20", "jacobian", "transposed", "one row per output")
def _transposed(f, x):
    n, m = _sizes(f, x)
    return (jacfwd if n <= m else jacrev)(f)(x).data.T


mistake("ex20", "jacobian", "returns a Tensor", ".data")(
    lambda f, x: jacfwd(f)(x))


@mistake("ex20", "dot_product_test", "builds the whole Jacobian", "no Jacobian")
def _whole_jacobian(f, x, t, c):
    J = jacrev(f)(x).data
    return float(c @ (J @ t)), float(t @ (J.T @ c))


@mistake("ex20", "dot_product_test", "swaps t and c", "t is shaped like the input")
def _swapped_vectors(f, x, t, c):
    _, jt = jvp(f, (x,), (c,))
    _, vjp_fn = vjp(f, x)
    (g,) = vjp_fn(t)
    return float((jt.data * t).sum()), float((c * g.data).sum())


@mistake("ex20", "dot_product_test", "forgets vjp_fn returns a tuple", "(g,) = vjp_fn(c)")
def _tuple(f, x, t, c):
    _, jt = jvp(f, (x,), (t,))
    _, vjp_fn = vjp(f, x)
    g = vjp_fn(c)
    return float((jt.data * c).sum()), float((t * g.data).sum())


@mistake("ex20", "dot_product_test", "one side twice", "compute each side")
def _one_side(f, x, t, c):
    _, jt = jvp(f, (x,), (t,))
    left = float((jt.data * c).sum())
    return left, left


@mistake("ex20", "dot_product_test", "does not sum", "single number")
def _no_sum(f, x, t, c):
    _, jt = jvp(f, (x,), (t,))
    _, vjp_fn = vjp(f, x)
    (g,) = vjp_fn(c)
    return jt.data * c, t * g.data


