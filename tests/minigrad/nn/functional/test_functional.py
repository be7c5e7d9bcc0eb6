"""minigrad.nn.functional: gradients (float64 gradcheck of every fused op), values against
naive numpy loops, numerical stability, argument errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad.nn.functional as F
from minigrad import Tensor, gradcheck, no_grad
from minigrad.autograd import registered_ops
from minigrad.tensor import apply_op

FUNCTIONAL_OPS = [op for op in registered_ops("tensor")
                  if op.forward.__module__.startswith("minigrad.nn.functional")]
EXPECTED = {"conv2d", "conv2d_no_bias", "max_pool2d", "avg_pool2d", "cross_entropy", "nll_loss",
            "mse_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits", "batch_norm",
            "batch_norm_eval", "layer_norm", "linear", "linear_no_bias", "dropout"}


def T(x, grad=True, dtype=np.float64):
    return Tensor(np.asarray(x, dtype=dtype), requires_grad=grad)


def test_every_functional_op_is_registered():
    assert EXPECTED <= {op.name for op in FUNCTIONAL_OPS}


@pytest.mark.parametrize("op", FUNCTIONAL_OPS, ids=[op.name for op in FUNCTIONAL_OPS])
def test_gradcheck_every_case(op):
    """Same protocol as the registry-wide test: float64 leaves, random upstream gradient."""
    assert op.symbol and op.formula and op.cases is not None
    rng = np.random.default_rng(99)
    for k, (inputs, attrs) in enumerate(op.cases(rng)):
        leaves = [Tensor(x.copy(), requires_grad=True)
                  if isinstance(x, np.ndarray) and x.dtype == np.float64 else x for x in inputs]

        def fn(*xs, _attrs=attrs):
            return apply_op(op, *xs, **dict(_attrs))

        try:
            gradcheck(fn, *leaves, eps=1e-6, atol=1e-6, rtol=1e-4, seed=k)
        except AssertionError as e:
            raise AssertionError(f"{op.name} case {k} {attrs}: {e}") from None


@pytest.mark.parametrize("op", FUNCTIONAL_OPS, ids=[op.name for op in FUNCTIONAL_OPS])
def test_float32_stays_float32(op):
    rng = np.random.default_rng(5)
    for inputs, attrs in op.cases(rng):
        leaves = [Tensor(x.astype(np.float32), requires_grad=True)
                  if isinstance(x, np.ndarray) and x.dtype == np.float64 else x for x in inputs]
        out = apply_op(op, *leaves, **dict(attrs))
        assert out.dtype == np.float32, op.name
        out.backward(np.ones(out.shape, np.float32))
        for x in leaves:
            if isinstance(x, Tensor):
                assert x.grad.dtype == np.float32 and x.grad.shape == x.shape, op.name


def test_rules_scale_with_upstream():
    """A rule ignoring its upstream gradient passes an all-ones check only."""
    rng = np.random.default_rng(3)
    for op in FUNCTIONAL_OPS:
        inputs, attrs = op.cases(rng)[0]
        out, saved = op.forward(*inputs, **attrs)
        g = np.asarray(rng.normal(size=np.shape(out)))
        for rule in op.grads:
            one, scaled = rule(g, *saved, **attrs), rule(2.5 * g, *saved, **attrs)
            if one is not None:
                np.testing.assert_allclose(scaled, 2.5 * one, rtol=1e-10, atol=1e-12,
                                           err_msg=op.name)


# --- values against naive references ---------------------------------------------------
def naive_conv2d(x, w, b, stride, padding):
    N, C, H, W = x.shape
    O, _, kh, kw = w.shape
    (sh, sw), (ph, pw) = stride, padding
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    Ho, Wo = (H + 2 * ph - kh) // sh + 1, (W + 2 * pw - kw) // sw + 1
    out = np.zeros((N, O, Ho, Wo))
    for n in range(N):
        for o in range(O):
            for i in range(Ho):
                for j in range(Wo):
                    patch = xp[n, :, i * sh:i * sh + kh, j * sw:j * sw + kw]
                    out[n, o, i, j] = (patch * w[o]).sum() + (b[o] if b is not None else 0)
    return out


def naive_pool(x, k, s, p, reduce, pad_value):
    N, C, H, W = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])), constant_values=pad_value)
    Ho, Wo = (H + 2 * p[0] - k[0]) // s[0] + 1, (W + 2 * p[1] - k[1]) // s[1] + 1
    out = np.zeros((N, C, Ho, Wo))
    for i in range(Ho):
        for j in range(Wo):
            win = xp[:, :, i * s[0]:i * s[0] + k[0], j * s[1]:j * s[1] + k[1]]
            out[:, :, i, j] = reduce(win, axis=(2, 3))
    return out


@pytest.mark.parametrize("shape,wshape,stride,padding,bias", [
    ((2, 3, 7, 6), (4, 3, 3, 3), 1, 0, True),
    ((1, 2, 8, 8), (3, 2, 3, 2), 2, 1, True),
    ((3, 1, 5, 5), (2, 1, 1, 1), 1, 0, False),
    ((1, 2, 9, 7), (2, 2, 4, 3), (2, 3), (1, 2), True),
])
def test_conv2d_matches_naive_loops(shape, wshape, stride, padding, bias):
    rng = np.random.default_rng(0)
    x, w = rng.normal(size=shape), rng.normal(size=wshape)
    b = rng.normal(size=wshape[0]) if bias else None
    s = stride if isinstance(stride, tuple) else (stride, stride)
    p = padding if isinstance(padding, tuple) else (padding, padding)
    out = F.conv2d(Tensor(x), Tensor(w), None if b is None else Tensor(b), stride, padding)
    np.testing.assert_allclose(out.data, naive_conv2d(x, w, b, s, p), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("k,s,p", [((2, 2), None, (0, 0)), ((3, 3), (2, 2), (1, 1)),
                                   ((2, 3), (1, 2), (0, 1)), ((3, 3), (1, 1), (0, 0))])
def test_pools_match_naive_loops(k, s, p):
    x = np.random.default_rng(1).normal(size=(2, 3, 7, 8))
    stride = k if s is None else s
    out = F.max_pool2d(Tensor(x), k, s, p)
    np.testing.assert_allclose(out.data, naive_pool(x, k, stride, p, np.max, -np.inf))
    out = F.avg_pool2d(Tensor(x), k, s, p)
    np.testing.assert_allclose(out.data, naive_pool(x, k, stride, p, np.mean, 0.0), rtol=1e-12)


def test_max_pool_odd_size_drops_the_last_row_and_ties_send_one_gradient():
    x = T(np.ones((1, 1, 5, 5)))
    out = F.max_pool2d(x, 2)
    assert out.shape == (1, 1, 2, 2)
    out.sum().backward()
    # each window's gradient goes to exactly one element: the first maximum
    assert x.grad.sum() == 4 and x.grad[0, 0, 0, 0] == 1 and x.grad[0, 0, 0, 1] == 0
    assert x.grad[0, 0, 4].sum() == 0 and x.grad[0, 0, :, 4].sum() == 0


def test_overlapping_max_pool_accumulates_gradients():
    x = T(np.arange(16.0).reshape(1, 1, 4, 4))
    F.max_pool2d(x, 2, stride=1).sum().backward()
    # the bottom-right 3x3 block holds each 2x2 window's max; 15 is in one window
    assert x.grad[0, 0, 3, 3] == 1 and x.grad[0, 0, 1, 1] == 1 and x.grad.sum() == 9


def test_linear_values_and_batched_input():
    rng = np.random.default_rng(2)
    x, w, b = rng.normal(size=(2, 3, 4)), rng.normal(size=(5, 4)), rng.normal(size=5)
    np.testing.assert_allclose(F.linear(Tensor(x), Tensor(w), Tensor(b)).data, x @ w.T + b)
    np.testing.assert_allclose(F.linear(Tensor(x), Tensor(w)).data, x @ w.T)


# --- losses -----------------------------------------------------------------------------
def test_cross_entropy_value_matches_log_softmax():
    rng = np.random.default_rng(4)
    z, t = rng.normal(size=(6, 4)), rng.integers(0, 4, 6)
    logp = z - np.log(np.exp(z).sum(1, keepdims=True))
    picked = logp[np.arange(6), t]
    assert F.cross_entropy(Tensor(z), t).item() == pytest.approx(-picked.mean())
    assert F.cross_entropy(Tensor(z), t, "sum").item() == pytest.approx(-picked.sum())
    np.testing.assert_allclose(F.cross_entropy(Tensor(z), t, "none").data, -picked)
    nll = F.nll_loss(F.log_softmax(Tensor(z), axis=1), Tensor(t))
    assert nll.item() == pytest.approx(-picked.mean())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cross_entropy_is_stable_at_huge_logits(dtype):
    z = T([[1000.0, -1000.0, 0.0], [-1000.0, 1000.0, 0.0], [0.0, 0.0, 1000.0]], dtype=dtype)
    t = np.array([1, 1, 0])
    loss = F.cross_entropy(z, t)
    assert loss.dtype == dtype and np.isfinite(loss.item())
    assert loss.item() == pytest.approx((2000 + 0 + 1000) / 3)
    loss.backward()
    probs = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1]], dtype)
    onehot = np.eye(3, dtype=dtype)[t]
    np.testing.assert_array_equal(z.grad, (probs - onehot) / 3)  # exact
    assert z.grad.dtype == dtype


def test_binary_losses_values_and_stability():
    rng = np.random.default_rng(6)
    x, y = rng.normal(size=7), rng.uniform(size=7)
    p = 1 / (1 + np.exp(-x))
    ref = -(y * np.log(p) + (1 - y) * np.log(1 - p)).mean()
    assert F.binary_cross_entropy_with_logits(Tensor(x), Tensor(y)).item() == pytest.approx(ref)
    assert F.binary_cross_entropy(Tensor(p), Tensor(y)).item() == pytest.approx(ref)
    big = T([1000.0, -1000.0], dtype=np.float32)
    loss = F.binary_cross_entropy_with_logits(big, np.array([0.0, 1.0]))
    assert loss.item() == pytest.approx(1000.0)
    loss.backward()
    np.testing.assert_allclose(big.grad, [0.5, -0.5])
    edge = F.binary_cross_entropy(Tensor(np.array([0.0, 1.0])), np.array([1.0, 0.0]))
    assert edge.item() == pytest.approx(100.0)  # log clamped at -100, like PyTorch


def test_mse_loss_and_int_targets():
    pred = T([1.0, 2.0, 4.0])
    loss = F.mse_loss(pred, np.array([1, 1, 1]))
    assert loss.item() == pytest.approx((0 + 1 + 9) / 3)
    loss.backward()
    np.testing.assert_allclose(pred.grad, [0, 2 / 3, 2.0])


# --- dropout, normalisation ----------------------------------------------------------------
def test_dropout_train_eval_and_reproducibility():
    x = Tensor(np.ones((200, 50), np.float32))
    assert F.dropout(x, 0.5, training=False) is x
    assert F.dropout(x, 0.0) is x
    a = F.dropout(x, 0.3, rng=np.random.default_rng(1)).data
    b = F.dropout(x, 0.3, rng=np.random.default_rng(1)).data
    np.testing.assert_array_equal(a, b)
    assert set(np.unique(a)) <= {0.0, np.float32(1 / 0.7)}
    assert abs((a == 0).mean() - 0.3) < 0.02 and abs(a.mean() - 1) < 0.03
    assert (F.dropout(x, 1.0).data == 0).all()


def test_batch_norm_training_stats_and_running_update():
    rng = np.random.default_rng(7)
    x = rng.normal(3.0, 2.0, size=(64, 3, 4, 4))
    rm, rv = np.zeros(3), np.ones(3)
    out = F.batch_norm(Tensor(x), rm, rv, training=True, momentum=0.1)
    np.testing.assert_allclose(out.data.mean(axis=(0, 2, 3)), 0, atol=1e-10)
    np.testing.assert_allclose(out.data.var(axis=(0, 2, 3)), 1, atol=1e-4)
    np.testing.assert_allclose(rm, 0.1 * x.mean(axis=(0, 2, 3)))
    np.testing.assert_allclose(rv, 0.9 + 0.1 * x.var(axis=(0, 2, 3), ddof=1))
    w, b = rng.normal(size=3), rng.normal(size=3)
    ev = F.batch_norm(Tensor(x), rm, rv, Tensor(w), Tensor(b), training=False)
    ref = (x - rm[:, None, None]) / np.sqrt(rv[:, None, None] + 1e-5) * w[:, None, None] \
        + b[:, None, None]
    np.testing.assert_allclose(ev.data, ref)


def test_layer_norm_values():
    x = np.random.default_rng(8).normal(size=(3, 4, 5))
    out = F.layer_norm(Tensor(x), (4, 5)).data
    np.testing.assert_allclose(out.mean(axis=(1, 2)), 0, atol=1e-12)
    ref = (x - x.mean(axis=-1, keepdims=True)) / np.sqrt(x.var(axis=-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(F.layer_norm(Tensor(x), 5).data, ref)


def test_composite_network_gradcheck():
    """conv -> relu -> pool -> linear -> cross-entropy, end to end in float64."""
    rng = np.random.default_rng(9)
    x = T(rng.normal(size=(2, 2, 6, 6)))
    w = T(rng.normal(size=(3, 2, 3, 3)))
    b = T(rng.normal(size=3))
    fw = T(rng.normal(size=(4, 12)))
    t = np.array([1, 3])

    def net(x, w, b, fw):
        h = F.max_pool2d(F.relu(F.conv2d(x, w, b, padding=1)), 3)
        return F.cross_entropy(F.linear(h.reshape(2, -1), fw), t)

    assert gradcheck(net, x, w, b, fw)


def test_functional_ops_build_no_graph_under_no_grad():
    x, w = T(np.ones((1, 1, 4, 4))), T(np.ones((2, 1, 3, 3)))
    with no_grad():
        out = F.conv2d(x, w)
    assert out.op is None and not out.requires_grad


# --- errors ---------------------------------------------------------------------------------
@pytest.mark.parametrize("call,message", [
    (lambda: F.conv2d(np.ones((3, 8, 8)), np.ones((4, 3, 3, 3))), r"4-D input .*\(3, 8, 8\)"),
    (lambda: F.conv2d(np.ones((1, 2, 8, 8)), np.ones((4, 3, 3, 3))), r"2 channels .* expects 3"),
    (lambda: F.conv2d(np.ones((1, 1, 2, 2)), np.ones((1, 1, 3, 3))), "larger than the padded"),
    (lambda: F.conv2d(np.ones((1, 1, 5, 5)), np.ones((2, 1, 3, 3)), np.ones(3)), r"bias .*\(2,\)"),
    (lambda: F.max_pool2d(np.ones((4, 4)), 2), r"4-D input .*\(4, 4\)"),
    (lambda: F.linear(np.ones((2, 3)), np.ones((4, 5))), r"\(2, 3\) does not match weight"),
    (lambda: F.cross_entropy(np.ones((2, 3)), np.array([0, 3])), "target 3 is out of range"),
    (lambda: F.cross_entropy(np.ones((2, 3)), np.array([0, -1])), "target -1 is out of range"),
    (lambda: F.cross_entropy(np.ones((2, 3)), np.array([0, 1, 2])), r"targets must have shape"),
    (lambda: F.cross_entropy(np.ones((2, 3)), np.array([0.0, 1.0])), "integer class indices"),
    (lambda: F.cross_entropy(np.ones(3), np.array([0])), r"shape \(N, C\)"),
    (lambda: F.mse_loss(np.ones(3), np.ones((3, 1))), r"\(3,\) and target shape \(3, 1\)"),
    (lambda: F.binary_cross_entropy(np.array([2.0]), np.array([1.0])), "probabilities"),
    (lambda: F.batch_norm(np.ones((4, 3)), np.zeros(2), np.ones(2)), r"running_mean .*\(3,\)"),
    (lambda: F.layer_norm(np.ones((2, 3)), 4), "does not end with"),
    (lambda: F.dropout(np.ones(3), 1.5), "probability"),
    (lambda: F.cross_entropy(np.ones((2, 3)), np.array([0, 1]), reduction="avg"), "reduction"),
])
def test_clear_errors(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call()
