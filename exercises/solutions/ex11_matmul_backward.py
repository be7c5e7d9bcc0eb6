"""Reference solution for exercise 11 (the backward rule of matmul)."""

import numpy as np

from minigrad.autograd import unbroadcast

__all__ = ["matmul_backward", "batched_matmul_backward"]


def matmul_backward(g: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(dL/da, dL/db)`` for ``out = a @ b`` (2-D) given ``g = dL/dout``."""
    return g @ b.T, a.T @ g


def batched_matmul_backward(g: np.ndarray, a: np.ndarray,
                            b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(dL/da, dL/db)`` for a batched, broadcasting ``out = a @ b``."""
    da = g @ np.swapaxes(b, -1, -2)  # has the broadcast batch shape
    db = np.swapaxes(a, -1, -2) @ g
    return unbroadcast(da, a.shape), unbroadcast(db, b.shape)
