"""Random draws inside vmap: refused unless the caller says whether examples share them."""

from __future__ import annotations

import pytest

import minigrad
from minigrad.batching import BatchingError
from minigrad.batching.state import ACTIVE, RUNNING, batching, check_random_draw


def test_the_running_vmaps_and_their_randomness_modes():
    check_random_draw("outside")  # no vmap: nothing to say
    with batching(11, "same"):
        assert RUNNING == ["same"] and 11 in ACTIVE
        check_random_draw("shared")
        with batching(12, "error"), pytest.raises(BatchingError, match="randomness='error'"):
            check_random_draw("randn")
    assert not RUNNING and not ACTIVE


def test_the_default_generator_asks_first():
    with batching(13, "different"), pytest.raises(BatchingError, match="'different'"):
        minigrad.randn(3)
    with batching(14, "same"):
        assert minigrad.randn(3).shape == (3,)


def test_different_is_allowed_to_a_caller_that_draws_per_example():
    from minigrad.batching.state import draws_per_example

    assert not draws_per_example()
    with batching(15, "different"):
        assert draws_per_example()
        check_random_draw("dropout", per_example=True)
        with pytest.raises(BatchingError):
            check_random_draw("randn")
