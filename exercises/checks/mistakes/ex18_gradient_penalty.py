"""Wrong answers that ``checks/ex18_gradient_penalty.py`` must reject (lesson 11)."""

from __future__ import annotations

from minigrad import Tensor
from minigrad.autograd import grad

from ._registry import mistake


@mistake("ex18", "gradient_penalty", "forgets create_graph", "create_graph=True")
def _no_create_graph(loss_fn, x):
    (gx,) = grad(loss_fn(x), [x])  # an array: the penalty is a plain number
    return (gx * gx).sum()


@mistake("ex18", "gradient_penalty", "detaches the gradient", "create_graph=True")
def _detached(loss_fn, x):
    (gx,) = grad(loss_fn(x), [x], create_graph=True)
    gx = Tensor(gx.data)  # a constant: no graph back to the weights
    return (gx * gx).sum()


@mistake("ex18", "gradient_penalty", "uses backward and x.grad", "adds into .grad")
def _dot_grad(loss_fn, x):
    loss_fn(x).backward(create_graph=True)
    return (x.grad * x.grad).sum()


@mistake("ex18", "gradient_penalty", "takes the norm, not its square", "no square root")
def _norm(loss_fn, x):
    (gx,) = grad(loss_fn(x), [x], create_graph=True)
    return (gx * gx).sum().sqrt()


@mistake("ex18", "penalized_gradients", "the penalty as a constant", "create_graph=True")
def _constant_penalty(loss_fn, weights, x, lam):
    loss = loss_fn(x)
    (gx,) = grad(loss, [x], retain_graph=True)  # an array
    return list(grad(loss + lam * float((gx * gx).sum()), weights))


@mistake("ex18", "penalized_gradients", "forgets lam", "multiply the penalty by lam")
def _no_lam(loss_fn, weights, x, lam):
    loss = loss_fn(x)
    (gx,) = grad(loss, [x], create_graph=True)
    return list(grad(loss + (gx * gx).sum(), weights))


@mistake("ex18", "penalized_gradients", "backward into stale .grad", "adds into .grad")
def _backward(loss_fn, weights, x, lam):
    loss = loss_fn(x)
    (gx,) = grad(loss, [x], create_graph=True)
    (loss + lam * (gx * gx).sum()).backward()
    return [w.grad for w in weights]


@mistake("ex18", "penalized_gradients", "only the penalty's gradient", "L's own gradient")
def _penalty_only(loss_fn, weights, x, lam):
    (gx,) = grad(loss_fn(x), [x], create_graph=True)
    return list(grad(lam * (gx * gx).sum(), weights))
