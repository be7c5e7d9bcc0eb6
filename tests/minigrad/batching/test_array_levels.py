"""``batch_levels`` and ``rebatched``: a batch taken apart into the plain array of every
example and its vmap levels, and put back together (what saved-tensor hooks need)."""

from __future__ import annotations

import numpy as np

from minigrad.batching.array import BatchedArray, batch_levels, rebatched


def test_levels_are_listed_outermost_first_like_the_axes_of_every_example():
    every = np.arange(24.0).reshape(2, 3, 4)
    nested = BatchedArray(BatchedArray(every, level=3), level=7)  # inner level 7, outer 3
    assert batch_levels(nested) == (3, 7)
    assert batch_levels(BatchedArray(every, level=5)) == (5,)
    assert nested.every_example() is every and nested.shape == (4,)


def test_rebatched_undoes_every_example_without_copying():
    every = np.arange(24.0).reshape(2, 3, 4)
    nested = BatchedArray(BatchedArray(every, level=3), level=7)
    back = rebatched(nested.every_example(), batch_levels(nested))
    assert back.every_example() is every
    assert (back.level, back.value.level) == (7, 3)
    assert (back.shape, back.batch_size, back.value.batch_size) == ((4,), 3, 2)


def test_rebatched_with_no_levels_is_the_array_itself():
    a = np.ones(3)
    assert rebatched(a, ()) is a
