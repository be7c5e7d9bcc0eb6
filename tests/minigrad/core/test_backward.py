"""The reference backward (``core/backward.py``): quiet about inf, clear about a released graph, each pass's sums."""


import numpy as np
import pytest

import minigrad
from minigrad import Value


def test_backward_is_quiet_about_inf_like_pytorch():
    import warnings

    x = minigrad.Tensor([0.0, 4.0], requires_grad=True)
    y = x.sqrt().sum()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y.backward()
    assert x.grad[0] == np.inf and x.grad[1] == 0.25


def test_released_error_hints_at_rebinding_parameters():
    w = Value(1.0)
    loss = w * 2
    loss.backward()
    with pytest.raises(minigrad.GraphReleasedError, match="w = w - lr"):
        loss.backward()


def test_a_non_leaf_no_gradient_reaches_is_skipped_not_an_error():
    """An op may declare an input non-differentiable (its rule returns None), even
    one that requires grad: the node behind it gets no gradient and no visit."""
    from minigrad.core.op import Op
    from minigrad.tensor import apply_op

    stop = Op(name="stop_gradient", engine="tensor", symbol="sg",
              forward=lambda x: (x.copy(), ()), grads=(lambda g: None,),
              formulas=("∂/∂x = 0 by declaration",))
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    hidden = x * 3.0
    y = (apply_op(stop, hidden) + x).sum()
    y.backward()
    np.testing.assert_array_equal(x.grad, [1.0, 1.0])  # only the direct path
    assert hidden.grad is None and hidden.saved is None  # not reached, still released


def test_non_leaf_grads_hold_the_last_pass_only():
    x = Value(3.0)
    h = x * x
    y = h * 2.0
    y.backward(retain_graph=True)
    y.backward()
    assert h.grad == 2.0  # this pass's dy/dh, not 4.0
    assert x.grad == 24.0  # leaves accumulate: 2 passes of 12
