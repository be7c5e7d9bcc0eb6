"""A value inside ``vmap`` as the renderers show it (``viz.render.batches``): one example's
shape beside the batch's, values read from one example, never ``np.asarray`` of a batch."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad
from minigrad import func
from minigrad.batching import BatchedArray, BatchingError
from viz.render.batches import (
    batch_sizes,
    batch_text,
    example,
    is_batched,
    physical,
    shape_of,
    shape_text,
)


def _batch(shape=(5, 3), level=7, seed=0):
    return BatchedArray(np.random.default_rng(seed).normal(size=shape), level)


def test_a_batch_reads_its_logical_and_physical_shapes():
    b = _batch((5, 3))
    assert is_batched(b) and not is_batched(np.zeros(3))
    assert batch_sizes(b) == (5,)
    assert shape_of(b) == (3,)
    assert shape_text(b) == "(3,) per example · batch of 5 → (5, 3)"


def test_reading_a_batch_never_asks_numpy_for_one_array():
    b = _batch((4, 2))
    with pytest.raises(BatchingError):  # (what a renderer must never do)
        np.asarray(b)
    np.testing.assert_array_equal(physical(b), b.value)
    np.testing.assert_array_equal(example(b), b.value[0])
    np.testing.assert_array_equal(example(b, 3), b.value[3])


def test_plain_arrays_pass_through_unchanged():
    a = np.arange(6.0).reshape(2, 3)
    assert batch_sizes(a) == ()
    assert shape_of(a) == (2, 3)
    np.testing.assert_array_equal(example(a), a)


def test_nested_vmaps_show_every_batch_outermost_first():
    seen = []

    def f(x):
        seen.append((shape_text(x.data), batch_sizes(x.data), example(x.data).copy()))
        return x * 2.0

    xs = np.random.default_rng(1).normal(size=(2, 4, 3))
    func.vmap(func.vmap(f))(minigrad.tensor(xs))
    text, sizes, first = seen[0]
    assert sizes == (2, 4)
    assert text == "(3,) per example · batches 2 × 4 → (2, 4, 3)"
    assert batch_text(_batch((6, 1))) == "batch of 6 → (6, 1)"
    np.testing.assert_array_equal(first, xs[0, 0])
