"""2-D convolution and pooling on NCHW arrays, as registry ops.

**conv2d as one matrix product (im2col).**  Every input patch is copied into a
column of ``cols = im2col(x)`` (shape ``(C·kh·kw, N·Ho·Wo)``, see ``im2col.py``)
and all outputs come from a single BLAS call, ``W (O, C·kh·kw) @ cols``.

Backward is the same product read the other way:

    ∂L/∂W    = g @ colsᵀ                       (g as (O, N·Ho·Wo))
    ∂L/∂b    = Σ over N, Ho, Wo of g
    ∂L/∂x    = col2im(Wᵀ @ g): each patch's gradient added back onto its pixels

Forward and rules are written with ops only (im2col, col2im, matmul, reshape,
sum), so in a ``create_graph`` pass they record the gradient's graph: conv2d is
twice differentiable.

**Pooling as strided slices.**  For each kernel offset ``(i, j)`` the input
pixels that sit at that offset in their window form one strided slice
``x[:, :, i::s, j::s]``.  Max-pooling is the running ``np.maximum`` of the
kh·kw slices (for the usual 2×2 pool: four slices, about ten times faster than
reducing a reshaped window view); the gradient goes to the first slice that
holds the maximum (one winner per window, like PyTorch): a scatter-add of the
upstream gradient at the winners' positions.  Which pixel won is a constant
(piecewise, like relu's mask), so that rule is twice differentiable too: the
scatter's own gradient picks the gradient at the same positions.

**Forward mode** (tangents ṫ from the inputs' tangents; rules on raw arrays,
written with ops so that they can later run on nodes too):

    conv2d      ṫ = conv(ṫx, W) + conv(x, ṫW) + ṫb     (bilinear in x and W)
    max_pool2d  ṫ = ṫx at each window's (first) maximum  (the backward's winners)
    avg_pool2d  ṫ = avg_pool(ṫx)                         (linear: the forward on ṫx)
"""

from __future__ import annotations

import numpy as np

from ...batching import BatchedArray
from ...core.op import define_op
from ...ops.tensor import PAD, SCATTER_ADD
from ._util import data_of, pair
from .im2col import COL2IM, IM2COL, conv_output_size, window_offsets

__all__ = ["CONV2D", "CONV2D_NO_BIAS", "MAX_POOL2D", "AVG_POOL2D", "conv_output_size",
           "im2col", "check_conv_args", "check_pool_input"]


def im2col(xp, kh, kw, stride, out_hw):
    """Patches of the (already padded) NCHW array ``xp`` as a ``(C·kh·kw, N·Ho·Wo)`` matrix:
    the ``IM2COL`` op on raw arrays (lesson 10 compares it with a loop)."""
    cols = IM2COL(xp, kernel=(kh, kw), stride=tuple(stride))
    if cols.shape[1] != xp.shape[0] * out_hw[0] * out_hw[1]:
        raise ValueError(f"im2col: a {kh}×{kw} kernel with stride {tuple(stride)} on "
                         f"{xp.shape} does not give an output of {tuple(out_hw)}")
    return cols


def _pad(x, padding, value=0.0):
    ph, pw = padding
    if ph == 0 and pw == 0:
        return x
    return np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)), constant_values=value)


def _crop(gp, padding):
    ph, pw = padding
    H, W = gp.shape[2] - 2 * ph, gp.shape[3] - 2 * pw
    return gp[:, :, ph:ph + H, pw:pw + W] if ph or pw else gp


# --- conv2d ------------------------------------------------------------------------
def _conv_forward(x, w, b=None, stride=(1, 1), padding=(0, 0), **_):
    # (Written with ops and no in-place step: a create_graph pass reruns it on the input
    # nodes to have cols and wm as nodes.)
    N, C, H, W = x.shape
    O, _, kh, kw = w.shape
    out_hw = (conv_output_size(H, kh, stride[0], padding[0]),
              conv_output_size(W, kw, stride[1], padding[1]))
    xp = _pad_op(x, padding)
    cols = IM2COL(xp, kernel=(kh, kw), stride=tuple(stride))
    wm = w.reshape(O, -1)
    out = wm @ cols                                  # (O, N·Ho·Wo): one BLAS call
    if b is not None:
        out = _plus(out, b.reshape(O, 1))
    # (O, N, Ho, Wo) -> NCHW as a view, no copy.  Elementwise ops keep this memory
    # layout (numpy's K order), and so does col2im (the pooling gradients), so the
    # gradient reaching backward is already the (O, N·Ho·Wo) matrix it needs.
    out = out.reshape(O, N, *out_hw).transpose(1, 0, 2, 3)
    return out, (cols, wm, xp.shape, x.shape, (kh, kw))


def _pad_op(x, padding):
    """``x`` with ``padding`` zeros around H and W, by the PAD op (a node on nodes)."""
    ph, pw = padding
    return PAD(x, pad_width=((0, 0), (0, 0), (ph, ph), (pw, pw))) if ph or pw else x


def _plus(out, b):
    """``out + b``, in place when ``out`` is a raw array (a fresh product here: a second
    buffer of its size costs page faults on every training step); on graph nodes, when a
    create_graph pass reruns the forward, the recorded add."""
    if isinstance(out, np.ndarray):
        out += b
        return out
    return out + b


def _g_matrix(g):
    """The upstream gradient as ``(O, N·Ho·Wo)``: free when it has the forward's layout."""
    return g.transpose(1, 0, 2, 3).reshape(g.shape[1], -1)


def _conv_grad_x(g, cols, wm, xp_shape, x_shape, kernel, stride=(1, 1), padding=(0, 0), **_):
    dcols = wm.T @ _g_matrix(g)                      # (C·kh·kw, N·Ho·Wo)
    return _crop(COL2IM(dcols, shape=xp_shape, kernel=kernel, stride=tuple(stride)), padding)


def _conv_grad_w(g, cols, wm, xp_shape, x_shape, kernel, **_):
    return (_g_matrix(g) @ cols.T).reshape(wm.shape[0], x_shape[1], *kernel)


def _conv_grad_b(g, *saved, **_):
    return g.sum(axis=(0, 2, 3))


# Forward mode: conv2d is bilinear in (x, W), so each one's share of the tangent is
# the convolution with the other held fixed, and the bias's is itself, broadcast.
def _conv_jvp_x(t, cols, wm, xp_shape, x_shape, kernel, **attrs):
    """ṫ = conv(ṫx, W): the forward itself, with the input's tangent for the input."""
    return _conv_forward(t, wm.reshape(wm.shape[0], x_shape[1], *kernel), None, **attrs)[0]


def _conv_jvp_w(t, cols, wm, xp_shape, x_shape, kernel, stride=(1, 1), **_):
    """ṫ = conv(x, ṫW): the tangent kernel against the saved patches of x."""
    out_hw = (conv_output_size(xp_shape[2], kernel[0], stride[0], 0),
              conv_output_size(xp_shape[3], kernel[1], stride[1], 0))
    out = t.reshape(wm.shape[0], -1) @ cols          # (O, N·Ho·Wo), as in the forward
    return out.reshape(wm.shape[0], x_shape[0], *out_hw).transpose(1, 0, 2, 3)


def _conv_jvp_b(t, *saved, **_):
    """ṫ = ṫb, one value per output channel (broadcast over N, H, W)."""
    return t.reshape(1, -1, 1, 1)


def _conv_label(attrs):
    stride, padding = attrs.get("stride", (1, 1)), attrs.get("padding", (0, 0))
    parts = []
    if tuple(stride) != (1, 1):
        parts.append(f"stride={_short(stride)}")
    if tuple(padding) != (0, 0):
        parts.append(f"padding={_short(padding)}")
    return "conv2d" + (f"({', '.join(parts)})" if parts else "")


def _short(p):
    return str(p[0]) if p[0] == p[1] else f"({p[0]}, {p[1]})"


def _conv_cases(with_bias):
    def cases(rng):
        out = []
        for (N, C, H, W), (O, kh, kw), s, p in (
            ((2, 1, 5, 5), (2, 3, 3), 1, 0),
            ((1, 2, 6, 5), (3, 3, 2), 2, 1),
            ((2, 3, 4, 4), (2, 1, 1), 1, 0),
            ((1, 2, 5, 6), (2, 3, 3), (2, 1), (0, 1)),
        ):
            xs = [rng.uniform(-1, 1, (N, C, H, W)), rng.uniform(-1, 1, (O, C, kh, kw))]
            if with_bias:
                xs.append(rng.uniform(-1, 1, (O,)))
            out.append((tuple(xs), {"stride": pair(s, "stride", "conv2d"),
                                    "padding": pair(p, "padding", "conv2d")}))
        return out

    return cases


# out = W ⋆ x + b (⋆: cross-correlation); one formula per input, in the order x, W, b
_CONV_FORMULAS = ("∂/∂x = col2im(Wᵀ·g): each patch's gradient added back onto its pixels",
                  "∂/∂W = g ⋆ x (g against the patches of x)",
                  "∂/∂b = Σ g over N, H, W")

CONV2D = define_op(
    name="conv2d", engine="tensor", symbol="conv2d", forward=_conv_forward,
    grads=(_conv_grad_x, _conv_grad_w, _conv_grad_b), formulas=_CONV_FORMULAS,
    jvps=(_conv_jvp_x, _conv_jvp_w, _conv_jvp_b),  # ṫ = conv(ṫx, W) + conv(x, ṫW) + ṫb
    cases=_conv_cases(True), label=_conv_label,
    doc="2-D cross-correlation over NCHW input by im2col + one matrix product.")
CONV2D_NO_BIAS = define_op(
    name="conv2d_no_bias", engine="tensor", symbol="conv2d",
    forward=lambda x, w, **attrs: _conv_forward(x, w, None, **attrs),
    grads=(_conv_grad_x, _conv_grad_w), formulas=_CONV_FORMULAS[:2],
    jvps=(_conv_jvp_x, _conv_jvp_w),  # ṫ = conv(ṫx, W) + conv(x, ṫW)
    cases=_conv_cases(False), label=_conv_label,
    doc="conv2d without a bias term.")


def check_conv_args(x_shape, w_shape, b_shape, stride, padding, fn="conv2d"):
    """Clear errors, naming the shapes, before numpy can raise an obscure one."""
    if len(x_shape) != 4:
        raise ValueError(f"{fn}: expected a 4-D input (N, C, H, W), got shape {tuple(x_shape)}"
                         + (" (add a batch axis: x.reshape(1, *x.shape))"
                            if len(x_shape) == 3 else ""))
    if len(w_shape) != 4:
        raise ValueError(f"{fn}: expected a 4-D weight (out_channels, in_channels, kh, kw), "
                         f"got shape {tuple(w_shape)}")
    if x_shape[1] != w_shape[1]:
        raise ValueError(f"{fn}: input has {x_shape[1]} channels (shape {tuple(x_shape)}) but "
                         f"the weight {tuple(w_shape)} expects {w_shape[1]}")
    if b_shape is not None and tuple(b_shape) != (w_shape[0],):
        raise ValueError(f"{fn}: bias must have shape ({w_shape[0]},) to match the weight "
                         f"{tuple(w_shape)}, got {tuple(b_shape)}")
    if min(stride) < 1 or min(padding) < 0:
        raise ValueError(f"{fn}: stride must be >= 1 and padding >= 0, got stride={stride}, "
                         f"padding={padding}")
    for axis, size, k, p in zip(("height", "width"), x_shape[2:], w_shape[2:], padding):
        if size + 2 * p < k:
            raise ValueError(f"{fn}: kernel {tuple(w_shape[2:])} is larger than the padded "
                             f"input {axis} ({size} + 2·{p}) for input shape {tuple(x_shape)}")


# --- pooling ---------------------------------------------------------------------
def _pool_geometry(x_shape, kernel, stride, padding):
    H, W = x_shape[2:]
    return (conv_output_size(H, kernel[0], stride[0], padding[0]),
            conv_output_size(W, kernel[1], stride[1], padding[1]))


def _max_pool_forward(x, kernel=(2, 2), stride=(2, 2), padding=(0, 0), **_):
    out_hw = _pool_geometry(x.shape, kernel, stride, padding)
    xp = _pad(x, padding, -np.inf) if np.issubdtype(x.dtype, np.floating) else _pad(x, padding)
    slices = window_offsets(*kernel, stride, out_hw)
    out = xp[next(slices)[2]].copy()
    for _i, _j, sl in slices:
        np.maximum(out, xp[sl], out=out)
    return out, (xp, out)


def _winners(xp, out, kernel, stride):
    """Where each window's gradient goes: the position of its first maximum in ``xp``, for
    every output pixel in ``out``'s (N, C, Ho, Wo) order, as an index into a flat copy of
    ``xp`` laid out channel-major, (C, N, H, W), as conv2d's output is.

    A NaN is its window's maximum (``x == NaN`` is never true, so NaNs are looked for).
    The winners are found one kernel offset at a time (kh·kw passes over arrays of the
    output's size, as in the forward)."""
    N, C, H, W = xp.shape
    Ho, Wo = out.shape[2:]
    nan_out = np.isnan(out) if out.dtype.kind == "f" else None
    if nan_out is not None and nan_out.__class__ is not BatchedArray and not nan_out.any():
        nan_out = None
    offsets = list(window_offsets(*kernel, stride, (Ho, Wo)))
    # the winner's offset (like out: a batch of them inside vmap)
    which = np.zeros_like(out, dtype=np.min_scalar_type(len(offsets) - 1))
    taken = None  # windows whose maximum has already been found
    for k, (_i, _j, sl) in enumerate(offsets):
        hit = xp[sl] == out
        if nan_out is not None:
            hit |= nan_out & np.isnan(xp[sl])
        if taken is None:
            taken = hit
        else:
            hit &= ~taken
            taken |= hit
            which += hit * which.dtype.type(k)
    # position = the window's top-left pixel (its (n, c) map, then its row and column)
    # + the winner's offset in the window; intp, what indexing uses
    maps = (np.arange(N)[:, None] * (H * W) + np.arange(C) * (N * H * W)).ravel()
    corners = (np.arange(Ho)[:, None] * (stride[0] * W) + np.arange(Wo) * stride[1]).ravel()
    where = np.add.outer(maps, corners).reshape(-1)
    # offset k is row i = k // kw, column j = k % kw of the window: i·W + j (computed, not
    # looked up, and not +=: inside vmap the winners differ per example, a batch)
    k = which.reshape(-1).astype(np.intp)
    return where + (k // kernel[1]) * W + k % kernel[1]


def _max_pool_grad(g, xp, out, kernel=(2, 2), stride=(2, 2), padding=(0, 0), **_):
    # xp and out are read only to find the winners (a constant: constant_saves); g is
    # added at their positions (a scatter-add, exactly 0 elsewhere even for an inf or NaN
    # g), into a channel-major buffer so the gradient keeps conv2d's layout.
    xp = data_of(xp)
    N, C, H, W = xp.shape
    where = _winners(xp, data_of(out), kernel, stride)
    gp = SCATTER_ADD(g.reshape(-1), shape=(C * N * H * W,), index=(where,))
    return _crop(gp.reshape(C, N, H, W).transpose(1, 0, 2, 3), padding)


def _max_pool_jvp(t, xp, out, kernel=(2, 2), stride=(2, 2), padding=(0, 0), **_):
    """ṫ = ṫx at each window's (first) maximum: a gather at the backward's winners, the
    transpose of its scatter (a tie gives the tangent of the pixel that got the gradient)."""
    xp, out = data_of(xp), data_of(out)
    where = _winners(xp, out, kernel, stride)    # into a channel-major (C, N, H, W) copy
    flat = _pad_op(t, padding).transpose(1, 0, 2, 3).reshape(-1)
    return flat[where].reshape(out.shape)


def _avg_pool_forward(x, kernel=(2, 2), stride=(2, 2), padding=(0, 0), **_):
    out_hw = _pool_geometry(x.shape, kernel, stride, padding)
    xp = _pad(x, padding)
    slices = window_offsets(*kernel, stride, out_hw)
    out = xp[next(slices)[2]].copy()
    for _i, _j, sl in slices:
        out += xp[sl]
    out *= out.dtype.type(1.0 / (kernel[0] * kernel[1]))
    return out, (xp.shape,)


def _avg_pool_grad(g, xp_shape, kernel=(2, 2), stride=(2, 2), padding=(0, 0), **_):
    # Each window position k gets share = g/(kh·kw) at its strided slice of the padded
    # input: a scatter-add per offset (an op, so that this rule also builds a graph).
    share = g * g.dtype.type(1.0 / (kernel[0] * kernel[1]))
    gp = None
    for _i, _j, sl in window_offsets(*kernel, stride, g.shape[2:]):
        part = SCATTER_ADD(share, shape=xp_shape, index=sl)
        gp = part if gp is None else gp + part
    return _crop(gp, padding)


def _pool_label(name):
    def label(attrs):
        k, s, p = attrs.get("kernel", (2, 2)), attrs.get("stride"), attrs.get("padding", (0, 0))
        text = f"{name}({_short(k)}"
        if s is not None and tuple(s) != tuple(k):
            text += f", stride={_short(s)}"
        if tuple(p) != (0, 0):
            text += f", padding={_short(p)}"
        return text + ")"

    return label


def _distinct(rng, shape):
    n = int(np.prod(shape))
    return (rng.permutation(n) + rng.uniform(0, 0.1, n)).reshape(shape) / n


def _pool_cases(values):
    def cases(rng):
        return [
            ((values(rng, (2, 3, 4, 4)),), {"kernel": (2, 2), "stride": (2, 2), "padding": (0, 0)}),
            ((values(rng, (1, 2, 5, 7)),), {"kernel": (2, 2), "stride": (2, 2), "padding": (0, 0)}),
            ((values(rng, (2, 1, 5, 5)),), {"kernel": (3, 3), "stride": (2, 2), "padding": (1, 1)}),
            ((values(rng, (1, 2, 4, 5)),), {"kernel": (2, 3), "stride": (1, 1), "padding": (0, 0)}),
        ]

    return cases


MAX_POOL2D = define_op(
    name="max_pool2d", engine="tensor", symbol="maxpool", forward=_max_pool_forward,
    grads=(_max_pool_grad,), jvps=(_max_pool_jvp,),  # ṫ = ṫx at each window's maximum
    formulas=("∂/∂x = 1 for the (first) maximum of each window, 0 elsewhere",),
    cases=_pool_cases(_distinct), label=_pool_label("maxpool"), constant_saves=True,
    doc="Max over each kh×kw window: running np.maximum over kh·kw strided slices.")
AVG_POOL2D = define_op(
    name="avg_pool2d", engine="tensor", symbol="avgpool", forward=_avg_pool_forward,
    grads=(_avg_pool_grad,), formulas=("∂/∂x = 1/(kh·kw) for every pixel of the window",),
    linear=True,  # ṫ = avg_pool(ṫx): zero padding keeps it linear
    cases=_pool_cases(lambda rng, shape: rng.uniform(-1, 1, shape)),
    label=_pool_label("avgpool"),
    doc="Mean over each kh×kw window (zero padding counts towards the mean, as in PyTorch).")


def check_pool_input(x_shape, kernel, stride, padding, fn):
    if len(x_shape) != 4:
        raise ValueError(f"{fn}: expected a 4-D input (N, C, H, W), got shape {tuple(x_shape)}")
    if min(kernel) < 1 or min(stride) < 1 or min(padding) < 0:
        raise ValueError(f"{fn}: kernel_size and stride must be >= 1 and padding >= 0, got "
                         f"kernel_size={kernel}, stride={stride}, padding={padding}")
    if padding[0] > kernel[0] // 2 or padding[1] > kernel[1] // 2:
        raise ValueError(f"{fn}: padding {padding} must be at most half the kernel {kernel}")
    for axis, size, k, p in zip(("height", "width"), x_shape[2:], kernel, padding):
        if size + 2 * p < k:
            raise ValueError(f"{fn}: kernel {kernel} is larger than the input {axis} "
                             f"({size}) for input shape {tuple(x_shape)}")
