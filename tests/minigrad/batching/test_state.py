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
