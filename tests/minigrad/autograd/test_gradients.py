"""autograd.grad: gradients returned, one per input, with no ``.grad`` changed; unused inputs
an error or ``None``; ``create_graph`` gives gradients to differentiate again."""

from __future__ import annotations

import numpy as np
import pytest

from minigrad import Tensor
from minigrad.autograd import grad


def _leaf(values):
    return Tensor(np.asarray(values, np.float64), requires_grad=True)


def test_grad_returns_one_gradient_per_input_and_leaves_grad_alone():
    x, w = _leaf([1.0, 2.0]), _leaf([3.0, -4.0])
    w.grad = np.array([7.0, 7.0])
    gx, gw = grad((x * w).sum(), (x, w))
    np.testing.assert_array_equal(gx, [3.0, -4.0])
    np.testing.assert_array_equal(gw, [1.0, 2.0])
    assert x.grad is None
    np.testing.assert_array_equal(w.grad, [7.0, 7.0])


def test_grad_outputs_weigh_a_non_scalar_output():
    x = _leaf([1.0, 2.0])
    (gx,) = grad(x * x, x, grad_outputs=np.array([10.0, -1.0]))
    np.testing.assert_array_equal(gx, [20.0, -4.0])


def test_an_unused_input_is_an_error_naming_it_or_none_when_allowed():
    x, unused = _leaf([1.0]), _leaf([2.0])
    with pytest.raises(RuntimeError, match="input 1.*not used"):
        grad((x * x).sum(), (x, unused))
    gx, gu = grad((x * x).sum(), (x, unused), allow_unused=True)
    assert gu is None
    np.testing.assert_array_equal(gx, [2.0])


def test_create_graph_gives_a_gradient_to_differentiate_again():
    x = _leaf([3.0])
    (g,) = grad((x * x * x).sum(), x, create_graph=True)  # 3 x^2, a node
    assert isinstance(g, Tensor) and g.requires_grad
    (gg,) = grad(g.sum(), x)  # 6 x
    np.testing.assert_allclose(gg, [18.0])
