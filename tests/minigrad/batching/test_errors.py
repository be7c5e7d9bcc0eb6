"""The batching errors' family: each is what the core and ``getattr`` expect it to be."""

from __future__ import annotations

from minigrad.batching import BatchingError, BatchingFallbackWarning
from minigrad.batching.errors import BatchedAttributeError
from minigrad.core.standin import StandInRefused


def test_the_core_can_catch_a_batching_error_without_knowing_it():
    assert issubclass(BatchingError, StandInRefused)
    assert issubclass(BatchedAttributeError, BatchingError)
    assert issubclass(BatchedAttributeError, AttributeError)
    assert issubclass(BatchingFallbackWarning, UserWarning)
