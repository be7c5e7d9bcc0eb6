"""The scalar engine: values, gradients and the semantics a student relies on."""

import gc
import math
import sys
import weakref

import pytest

import minigrad
from minigrad import Value


def test_mul_add_gradients_by_hand():
    a, b = Value(2.0, "a"), Value(-3.0, "b")
    c = a * b + a  # dc/da = b + 1, dc/db = a
    c.backward()
    assert (a.grad, b.grad, c.grad) == (-2.0, 2.0, 1.0)


def test_numbers_on_either_side():
    x = Value(3.0)
    for out, dx in [(2 + x, 1), (x + 2, 1), (2 - x, -1), (x - 2, 1), (2 * x, 2), (x * 2, 2),
                    (6 / x, -6 / 9), (x / 2, 0.5), (x**2, 6), (2**x, 8 * math.log(2))]:
        x.grad = None
        out.backward()
        assert x.grad == pytest.approx(dx)
    assert (2 - x).data == -1.0 and (6 / x).data == 2.0 and (2**x).data == 8.0


def test_x_times_x_has_two_edges_and_gradient_2x():
    x = Value(3.0)
    y = x * x
    assert y.parents == (x, x)
    y.backward()
    assert x.grad == 6.0


def test_diamond_accumulates_both_paths():
    x = Value(2.0)
    a, b = x * 3, x.exp()
    y = a * b  # dy/dx = 3·e^x + 3x·e^x
    y.backward()
    assert x.grad == pytest.approx(3 * math.exp(2) + 6 * math.exp(2))


def test_value_exponent_gradients_and_negative_base_nan():
    b, p = Value(2.0), Value(3.0)
    (b**p).backward()
    assert b.grad == pytest.approx(12.0) and p.grad == pytest.approx(8 * math.log(2))
    b, p = Value(-2.0), Value(2.0)
    (b**p).backward()
    assert b.grad == pytest.approx(-4.0) and math.isnan(p.grad)  # ln of a negative base
    z, p = Value(0.0), Value(2.0)
    (z**p).backward()
    assert p.grad == 0.0  # the limit, not 0·(-inf)


def test_stable_at_extremes():
    for x in (1000.0, -1000.0):
        for fn in (Value.tanh, Value.sigmoid):
            v = Value(x)
            out = fn(v)
            out.backward()
            assert math.isfinite(out.data) and math.isfinite(v.grad)
    assert Value(1000.0).exp().data == math.inf


def test_log_zero_is_minus_inf_with_infinite_gradient():
    x = Value(0.0)
    y = x.log()
    y.backward()
    assert y.data == -math.inf and x.grad == math.inf


def test_relu_at_zero_has_zero_gradient():
    x = Value(0.0)
    x.relu().backward()
    assert x.grad == 0.0


def test_maximum_tie_shares_gradient():
    a, b = Value(1.0), Value(1.0)
    a.maximum(b).backward()
    assert a.grad == b.grad == 0.5


def test_python_sum_of_many_values():
    xs = [Value(float(i)) for i in range(100)]
    s = sum(xs)
    s.backward()
    assert s.data == 4950.0 and all(x.grad == 1.0 for x in xs)


def test_leaves_accumulate_across_backward_calls_like_pytorch():
    x = Value(2.0)
    (x * 3).backward()
    (x * 3).backward()
    assert x.grad == 6.0
    x.zero_grad()
    assert x.grad is None


def test_intermediate_nodes_do_not_leak_between_passes():
    x = Value(2.0)
    h = x * 3
    y = h * h
    y.backward(retain_graph=True)
    assert h.grad == 12.0
    y.backward()
    assert h.grad == 12.0  # recomputed, not 24
    assert x.grad == 72.0  # the leaf accumulates: 36 + 36


def test_retain_graph_doubles_exactly_and_release_raises():
    x = Value(1.5)
    y = (x * x).tanh()
    y.backward(retain_graph=True)
    first = x.grad
    y.backward()
    assert x.grad == 2 * first
    with pytest.raises(minigrad.GraphReleasedError, match="retain_graph=True"):
        y.backward()


def test_saved_values_are_released_after_backward():
    x = Value(2.0)
    y = x * x
    assert y.saved == (2.0, 2.0)
    y.backward()
    assert y.saved is None
    assert y.parents == (x, x)  # the structure stays for drawing


def test_requires_grad_propagation():
    a = Value(1.0, requires_grad=False)
    b = Value(2.0, requires_grad=False)
    c = a * b
    assert not c.requires_grad and c.is_leaf and c.op is None
    d = c * Value(3.0)
    assert d.requires_grad and not d.is_leaf
    assert (2 * a).requires_grad is False
    with pytest.raises(RuntimeError, match="does not require grad"):
        c.backward()


def test_constants_get_no_gradient():
    x = Value(2.0)
    y = x * 5
    y.backward()
    const = y.parents[1]
    assert const.data == 5.0 and not const.requires_grad and const.grad is None


def test_no_grad_builds_nothing_and_restores_after_exception():
    x = Value(1.0)
    with minigrad.no_grad():
        y = x * 2
    assert y.op is None and not y.requires_grad
    with pytest.raises(ZeroDivisionError):
        with minigrad.no_grad():
            raise ZeroDivisionError
    assert minigrad.is_grad_enabled()
    assert (x * 2).op is not None


def test_detach():
    x = Value(2.0, "x")
    y = (x * 3).detach()
    assert y.is_leaf and not y.requires_grad and y.data == 6.0


def test_million_node_chain_backprops_without_recursion():
    assert sys.getrecursionlimit() <= 10_000
    x = Value(1.0)
    y = x
    for _ in range(1_000_000):
        y = y + 1.0
    y.backward()
    assert x.grad == 1.0 and y.data == 1_000_001.0


def test_graph_has_no_reference_cycles():
    gc.disable()
    try:
        x = Value(2.0)
        y = (x * x).tanh() + x.exp()
        y.backward()
        ref = weakref.ref(y.parents[0])
        del y
        assert ref() is None  # freed by reference counting alone
    finally:
        gc.enable()


def test_ids_are_increasing_and_stable_within_a_graph():
    a = Value(1.0)
    b = a * 2
    assert b.id > a.id and b.parents[1].id > a.id


def test_repr():
    x = Value(2.0, "x")
    y = x * 3
    assert repr(x) == "Value(data=2.0000, grad=None, name='x')"
    y.backward()
    assert repr(y) == "Value(data=6.0000, grad=1.0000, op=mul)"


@pytest.mark.parametrize("bad", ["1", [1.0], None, True])
def test_bad_construction_is_a_clear_type_error(bad):
    with pytest.raises(TypeError, match="Value holds one real number"):
        Value(bad)


def test_value_of_value_is_rejected():
    with pytest.raises(TypeError, match="detach"):
        Value(Value(1.0))


def test_unsupported_operand():
    with pytest.raises(TypeError, match="mul: unsupported operand type str"):
        Value(1.0) * "x"


def test_backward_gradient_argument():
    x = Value(2.0)
    (x * 3).backward(2.0)
    assert x.grad == 6.0
    with pytest.raises(TypeError, match="expected a number"):
        (x * 3).backward("one")


def test_copies_and_pickles_of_a_leaf_get_fresh_ids():
    import copy
    import pickle

    x = Value(2.0, "x")
    x.grad = 1.5
    for clone in (copy.copy(x), copy.deepcopy(x), pickle.loads(pickle.dumps(x))):
        assert clone.id != x.id and clone.data == 2.0 and clone.label == "x"
        assert clone.grad == 1.5 and clone.requires_grad
    y = x * 2
    with pytest.raises(RuntimeError, match="detach"):
        copy.deepcopy(y)
