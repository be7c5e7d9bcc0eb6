"""The value-read hook (``minigrad/tensor/value_reads.py``): every method that reads a
tensor's values into Python reports to the active watchers, and ``jit.trace`` refuses
reads through it, leaving ``Tensor``'s methods untouched."""

from __future__ import annotations

import numpy as np
import pytest

from minigrad import Tensor, jit
from minigrad.tensor.value_reads import VALUE_READ_WATCHERS, VALUE_READS, watching_value_reads

# One call per value-reading method, on a one-element tensor, named by the method it runs.
READS = {
    "__bool__": bool, "item": lambda t: t.item(), "__float__": float, "__int__": int,
    "tolist": lambda t: t.tolist(), "numpy": lambda t: t.numpy(), "__array__": np.asarray,
    "__lt__": lambda t: t < 0, "__le__": lambda t: t <= 0, "__gt__": lambda t: t > 0,
    "__ge__": lambda t: t >= 0, "__eq__": lambda t: t == 0, "__ne__": lambda t: t != 0,
    "all": lambda t: t.all(), "any": lambda t: t.any(), "argmax": lambda t: t.argmax(),
    "argmin": lambda t: t.argmin(),
}


def test_every_value_read_is_listed_and_tried_here():
    assert set(READS) == set(VALUE_READS) and len(VALUE_READS) == len(set(VALUE_READS))
    assert all(name in Tensor.__dict__ for name in VALUE_READS)


@pytest.mark.parametrize("method", VALUE_READS)
def test_each_value_read_reports_once_to_every_watcher_before_reading(method):
    t = Tensor(np.array([1.5], np.float32))
    first, second = [], []
    with watching_value_reads(lambda x, m: first.append((x, m))):
        with watching_value_reads(lambda x, m: second.append((x, m))):
            READS[method](t)
    assert [(x is t, m) for x, m in first] == [(True, method)]
    assert [(x is t, m) for x, m in second] == [(True, method)]


def test_a_watcher_can_refuse_a_read_and_is_gone_after_its_block():
    class Refused(Exception):
        pass

    def refuse(t, method):
        raise Refused(method)

    t = Tensor(np.array(2.0, np.float32))
    with pytest.raises(Refused, match="item"), watching_value_reads(refuse):
        t.item()
    assert not VALUE_READ_WATCHERS
    assert t.item() == 2.0


def test_tracing_leaves_the_class_dict_untouched():
    before = dict(Tensor.__dict__)
    during = {}

    def fn(x):
        during.update(Tensor.__dict__)
        return (x * 2).sum()

    jit.trace(fn, Tensor(np.ones(3, np.float32)))
    with pytest.raises(jit.TraceError):
        jit.trace(lambda x: x * float(x.sum()), Tensor(np.ones(3, np.float32)))
    after = dict(Tensor.__dict__)
    for seen in (during, after):
        assert seen.keys() == before.keys()
        changed = [name for name, value in seen.items() if value is not before[name]]
        assert not changed
    assert not VALUE_READ_WATCHERS
