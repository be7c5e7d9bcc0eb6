"""im2col and col2im: the patches as columns, col2im its transpose, each the other's gradient."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad.nn.functional as F
from minigrad import Tensor
from minigrad.autograd import grad
from minigrad.nn.functional.im2col import COL2IM, IM2COL, conv_output_size

GEOMETRIES = [  # (N, C, H, W), kernel, stride: overlapping, apart, uneven, 1x1
    ((2, 3, 6, 5), (3, 3), (1, 1)),
    ((1, 2, 7, 7), (2, 2), (3, 3)),
    ((2, 2, 7, 6), (3, 2), (2, 1)),
    ((3, 4, 2, 3), (1, 1), (1, 1)),
]


def _loop_im2col(x, kernel, stride):
    """Column n·Ho·Wo + ho·Wo + wo is the patch under output pixel (n, ho, wo), in (c, i, j)
    order: the definition, written as loops."""
    N, C, H, W = x.shape
    (kh, kw), (sh, sw) = kernel, stride
    Ho, Wo = conv_output_size(H, kh, sh, 0), conv_output_size(W, kw, sw, 0)
    cols = np.empty((C * kh * kw, N * Ho * Wo))
    for n in range(N):
        for ho in range(Ho):
            for wo in range(Wo):
                patch = x[n, :, ho * sh:ho * sh + kh, wo * sw:wo * sw + kw]
                cols[:, (n * Ho + ho) * Wo + wo] = patch.reshape(-1)
    return cols


@pytest.mark.parametrize("shape,kernel,stride", GEOMETRIES)
def test_im2col_copies_each_patch_into_a_column(shape, kernel, stride):
    x = np.random.default_rng(0).normal(size=shape)
    np.testing.assert_array_equal(IM2COL(x, kernel=kernel, stride=stride),
                                  _loop_im2col(x, kernel, stride))


def test_im2col_reads_any_memory_layout():
    x = np.random.default_rng(1).normal(size=(3, 2, 6, 6))
    channel_major = np.ascontiguousarray(x.transpose(1, 0, 2, 3)).transpose(1, 0, 2, 3)
    np.testing.assert_array_equal(IM2COL(channel_major, kernel=(3, 3), stride=(1, 1)),
                                  _loop_im2col(x, (3, 3), (1, 1)))


@pytest.mark.parametrize("shape,kernel,stride", GEOMETRIES)
def test_col2im_is_the_transpose_of_im2col(shape, kernel, stride):
    """⟨im2col(x), c⟩ = ⟨x, col2im(c)⟩ for every x and c: col2im adds each column back onto
    the pixels it was copied from, so a pixel in several patches gets their sum."""
    rng = np.random.default_rng(2)
    x = rng.normal(size=shape)
    cols = IM2COL(x, kernel=kernel, stride=stride)
    c = rng.normal(size=cols.shape)
    back = COL2IM(c, shape=shape, kernel=kernel, stride=stride)
    assert back.shape == shape
    assert np.sum(cols * c) == pytest.approx(np.sum(x * back), rel=1e-12)


def test_col2im_counts_how_many_patches_hold_each_pixel():
    shape, kernel = (1, 1, 4, 4), (3, 3)
    ones = np.ones_like(IM2COL(np.zeros(shape), kernel=kernel, stride=(1, 1)))
    counts = COL2IM(ones, shape=shape, kernel=kernel, stride=(1, 1))[0, 0]
    np.testing.assert_array_equal(counts, [[1, 2, 2, 1], [2, 4, 4, 2], [2, 4, 4, 2], [1, 2, 2, 1]])


def test_col2im_refuses_columns_that_do_not_fit_the_shape():
    with pytest.raises(ValueError, match=r"col2im: columns of shape \(9, 5\) do not fit"):
        COL2IM(np.zeros((9, 5)), shape=(1, 1, 4, 4), kernel=(3, 3), stride=(1, 1))


def test_each_is_the_others_gradient():
    rng = np.random.default_rng(3)
    x = Tensor(rng.normal(size=(2, 2, 5, 5)), requires_grad=True)
    cols = IM2COL(x, kernel=(2, 3), stride=(1, 2))
    assert cols.op is IM2COL
    up = Tensor(rng.normal(size=cols.shape), requires_grad=True)  # (so the rule records)
    (gx,) = grad(cols, [x], grad_outputs=[up], create_graph=True)
    assert gx.op is COL2IM and gx.attrs["shape"] == (2, 2, 5, 5)
    c = Tensor(rng.normal(size=cols.shape), requires_grad=True)
    back = COL2IM(c, shape=x.shape, kernel=(2, 3), stride=(1, 2))
    (gc,) = grad(back, [c], grad_outputs=[Tensor(x.data.copy(), requires_grad=True)],
                 create_graph=True)
    assert gc.op is IM2COL


def test_conv2ds_input_gradient_is_recorded_as_col2im():
    rng = np.random.default_rng(4)
    x = Tensor(rng.normal(size=(2, 2, 6, 6)), requires_grad=True)
    w = Tensor(rng.normal(size=(3, 2, 3, 3)), requires_grad=True)
    (gx,) = grad(F.conv2d(x, w, padding=1).sum(), [x], create_graph=True)
    ops, stack, seen = set(), [gx], set()
    while stack:
        n = stack.pop()
        if n.id not in seen:
            seen.add(n.id)
            ops.add(n.op.name if n.op else None)
            stack.extend(n.parents)
    assert {"col2im", "matmul"} <= ops


def test_the_lesson_10_helper_keeps_its_signature():
    """``conv.im2col(xp, kh, kw, stride, out_hw)`` is what lesson 10 calls."""
    from minigrad.nn.functional.conv import im2col

    xp = np.arange(2 * 3 * 5 * 5, dtype=np.float64).reshape(2, 3, 5, 5)
    cols = im2col(xp, 3, 3, (1, 1), (3, 3))
    assert cols.shape == (3 * 3 * 3, 2 * 3 * 3)
    np.testing.assert_array_equal(cols[:, 0], xp[0, :, 0:3, 0:3].reshape(-1))
    with pytest.raises(ValueError, match="does not give an output of"):
        im2col(xp, 3, 3, (1, 1), (4, 4))
