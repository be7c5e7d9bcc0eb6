"""im2col and col2im: a convolution's patches as a matrix, and back; two ops, each the
other's gradient.

**im2col.**  An output pixel of a convolution is a dot product between the
kernel and the input patch under it.  Copy every patch into a column of a
matrix ``cols`` (shape ``(C·kh·kw, N·Ho·Wo)``) and all outputs come from a
single BLAS call, ``W (O, C·kh·kw) @ cols``.  The patches are gathered without
a Python loop: ``numpy.lib.stride_tricks.as_strided`` describes them as a 6-D
*view* of the input (no copy), and one ``reshape`` copies them out.  The view
is laid out ``(C, kh, kw, N, Ho, Wo)`` so that the copy's innermost loop runs
along image rows, which is several times faster than ``(N, Ho, Wo, C, kh, kw)``.

**col2im** goes the other way: it adds each column back onto the input pixels
it was copied from (one strided ``+=`` per kernel offset ``(i, j)``, so kh·kw
numpy calls, never a Python loop over pixels).  A pixel that sits in several
patches receives the sum of their entries.

**Each is the other's gradient.**  im2col is linear, and every entry of
``cols`` is a copy of one pixel, so ``∂L/∂x`` at a pixel is the sum of
``∂L/∂cols`` over the entries copied from it: col2im of the gradient.  In
the other direction, an entry of col2im's input lands on one pixel, so its
gradient is that pixel's gradient: im2col.  (In matrix terms col2im is the
transpose of im2col: ``⟨im2col(x), c⟩ = ⟨x, col2im(c)⟩``.)  So conv2d's
rules, written with these ops, matmul and sums, build a graph in a
``create_graph`` pass, and that graph can be differentiated again.

**Forward mode.**  Both are linear (copies and sums of their input's entries),
so each is its own derivative: ``ṫ = im2col(ṫx)``, ``ṫ = col2im(ṫcols)``, the
forward run on the tangent (``linear=True``).
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ...batching import BatchedArray
from ...core.op import define_op

__all__ = ["IM2COL", "COL2IM", "conv_output_size", "window_offsets"]


def conv_output_size(size: int, kernel: int, stride: int, padding: int) -> int:
    return (size + 2 * padding - kernel) // stride + 1


def window_offsets(kh, kw, stride, out_hw):
    """For each kernel offset ``(i, j)``: ``(i, j, index)``, where ``x[index]`` (an NCHW
    array, or any array whose last two axes are H and W) is the strided slice of the
    pixels that sit at offset ``(i, j)`` in their window, one per output pixel."""
    sh, sw = stride
    Ho, Wo = out_hw
    for i in range(kh):
        for j in range(kw):
            yield i, j, (slice(None), slice(None),
                         slice(i, i + sh * (Ho - 1) + 1, sh), slice(j, j + sw * (Wo - 1) + 1, sw))


def _out_hw(shape, kernel, stride):
    return (conv_output_size(shape[2], kernel[0], stride[0], 0),
            conv_output_size(shape[3], kernel[1], stride[1], 0))


def _im2col_forward(x, kernel=(1, 1), stride=(1, 1)):
    N, C = x.shape[:2]
    kh, kw = kernel
    Ho, Wo = _out_hw(x.shape, kernel, stride)
    sN, sC, sH, sW = x.strides
    view = as_strided(x, (C, kh, kw, N, Ho, Wo), (sC, sH, sW, sN, sH * stride[0], sW * stride[1]),
                      writeable=False)
    return view.reshape(C * kh * kw, N * Ho * Wo), (x.shape,)


def _col2im_forward(cols, shape=(), kernel=(1, 1), stride=(1, 1)):
    N, C, H, W = shape
    kh, kw = kernel
    Ho, Wo = _out_hw(shape, kernel, stride)
    if cols.shape != (C * kh * kw, N * Ho * Wo):
        raise ValueError(f"col2im: columns of shape {cols.shape} do not fit an input of "
                         f"shape {tuple(shape)} with kernel {tuple(kernel)} and stride "
                         f"{tuple(stride)}: expected {(C * kh * kw, N * Ho * Wo)}")
    patches = cols.reshape(C, kh, kw, N, Ho, Wo)
    # Channel-major, as conv2d's output is laid out (see conv.py): each += is one block,
    # and the gradient leaves in the layout that the forward's arrays have.
    x = np.zeros((C, N, H, W), dtype=cols.dtype)
    overlap = stride[0] < kh or stride[1] < kw
    for i, j, index in window_offsets(kh, kw, stride, (Ho, Wo)):
        if overlap:
            x[index] += patches[:, i, j]
        else:  # (windows apart: each pixel is written once at most)
            x[index] = patches[:, i, j]
    return x.transpose(1, 0, 2, 3), ()


def _label(name):
    def label(attrs):
        (kh, kw), stride = attrs.get("kernel", (1, 1)), tuple(attrs.get("stride", (1, 1)))
        return f"{name}({kh}×{kw}" + (f", stride={stride}" if stride != (1, 1) else "") + ")"

    return label


_GEOMETRIES = (((2, 3, 5, 5), (3, 3), (1, 1)), ((1, 2, 6, 5), (3, 2), (2, 1)),
               ((2, 1, 4, 4), (2, 2), (2, 2)), ((1, 2, 3, 4), (1, 1), (1, 1)))


def _im2col_cases(rng):
    return [((rng.uniform(-1, 1, shape),), {"kernel": k, "stride": s})
            for shape, k, s in _GEOMETRIES]


def _col2im_cases(rng):
    out = []
    for shape, k, s in _GEOMETRIES:
        Ho, Wo = _out_hw(shape, k, s)
        cols = rng.uniform(-1, 1, (shape[1] * k[0] * k[1], shape[0] * Ho * Wo))
        out.append(((cols,), {"shape": shape, "kernel": k, "stride": s}))
    return out


# --- under vmap: the batch folded into the op's own N axis ------------------------------------
def _im2col_batch(x, kernel=(1, 1), stride=(1, 1)):
    """im2col of a batch of NCHW inputs (``vmap``): the batch folded into N, one call.  The
    columns are ordered (n, oh, ow), so the batch's columns are consecutive blocks."""
    size, shape = x.batch_size, x.shape
    cols = IM2COL(x.value.reshape((size * shape[0],) + shape[1:]), kernel=kernel, stride=stride)
    cols = np.moveaxis(cols.reshape(cols.shape[0], size, -1), 1, 0)
    return BatchedArray(cols, x.level), (shape,)


def _col2im_batch(cols, shape=(), kernel=(1, 1), stride=(1, 1)):
    """col2im of a batch of column matrices (``vmap``): the batch folded into N, one call."""
    size = cols.batch_size
    folded = np.moveaxis(cols.value, 0, 1).reshape(cols.shape[0], -1)
    x = COL2IM(folded, shape=(size * shape[0],) + tuple(shape[1:]), kernel=kernel, stride=stride)
    return BatchedArray(x.reshape((size,) + tuple(shape)), cols.level), ()


IM2COL = define_op(
    name="im2col", engine="tensor", symbol="im2col", forward=_im2col_forward,
    grads=(lambda g, x_shape, kernel=(1, 1), stride=(1, 1):
           COL2IM(g, shape=x_shape, kernel=kernel, stride=stride),),
    formulas=("∂/∂x = col2im(g): each column's gradient added back onto the pixels it "
              "was copied from",),
    linear=True,  # ṫ = im2col(ṫx)
    cases=_im2col_cases, label=_label("im2col"), batch=_im2col_batch,
    doc="The kh×kw patches of an NCHW input as the columns of a (C·kh·kw, N·Ho·Wo) matrix.")
COL2IM = define_op(
    name="col2im", engine="tensor", symbol="col2im", forward=_col2im_forward,
    grads=(lambda g, shape=(), kernel=(1, 1), stride=(1, 1):
           IM2COL(g, kernel=kernel, stride=stride),),
    formulas=("∂/∂cols = im2col(g): each entry gets the gradient of the pixel it was "
              "added onto",),
    linear=True,  # ṫ = col2im(ṫcols)
    cases=_col2im_cases, label=_label("col2im"), batch=_col2im_batch,
    doc="The transpose of im2col: columns added back onto an NCHW array of the given shape.")

