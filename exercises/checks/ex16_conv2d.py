"""Checks for exercise 16: im2col and conv2d against plain loops that follow the
definition, for several shapes, strides and paddings (non-square on purpose)."""

import numpy as np

from ._support import call, expect_array, expect_close, rng_for

CASES = [  # (x shape, w shape, stride, padding)
    ((2, 3, 5, 6), (4, 3, 3, 2), 1, 0),
    ((1, 2, 7, 7), (3, 2, 3, 3), 2, 1),
    ((2, 1, 4, 5), (2, 1, 1, 1), 1, 0),
    ((1, 3, 6, 4), (2, 3, 2, 3), 2, 2),
]


def _out_size(h, k, stride, padding):
    return (h + 2 * padding - k) // stride + 1


def loop_im2col(x, kh, kw, stride, padding):
    n, c, h, w = x.shape
    oh, ow = _out_size(h, kh, stride, padding), _out_size(w, kw, stride, padding)
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    out = np.zeros((n, oh, ow, c * kh * kw))
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
            out[:, i, j] = patch.reshape(n, -1)
    return out


def loop_conv2d(x, w, b, stride, padding):
    n, _, h, wd = x.shape
    o, _, kh, kw = w.shape
    oh, ow = _out_size(h, kh, stride, padding), _out_size(wd, kw, stride, padding)
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    out = np.zeros((n, o, oh, ow))
    for k in range(n):
        for f in range(o):
            for i in range(oh):
                for j in range(ow):
                    patch = xp[k, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
                    out[k, f, i, j] = np.sum(patch * w[f]) + (0.0 if b is None else b[f])
    return out


def check_im2col(im2col):
    rng = rng_for("ex16.im2col")
    for xs, ws, stride, padding in CASES:
        x = rng.standard_normal(xs)
        kh, kw = ws[2:]
        context = f"im2col(x of shape {xs}, kh={kh}, kw={kw}, stride={stride}, padding={padding})"
        got = call(im2col, "im2col", {"x": x, "kh": kh, "kw": kw, "stride": stride,
                                      "padding": padding}, context=context)
        want = loop_im2col(x, kh, kw, stride, padding)
        expect_array(got, want.shape, what="the result", context=context,
                     hint="(N, OH, OW, C·kh·kw) with OH = (H + 2·padding − kh) // stride + 1")
        hint = ("row [n, i, j] is the patch xp[n, :, i·s : i·s + kh, j·s : j·s + kw] "
                "flattened in (c, u, v) order")
        expect_close(got, want, what="the result", context=context, hint=hint)


def check_conv2d(conv2d):
    rng = rng_for("ex16.conv2d")
    for bias in (True, False):
        for xs, ws, stride, padding in CASES:
            x, w = rng.standard_normal(xs), rng.standard_normal(ws)
            b = rng.standard_normal(ws[0]) if bias else None
            context = (f"conv2d(x of shape {xs}, w of shape {ws}, b={'(O,)' if bias else 'None'}, "
                       f"stride={stride}, padding={padding})")
            got = call(conv2d, "conv2d", {"x": x, "w": w, "b": b, "stride": stride,
                                          "padding": padding}, context=context)
            want = loop_conv2d(x, w, b, stride, padding)
            expect_array(got, want.shape, what="the result", context=context,
                         hint=_shape_hint(got, want.shape))
            expect_close(got, want, what="the output", context=context,
                         hint="im2col, then cols @ w.reshape(O, -1).T, + b, then transpose "
                              "(N, OH, OW, O) → (N, O, OH, OW)")


def _shape_hint(got, want_shape):
    """Only a permutation of the right axes means "move the channel axis"; any other
    wrong shape is almost always OH/OW off by one."""
    shape = getattr(got, "shape", None)
    if shape is not None and sorted(shape) == sorted(want_shape):
        return "the output is (N, O, OH, OW): move the channel axis after N"
    return ("the output is (N, O, OH, OW) with OH = (H + 2·padding − kh) // stride + 1 and "
            "OW = (W + 2·padding − kw) // stride + 1")
