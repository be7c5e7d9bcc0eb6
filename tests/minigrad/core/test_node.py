"""One node constructor: every node's slots come out the same whichever way it was made.

``node.init_node`` assigns the slots and, for an op's result, decides whether the
op is recorded at all; both engines, ``apply_op`` and custom Functions use it.
``Tensor``'s operators (``minigrad/tensor/operators.py``) and ``Value``'s
(``minigrad/value.py``) keep an inlined copy of it for speed; here each is compared,
slot by slot, with the constructor's result for every operator and every combination
of ``requires_grad`` and grad mode.
"""

from __future__ import annotations

import operator

import numpy as np
import pytest

import minigrad
from minigrad import Tensor, Value, apply_op, no_grad
from minigrad.core.node import Node, init_node
from minigrad.ops import tensor as tensor_ops

#: the operators that run the inlined copy, and their ops
BINARY = {
    "add": (operator.add, tensor_ops.ADD), "sub": (operator.sub, tensor_ops.SUB),
    "mul": (operator.mul, tensor_ops.MUL), "div": (operator.truediv, tensor_ops.DIV),
    "pow": (operator.pow, tensor_ops.POW), "matmul": (operator.matmul, tensor_ops.MATMUL),
    "maximum": (Tensor.maximum, tensor_ops.MAXIMUM),
    "minimum": (Tensor.minimum, tensor_ops.MINIMUM),
}
SLOTS = [s for s in Node.__slots__ if s != "__weakref__"]


def _same_value(x, y) -> bool:
    if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
        return (isinstance(x, np.ndarray) and isinstance(y, np.ndarray)
                and x.dtype == y.dtype and x.shape == y.shape
                and np.array_equal(x, y, equal_nan=True))
    return x == y


def _slots_agree(fast, ref) -> None:
    assert type(fast) is type(ref)
    for slot in SLOTS:
        a, b = getattr(fast, slot), getattr(ref, slot)
        if slot == "id":
            assert a > 0 and b > 0 and a != b
        elif slot == "grads_fit_inputs":
            continue  # a shortcut's flag: which nodes get it is tests/minigrad/tensor's subject
        elif slot == "parents":
            assert len(a) == len(b) and all(p is q or (p.op is None and q.op is None
                                                        and _same_value(p.data, q.data))
                                            for p, q in zip(a, b)), slot
        elif slot == "saved":
            assert len(a) == len(b) and all(map(_same_value, a, b)), slot
        else:
            assert _same_value(a, b), (slot, a, b)


#: the one-input operators that run the inlined copy
UNARY = {name: (operator.methodcaller(name), getattr(tensor_ops, name.upper()))
         for name in ("exp", "log", "sqrt", "tanh", "sigmoid", "relu")}
UNARY.update(neg=(operator.neg, tensor_ops.NEG), abs=(abs, tensor_ops.ABS))


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("needs", [(True, True), (True, False), (False, True), (False, False)])
@pytest.mark.parametrize("grad_mode", [True, False])
def test_the_inlined_binary_operator_makes_the_constructors_node(name, needs, grad_mode):
    fn, op = BINARY[name]
    rng = np.random.default_rng(0)
    shape_b = (3, 3) if name == "matmul" else (3,)
    a = Tensor(rng.uniform(0.5, 2.0, (2, 3)).astype(np.float32), requires_grad=needs[0])
    b = Tensor(rng.uniform(0.5, 2.0, shape_b).astype(np.float32), requires_grad=needs[1])
    with minigrad.set_grad_enabled(grad_mode):
        fast = fn(a, b)
        ref = apply_op(op, a, b)
    _slots_agree(fast, ref)
    assert (fast.op is op) == (grad_mode and any(needs))


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("needs", [True, False])
@pytest.mark.parametrize("grad_mode", [True, False])
def test_the_inlined_unary_operator_makes_the_constructors_node(name, needs, grad_mode):
    fn, op = UNARY[name]
    x = Tensor(np.random.default_rng(1).uniform(0.5, 2.0, (2, 3)), requires_grad=needs)
    with minigrad.set_grad_enabled(grad_mode):
        fast = fn(x)
        ref = apply_op(op, x)
    _slots_agree(fast, ref)
    assert (fast.op is op) == (grad_mode and needs)


def test_a_number_operand_is_lifted_the_same_way():
    a = Tensor(np.ones(3, dtype=np.float32), requires_grad=True)
    fast, ref = a * 2.5, apply_op(tensor_ops.MUL, a, 2.5)
    _slots_agree(fast, ref)
    assert fast.parents[1].data.dtype == np.float32  # a Python number does not promote


def test_an_op_is_recorded_only_with_grad_mode_on_and_an_input_requiring_grad():
    on, off = Value(1.0), Value(2.0, requires_grad=False)
    mul = minigrad.ops.scalar.MUL
    for parents, recorded in (((on, off), True), ((off, on), True), ((off, off), False)):
        out = init_node(object.__new__(Value), 2.0, mul, parents, (1.0, 2.0))
        assert (out.op is mul) == recorded and out.requires_grad == recorded
    with no_grad():
        out = init_node(object.__new__(Value), 2.0, mul, (on, on), (1.0, 1.0))
    assert out.op is None


def test_an_op_not_recorded_gives_a_constant_leaf():
    x = Value(2.0, requires_grad=False)
    out = init_node(object.__new__(Value), 4.0, minigrad.ops.scalar.MUL, (x, x), (2.0, 2.0),
                    {"k": 1}, True)
    assert out.op is None and out.parents == () and out.saved == () and not out.requires_grad
    assert out.grad is None and out.attrs is None and out.label is None
    assert not out.grads_fit_inputs


def test_every_slot_is_set_by_the_one_constructor():
    node = init_node(object.__new__(Value), 1.5)
    for slot in SLOTS:
        getattr(node, slot)  # an unset slot would raise AttributeError
    assert node.id > 0 and node.op is None and node.saved == ()


def test_a_parameter_times_a_tensor_is_a_plain_tensor():
    """``engine_class``: what an op on a subclass of an engine makes."""
    w = minigrad.nn.Parameter(np.ones(3, dtype=np.float32))
    assert type(w * 2.0) is Tensor and type(w.tanh()) is Tensor and type(w.sum()) is Tensor
    assert w.engine_class is Tensor and Value.engine_class is Value


#: ``Value``'s operators and methods that run the inlined copy, with their scalar ops
SCALAR_BINARY = {"add": operator.add, "sub": operator.sub, "mul": operator.mul,
                 "div": operator.truediv, "pow": operator.pow,
                 "maximum": Value.maximum, "minimum": Value.minimum}
SCALAR_UNARY = {"neg": operator.neg, "abs": abs, **{
    name: operator.methodcaller(name)
    for name in ("exp", "log", "sqrt", "tanh", "sigmoid", "relu", "gelu", "erf", "sin", "cos")}}


@pytest.mark.parametrize("name", sorted(SCALAR_BINARY))
@pytest.mark.parametrize("needs", [(True, True), (True, False), (False, True), (False, False)])
@pytest.mark.parametrize("grad_mode", [True, False])
@pytest.mark.parametrize("reflected", [False, True])
def test_a_value_operator_makes_the_constructors_node(name, needs, grad_mode, reflected):
    op = minigrad.core.op.get_op(name, "scalar")
    a, b = Value(1.5, requires_grad=needs[0]), Value(0.75, requires_grad=needs[1])
    with minigrad.set_grad_enabled(grad_mode):
        if reflected:  # ``2.5 * b`` runs b's reflected method: a number on the left
            fast = SCALAR_BINARY[name](2.5, b) if name not in ("maximum", "minimum") else None
            ref = minigrad.value.apply_scalar_op(op, 2.5, b)
        else:
            fast = SCALAR_BINARY[name](a, b)
            ref = minigrad.value.apply_scalar_op(op, a, b)
    if fast is None:
        return  # (maximum and minimum are methods: a number has none to call)
    _slots_agree(fast, ref)
    assert (fast.op is op) == (grad_mode and (needs[1] if reflected else any(needs)))


@pytest.mark.parametrize("name", sorted(SCALAR_UNARY))
@pytest.mark.parametrize("needs", [True, False])
@pytest.mark.parametrize("grad_mode", [True, False])
def test_a_value_method_makes_the_constructors_node(name, needs, grad_mode):
    op = minigrad.core.op.get_op(name, "scalar")
    x = Value(0.8, requires_grad=needs)
    with minigrad.set_grad_enabled(grad_mode):
        fast = SCALAR_UNARY[name](x)
        ref = minigrad.value.apply_scalar_op(op, x)
    _slots_agree(fast, ref)
    assert (fast.op is op) == (grad_mode and needs)
