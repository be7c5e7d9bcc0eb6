"""One number rule: the same number reads the same in repr, drawing, text tree and panel."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad
import viz
from minigrad import Tensor, Value
from minigrad.formatting import format_number
from viz.stepper.frames import Frames

# (number, how every renderer writes it)
CASES = [
    (3e-6, "3.0000e-06"),
    (1e5, "1.0000e+05"),
    (0.5, "0.5000"),
    (-2.0, "-2.0000"),
    (1e-12, "1.0000e-12"),
    (12345.678, "12345.6780"),
    (-0.0, "0.0000"),
    (float("inf"), "inf"),
    (float("-inf"), "-inf"),
    (float("nan"), "nan"),
    (np.float32(0.1), "0.1000"),
    (np.float32(3e-6), "3.0000e-06"),
]


@pytest.mark.parametrize("x, text", CASES)
def test_the_rule(x, text):
    assert format_number(x) == text


def test_ints_and_bools_stay_as_they_are():
    assert [format_number(v) for v in (3, np.int64(-7), True, np.bool_(False))] == [
        "3", "-7", "True", "False"]


def test_digits_is_decimals_in_both_notations():
    assert format_number(1 / 3, 2) == "0.33"
    assert format_number(3e-6, 2) == "3.00e-06"
    assert format_number(0.004, 2) == "4.00e-03"  # never "0.00" for a number that is not 0


def test_viz_uses_the_one_function():
    assert viz.format_number is format_number


@pytest.mark.parametrize("x, text", CASES)
def test_data_and_grad_read_the_same_everywhere(x, text):
    """``y = v * x`` makes ``v.data == x`` and ``v.grad == x``: every view must agree."""
    with minigrad.record() as tape:
        v = Value(float(x), label="v")
        y = v * Value(float(x), requires_grad=False)
        y.backward()
    assert repr(v) == f"Value(data={text}, grad={text}, name='v')"
    line = next(ln for ln in viz.text(y).splitlines() if " v  " in ln)
    assert line.endswith(f"data={text}  grad={text}")
    node = viz.build_view(y).node(v)
    assert (node.data, node.grad, node.grad_label) == (text, text, f"grad {text}")
    source = viz.draw(y).source  # the DOT label text (never SVG bytes)
    assert f"<td>data {text}</td>" in source and f"<td>grad {text}</td>" in source
    frames = Frames(tape, "both")
    assert frames[1].text.startswith(f"v = {text}: a leaf parameter")
    assert frames[-1].text.endswith(f"Gradients of the leaves: v.grad = {text}.")


@pytest.mark.parametrize("x, text", [c for c in CASES if not isinstance(c[0], np.floating)])
def test_tensor_repr_and_labels_use_the_rule(x, text):
    t = Tensor(np.array([x, 1.0]), name="t")
    assert repr(t).startswith("tensor([")
    assert text in repr(t) and "1.0000" in repr(t)
    assert viz.build_view(t).node(t).data == f"[{text}, 1.0000]"


def test_float32_tensor_reads_like_a_float64_one():
    a32 = Tensor(np.array([0.1, 3e-6], np.float32))
    a64 = Tensor(np.array([0.1, 3e-6]))
    assert repr(a32) == "tensor([    0.1000, 3.0000e-06])"
    assert repr(a64) == "tensor([    0.1000, 3.0000e-06], dtype=float64)"


def test_tensor_repr_keeps_columns_aligned_and_ints_as_ints():
    assert repr(Tensor([[1.0, -2.0], [3.0, 4.0]])) == (
        "tensor([[ 1.0000, -2.0000],\n        [ 3.0000,  4.0000]])")
    assert repr(Tensor(np.arange(3))) == "tensor([0, 1, 2])"


def test_tiny_gradients_are_never_printed_as_zero():
    for shown in (repr(Value(3e-6)), repr(Tensor([3e-6])), viz.text(Value(3e-6))):
        assert "3.0000e-06" in shown


def test_panel_follows_the_digits_option():
    with minigrad.record() as tape:
        a = Value(2.0, label="a")
        (a * math.pi).backward()
    s = viz.Stepper(tape, digits=2, svg="<svg></svg>")
    s.last()
    assert s.panel.endswith("a.grad = 3.14.")
