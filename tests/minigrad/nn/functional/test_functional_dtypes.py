"""minigrad.nn.functional follows the Tensor dtype policy (PyTorch's): float32 stays float32 and
float64 stays float64 through every op and gradient; an int or bool input is a constant cast
to the floating operands' dtype, float32 when none is floating.  Integer class targets stay
indices.  Values are checked against float64 numpy computations on the same data."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad.nn.functional as F
from minigrad import Tensor
from tests._helpers import leaf as param

FLOATS = [np.float32, np.float64]
RTOL = {np.float32: 1e-5, np.float64: 1e-12}


def ints(*shape, lo=-5, hi=6, seed=0, dtype=np.int64):
    return np.random.default_rng(seed).integers(lo, hi, shape).astype(dtype)


def close(out, expected, dtype):
    assert out.dtype == dtype, f"dtype {out.dtype}, expected {np.dtype(dtype)}"
    np.testing.assert_allclose(out.data, expected, rtol=RTOL[dtype], atol=RTOL[dtype])


def backward_keeps_dtypes(out, *leaves):
    out.backward(np.ones(out.shape, out.dtype))
    for leaf in leaves:
        assert leaf.grad is not None and leaf.grad.dtype == leaf.dtype, (
            f"gradient {leaf.grad.dtype if leaf.grad is not None else None} for a "
            f"{leaf.dtype} leaf")
        assert np.isfinite(leaf.grad).all()


# --- numpy float64 references ------------------------------------------------------------
def np_pool(x, k, s, p, reduce, pad_value):
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (p, p), (p, p)), constant_values=pad_value)
    N, C, H, W = x.shape
    Ho, Wo = (H - k) // s + 1, (W - k) // s + 1
    out = np.empty((N, C, Ho, Wo))
    for i in range(Ho):
        for j in range(Wo):
            out[:, :, i, j] = reduce(x[:, :, i * s:i * s + k, j * s:j * s + k], axis=(2, 3))
    return out


def np_conv(x, w, b):
    x, w = x.astype(np.float64), w.astype(np.float64)
    N, C, H, W = x.shape
    O, _, kh, kw = w.shape
    out = np.empty((N, O, H - kh + 1, W - kw + 1))
    for i in range(out.shape[2]):
        for j in range(out.shape[3]):
            out[:, :, i, j] = np.einsum("nchw,ochw->no", x[:, :, i:i + kh, j:j + kw], w)
    return out + (0 if b is None else np.asarray(b, np.float64).reshape(1, -1, 1, 1))


def np_normalize(x, axes, eps=1e-5):
    x = x.astype(np.float64)
    mean = x.mean(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(x.var(axis=axes, keepdims=True) + eps)


def np_log_softmax(z):
    z = z.astype(np.float64)
    z = z - z.max(axis=1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


# --- 1. avg_pool2d ------------------------------------------------------------------------
def test_avg_pool2d_of_an_int_image_averages_in_float32():
    x = np.arange(16).reshape(1, 1, 4, 4)
    out = F.avg_pool2d(Tensor(x), 2)
    close(out, [[[[2.5, 4.5], [10.5, 12.5]]]], np.float32)


def test_avg_pool2d_of_uint8_does_not_wrap_around():
    x = np.full((1, 2, 4, 4), 200, np.uint8)
    x[0, 1] = (np.arange(16, dtype=np.uint8) * 16).reshape(4, 4)
    out = F.avg_pool2d(Tensor(x), 2)
    close(out, np_pool(x, 2, 2, 0, np.mean, 0), np.float32)


def test_avg_pool2d_int_with_padding_and_overlap():
    x = ints(2, 3, 5, 5)
    out = F.avg_pool2d(x, 3, stride=2, padding=1)  # a plain int array works too
    close(out, np_pool(x, 3, 2, 1, np.mean, 0), np.float32)


# --- 2. cross_entropy and nll_loss ---------------------------------------------------------
def test_cross_entropy_of_int_logits():
    z, t = np.array([[0, 1, 2], [3, 4, 9]]), np.array([0, 1])
    out = F.cross_entropy(Tensor(z), t)
    expected = -np_log_softmax(z)[np.arange(2), t].mean()
    assert abs(expected - 3.7083903) < 1e-6
    close(out, expected, np.float32)
    per_sample = F.cross_entropy(Tensor(z), t, reduction="none")
    close(per_sample, -np_log_softmax(z)[np.arange(2), t], np.float32)


@pytest.mark.parametrize("dtype", FLOATS)
def test_cross_entropy_targets_stay_integer_indices(dtype):
    z = param(np.random.default_rng(1).normal(size=(4, 3)), dtype)
    t = Tensor(np.array([0, 2, 1, 2]))
    out = F.cross_entropy(z, t)
    assert out.parents[1].dtype == np.int64  # the targets were not cast to float
    close(out, -np_log_softmax(z.data)[np.arange(4), t.data].mean(), dtype)
    backward_keeps_dtypes(out, z)
    with pytest.raises(TypeError, match="integer class indices"):
        F.cross_entropy(z, np.array([0.0, 2.0, 1.0, 2.0]))
    with pytest.raises(TypeError, match="integer class indices"):
        F.nll_loss(z, np.array([True, False, True, False]))


def test_nll_loss_of_int_log_probs():
    logp, t = -ints(3, 4, lo=0, hi=9), np.array([3, 0, 1])
    out = F.nll_loss(Tensor(logp), t)
    close(out, -logp[np.arange(3), t].astype(np.float64).mean(), np.float32)  # not truncated


# --- 3. linear and layer_norm --------------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("bias", [False, True])
def test_linear_int_input_follows_the_weight(dtype, bias):
    rng = np.random.default_rng(2)
    xi = Tensor(np.arange(6).reshape(2, 3))
    W = param(rng.normal(size=(4, 3)), dtype)
    b = param(rng.normal(size=4), dtype) if bias else None
    out = F.linear(xi, W, b)
    ref = xi @ W.T + (b if bias else 0)
    assert out.dtype == ref.dtype == dtype
    close(out, xi.data @ W.data.T.astype(np.float64) + (b.data if bias else 0), dtype)
    backward_keeps_dtypes(out, W, *([b] if bias else []))


def test_linear_all_int_operands_give_float32():
    x, w, b = ints(2, 3), ints(4, 3, seed=1), ints(4, seed=2)
    out = F.linear(x, w, b)
    close(out, x @ w.T.astype(np.float64) + b, np.float32)


@pytest.mark.parametrize("dtype", FLOATS)
def test_layer_norm_int_input(dtype):
    x = ints(4, 3, 5)
    out = F.layer_norm(Tensor(x), 5)
    close(out, np_normalize(x, -1), np.float32)
    w, b = param(np.linspace(0.5, 1.5, 5), dtype), param(np.linspace(-1, 1, 5), dtype)
    out = F.layer_norm(Tensor(x), 5, w, b)  # an int input takes the parameters' dtype
    close(out, np_normalize(x, -1) * w.data + b.data, dtype)
    backward_keeps_dtypes(out, w, b)


@pytest.mark.parametrize("dtype", FLOATS)
def test_layer_norm_constant_weight_follows_the_input(dtype):
    x = param(np.random.default_rng(3).normal(size=(4, 6)), dtype)
    w, b = np.linspace(0.5, 1.5, 6), np.linspace(-1, 1, 6)  # float64 arrays: constants
    out = F.layer_norm(x, 6, w, b)
    close(out, np_normalize(x.data, -1) * w + b, dtype)
    backward_keeps_dtypes(out, x)


# --- 4. conv2d, batch_norm, max_pool2d, nll/mse losses, dropout ----------------------------
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("int_dtype", [np.int64, np.uint8])
def test_conv2d_int_input_follows_the_weight(int_dtype, dtype):
    rng = np.random.default_rng(4)
    x = ints(2, 3, 5, 6, lo=0, hi=256, dtype=int_dtype)
    w, b = param(rng.normal(size=(4, 3, 3, 3)), dtype), param(rng.normal(size=4), dtype)
    out = F.conv2d(Tensor(x), w, b)
    close(out, np_conv(x, w.data, b.data), dtype)
    backward_keeps_dtypes(out, w, b)


def test_conv2d_all_int_operands_give_float32():
    x, w = ints(1, 2, 4, 4), ints(3, 2, 2, 2, seed=1)
    out = F.conv2d(x, w)
    close(out, np_conv(x, w, None), np.float32)


def test_batch_norm_int_input_training():
    x = ints(8, 3, 2, 2)
    rm, rv = np.zeros(3, np.float32), np.ones(3, np.float32)
    out = F.batch_norm(Tensor(x), rm, rv, training=True)
    close(out, np_normalize(x, (0, 2, 3)), np.float32)
    assert rm.dtype == np.float32
    np.testing.assert_allclose(rm, 0.1 * x.mean(axis=(0, 2, 3)), rtol=1e-5)


@pytest.mark.parametrize("dtype", FLOATS)
def test_batch_norm_int_input_follows_the_parameters(dtype):
    x = ints(6, 3)
    w, b = param([0.5, 1.0, 2.0], dtype), param([0.0, -1.0, 1.0], dtype)
    out = F.batch_norm(Tensor(x), weight=w, bias=b, training=True)
    close(out, np_normalize(x, 0) * w.data + b.data, dtype)
    backward_keeps_dtypes(out, w, b)
    rm, rv = np.full(3, 0.5), np.full(3, 2.0)
    out = F.batch_norm(Tensor(x), rm, rv, w, b)  # eval
    close(out, (x - 0.5) / np.sqrt(2.0 + 1e-5) * w.data + b.data, dtype)


def test_max_pool2d_pads_int_input_with_minus_infinity():
    x = -1 - np.arange(32).reshape(1, 2, 4, 4)  # all negative: a 0 pad would win every window
    out = F.max_pool2d(Tensor(x), 3, stride=2, padding=1)
    close(out, np_pool(x, 3, 2, 1, np.max, -np.inf), np.float32)
    assert (out.data < 0).all()


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_loss_of_int_input(reduction):
    pred, target = ints(3, 4), ints(3, 4, seed=1)
    out = F.mse_loss(Tensor(pred), Tensor(target), reduction=reduction)
    sq = (pred - target).astype(np.float64) ** 2
    close(out, {"mean": sq.mean(), "sum": sq.sum(), "none": sq}[reduction], np.float32)


def test_mse_loss_int_input_against_a_float_target_is_not_truncated():
    out = F.mse_loss(Tensor([1, 2]), Tensor([1.5, 2.5]))
    close(out, 0.25, np.float32)


@pytest.mark.parametrize("dtype", FLOATS)
def test_mse_loss_int_input_with_a_target_that_requires_grad(dtype):
    y = param([0.5, 1.5, -2.0], dtype)
    out = F.mse_loss(Tensor([1, 2, -2]), y)
    close(out, ((np.array([1, 2, -2]) - y.data.astype(np.float64)) ** 2).mean(), dtype)
    backward_keeps_dtypes(out, y)


@pytest.mark.parametrize("p", [0.25, 0.5, 0.7])
def test_dropout_of_int_input_scales_in_float32(p):
    x = ints(6, 50, lo=1, hi=9)
    out = F.dropout(Tensor(x), p, rng=0)
    assert out.dtype == np.float32
    kept = out.data != 0
    assert 0 < kept.sum() < x.size
    np.testing.assert_allclose(out.data[kept], x[kept] / (1.0 - p), rtol=1e-6)


def test_dropout_int_input_is_float32_in_eval_mode_too():
    x = Tensor(np.arange(5))
    out = F.dropout(x, 0.5, training=False)
    close(out, np.arange(5), np.float32)
    y = Tensor(np.arange(5.0, dtype=np.float64))
    assert F.dropout(y, 0.5, training=False) is y  # a float input is returned as is


# --- 5. batch_norm in eval mode with float64 weight/bias -------------------------------------
@pytest.mark.parametrize("dtype", FLOATS)
def test_batch_norm_eval_constant_weight_and_bias_follow_the_input(dtype):
    rng = np.random.default_rng(5)
    x = param(rng.normal(size=(4, 3, 2)), dtype)
    rm, rv = rng.normal(size=3), rng.uniform(0.5, 2, 3)  # float64 arrays
    w, b = rng.uniform(0.5, 1.5, 3), rng.normal(size=3)  # float64 arrays: constants
    out = F.batch_norm(x, rm, rv, w, b)
    expected = ((x.data.astype(np.float64) - rm[:, None]) / np.sqrt(rv[:, None] + 1e-5)
                * w[:, None] + b[:, None])
    close(out, expected, dtype)
    backward_keeps_dtypes(out, x)
    # float64 tensors that do not require grad are constants as well
    out = F.batch_norm(x, rm, rv, Tensor(w), Tensor(b))
    close(out, expected, dtype)
    out = F.batch_norm(x, rm, rv, Tensor(w), Tensor(b), training=True)
    assert out.dtype == dtype


def test_batch_norm_float64_parameters_promote_a_float32_input_like_arithmetic():
    """Documented choice: a parameter keeps its dtype, so numpy's promotion decides."""
    rng = np.random.default_rng(6)
    x = param(rng.normal(size=(5, 3)), np.float32)
    w, b = param(rng.uniform(0.5, 1.5, 3), np.float64), param(rng.normal(size=3), np.float64)
    for training in (False, True):
        x.grad = w.grad = b.grad = None
        out = F.batch_norm(x, np.zeros(3), np.ones(3), w, b, training=training)
        assert out.dtype == (x * w).dtype == np.float64
        backward_keeps_dtypes(out, x, w, b)


# --- the rest: binary cross-entropy, leaky_relu, softmax -----------------------------------
@pytest.mark.parametrize("input_dtype", [np.int64, np.bool_])
def test_binary_cross_entropy_of_int_or_bool_probabilities(input_dtype):
    p = np.array([0, 1, 1, 0]).astype(input_dtype)
    y = np.array([0.0, 1.0, 0.5, 0.25])
    out = F.binary_cross_entropy(Tensor(p), y)
    pf = p.astype(np.float64)
    with np.errstate(divide="ignore"):
        expected = -(y * np.maximum(np.log(pf), -100) + (1 - y) * np.maximum(np.log(1 - pf), -100))
    close(out, expected.mean(), np.float32)


@pytest.mark.parametrize("input_dtype", [np.int64, np.bool_])
@pytest.mark.parametrize("target_dtype", [np.int64, np.bool_, np.float64])
def test_binary_cross_entropy_with_logits_of_int_or_bool_input(input_dtype, target_dtype):
    x = np.array([0, 1, 3, 1, 0]).astype(input_dtype)
    y = np.array([0, 1, 1, 0, 1]).astype(target_dtype)
    out = F.binary_cross_entropy_with_logits(Tensor(x), Tensor(y))
    xf, yf = x.astype(np.float64), y.astype(np.float64)
    expected = np.maximum(xf, 0) - xf * yf + np.log1p(np.exp(-np.abs(xf)))
    close(out, expected.mean(), np.float32)


@pytest.mark.parametrize("dtype", FLOATS)
def test_binary_cross_entropy_int_targets_keep_the_input_dtype(dtype):
    p = param([0.2, 0.7, 0.9], dtype)
    out = F.binary_cross_entropy(p, np.array([0, 1, 1]))
    pf = p.data.astype(np.float64)
    close(out, -np.mean(np.log([1 - pf[0], pf[1], pf[2]])), dtype)
    backward_keeps_dtypes(out, p)
    z = param([-1.0, 0.5, 2.0], dtype)
    out = F.binary_cross_entropy_with_logits(z, Tensor(np.array([True, False, True])))
    assert out.dtype == dtype
    backward_keeps_dtypes(out, z)


def test_binary_cross_entropy_float64_target_that_requires_grad_promotes():
    p, y = param([0.2, 0.7], np.float32), param([0.0, 1.0], np.float64)
    out = F.binary_cross_entropy(p, y)
    assert out.dtype == (p * y).dtype == np.float64  # as mse_loss and the with-logits form
    backward_keeps_dtypes(out, p, y)


def test_leaky_relu_of_int_input_is_float32():
    out = F.leaky_relu(Tensor([-3, 0, 2]), 0.1)
    close(out, [-0.3, 0.0, 2.0], np.float32)


@pytest.mark.parametrize("fn", [F.softmax, F.log_softmax, F.sigmoid, F.tanh, F.gelu])
def test_activations_of_int_input_are_float32(fn):
    x = ints(3, 4)
    out = fn(Tensor(x))
    close(out, fn(Tensor(x.astype(np.float64))).data, np.float32)


@pytest.mark.parametrize("dtype", FLOATS)
def test_float_inputs_are_not_copied_or_cast(dtype):
    """The common case stays as it was: float operands reach the op untouched."""
    rng = np.random.default_rng(7)
    x = param(rng.normal(size=(2, 3)), dtype)
    W = param(rng.normal(size=(4, 3)), dtype)
    out = F.linear(x, W)
    assert out.parents[0] is x and out.parents[1] is W and out.dtype == dtype
    backward_keeps_dtypes(out, x, W)
    img = param(rng.normal(size=(1, 1, 4, 4)), dtype)
    assert F.avg_pool2d(img, 2).parents[0] is img


def test_int_input_keeps_its_name_in_the_graph():
    x = Tensor(np.arange(6).reshape(2, 3), name="pixels")
    W = param(np.ones((2, 3)), np.float32)
    out = F.linear(x, W)
    assert out.parents[0].label == "pixels" and out.parents[0].dtype == np.float32


def test_unsupported_input_is_a_clear_error():
    with pytest.raises(TypeError, match="avg_pool2d: expected a Tensor or array"):
        F.avg_pool2d("image", 2)
