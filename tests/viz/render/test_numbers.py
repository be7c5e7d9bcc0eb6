"""Number and array formatting shared by every renderer (``viz.render.numbers``)."""

from __future__ import annotations

import numpy as np
import pytest

from viz.render.numbers import format_array, format_number


@pytest.mark.parametrize(
    "x, text",
    [
        (2.0, "2.0000"), (-3.0, "-3.0000"), (0.0, "0.0000"), (-0.0, "0.0000"),
        (0.0012, "0.0012"), (0.00012, "1.2000e-04"), (12345.678, "12345.6780"),
        (123456.0, "1.2346e+05"), (float("nan"), "nan"), (float("inf"), "inf"),
        (float("-inf"), "-inf"), (3, "3"), (np.float32(0.5), "0.5000"), (True, "True"),
    ],
)
def test_format_number(x, text):
    assert format_number(x) == text


def test_format_number_digits():
    assert format_number(1 / 3, digits=2) == "0.33"
    assert format_number(0.004, digits=2) == "4.00e-03"  # 0.00 would hide it


def test_format_array_one_line_summarised_and_cut():
    matrix = np.array([[1.0, 2.0], [3.0, 4.0]])
    assert format_array(matrix) == "[[1.0000, 2.0000], [3.0000, 4.0000]]"
    assert format_array(np.arange(10.0)) == "[0.0000, 1.0000, ..., 8.0000, 9.0000]"
    assert format_array(np.array(2.5)) == "2.5000"
    assert format_array(np.array([1, 2, 3])) == "[1, 2, 3]"
    cut = format_array(np.arange(4.0) * 1000, width=20)
    assert len(cut) == 20 and cut.endswith("…")


def test_format_array_ignores_numpy_print_options():
    a = np.array([0.123456, 1e-9])
    with np.printoptions(precision=1, suppress=True):
        assert format_array(a) == "[0.1235, 1.0000e-09]"
