"""Reference solution for exercise 29 (per-example gradient norms with vmap(grad))."""

import numpy as np

from minigrad import Tensor
from minigrad.func import grad, vmap

__all__ = ["per_example_norms", "largest_gradients"]


def per_example_norms(loss, theta: Tensor, xs: Tensor, ts: Tensor) -> np.ndarray:
    """``‖∇θ loss(θ, xᵢ, tᵢ)‖`` for every example ``i``, from one ``vmap(grad(loss))``."""
    grads = vmap(grad(loss), in_dims=(None, 0, 0))(theta, xs, ts)   # (B, P)
    return np.linalg.norm(grads.data, axis=1)                         # over the parameters


def largest_gradients(loss, theta: Tensor, xs: Tensor, ts: Tensor, k: int) -> np.ndarray:
    """The indices of the ``k`` examples with the largest gradient norms, largest first."""
    norms = per_example_norms(loss, theta, xs, ts)
    return np.argsort(-norms, kind="stable")[:k]
