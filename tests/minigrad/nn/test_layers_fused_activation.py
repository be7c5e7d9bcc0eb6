"""``activation="relu"`` on Linear, Conv2d and BatchNorm2d: one fused node, same numbers."""

from __future__ import annotations

import numpy as np
import pytest

from minigrad import Tensor, nn


def _x(shape, seed=0):
    return Tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


@pytest.mark.parametrize("make, shape, op", [
    (lambda a: nn.Linear(4, 3, seed=0, activation=a), (5, 4), "linear_relu"),
    (lambda a: nn.Conv2d(2, 3, 3, padding=1, seed=0, activation=a), (2, 2, 5, 5), "conv2d_relu"),
    (lambda a: nn.BatchNorm2d(3, activation=a), (4, 3, 5, 5), "batch_norm2d_relu"),
])
def test_a_layer_with_activation_relu_is_one_node_equal_to_layer_then_relu(make, shape, op):
    fused, plain = make("relu"), make(None)
    x = _x(shape)
    out, want = fused(x), plain(x).relu()
    assert out.op.name == op
    np.testing.assert_array_equal(out.data, want.data)
    out.sum().backward()
    want.sum().backward()
    for p, q in zip(fused.parameters(), plain.parameters()):
        np.testing.assert_array_equal(p.grad, q.grad)
    for name, buf in plain.named_buffers() if hasattr(plain, "named_buffers") else ():
        np.testing.assert_array_equal(getattr(fused, name.split(".")[-1]), buf)


def test_batch_norm2d_relu_updates_the_running_statistics_as_batch_norm_does():
    fused, plain = nn.BatchNorm2d(3, activation="relu"), nn.BatchNorm2d(3)
    for seed in range(3):
        x = _x((4, 3, 5, 5), seed)
        fused(x), plain(x)
    np.testing.assert_allclose(fused.running_mean, plain.running_mean, rtol=1e-6)
    np.testing.assert_allclose(fused.running_var, plain.running_var, rtol=1e-6)
    fused.eval(), plain.eval()
    x = _x((4, 3, 5, 5), 9)
    np.testing.assert_allclose(fused(x).data, plain(x).relu().data, rtol=1e-6)


def test_an_unknown_activation_is_a_clear_error():
    with pytest.raises(ValueError, match=r"activation must be one of \(None, 'relu'\)"):
        nn.Linear(2, 2, activation="tanh")


def test_the_activation_shows_in_the_layer_repr():
    assert "activation='relu'" in repr(nn.Linear(2, 3, activation="relu"))
