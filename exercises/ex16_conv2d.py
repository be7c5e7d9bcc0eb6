"""Exercise 16 · conv2d as im2col + one matmul (lesson 10).

A 2-D convolution slides each of ``O`` filters of shape ``(C, kh, kw)`` over an
image batch ``x`` of shape ``(N, C, H, W)`` (zero-padded by ``padding`` on every
side, moving ``stride`` pixels at a time) and takes a dot product at each
position:

    out[n, o, i, j] = b[o] + Σ_{c, u, v} w[o, c, u, v] · xp[n, c, i·s + u, j·s + v]

with ``xp`` the padded input and ``s`` the stride, output size
``OH = (H + 2·padding − kh) // stride + 1`` (and ``OW`` likewise).  Written as
loops this is seven nested ``for``s (over ``n, o, i, j`` and the sum's
``c, u, v``; lesson 10's ``conv2d_loops`` leaves the last three to ``np.sum``):
far too slow in Python.  The trick used by real libraries is *im2col*: copy
every patch into one row of a matrix, then a single matrix product does all
the dot products at once (and its backward is matmul's backward, exercise 11).

Part 1.  ``im2col(x, kh, kw, stride=1, padding=0)`` returns an array of shape
``(N, OH, OW, C·kh·kw)`` whose ``[n, i, j]`` row is the patch under output
position ``(i, j)``, flattened in ``(c, u, v)`` order, so that it lines up with
``w.reshape(O, -1)``.  ``np.pad`` pads; plain loops over ``(u, v)`` (kh·kw of
them) copying strided slices ``xp[:, :, u : u + stride·OH : stride, ...]`` are
fast enough (``np.lib.stride_tricks.sliding_window_view`` is another way).

Part 2.  ``conv2d(x, w, b=None, stride=1, padding=0)`` with ``w`` of shape
``(O, C, kh, kw)`` and ``b`` of shape ``(O,)`` or ``None`` returns
``(N, O, OH, OW)``: im2col, one matmul with ``w.reshape(O, -1).T``, add ``b``,
and move the channel axis into place.

Check it:  python -m exercises ex16   (in a notebook: ``check("ex16")``)
"""

import numpy as np

__all__ = ["im2col", "conv2d"]


def im2col(x: np.ndarray, kh: int, kw: int, stride: int = 1, padding: int = 0) -> np.ndarray:
    """Every (C, kh, kw) patch of ``x`` as a row: shape (N, OH, OW, C·kh·kw)."""
    raise NotImplementedError


def conv2d(x: np.ndarray, w: np.ndarray, b: np.ndarray | None = None, stride: int = 1,
           padding: int = 0) -> np.ndarray:
    """2-D convolution (cross-correlation, as in every DL library) via im2col + matmul."""
    raise NotImplementedError
