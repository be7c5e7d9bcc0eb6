"""Exercise 18 · a gradient penalty, and its gradient with respect to the weights (lesson 11).

Some losses contain a gradient.  A *gradient penalty* ``‖∂L/∂x‖²`` makes a
model less sensitive to its input ``x`` (a smoother function; WGAN-GP and
input-gradient regularisation use it).  Training on it needs the derivative of
a derivative: the penalty is a function of ``∂L/∂x``, and we want its gradient
with respect to the weights.  That works when ``∂L/∂x`` is a graph node:
``minigrad.autograd.grad(L, [x], create_graph=True)``.

``loss_fn(x)`` computes a scalar Tensor ``L`` from the input ``x`` with some
weights it closes over (float64 leaves with ``requires_grad=True``).

Part 1.  ``gradient_penalty(loss_fn, x)``: return ``‖∂L/∂x‖²``, the sum of the
squares of the gradient's elements, as a scalar **Tensor whose graph reaches the
weights**: the check calls ``.backward()`` on it and compares the weights'
``.grad`` with central differences.  ``x`` and the weights may arrive carrying an
old ``.grad``: leave every ``.grad`` as it was (so: ``grad``, not ``backward``).

Part 2.  ``penalized_gradients(loss_fn, weights, x, lam)``: the gradients of

    L(x) + lam · ‖∂L/∂x‖²

with respect to each tensor in ``weights``, as a list of numpy arrays (one per
weight, of its shape), again leaving every ``.grad`` as it was.  (You may call
your ``gradient_penalty``.)

Check it:  python -m exercises ex18   (in a notebook: ``check("ex18")``)
"""

from minigrad.autograd import grad  # noqa: F401  (you will want it)

__all__ = ["gradient_penalty", "penalized_gradients"]


def gradient_penalty(loss_fn, x):
    """‖∂L/∂x‖² for ``L = loss_fn(x)``, a scalar Tensor that can be differentiated again."""
    raise NotImplementedError


def penalized_gradients(loss_fn, weights: list, x, lam: float) -> list:
    """d(L + lam·‖∂L/∂x‖²)/dw for each ``w`` in ``weights``, as numpy arrays."""
    raise NotImplementedError
