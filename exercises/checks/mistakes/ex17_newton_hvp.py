"""Wrong answers that ``checks/ex17_newton_hvp.py`` must reject (lesson 11)."""

from __future__ import annotations

from minigrad import Tensor, Value
from minigrad.autograd import grad

from ._registry import mistake


@mistake("ex17", "newton_step", "forgets create_graph", "create_graph=True")
def _no_create_graph(f, x):
    leaf = Value(x)
    (d1,) = grad(f(leaf), [leaf])  # a float: nothing to differentiate again
    (d2,) = grad(d1, [leaf])
    return x - d1 / d2


@mistake("ex17", "newton_step", "detaches the first derivative", "create_graph=True")
def _detached(f, x):
    leaf = Value(x)
    (d1,) = grad(f(leaf), [leaf], create_graph=True)
    d1 = Value(d1.data)  # a fresh leaf: its graph is gone
    (d2,) = grad(d1, [leaf])
    return x - d1.data / d2


@mistake("ex17", "newton_step", "reads .grad after two backward passes", "adds into .grad")
def _dot_grad(f, x):
    leaf = Value(x)
    f(leaf).backward(create_graph=True)
    d1 = leaf.grad
    d1.backward()  # adds f'' into leaf.grad, which still holds f'
    return x - d1.data / leaf.grad.data


@mistake("ex17", "newton_step", "steps uphill", "subtract")
def _uphill(f, x):
    from exercises.solutions.ex17_newton_hvp import newton_step

    return 2 * x - newton_step(f, x)


mistake("ex17", "newton_step", "returns a Value", "as a float")(
    lambda f, x: Value(x) - 0.0)


@mistake("ex17", "hvp", "forgets create_graph", "create_graph=True")
def _hvp_no_create_graph(f, xs, vs):
    gs = grad(f(xs), xs)  # arrays
    gv = sum((g * v).sum() for g, v in zip(gs, vs))
    return list(grad(gv, xs))


@mistake("ex17", "hvp", "detaches the gradient", "create_graph=True")
def _hvp_detached(f, xs, vs):
    gs = [Tensor(g.data) for g in grad(f(xs), xs, create_graph=True)]
    gv = sum((g * Tensor(v)).sum() for g, v in zip(gs, vs))
    return list(grad(gv, xs))


@mistake("ex17", "hvp", "uses backward and .grad", "adds into .grad")
def _hvp_dot_grad(f, xs, vs):
    f(xs).backward(create_graph=True)
    gv = sum((x.grad * Tensor(v)).sum() for x, v in zip(xs, vs))
    gv.backward()
    return [x.grad.data for x in xs]


@mistake("ex17", "hvp", "differentiates the gradient twice", "counted twice")
def _hvp_twice(f, xs, vs):
    from exercises.solutions.ex17_newton_hvp import hvp

    return [2 * h for h in hvp(f, xs, vs)]
