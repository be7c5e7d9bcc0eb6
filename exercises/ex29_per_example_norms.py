"""Exercise 29 · per-example gradient norms with vmap(grad) (lesson 16).

``loss(theta, x, t)`` is a loss written for **one** example: ``theta`` a 1-D float64
Tensor holding every weight (as in lesson 16), ``x`` one input, ``t`` its label.  For a
batch ``xs`` (one example per row) and ``ts``, the gradient of example ``i``'s loss
with respect to the weights, and its length, are

    gᵢ = ∇θ loss(θ, xᵢ, tᵢ),        ‖gᵢ‖ = sqrt(Σₚ gᵢₚ²)

An example with a large ‖gᵢ‖ pulls hard on the weights: often one the model gets badly
wrong, sometimes a mislabelled one.  (The gradient of the batch's *mean* loss is the
mean of the gᵢ, and tells you nothing about any one of them.)

Part 1.  ``per_example_norms(loss, theta, xs, ts)``: the ``B`` norms ‖gᵢ‖ as a 1-D
numpy array, from **one** ``vmap(grad(loss), ...)`` call: the check counts the passes
(``minigrad.func.count_passes``) and expects one backward pass, not one per example.
``theta`` is the same for every example: its ``in_dims`` entry is ``None``.

Part 2.  ``largest_gradients(loss, theta, xs, ts, k)``: the indices of the ``k``
examples with the largest ‖gᵢ‖, largest first, as a 1-D integer numpy array (you may
call your ``per_example_norms``).

Check it:  python -m exercises ex29   (in a notebook: ``check("ex29")``)
"""

import numpy as np  # noqa: F401  (you will want them)

from minigrad import Tensor  # noqa: F401
from minigrad.func import grad, vmap  # noqa: F401

__all__ = ["per_example_norms", "largest_gradients"]


def per_example_norms(loss, theta: Tensor, xs: Tensor, ts: Tensor) -> np.ndarray:
    """``‖∇θ loss(θ, xᵢ, tᵢ)‖`` for every example ``i``, from one ``vmap(grad(loss))``."""
    raise NotImplementedError


def largest_gradients(loss, theta: Tensor, xs: Tensor, ts: Tensor, k: int) -> np.ndarray:
    """The indices of the ``k`` examples with the largest gradient norms, largest first."""
    raise NotImplementedError
