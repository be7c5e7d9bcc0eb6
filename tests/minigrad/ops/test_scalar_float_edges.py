"""The scalar engine at the edges of float arithmetic, checked against PyTorch's
float64 answers (written out, so no torch is needed): nan stays nan through
relu/maximum/minimum (anomaly detection must see it), IEEE signed infinities and
nan where Python raises, gradients that do not under/overflow on the way, and a
nan/inf upstream gradient that is not replaced by a hard-coded 0.  Plus the
everyday Python protocols a Value shares with a one-element Tensor.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad as mg
from minigrad import Value

NAN, INF = math.nan, math.inf


def grads(f, *xs):
    vs = [Value(x) for x in xs]
    out = f(*vs)
    out.backward()
    return out.data, [v.grad for v in vs]


def same(a, b):
    """Equal as IEEE floats should be compared here: nan matches nan, -0.0 is not 0.0."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1, a) == math.copysign(1, b)


# --- nan is not hidden ----------------------------------------------------------------------
@pytest.mark.parametrize("f, args, value, expect", [
    (lambda x: x.relu(), (NAN,), NAN, [1.0]),
    (lambda a, b: a.maximum(b), (NAN, 1.0), NAN, [1.0, 1.0]),
    (lambda a, b: a.maximum(b), (1.0, NAN), NAN, [1.0, 1.0]),
    (lambda a, b: a.minimum(b), (NAN, 1.0), NAN, [1.0, 1.0]),
    (lambda a, b: a.minimum(b), (1.0, NAN), NAN, [1.0, 1.0]),
    (lambda x: x.relu(), (-1.0,), 0.0, [0.0]),  # and the ordinary cases are unchanged
    (lambda a, b: a.maximum(b), (2.0, 2.0), 2.0, [0.5, 0.5]),
])
def test_nan_propagates_like_pytorch(f, args, value, expect):
    out, gs = grads(f, *args)
    assert same(out, value)
    assert all(same(g, e) for g, e in zip(gs, expect)), gs


def test_a_nan_behind_relu_reaches_the_loss():
    """log(-1) = nan used to come out of relu as 0.0: a loss that looked fine."""
    x = Value(-1.0)
    loss = x.log().relu() * 2
    loss.backward()
    assert math.isnan(loss.data)
    assert x.grad == -2.0  # relu passes g at nan (PyTorch too); log' = 1/x


# --- IEEE answers where Python raises or loses precision ----------------------------------------
def test_division_gradient_does_not_underflow_or_overflow():
    cases = [((0.0, 1e-200), -0.0), ((1e-200, 1e-200), -1e200), ((1e200, 1e200), -1e-200),
             ((1e-160, 1e-160), -1e160)]
    for (a, b), expected in cases:
        _, (_, gb) = grads(lambda a, b: a / b, a, b)
        assert same(gb, expected) or math.isclose(gb, expected, rel_tol=1e-15), (a, b, gb)


def test_pow_keeps_ieee_signs_and_nan():
    assert grads(lambda x: x ** -1, -0.0)[0] == -INF
    assert grads(lambda x: (x * 0.0) ** -1, -1.0)[0] == -INF
    out, (g,) = grads(lambda x: x ** -2, -0.0)
    assert out == INF and g == INF  # -2 · (-0)^-3 = -2 · -inf
    out, (g,) = grads(lambda x: x ** 309.5, -10.0)
    assert math.isnan(out) and math.isnan(g)


def test_pow_at_exponent_zero_gives_a_plain_zero_even_for_a_nan_upstream():
    """PyTorch masks p == 0: x**0 is the constant 1, whatever comes from above."""
    a, b = Value(2.0), Value(0.0)
    (a ** b).backward(NAN)
    assert a.grad == 0.0 and math.isnan(b.grad)


def test_pow_multiplies_the_upstream_gradient_last():
    x, p = Value(0.0), 1e-200
    y = x ** p
    y.backward(1e-200)
    assert x.grad == INF  # g·(p·x^(p−1)) = 1e-200·inf; (g·p)·inf would be 0·inf = nan


def test_sin_and_cos_of_infinity_are_nan_not_an_exception():
    for f in (lambda x: x.sin(), lambda x: x.cos()):
        out, (g,) = grads(f, INF)
        assert math.isnan(out) and math.isnan(g)


def test_abs_at_zero_keeps_a_nonfinite_upstream_visible():
    """|x|' at 0 is 0, and 0 times an inf upstream gradient is nan (PyTorch: sign(0)·g)."""
    _, (g,) = grads(lambda x: x.abs() * INF, 0.0)
    assert math.isnan(g)


def test_relu_at_zero_passes_a_literal_zero_as_pytorch_does():
    _, (g,) = grads(lambda x: x.relu() * INF, 0.0)
    assert g == 0.0


def test_pow_exponent_gradient_at_zero_keeps_a_nan_upstream():
    x, p = Value(0.0), Value(2.0)
    (x ** p * INF).backward()
    assert math.isnan(p.grad)


# --- the engine -------------------------------------------------------------------------------
def test_a_non_leaf_set_to_need_no_grad_is_skipped_not_a_crash():
    x = Value(2.0)
    y = x * 2
    y.requires_grad = False
    (y * x).backward()
    assert x.grad == 4.0  # only the direct edge: y no longer passes gradients on


@pytest.mark.parametrize("seed", [np.float64(2.0), np.float32(2.0), np.array(2.0), 2, 2.0])
def test_backward_takes_numpy_numbers_as_the_seed(seed):
    x = Value(3.0)
    (x * x).backward(seed)
    assert x.grad == 12.0


def test_a_released_graph_is_refused_before_any_gradient_moves():
    x = Value(2.0)
    y = x * x
    y.backward()
    with pytest.raises(mg.GraphReleasedError):
        (y + x).backward()
    assert x.grad == 4.0  # not 5.0: the add's contribution was not made either
    t = mg.Tensor(np.ones(2), requires_grad=True)
    u = (t * t).sum()
    u.backward()
    with pytest.raises(mg.GraphReleasedError):
        (u + t.sum()).backward()
    np.testing.assert_array_equal(t.grad, [2.0, 2.0])


# --- Python protocols -------------------------------------------------------------------------
def test_value_behaves_like_a_number_where_python_asks():
    assert not Value(0.0) and Value(-0.5)
    assert f"{Value(2.0):.3f}" == "2.000" and f"{Value(2.0)}" == repr(Value(2.0))
    assert int(Value(2.7)) == 2 and round(float(Value(2.7))) == 3
    v = Value(2.0, name="a")
    assert v.label == v.name == "a"
    with pytest.raises(TypeError, match="label or name, not both"):
        Value(1.0, label="a", name="b")


def test_repr_shows_small_and_large_numbers():
    x = Value(1e-3, label="x")
    (x ** 3).backward()
    assert repr(x) == "Value(data=0.0010, grad=3.0000e-06, name='x')"
    assert repr(Value(1e20)) == "Value(data=1.0000e+20, grad=None)"
    assert repr(Value(2.0)) == "Value(data=2.0000, grad=None)"


def test_gradcheck_names_a_labelled_input():
    class Wrong(mg.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a.data * b.data

        @staticmethod
        def backward(ctx, g):
            return g, g  # wrong for both

    a, b = Value(2.0, label="a"), Value(3.0, label="b")
    with pytest.raises(mg.GradcheckError, match="input 0 \\('a'\\)"):
        mg.gradcheck(Wrong.apply, a, b)
