"""Anomaly mode (``autograd/anomaly.py``): the op that made a NaN/inf, and where it was created."""

import math

import pytest

import minigrad
from minigrad import Value


def test_detect_anomaly_names_the_op_and_where_it_was_created():
    with minigrad.detect_anomaly():
        x = Value(0.0)
        y = x.sqrt()  # d sqrt / dx at 0 is inf
        with pytest.raises(minigrad.AnomalyError) as info:
            y.backward()
    msg = str(info.value)
    assert "'sqrt'" in msg and "inf" in msg and "test_anomaly.py" in msg and "x.sqrt()" in msg
    x = Value(0.0)
    x.sqrt().backward()  # outside anomaly mode: no error, just inf
    assert x.grad == math.inf


def test_anomaly_without_creation_stack_says_so():
    x = Value(0.0)
    y = x.log()
    with minigrad.detect_anomaly(), pytest.raises(minigrad.AnomalyError, match="No creation stack"):
        y.backward()


def test_anomaly_trace_keeps_only_user_frames_and_names_notebook_cells():
    import traceback

    from minigrad.autograd import anomaly

    here = anomaly.creation_stack()
    assert here and all("site-packages" not in f.filename for f in here)
    assert all(not f.filename.startswith(anomaly._PKG) for f in here)
    assert here[-1].filename == __file__
    cell = traceback.FrameSummary("/tmp/ipykernel_4242/123456.py", 3, "<module>", line="y = x")
    assert anomaly._user_frame(cell)
    assert anomaly._CELL_FILE.match(cell.filename)
