"""jit.ir's Trace: its equations in order with shapes and dtypes, printed as a tape, run on new
inputs of the same shapes (and refused on others)."""

from __future__ import annotations

import numpy as np
import pytest

from minigrad import jit
from tests.minigrad.jit.test_tracing import _x


def f(x, y):
    return ((x * y + 1.0).tanh() - x).sum()


def test_a_trace_lists_each_op_once_in_order_with_shapes_and_dtypes():
    t = jit.trace(f, _x(), _x((4,)))
    assert [e.op.name for e in t.eqns] == ["mul", "add", "tanh", "sub", "sum"]
    assert [v.shape for v in t.inputs] == [(3, 4), (4,)]
    assert t.eqns[0].out.shape == (3, 4) and t.eqns[-1].out.shape == ()
    assert all(e.out.dtype == np.float32 for e in t.eqns)
    assert t.eqns[1].ins[1].kind == "const"  # the Python number 1.0


def test_a_trace_prints_as_a_tape_one_line_per_op():
    t = jit.trace(f, _x(), _x((4,)))
    lines = str(t).splitlines()
    assert lines[0].startswith("trace f(x0:f32[3,4], x1:f32[4])")
    ops = [line for line in lines if " = " in line and "const" not in line]
    assert len(ops) == len(t.eqns)
    assert "%1 = mul x0, x1" in lines[2]


def test_a_trace_runs_on_new_inputs_of_the_same_shapes():
    t = jit.trace(f, _x(), _x((4,)))
    x, y = _x(seed=5), _x((4,), seed=6)
    np.testing.assert_array_equal(t(x, y).data, f(x, y).data)


def test_running_a_trace_on_other_shapes_is_a_clear_error():
    t = jit.trace(f, _x(), _x((4,)))
    with pytest.raises(ValueError, match=r"x0 was traced as f32\[3,4\], got f32\[2,4\]"):
        t(_x((2, 4)), _x((4,)))
