"""Forward-mode rules of the shape ops (pad, cast, expand) on the cases the registry-wide test
(``tests/minigrad/ops/test_forward_rules.py``) does not reach."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad  # noqa: F401  (registers every op)
from minigrad.autograd import get_op
from minigrad.autograd.tangents import output_tangent
from tests.minigrad.ops.tensor.test_reductions_forward_rules import tangent_of


# --- shape ops ------------------------------------------------------------------------
def test_pad_tangent_is_padded_with_zeros_whatever_the_padding_value():
    rng = np.random.default_rng(13)
    x, t = rng.standard_normal((2, 3)), rng.standard_normal((2, 3))
    pad_width = ((1, 0), (2, 1))
    tangent, out = tangent_of("pad", (x,), [t], pad_width=pad_width, value=0.5)
    inside = (slice(1, 3), slice(2, 5))
    np.testing.assert_array_equal(tangent[inside], t)
    border = np.ones(out.shape, dtype=bool)
    border[inside] = False
    assert border.sum() > 0 and np.all(tangent[border] == 0)
    assert np.all(out[border] == 0.5)


def test_cast_tangent_takes_the_outputs_dtype():
    t = np.random.default_rng(14).standard_normal((2, 3))
    tangent, out = tangent_of("cast", (t.copy(),), [t], dtype=np.dtype(np.float32))
    assert out.dtype == tangent.dtype == np.float32


@pytest.mark.parametrize("name", ["cat", "stack"])
def test_an_integer_input_without_tangent_does_not_promote_a_float32_tangent(name):
    ints, floats = np.arange(3), np.ones(3, dtype=np.float32)
    op = get_op(name, "tensor")
    out, saved = op.forward(ints.astype(np.float32), floats, axis=0)  # as the engine promotes
    t = np.random.default_rng(15).standard_normal(3).astype(np.float32)
    tangent = output_tangent(op, (ints, floats), out, saved, {"axis": 0}, (None, t))
    assert tangent.dtype == out.dtype == np.float32
    np.testing.assert_array_equal(tangent, op.forward(np.zeros(3, np.float32), t, axis=0)[0])


def test_expand_tangent_moves_every_copy_with_its_source():
    t = np.random.default_rng(16).standard_normal((3, 1))
    tangent, _ = tangent_of("expand", (np.zeros((3, 1)),), [t], shape=(2, 3, 4))
    np.testing.assert_array_equal(tangent, np.broadcast_to(t, (2, 3, 4)))
