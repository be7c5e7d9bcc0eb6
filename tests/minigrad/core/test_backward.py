"""The reference backward (``core/backward.py``): the chain rule by its four steps, quiet
about inf, clear about a released graph, each pass's sums."""


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


def test_the_reference_backward_of_c_equals_a_times_b_plus_a():
    """The core's own ``backward`` (not ``c.backward()``, which picks a loop): a is used
    twice, so its two contributions add up: dc/da = b + 1, dc/db = a."""
    from minigrad.core.backward import backward

    a, b = Value(2.0), Value(-3.0)
    c = a * b + a
    backward(c)
    assert (a.grad, b.grad, c.grad) == (-2.0, 2.0, 1.0)
    assert c.saved is None and c.parents[0].saved is None  # step 4: released


def test_the_reference_backward_announces_each_step_in_order():
    from minigrad.core.backward import backward

    a, b = Value(2.0), Value(-3.0)
    c = a * b + a
    with minigrad.record() as tape:
        backward(c, retain_graph=True)
    kinds = [e.kind for e in tape.events]
    assert kinds[0] == "seeded" and kinds.count("visit") == 2 and kinds.count("contribute") == 4
    assert c.saved is not None  # retain_graph keeps what the ops saved
