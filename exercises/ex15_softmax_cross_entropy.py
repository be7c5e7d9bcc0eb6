"""Exercise 15 · the softmax cross-entropy gradient (lesson 9).

A classifier outputs *logits* ``z`` of shape ``(N, C)`` (N examples, C classes);
``targets`` holds each example's class, integers of shape ``(N,)``.  Softmax
turns a row into probabilities, ``p_c = e^{z_c} / Σ_k e^{z_k}``, and the loss is
the mean negative log-probability of the right class:

    L = (1/N) Σ_n −log p[n, y_n] = (1/N) Σ_n ( logsumexp(z[n]) − z[n, y_n] )

Part 1.  ``cross_entropy(logits, targets)`` returns L as a float.  Stability:
``e^{1000}`` overflows to ``inf``.  Softmax does not change when a constant is
subtracted from a row, so subtract each row's maximum first:
``logsumexp(z) = m + log Σ_k e^{z_k − m}`` with ``m = max_k z_k``.

Part 2.  ``cross_entropy_backward(g, logits, targets)`` returns
``dL'/dz = g · dL/dz`` (shape ``(N, C)``) for an upstream gradient
``g = dL'/dL`` (a float).  The whole softmax-plus-log Jacobian collapses to
something tiny:

    dL/dz[n, c] = (p[n, c] − [c == y_n]) / N

(the probabilities, minus 1 at the right class, divided by N for the mean).
This is why frameworks fuse the two: the fused gradient is both cheaper and
more stable than going through ``softmax`` and ``log`` separately.

Check it:  python -m exercises ex15   (in a notebook: ``check("ex15")``)
"""

import numpy as np

__all__ = ["cross_entropy", "cross_entropy_backward"]


def cross_entropy(logits: np.ndarray, targets: np.ndarray) -> float:
    """Mean cross-entropy of ``softmax(logits)`` against integer ``targets``; stable."""
    raise NotImplementedError


def cross_entropy_backward(g: float, logits: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """``g · dL/dlogits`` for ``L = cross_entropy(logits, targets)``; shape of logits."""
    raise NotImplementedError
