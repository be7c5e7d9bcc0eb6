"""Regression test for a fixed bug: ``gradcheck(fn, (x,))`` takes its inputs as one
tuple, as PyTorch's does, besides the forms it took before."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad import Tensor, gradcheck
from tests._helpers import leaf


# --- gradcheck(fn, (x,)) -----------------------------------------------------------------
def test_gradcheck_accepts_a_tuple_of_inputs_like_pytorch():
    x = leaf(np.linspace(-1.0, 1.0, 6).reshape(2, 3))
    assert gradcheck(lambda t: (t * t).tanh(), (x,))
    assert gradcheck(lambda t: (t * t).tanh(), [x])


def test_gradcheck_tuple_of_several_inputs_and_constants():
    x = leaf(np.linspace(-1.0, 1.0, 6).reshape(2, 3))
    y = leaf(np.linspace(0.5, 1.5, 3))
    assert gradcheck(lambda a, b: a * b + a.exp(), (x, y))
    assert gradcheck(lambda a, k: a * k, (x, 2.5))  # a non-node passes through as a constant
    assert gradcheck(lambda a, b: a * b, (mg.Value(1.5, requires_grad=True),
                                          mg.Value(-0.5, requires_grad=True)))


def test_gradcheck_tuple_form_still_catches_a_wrong_rule():
    from minigrad.core.op import Op

    wrong = Op(name="bad_square_t", engine="scalar", symbol="sq",
               forward=lambda x: (x * x, (x,)), grads=(lambda g, x: g * x,),
               formulas=("∂/∂x = 2x (implemented as x)",))
    with pytest.raises(mg.GradcheckError, match="input 0"):
        gradcheck(lambda v: v._unary(wrong), (mg.Value(1.5),))


def test_gradcheck_existing_forms_still_work():
    x = leaf(np.linspace(-1.0, 1.0, 4))
    y = leaf(np.linspace(1.0, 2.0, 4))
    assert gradcheck(lambda t: t.sigmoid(), x)
    assert gradcheck(lambda a, b: a / b, x, y)
    with pytest.raises(ValueError, match="nothing to check"):
        gradcheck(lambda t: t * 2, (Tensor(np.ones(2)),))
