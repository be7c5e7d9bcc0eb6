"""Tensors across: values, dtype and requires_grad (as a leaf), always a copy."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad import interop

torch = pytest.importorskip("torch", reason="PyTorch is optional: pip install "
                                            '"minigrad-kit[torch]" to run the interop tests')

DTYPES = [np.float16, np.float32, np.float64, np.int32, np.int64, np.uint8, np.bool_]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_values_and_dtype_cross_both_ways_bit_for_bit(dtype):
    data = (np.random.default_rng(0).normal(size=(3, 4)) * 10).astype(dtype)
    t = mg.Tensor(data)
    x = interop.to_torch(t)
    assert x.dtype == interop.torch_dtype(dtype) and tuple(x.shape) == (3, 4)
    assert x.numpy().tobytes() == data.tobytes()
    back = interop.from_torch(x)
    assert isinstance(back, mg.Tensor) and back.dtype == np.dtype(dtype)
    assert back.data.tobytes() == data.tobytes()


def test_a_zero_d_tensor_and_a_non_contiguous_one_cross():
    assert interop.to_torch(mg.tensor(2.5)).shape == ()
    data = np.arange(12.0).reshape(3, 4)
    x = interop.to_torch(mg.Tensor(data.T[::2]))  # transposed and strided
    assert np.array_equal(x.numpy(), data.T[::2])
    y = torch.arange(12.0).reshape(3, 4).t()
    assert np.array_equal(interop.from_torch(y).data, y.numpy())


@pytest.mark.parametrize("requires_grad", [False, True])
def test_requires_grad_crosses_as_a_leaf_flag(requires_grad):
    t = mg.Tensor(np.ones(3), requires_grad=requires_grad)
    x = interop.to_torch(t)
    assert x.requires_grad is requires_grad and x.is_leaf and x.grad_fn is None
    back = interop.from_torch(x)
    assert back.requires_grad is requires_grad and back.is_leaf


def test_a_graph_does_not_cross_its_values_do():
    w = mg.Tensor(np.array([1.0, 2.0]), requires_grad=True)
    made = (w * 3).exp()
    x = interop.to_torch(made)
    assert x.is_leaf and x.requires_grad and np.array_equal(x.detach().numpy(), made.data)
    a = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    y = (a * 3).exp()
    assert y.grad_fn is not None
    back = interop.from_torch(y)
    assert back.is_leaf and back.requires_grad and back.parents == ()
    np.testing.assert_array_equal(back.data, y.detach().numpy())
    back.sum().backward()  # a leaf of its own: gradients stop here, torch's graph unused
    assert np.array_equal(back.grad, np.ones(2)) and a.grad is None


def test_grad_stays_behind():
    t = mg.Tensor(np.ones(2), requires_grad=True)
    (t * 2).sum().backward()
    assert interop.to_torch(t).grad is None


def test_a_crossed_tensor_is_a_copy_both_ways():
    t = mg.Tensor(np.zeros(3))
    x = interop.to_torch(t)
    t.data[0] = 1.0  # a write on one side is never seen on the other
    x[1] = 2.0
    assert x.tolist() == [0.0, 2.0, 0.0] and t.data.tolist() == [1.0, 0.0, 0.0]
    y = torch.zeros(3)
    back = interop.from_torch(y)
    y.add_(1)
    back.data[2] = 5.0
    assert back.data.tolist() == [0.0, 0.0, 5.0] and y.tolist() == [1.0, 1.0, 1.0]


def test_a_torch_parameter_crosses_as_a_tensor():
    p = torch.nn.Parameter(torch.ones(2, dtype=torch.float64))
    back = interop.from_torch(p)
    assert type(back) is mg.Tensor and back.requires_grad and back.dtype == np.float64


def test_a_dtype_numpy_lacks_is_refused_by_name():
    with pytest.raises(TypeError, match="bfloat16 has no numpy equivalent"):
        interop.from_torch(torch.ones(2, dtype=torch.bfloat16))


def test_wrong_types_are_refused():
    with pytest.raises(TypeError, match="expects a minigrad Tensor"):
        interop.tensor_to_torch(np.ones(2))
    with pytest.raises(TypeError, match="expects a torch.Tensor"):
        interop.tensor_from_torch(mg.ones(2))
