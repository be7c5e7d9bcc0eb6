"""The fused layer+ReLU ops: the same values and gradients as the layer then ``relu``, one node."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad.nn.functional as F
from minigrad import Tensor
from minigrad.nn.functional import fused


def _t(rng, shape, dtype=np.float32):
    return Tensor(rng.standard_normal(shape).astype(dtype), requires_grad=True)


def _grads(out, leaves, rng):
    g = rng.standard_normal(out.data.shape).astype(out.data.dtype)
    out.backward(g)
    grads = [x.grad for x in leaves]
    for x in leaves:
        x.grad = None
    return grads


CASES = {
    "linear_relu": (lambda r: [_t(r, (5, 4)), _t(r, (3, 4)), _t(r, (3,))],
                    lambda x, w, b: fused.linear_relu(x, w, b),
                    lambda x, w, b: F.linear(x, w, b).relu()),
    "conv2d_relu": (lambda r: [_t(r, (2, 3, 6, 6)), _t(r, (4, 3, 3, 3)), _t(r, (4,))],
                    lambda x, w, b: fused.conv2d_relu(x, w, b, (2, 2), (1, 1)),
                    lambda x, w, b: F.conv2d(x, w, b, 2, 1).relu()),
    "batch_norm2d_relu": (lambda r: [_t(r, (4, 3, 5, 5)), _t(r, (3,)), _t(r, (3,))],
                          lambda x, w, b: fused.batch_norm2d_relu(x, w, b, 1e-5),
                          lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True,
                                                       eps=1e-5).relu()),
}


@pytest.mark.parametrize("name", CASES)
def test_a_fused_op_equals_its_layer_then_relu_bitwise(name):
    make, fused_fn, plain_fn = CASES[name]
    leaves = make(np.random.default_rng(0))
    out = fused_fn(*leaves)
    want = plain_fn(*leaves)
    np.testing.assert_array_equal(out.data, want.data)
    for a, b in zip(_grads(out, leaves, np.random.default_rng(1)),
                    _grads(want, leaves, np.random.default_rng(1))):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", CASES)
def test_a_fused_op_is_one_graph_node(name):
    make, fused_fn, _ = CASES[name]
    leaves = make(np.random.default_rng(0))
    out = fused_fn(*leaves)
    assert out.op.name == name and out.parents == tuple(leaves)


def test_fused_ops_need_a_bias_and_say_so():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="needs a bias"):
        fused.linear_relu(_t(rng, (2, 3)), _t(rng, (4, 3)), None)
    with pytest.raises(ValueError, match=r"do not fit"):
        fused.linear_relu(_t(rng, (2, 3)), _t(rng, (4, 5)), _t(rng, (4,)))
