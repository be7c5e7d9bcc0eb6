"""``Tensor`` speaks numpy's protocols: numpy calls on tensors are recorded ops."""

from __future__ import annotations

import numpy as np
import pytest

from minigrad import Tensor, no_grad
from minigrad.engines.higher_order import differentiating


def _x():
    return Tensor(np.array([0.5, -1.0, 2.0]), requires_grad=True, name="x")


@pytest.mark.parametrize("call, method", [
    (np.exp, "exp"), (np.log, None), (np.tanh, "tanh"), (np.sqrt, None),
    (np.negative, "neg"), (np.absolute, "abs"), (np.square, "mul"),
])
def test_a_differentiable_ufunc_is_its_registry_op(call, method):
    x = Tensor(np.array([0.5, 1.5, 2.0]), requires_grad=True)
    y = call(x)
    assert isinstance(y, Tensor) and y.requires_grad
    if method:
        assert y.op.name == method
    np.testing.assert_allclose(y.data, call(x.data))
    y.sum().backward()
    assert x.grad is not None


def test_array_times_tensor_is_recorded_like_tensor_times_array():
    x = _x()
    a = np.array([1.0, 2.0, 3.0])
    y = a * x
    assert isinstance(y, Tensor) and y.op.name == "mul"
    y.sum().backward()
    np.testing.assert_allclose(x.grad, a)


def test_binary_ufuncs_with_a_number():
    x = _x()
    assert np.maximum(x, 0.0).op.name == "maximum"
    assert np.power(x, 2).op.name == "pow"
    np.testing.assert_allclose(np.true_divide(1.0, x).data, 1.0 / x.data)


def test_a_comparison_is_a_constant_bool_tensor():
    x = _x()
    m = np.greater(x, 0)
    assert isinstance(m, Tensor) and m.dtype == bool and not m.requires_grad
    assert np.isnan(x).data.tolist() == [False, False, False]


def test_where_concatenate_and_stack_are_recorded():
    x = _x()
    w = np.where(x.data > 0, x, 0.0)
    assert isinstance(w, Tensor) and w.op.name == "where"
    assert np.concatenate([x, x]).op.name == "cat"
    assert np.stack([x, x], axis=1).shape == (3, 2)
    assert np.sum(x * x, axis=0).op.name == "sum"
    assert np.transpose(Tensor(np.ones((2, 3)), requires_grad=True)).shape == (3, 2)


def test_a_ufunc_with_no_rule_names_itself():
    with pytest.raises(TypeError, match="np.sin on a Tensor that requires grad"):
        np.sin(_x())


def test_out_and_ufunc_methods_are_refused_on_a_tensor_that_requires_grad():
    x = _x()
    with pytest.raises(TypeError, match=r"np.add.reduce.*out= and ufunc methods"):
        np.add.reduce(x)
    with pytest.raises(TypeError, match="out="):
        np.multiply(x, 2.0, out=x)


def test_constants_compute_as_numpy_would():
    c = Tensor(np.array([0.0, 1.0]))
    s = np.sin(c)
    assert isinstance(s, Tensor) and not s.requires_grad
    np.testing.assert_allclose(s.data, np.sin(c.data))
    mask = np.greater(c, 0.5)
    np.logical_not(mask, out=mask)  # in place into a constant: allowed
    assert mask.data.tolist() == [True, False]
    with no_grad():
        assert not np.sin(_x()).requires_grad


def test_functions_without_a_tensor_version_use_the_data_outside_a_gradient_graph():
    x = _x()
    assert np.allclose(x, x.data)
    assert np.argmax(x) == 2
    assert np.median(x) == 0.5  # (not recorded, as before: numpy on the data)


def test_inside_a_gradient_graph_a_function_without_a_tensor_version_is_an_error():
    x = _x()
    with differentiating(1):
        with pytest.raises(TypeError, match="np.median.*cut the graph"):
            np.median(x)
        assert np.allclose(x, x.data)  # (reads values only: allowed)
