"""Every functional op at once: registered, float64 gradcheck of each case, float32 kept, rules
that scale with the upstream gradient, a composite network, no graph under no_grad, errors."""

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
