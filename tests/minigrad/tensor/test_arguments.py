"""Settings passed to tensor ops: refused with an error naming the op and the argument.

A float where an int is meant (``axis=1.5``, ``pad(1.5)``) used to be truncated
silently; a string or None reached ``int()``/``float()`` and surfaced as a
Python error that named neither.  And detect_anomaly on the tensor engine.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad
import minigrad.nn.functional as F
from minigrad import Tensor


def x23():
    return Tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)


@pytest.mark.parametrize("call, match", [
    (lambda x: x.unsqueeze(1.5), r"unsqueeze: axis must be an int, got 1\.5"),
    (lambda x: x.unsqueeze("a"), r"unsqueeze: axis must be an int, got 'a'"),
    (lambda x: x.unsqueeze(True), r"unsqueeze: axis must be an int, got True"),
    (lambda x: minigrad.cat([x, x], axis=0.5), r"cat: axis must be an int, got 0\.5"),
    (lambda x: minigrad.stack([x, x], axis="a"), r"stack: axis must be an int, got 'a'"),
    (lambda x: x.sum(axis=(1.5,)), r"sum: axis must be None, an int or a tuple of ints"),
    (lambda x: x.reshape(3, 2.0), r"reshape: expected a shape made of ints"),
    (lambda x: x.pad(1.5), r"pad: pad_width must be an int, a pair of ints or a pair per axis"),
    (lambda x: x.pad([[1, 0], [0.5, 1]]), r"pad: pad_width must be"),
    (lambda x: x.pad("a"), r"pad: pad_width must be"),
    (lambda x: x.pad(1, value="a"), r"pad: value must be a number, got 'a'"),
    (lambda x: x.pad(1, value=None), r"pad: value must be a number, got None"),
    (lambda x: x.leaky_relu(None), r"leaky_relu: negative_slope must be a number, got None"),
    (lambda x: F.layer_norm(x, "a"), r"layer_norm: expected a shape made of ints"),
    (lambda x: F.layer_norm(x, 3, eps="a"), r"layer_norm: eps must be a number"),
])
def test_a_bad_setting_is_a_type_error_naming_the_op(call, match):
    with pytest.raises(TypeError, match=match):
        call(x23())


def test_zero_d_integer_tensors_and_arrays_are_ints_as_in_numpy_and_pytorch():
    x = x23()
    for k in (Tensor(np.array(1)), np.array(1)):
        assert x.unsqueeze(k).shape == (2, 1, 3)
        assert minigrad.cat([x, x], axis=k).shape == (2, 6)
        assert minigrad.stack([x, x], axis=k).shape == (2, 2, 3)
        assert x.sum(axis=k).shape == (2,)
        assert x.reshape(k * 3 if isinstance(k, np.ndarray) else Tensor(np.array(3)), 2).shape \
            == (3, 2)
        assert minigrad.arange(k * 5 if isinstance(k, np.ndarray) else Tensor(np.array(5))).shape \
            == (5,)
    with pytest.raises(TypeError, match="unsqueeze: axis must be an int"):
        x.unsqueeze(np.array(True))  # a bool is not an axis, however it is wrapped
    with pytest.raises(TypeError, match="unsqueeze: axis must be an int"):
        x.unsqueeze(np.array(1.0))


def test_one_element_arrays_and_tensors_are_numbers():
    x = x23()
    assert x.pad(1, value=np.array(2.0)).data[0, 0] == 2.0
    assert x.pad(1, value=Tensor(np.array([2.0]))).data[0, 0] == 2.0
    assert F.layer_norm(x, 3, eps=np.array(1e-5)).shape == (2, 3)
    mean = np.zeros(3)
    F.batch_norm(batch(), mean, np.ones(3), training=True, momentum=np.array(0.5))
    np.testing.assert_allclose(mean, 0.5 * batch().data.mean(axis=0))


def test_arange_refuses_what_is_not_a_number():
    with pytest.raises(TypeError, match="arange: start must be a number, got 'a'"):
        minigrad.arange("a")
    with pytest.raises(TypeError, match="arange: step must be a number, got '1'"):
        minigrad.arange(0, 3, "1")
    assert minigrad.arange(np.int64(3)).data.tolist() == [0, 1, 2]


def test_good_settings_still_work():
    x = x23()
    assert x.unsqueeze(np.int64(0)).shape == (1, 2, 3)
    assert minigrad.cat([x, x], axis=np.int32(1)).shape == (2, 6)
    assert x.pad(np.int64(1), value=np.float32(2)).shape == (4, 5)
    assert x.pad(((0, 1), (2, 0))).shape == (3, 5)
    assert x.leaky_relu(Tensor(0.2)).shape == (2, 3)  # a one-element tensor is a number
    assert F.layer_norm(x, (3,)).shape == F.layer_norm(x, 3).shape == (2, 3)
    assert x.reshape(np.array([3, 2])).shape == (3, 2)


def batch():
    return Tensor(np.random.default_rng(0).standard_normal((4, 3)))


@pytest.mark.parametrize("mean, var, match", [
    (np.zeros(3, int), np.ones(3), r"running_mean must be a float array or Tensor.*int64"),
    ([0.0, 0.0, 0.0], np.ones(3), r"running_mean must be a float array or Tensor.*list"),
    (np.zeros(3), np.ones(3, int), r"running_var must be a float array or Tensor.*int64"),
])
def test_batch_norm_refuses_buffers_it_cannot_update_before_changing_any(mean, var, match):
    before = [np.array(mean, copy=True), np.array(var, copy=True)]
    with pytest.raises(TypeError, match=match):
        F.batch_norm(batch(), mean, var, training=True)
    np.testing.assert_array_equal(mean, before[0])  # the valid one was not updated first
    np.testing.assert_array_equal(var, before[1])


def test_batch_norm_refuses_a_read_only_buffer_and_a_bad_momentum():
    mean, var = np.zeros(3), np.ones(3)
    var.flags.writeable = False
    with pytest.raises(ValueError, match="running_var is a read-only array"):
        F.batch_norm(batch(), mean, var, training=True)
    np.testing.assert_array_equal(mean, 0.0)
    with pytest.raises(TypeError, match="batch_norm: momentum must be a number, got None"):
        F.batch_norm(batch(), np.zeros(3), np.ones(3), training=True, momentum=None)
    with pytest.raises(TypeError, match="batch_norm: eps must be a number"):
        F.batch_norm(batch(), np.zeros(3), np.ones(3), eps="a")


def test_batch_norm_eval_still_takes_plain_lists():
    out = F.batch_norm(batch(), [0.0, 0.0, 0.0], [1.0, 1.0, 1.0], training=False)
    np.testing.assert_allclose(out.data, batch().data / np.sqrt(1 + 1e-5), rtol=1e-6)


# --- detect_anomaly on tensors -----------------------------------------------------------
def test_detect_anomaly_names_the_tensor_op_and_the_line_that_made_it():
    with minigrad.detect_anomaly():
        x = Tensor(np.array([0.0, 1.0, 4.0]), requires_grad=True)
        y = x.sqrt()  # d sqrt / dx at 0 is inf
        with pytest.raises(minigrad.AnomalyError) as info:
            y.sum().backward()
    msg = str(info.value)
    assert "'sqrt'" in msg and "inf" in msg
    assert "test_arguments.py" in msg and "y = x.sqrt()" in msg
    x = Tensor(np.array([0.0]), requires_grad=True)
    x.sqrt().sum().backward()  # outside anomaly mode: inf, silently, as in PyTorch
    assert np.isinf(x.grad).all()


def test_detect_anomaly_catches_a_custom_function_returning_nan():
    class Bad(minigrad.Function):
        @staticmethod
        def forward(ctx, x):
            return x.data * 2

        @staticmethod
        def backward(ctx, g):
            return g * np.nan

    with minigrad.detect_anomaly():
        x = Tensor(np.ones(2), requires_grad=True)
        y = Bad.apply(x)
        with pytest.raises(minigrad.AnomalyError, match="Bad"):
            y.sum().backward()
