"""``jit.trace``: a run of a function as a program of op records, and the guards that refuse
what a trace cannot replay."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad.nn.functional as F
from minigrad import Tensor, jit, nn, no_grad


def _x(shape=(3, 4), seed=0, dtype=np.float32):
    return Tensor(np.random.default_rng(seed).standard_normal(shape).astype(dtype))


def test_captured_tensors_requiring_grad_are_params_read_at_each_run():
    w = Tensor(np.ones(4, np.float32), requires_grad=True, name="w")
    t = jit.trace(lambda x: (x * w).sum(), _x())
    assert [v.kind for v in t.params] == ["param"] and t.params[0].source is w
    before = t(_x()).item()
    with no_grad():
        w *= 2
    assert t(_x()).item() == pytest.approx(2 * before)


@pytest.mark.parametrize("body", [
    lambda x: x * 2 if x.sum() > 0 else x,           # a comparison
    lambda x: x * float(x.sum()),                    # float()
    lambda x: x * x.sum().item(),                    # item()
    lambda x: x if bool(x.max() > 0) else -x,        # bool()
], ids=["compare", "float", "item", "bool"])
def test_reading_a_traced_value_into_python_is_refused(body):
    with pytest.raises(jit.TraceError, match="reads a traced tensor's value"):
        jit.trace(body, _x())


def test_the_guards_are_gone_after_tracing():
    with pytest.raises(jit.TraceError):
        jit.trace(lambda x: x * float(x.sum()), _x())
    x = _x()
    x.requires_grad = True
    assert isinstance(float(x.sum()), float)


def test_a_random_op_is_refused():
    with pytest.raises(jit.TraceError, match="randomness"):
        jit.trace(lambda x: F.dropout(x, 0.5).sum(), _x())


def test_an_output_that_does_not_depend_on_the_inputs_is_refused():
    def cut(x):
        with no_grad():
            return (x * 2).sum()  # (a number: not caught as a made-up array)

    with pytest.raises(jit.TraceError, match="does not depend on its inputs"):
        jit.trace(cut, _x())


def test_an_array_made_from_a_traced_value_is_refused():
    with pytest.raises(jit.TraceError, match="constant array"):
        jit.trace(lambda x: x * (x.data * 2), _x())


def test_an_integer_input_read_through_its_array_stays_an_input():
    model = nn.Linear(4, 3)
    t = jit.trace(lambda x, y: F.cross_entropy(model(x), y), _x(), Tensor(np.array([0, 2, 1])))
    ce = t.eqns[-1]
    assert ce.op.name == "cross_entropy" and ce.ins[1] is t.inputs[1]
    y2 = np.array([1, 1, 0])
    np.testing.assert_array_equal(t(_x(), y2).data, F.cross_entropy(model(_x()), y2).data)
