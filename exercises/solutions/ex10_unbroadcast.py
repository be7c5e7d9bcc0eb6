"""Reference solution for exercise 10 (unbroadcast: the backward of broadcasting)."""

import numpy as np

__all__ = ["unbroadcast"]


def unbroadcast(grad: np.ndarray, shape: tuple) -> np.ndarray:
    """Sum ``grad`` down to ``shape``, undoing numpy broadcasting."""
    shape = tuple(shape)
    if grad.shape == shape:
        return grad
    added = grad.ndim - len(shape)
    grad = grad.sum(axis=tuple(range(added)))  # 1. the leading axes broadcasting added
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    if stretched:
        grad = grad.sum(axis=stretched, keepdims=True)  # 2. size-1 axes, kept
    return np.asarray(grad).reshape(shape)
