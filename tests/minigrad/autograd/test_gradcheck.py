"""``gradcheck``: passes a right rule, catches a wrong one, runs in float64."""


import numpy as np
import pytest

import minigrad
from minigrad import Value


def test_gradcheck_passes_and_catches_a_wrong_rule():
    a, b = Value(1.3), Value(-0.7)
    assert minigrad.gradcheck(lambda x, y: (x * y).tanh() + x.exp(), a, b)

    from minigrad.core.op import Op

    wrong = Op(name="bad_square", engine="scalar", symbol="sq",
               forward=lambda x: (x * x, (x,)), grads=(lambda g, x: g * x,),
               formulas=("∂/∂x = 2x (implemented as x)",))
    with pytest.raises(minigrad.GradcheckError, match="input 0"):
        minigrad.gradcheck(lambda x: x._unary(wrong), Value(1.5))


def test_gradcheck_errors():
    with pytest.raises(ValueError, match="nothing to check"):
        minigrad.gradcheck(lambda x: x * 2, Value(1.0, requires_grad=False))
    with pytest.raises(TypeError, match="must return a Value or Tensor"):
        minigrad.gradcheck(lambda x: 3.0, Value(1.0))


def test_gradcheck_of_a_float32_parameter_runs_in_float64():
    p = minigrad.nn.Parameter(np.array([0.3, -1.2, 2.0], dtype=np.float32))
    seen = []

    def fn(x):
        seen.append(x.dtype)
        return (x * x).tanh().sum()

    assert minigrad.gradcheck(fn, p, atol=1e-7, rtol=1e-6)
    assert set(seen) == {np.dtype(np.float64)}
