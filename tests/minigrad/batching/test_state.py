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
    with batching(13, "error"), pytest.raises(BatchingError, match="'error'"):
        minigrad.randn(3)
    with batching(14, "same"):
        assert minigrad.randn(3).shape == (3,)


def test_different_levels_are_the_running_different_vmaps_outermost_first():
    from minigrad.batching.state import different_levels, draws_per_example

    assert not draws_per_example() and different_levels() == []
    with batching(15, "different", 4), batching(16, "same", 3), batching(17, "different", 2):
        assert draws_per_example()
        assert different_levels() == [(15, 4), (17, 2)]
        check_random_draw("dropout")  # ("different" and "same" are both possible)
        with batching(18, "error", 5), pytest.raises(BatchingError, match="'error'"):
            check_random_draw("randn")  # (any level saying "error" refuses)
    assert different_levels() == [] and not ACTIVE
