"""Reference solution for exercise 18 (a gradient penalty and its gradient)."""

from minigrad.autograd import grad

__all__ = ["gradient_penalty", "penalized_gradients"]


def gradient_penalty(loss_fn, x):
    """‖∂L/∂x‖² for ``L = loss_fn(x)``, a scalar Tensor that can be differentiated again."""
    (gx,) = grad(loss_fn(x), [x], create_graph=True)
    return (gx * gx).sum()


def penalized_gradients(loss_fn, weights: list, x, lam: float) -> list:
    """d(L + lam·‖∂L/∂x‖²)/dw for each ``w`` in ``weights``, as numpy arrays."""
    loss = loss_fn(x)
    (gx,) = grad(loss, [x], create_graph=True)
    total = loss + lam * (gx * gx).sum()
    return list(grad(total, weights))
