"""minigrad.formatting: the one number rule (fixed point in a middle range, scientific outside
it, ints and bools as themselves) and matrices written with it in right-aligned columns.
(``tests/viz/render/test_number_format.py`` checks that every renderer uses it.)"""

from __future__ import annotations

import numpy as np
import pytest

from minigrad.formatting import array_to_string, format_number


@pytest.mark.parametrize("x, text", [
    (0.5, "0.5000"),
    (-2.0, "-2.0000"),
    (-0.0, "0.0000"),
    (3e-6, "3.0000e-06"),
    (1e5, "1.0000e+05"),
    (float("nan"), "nan"),
    (np.float32(0.1), "0.1000"),
    (3, "3"),
    (np.int64(7), "7"),
    (True, "True"),
])
def test_a_number_is_written_by_its_kind_and_size(x, text):
    assert format_number(x) == text


def test_digits_sets_the_places_after_the_point():
    assert format_number(0.123456, 2) == "0.12"
    assert format_number(1234.5, 2) == "1234.50"


def test_a_matrix_is_written_in_right_aligned_columns_of_formatted_numbers():
    text = array_to_string(np.array([[1.0, -22.5], [3e-6, 0.25]]))
    assert text == "[[    1.0000   -22.5000]\n [3.0000e-06     0.2500]]"
