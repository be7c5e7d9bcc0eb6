"""Wrong answers that ``checks/ex16_conv2d.py`` must reject (lesson 10)."""

from __future__ import annotations

from ._registry import mistake


def _solution16():
    from exercises.solutions import ex16_conv2d

    return ex16_conv2d


@mistake("ex16", "im2col", "patch flattened in (u, v, c) order", "(c, u, v) order")
def _im2col_order(x, kh, kw, stride=1, padding=0):
    cols = _solution16().im2col(x, kh, kw, stride, padding)
    n, oh, ow, _ = cols.shape
    return cols.reshape(n, oh, ow, x.shape[1], kh * kw).swapaxes(-1, -2).reshape(n, oh, ow, -1)


@mistake("ex16", "im2col", "ignores the stride", "has shape")
def _im2col_no_stride(x, kh, kw, stride=1, padding=0):
    return _solution16().im2col(x, kh, kw, 1, padding)


@mistake("ex16", "conv2d", "reshape instead of transpose", "transpose")
def _conv_reshape(x, w, b=None, stride=1, padding=0):
    o, _, kh, kw = w.shape
    out = _solution16().im2col(x, kh, kw, stride, padding) @ w.reshape(o, -1).T
    if b is not None:
        out = out + b
    return out.reshape(out.shape[0], o, out.shape[1], out.shape[2])


@mistake("ex16", "conv2d", "output size off by one", "(H + 2·padding − kh) // stride + 1")
def _conv_off_by_one(x, w, b=None, stride=1, padding=0):
    return _solution16().conv2d(x, w, b, stride, padding)[:, :, :-1, :]


@mistake("ex16", "conv2d", "flips the kernel (textbook convolution)", "output")
def _conv_flipped(x, w, b=None, stride=1, padding=0):
    return _solution16().conv2d(x, w[:, :, ::-1, ::-1], b, stride, padding)


@mistake("ex16", "conv2d", "forgets the bias", "output")
def _conv_no_bias(x, w, b=None, stride=1, padding=0):
    return _solution16().conv2d(x, w, None, stride, padding)
