"""Two shortcuts of the tensor engine, checked against the general paths they skip.

* An op that is one numpy ufunc (``ufunc=``: ``add``, ``mul``, ``tanh`` ...)
  is run by ``Tensor``'s operators as that ufunc, not through the op's forward;
  both must give the same output and save the same arrays.
* A ``passthrough`` rule (``∂out/∂input = 1``) is not called by the tensor
  loop; gradients must be the same as where it is called.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad
from minigrad import Tensor
from minigrad.autograd import tape
from minigrad.core.op import Op, passthrough, registered_ops
from minigrad.engines import fast as fast_engine
from minigrad.tensor import apply_op

UFUNC_OPS = [op for op in registered_ops("tensor") if op.ufunc is not None]

#: the Tensor method that runs each one-ufunc op
METHODS = {"add": "__add__", "sub": "__sub__", "mul": "__mul__", "neg": "__neg__",
           "exp": "exp", "log": "log", "sqrt": "sqrt", "abs": "abs", "tanh": "tanh"}


def test_the_one_ufunc_ops_are_the_expected_ones():
    # A new one-ufunc op needs an entry in METHODS, so that it is compared below.
    assert sorted(op.name for op in UFUNC_OPS) == sorted(METHODS)


def _inputs(op, shape, dtype, rng):
    return [Tensor(rng.uniform(0.5, 2.0, shape).astype(dtype), requires_grad=True)
            for _ in range(op.arity)]


def _same(a, b) -> bool:
    return type(a) is type(b) and a.dtype == b.dtype and np.array_equal(a, b)


@pytest.mark.parametrize("op", UFUNC_OPS, ids=lambda op: op.name)
@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_operator_and_apply_op_save_the_same(op, shape, dtype):
    rng = np.random.default_rng(0)
    xs = _inputs(op, shape, dtype, rng)
    fast = getattr(Tensor, METHODS[op.name])(*xs)
    slow = apply_op(op, *xs)
    assert fast.op is slow.op is op
    assert _same(fast.data, slow.data)
    assert len(fast.saved) == len(slow.saved)
    for f, s in zip(fast.saved, slow.saved):
        assert _same(f, s)
    saves = op.saves
    for node in (fast, slow):
        if saves == "output":  # the output itself (an ndarray even for 0-d), not a copy
            assert node.saved[0] is node.data
        elif saves == "inputs":
            assert all(s is x.data for s, x in zip(node.saved, xs))
        else:
            assert node.saved == ()


@pytest.mark.parametrize("op", UFUNC_OPS, ids=lambda op: op.name)
def test_operator_and_apply_op_give_the_same_gradients(op):
    upstream = np.random.default_rng(1).standard_normal((2, 3))
    grads = []
    for fast in (True, False):
        xs = _inputs(op, (2, 3), np.float64, np.random.default_rng(2))
        out = getattr(Tensor, METHODS[op.name])(*xs) if fast else apply_op(op, *xs)
        assert out.grads_fit_inputs is fast  # (apply_op's nodes are checked edge by edge)
        out.backward(upstream)
        grads.append([x.grad for x in xs])
    for f, s in zip(*grads):
        assert _same(f, s)


def test_the_ufunc_path_keeps_dtypes_and_promotes_like_the_op():
    a = Tensor(np.ones(3, np.float32), requires_grad=True)
    b = Tensor(np.ones(3, np.float64), requires_grad=True)
    out = a * b  # numpy's rule between operands with dimensions: float64, inputs as given
    assert out.dtype == np.float64 and out.saved[0] is a.data and out.saved[1] is b.data
    out.sum().backward()
    assert a.grad.dtype == np.float32 and b.grad.dtype == np.float64
    half = Tensor(np.array(0.5), requires_grad=True)  # a 0-d float64 does not widen float32
    out = a * half
    assert out.dtype == np.float32 and out.saved[1].dtype == np.float32
    assert (a * 2.5).dtype == np.float32 and (-a).dtype == np.float32
    ints = Tensor(np.arange(3))
    assert ints.exp().dtype == np.float32  # float_only: an integer constant is cast first


def test_the_ufunc_path_reports_a_bad_shape_like_the_op():
    a = Tensor(np.ones((2, 3)), requires_grad=True)
    b = Tensor(np.ones((4,)), requires_grad=True)
    with pytest.raises(ValueError, match=r"mul: shapes \(2, 3\) and \(4,\) cannot be broadcast"):
        a * b


def test_no_grad_result_is_a_constant_leaf():
    a = Tensor(np.ones(3), requires_grad=True)
    with minigrad.no_grad():
        out = a.tanh() * a
    assert out.op is None and not out.requires_grad and out.saved == ()


def test_an_unknown_saves_is_a_clear_error():
    with pytest.raises(ValueError, match="saves must be one of"):
        Op(name="twice", engine="tensor", symbol="2×", ufunc=np.add, saves="everything",
           grads=(passthrough,) * 2, formulas=("∂/∂a = 1", "∂/∂b = 1"), elementwise=True)


# --- passthrough -------------------------------------------------------------------
def test_passthrough_returns_its_gradient_unchanged():
    g = np.arange(3.0)
    assert passthrough(g) is g and passthrough(g, g, axis=1) is g


def test_add_and_sub_pass_their_gradient_through():
    add = minigrad.autograd.get_op("add", "tensor")
    sub = minigrad.autograd.get_op("sub", "tensor")
    assert add.grads == (passthrough, passthrough) and sub.grads[0] is passthrough
    assert minigrad.autograd.get_op("add", "scalar").grads == (passthrough, passthrough)


def _identity_op():
    # An op of the student's own, with passthrough as its rule: the engine must
    # recognise it without knowing the op.
    return Op(name="ident", engine="tensor", symbol="id", forward=lambda x: (x.copy(), ()),
              grads=(passthrough,), formulas=("∂/∂x = 1",), elementwise=True)


@pytest.mark.parametrize("observed", [False, True])
def test_passthrough_gives_the_same_gradients_called_or_not(observed):
    x = Tensor(np.array([1.0, 2.0, 3.0]), requires_grad=True)
    b = Tensor(np.array([0.5, 0.5, 0.5]), requires_grad=True)
    y = apply_op(_identity_op(), x * x) + b
    upstream = np.array([1.0, 2.0, 3.0])
    if observed:  # the recorded walk calls every rule
        with tape.record():
            y.backward(upstream)
    else:
        y.backward(upstream)
    np.testing.assert_array_equal(x.grad, 2 * x.data * upstream)
    np.testing.assert_array_equal(b.grad, upstream)
    # the leaf still owns its gradient: changing it in place moves nothing else
    b.grad *= 10
    np.testing.assert_array_equal(y.grad, upstream)


def test_a_leaf_gets_its_own_copy_of_a_passed_through_gradient():
    a = Tensor(np.ones(3), requires_grad=True)
    b = Tensor(np.ones(3), requires_grad=True)
    s = a + b
    s.backward(np.full(3, 2.0))
    assert not np.shares_memory(a.grad, b.grad)
    assert not np.shares_memory(a.grad, s.grad) and not np.shares_memory(b.grad, s.grad)
    assert fast_engine.passthrough is passthrough  # the one the loop tests for
