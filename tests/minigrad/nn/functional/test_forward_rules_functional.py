"""Forward-mode rules of the functional ops (conv, pools, linear, dropout, losses, norms)
on cases the registry-wide test (``test_forward_rules.py``) does not reach: strides,
padding and uneven kernels, tied maxima, every reduction, float32, and the structure
each rule should have (bilinear, invariant, batch-independent)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad  # noqa: F401  (registers every op)
from minigrad.autograd import get_op
from minigrad.autograd.tangents import output_tangent
from minigrad.nn.functional.linear import dropout_mask
from tests.minigrad.ops.forward_checks import backward_products, check_forward_rule, random_tangents

MINE = ("im2col", "col2im", "conv2d", "conv2d_no_bias", "max_pool2d", "avg_pool2d", "linear",
        "linear_no_bias", "dropout", "cross_entropy", "nll_loss", "mse_loss",
        "binary_cross_entropy", "binary_cross_entropy_with_logits", "batch_norm",
        "batch_norm_eval", "layer_norm")
LOSSES = ("cross_entropy", "nll_loss", "mse_loss", "binary_cross_entropy",
          "binary_cross_entropy_with_logits")


def op_(name):
    return get_op(name, "tensor")


def tangent_of(op, inputs, attrs, tangents):
    out, saved = op.forward(*inputs, **attrs)
    return output_tangent(op, inputs, out, saved, attrs, tangents)


def dot_product_gap(op, inputs, attrs, tangents, c):
    """``⟨J·t, c⟩ − ⟨t, Jᵀ·c⟩``, with ``Jᵀ·c`` from the op's backward rules."""
    out, saved = op.forward(*inputs, **attrs)
    left = float(np.sum(output_tangent(op, inputs, out, saved, attrs, tangents) * c))
    back = backward_products(op, inputs, saved, attrs, c)
    right = sum(float(np.sum(t * b)) for t, b in zip(tangents, back) if t is not None)
    return left - right


# --- conv2d --------------------------------------------------------------------------------
@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no_bias"])
@pytest.mark.parametrize("x_shape, w_shape, stride, padding", [
    ((2, 3, 7, 6), (4, 3, 3, 2), (2, 1), (1, 0)),
    ((1, 2, 5, 8), (3, 2, 1, 4), (1, 3), (0, 2)),
    ((2, 1, 6, 6), (2, 1, 2, 3), (3, 2), (1, 1)),
])
def test_conv2d_tangent_with_stride_padding_and_uneven_kernels_matches_differences(
        x_shape, w_shape, stride, padding, bias):
    rng = np.random.default_rng(7)
    inputs = [rng.uniform(-1, 1, x_shape), rng.uniform(-1, 1, w_shape)]
    if bias:
        inputs.append(rng.uniform(-1, 1, w_shape[:1]))
    op = op_("conv2d" if bias else "conv2d_no_bias")
    check_forward_rule(op, tuple(inputs), {"stride": stride, "padding": padding}, rng)


def test_conv2d_tangent_along_the_weight_alone_is_the_convolution_with_the_tangent_kernel():
    rng = np.random.default_rng(3)
    x, w, b = rng.normal(size=(2, 3, 6, 5)), rng.normal(size=(4, 3, 3, 2)), rng.normal(size=4)
    tw, tb = rng.normal(size=w.shape), rng.normal(size=b.shape)
    attrs = {"stride": (2, 1), "padding": (1, 1)}
    conv = op_("conv2d")
    along_w = tangent_of(conv, (x, w, b), attrs, (None, tw, None))
    np.testing.assert_allclose(along_w, op_("conv2d_no_bias").forward(x, tw, **attrs)[0])
    along_b = tangent_of(conv, (x, w, b), attrs, (None, None, tb))
    np.testing.assert_array_equal(along_b, np.broadcast_to(tb.reshape(1, 4, 1, 1),
                                                           along_w.shape))


# --- max_pool2d: ties ----------------------------------------------------------------------
def first_maximum_tangent(x, t, kernel, stride, padding):
    """The tangent at each window's first maximum (row-major in the window), by loops."""
    (kh, kw), (sh, sw), (ph, pw) = kernel, stride, padding
    pad = ((0, 0), (0, 0), (ph, ph), (pw, pw))
    xp, tp = np.pad(x, pad, constant_values=-np.inf), np.pad(t, pad)
    N, C, H, W = xp.shape
    Ho, Wo = (H - kh) // sh + 1, (W - kw) // sw + 1
    out = np.empty((N, C, Ho, Wo))
    for n, c, i, j in np.ndindex(N, C, Ho, Wo):
        window = (n, c, slice(i * sh, i * sh + kh), slice(j * sw, j * sw + kw))
        k = int(np.argmax(xp[window]))
        out[n, c, i, j] = tp[window][k // kw, k % kw]
    return out


POOL_TIES = [((2, 2), (2, 2), (0, 0)), ((3, 2), (1, 1), (1, 1)), ((3, 3), (2, 2), (1, 1)),
             ((2, 3), (1, 2), (0, 1))]


@pytest.mark.parametrize("kernel, stride, padding", POOL_TIES)
def test_max_pool_tangent_at_tied_maxima_is_the_first_maximums_tangent(kernel, stride, padding):
    rng = np.random.default_rng(11)
    x = rng.integers(0, 2, (2, 3, 6, 7)).astype(float)  # mostly ties
    t = rng.normal(size=x.shape)
    attrs = {"kernel": kernel, "stride": stride, "padding": padding}
    tangent = tangent_of(op_("max_pool2d"), (x,), attrs, (t,))
    np.testing.assert_array_equal(tangent, first_maximum_tangent(x, t, kernel, stride, padding))


@pytest.mark.parametrize("kernel, stride, padding", POOL_TIES)
def test_max_pool_tangent_at_ties_is_the_transpose_of_its_gradient(kernel, stride, padding):
    rng = np.random.default_rng(12)
    x = rng.integers(0, 3, (2, 2, 7, 6)).astype(float)
    attrs = {"kernel": kernel, "stride": stride, "padding": padding}
    op = op_("max_pool2d")
    c = rng.normal(size=op.forward(x, **attrs)[0].shape)
    gap = dot_product_gap(op, (x,), attrs, [rng.normal(size=x.shape)], c)
    assert abs(gap) < 1e-10


# --- losses --------------------------------------------------------------------------------
def loss_inputs(name, rng, shape=(5, 4)):
    if name in ("cross_entropy", "nll_loss"):
        return rng.normal(size=shape), rng.integers(0, shape[1], shape[0])
    if name == "binary_cross_entropy":
        return rng.uniform(0.1, 0.9, shape), rng.uniform(0, 1, shape)
    return rng.normal(size=shape), rng.uniform(0, 1, shape)


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("name", LOSSES)
def test_loss_tangent_under_each_reduction_matches_differences(name, reduction):
    rng = np.random.default_rng(5)
    check_forward_rule(op_(name), loss_inputs(name, rng), {"reduction": reduction}, rng)


@pytest.mark.parametrize("name", LOSSES)
def test_loss_tangents_of_the_reductions_are_the_per_sample_tangents_summed_and_averaged(name):
    rng = np.random.default_rng(6)
    inputs = loss_inputs(name, rng)
    tangents = random_tangents(inputs, rng)
    per = {r: tangent_of(op_(name), inputs, {"reduction": r}, tangents)
           for r in ("none", "sum", "mean")}
    assert per["sum"].shape == per["mean"].shape == ()
    np.testing.assert_allclose(per["sum"], per["none"].sum())
    np.testing.assert_allclose(per["mean"], per["none"].sum() / per["none"].size)


@pytest.mark.parametrize("name", ["cross_entropy", "nll_loss"])
def test_class_targets_carry_no_tangent(name):
    rng = np.random.default_rng(8)
    inputs = loss_inputs(name, rng)
    assert random_tangents(inputs, rng)[1] is None
    assert tangent_of(op_(name), inputs, {"reduction": "none"}, (None, None)) is None


def test_mse_tangent_with_a_broadcast_target_matches_differences():
    rng = np.random.default_rng(9)
    for reduction in ("none", "mean"):
        inputs = (rng.normal(size=(3, 4)), rng.normal(size=(4,)))
        check_forward_rule(op_("mse_loss"), inputs, {"reduction": reduction}, rng)


# --- norms and dropout ---------------------------------------------------------------------
def norm_case(name, rng, shape=(4, 3, 5)):
    if name == "layer_norm":
        return (rng.normal(size=shape), rng.uniform(0.5, 1.5, shape[-1:]),
                rng.normal(size=shape[-1:])), {"eps": 0.0, "ndim": 1}
    c = shape[1]
    return (rng.normal(size=shape), rng.uniform(0.5, 1.5, c), rng.normal(size=c)), {"eps": 0.0}


@pytest.mark.parametrize("name", ["batch_norm", "layer_norm"])
def test_normalised_output_has_no_tangent_along_a_shift_or_a_scale_of_its_group(name):
    rng = np.random.default_rng(10)
    inputs, attrs = norm_case(name, rng)
    x = inputs[0]
    axes = (0, 2) if name == "batch_norm" else (2,)
    centred = x - x.mean(axis=axes, keepdims=True)
    shift = np.broadcast_to(rng.normal(size=[1 if a in axes else n
                                             for a, n in enumerate(x.shape)]), x.shape)
    scale = centred * rng.normal(size=[1 if a in axes else n for a, n in enumerate(x.shape)])
    for t in (shift, scale, shift + scale):
        tangent = tangent_of(op_(name), inputs, attrs, (t, None, None))
        np.testing.assert_allclose(tangent, 0.0, atol=1e-12)
    # ...while any other tangent of x moves the output
    assert np.abs(tangent_of(op_(name), inputs, attrs, (rng.normal(size=x.shape), None, None))
                  ).max() > 1e-3


def test_eval_batch_norm_couples_no_samples_but_training_batch_norm_does():
    rng = np.random.default_rng(13)
    (x, w, b), attrs = norm_case("batch_norm", rng)
    t = np.zeros_like(x)
    t[1] = rng.normal(size=x.shape[1:])  # a tangent on sample 1 only
    train = tangent_of(op_("batch_norm"), (x, w, b), attrs, (t, None, None))
    stats = (rng.normal(size=w.shape), rng.uniform(0.5, 2, w.shape))
    evaluated = tangent_of(op_("batch_norm_eval"), (x, w, b, *stats), attrs,
                           (t, None, None, None, None))
    assert np.abs(train[0]).max() > 1e-3  # the batch's mean and variance moved
    np.testing.assert_array_equal(evaluated[0], 0.0)
    np.testing.assert_allclose(evaluated[1], t[1] * (w / np.sqrt(stats[1]))[:, None])


def test_dropout_tangent_goes_through_the_nodes_own_mask():
    rng = np.random.default_rng(14)
    x, t = rng.normal(size=(6, 7)), rng.normal(size=(6, 7))
    attrs = {"p": 0.4, "seed": 21}
    tangent = tangent_of(op_("dropout"), (x,), attrs, (t,))
    mask = dropout_mask(x.shape, 0.4, 21, x.dtype)
    np.testing.assert_array_equal(tangent, t * mask)
    assert (tangent == 0).any() and (tangent != 0).any()


# --- dtypes --------------------------------------------------------------------------------
def as_float32(xs):
    return tuple(x.astype(np.float32) if x.dtype.kind == "f" else x for x in xs)


@pytest.mark.parametrize("name", MINE)
def test_float32_inputs_and_tangents_give_a_float32_tangent(name):
    op = op_(name)
    rng = np.random.default_rng(15)
    for inputs, attrs in op.cases(np.random.default_rng(1234)):
        tangents64 = random_tangents(inputs, rng)
        expected = tangent_of(op, inputs, attrs, tangents64)
        tangents32 = [None if t is None else t.astype(np.float32) for t in tangents64]
        tangent = tangent_of(op, as_float32(inputs), attrs, tangents32)
        assert tangent.dtype == np.float32, f"{name} on {[np.shape(x) for x in inputs]}"
        np.testing.assert_allclose(tangent, expected, rtol=2e-3, atol=2e-4)
