"""The per-example loop: correct for anything, slow, and it says so."""

from __future__ import annotations

import numpy as np
import pytest

from minigrad.batching import BatchedArray, BatchingFallbackWarning, per_example
from minigrad.batching.fallback import batch_of


def test_it_runs_once_per_example_stacks_and_warns_naming_the_call():
    x = BatchedArray(np.arange(12.0).reshape(3, 4), level=1)
    calls = []

    def fn(a, k):
        calls.append(a.shape)
        return a[:k].sum(), a.shape

    with pytest.warns(BatchingFallbackWarning, match="thing has no batching rule.*3 calls"):
        total, shape = per_example("thing", fn, (x, 2))
    assert calls == [(4,)] * 3 and shape == (4,)
    np.testing.assert_allclose(total.value, x.value[:, :2].sum(1))


def test_results_that_differ_per_example_but_are_not_arrays_are_an_error():
    x = BatchedArray(np.arange(3.0), level=1)
    with pytest.raises(ValueError, match="different str for each example"):
        per_example("label", lambda a: str(a), (x,), warn=False)


def test_batch_of_finds_the_innermost_batch_in_nested_arguments():
    outer = BatchedArray(np.zeros((2, 5)), level=1)
    inner = BatchedArray(np.zeros((4, 5)), level=7)
    assert batch_of(((outer,), {"k": [inner]})) == (7, 4)
    assert batch_of((outer,), level=1) == (1, 2)
    assert batch_of((np.zeros(3), 1.0)) == (0, 0)
