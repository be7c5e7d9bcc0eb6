"""Wrong answers that ``checks/ex10_unbroadcast.py`` must reject (lesson 5)."""

from __future__ import annotations

from ._registry import mistake

mistake("ex10", "unbroadcast", "sums only the added leading axes", "size 1")(
    lambda grad, shape: grad.sum(axis=tuple(range(grad.ndim - len(shape)))))


@mistake("ex10", "unbroadcast", "forgets keepdims", "keepdims")
def _no_keepdims(grad, shape):
    g = grad.sum(axis=tuple(range(grad.ndim - len(shape))))
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and g.shape[i] != 1)
    return g.sum(axis=axes) if axes else g


@mistake("ex10", "unbroadcast", "sums trailing axes", "has shape")
def _trailing(grad, shape):
    while grad.ndim > len(shape):
        grad = grad.sum(axis=-1)
    return grad


@mistake("ex10", "unbroadcast", "modifies grad in place", "in place")
def _in_place(grad, shape):
    from minigrad.autograd import unbroadcast

    out = unbroadcast(grad.copy(), shape).copy()
    grad *= 0
    return out
