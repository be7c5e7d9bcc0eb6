"""tanh and sigmoid compute their gradient two ways: a few Python calls for small
arrays and in place in one fresh buffer for large ones (see ``_tanh_grad`` in
``minigrad/ops/tensor/elementwise.py``).  The registry's gradchecks use small
arrays, so the large path is checked here: same values as the closed form and
as the small path, dtype kept, and a result that is the op's own buffer (never
the upstream gradient or the saved output, which the engine and the renderers
still use).
"""

from __future__ import annotations

import numpy as np
import pytest

from minigrad import Tensor
from minigrad.ops.tensor import elementwise

LARGE = elementwise._LARGE
ACTIVATIONS = {
    "tanh": (lambda t: t.tanh(), lambda out: 1 - out * out),
    "sigmoid": (lambda t: t.sigmoid(), lambda out: out * (1 - out)),
}


def _input(n, dtype, seed=0):
    return np.random.default_rng(seed).uniform(-3, 3, size=n).astype(dtype)


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_large_gradient_matches_the_closed_form(name, dtype):
    apply, derivative = ACTIVATIONS[name]
    n = 2 * LARGE + 3
    x = Tensor(_input(n, dtype), requires_grad=True)
    g = np.random.default_rng(1).standard_normal(n).astype(dtype)
    y = apply(x)
    y.backward(g)
    out = y.data.astype(np.float64)
    expected = g.astype(np.float64) * derivative(out)
    assert x.grad.dtype == dtype
    tol = 1e-6 if dtype == np.float32 else 1e-14
    np.testing.assert_allclose(x.grad, expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_large_and_small_paths_agree(name):
    """The same elements through both paths: one large array, then in small pieces."""
    apply, _ = ACTIVATIONS[name]
    data = _input(LARGE + 16, np.float32)
    g = np.random.default_rng(2).standard_normal(data.size).astype(np.float32)
    big = Tensor(data, requires_grad=True)
    apply(big).backward(g)
    pieces = []
    for start in range(0, data.size, 4096):
        part = Tensor(data[start:start + 4096], requires_grad=True)
        apply(part).backward(g[start:start + 4096])
        pieces.append(part.grad)
    # Both round 1 − out² in float32 where out² is near 1, so they agree to float32's
    # precision on the scale of g (|g| < 5), not element by element.
    np.testing.assert_allclose(big.grad, np.concatenate(pieces), rtol=0, atol=1e-6)


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_large_rule_writes_only_its_own_buffer(name):
    """In place, but never into g or the saved output: with retain_graph both are
    used again, and a non-leaf's .grad is g itself."""
    apply, _ = ACTIVATIONS[name]
    x = Tensor(_input(LARGE, np.float64), requires_grad=True)
    h = x * 1.0  # a non-leaf, so that the rule's g is h's .grad, not a caller's array
    y = apply(h)
    g = np.full(LARGE, 0.5)
    y.backward(g, retain_graph=True)
    out_before = y.data.copy()
    first = x.grad.copy()
    assert not np.shares_memory(x.grad, g) and not np.shares_memory(x.grad, y.data)
    np.testing.assert_array_equal(g, 0.5)
    x.grad = None
    y.backward(g)
    np.testing.assert_array_equal(y.data, out_before)
    np.testing.assert_array_equal(x.grad, first)
