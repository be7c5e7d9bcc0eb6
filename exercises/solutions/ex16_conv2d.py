"""Reference solution for exercise 16 (conv2d as im2col + one matmul)."""

import numpy as np

__all__ = ["im2col", "conv2d"]


def im2col(x: np.ndarray, kh: int, kw: int, stride: int = 1, padding: int = 0) -> np.ndarray:
    """Every (C, kh, kw) patch of ``x`` as a row: shape (N, OH, OW, C·kh·kw)."""
    n, c, h, w = x.shape
    oh = (h + 2 * padding - kh) // stride + 1
    ow = (w + 2 * padding - kw) // stride + 1
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    cols = np.empty((n, c, kh, kw, oh, ow), dtype=x.dtype)
    for u in range(kh):  # kh·kw strided copies instead of N·OH·OW small ones
        for v in range(kw):
            cols[:, :, u, v] = xp[:, :, u:u + stride * oh:stride, v:v + stride * ow:stride]
    return cols.transpose(0, 4, 5, 1, 2, 3).reshape(n, oh, ow, c * kh * kw)


def conv2d(x: np.ndarray, w: np.ndarray, b: np.ndarray | None = None, stride: int = 1,
           padding: int = 0) -> np.ndarray:
    """2-D convolution (cross-correlation, as in every DL library) via im2col + matmul."""
    o, _, kh, kw = w.shape
    cols = im2col(x, kh, kw, stride, padding)  # (N, OH, OW, C·kh·kw)
    out = cols @ w.reshape(o, -1).T  # (N, OH, OW, O): every dot product at once
    if b is not None:
        out = out + b
    return out.transpose(0, 3, 1, 2)
