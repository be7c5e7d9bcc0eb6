"""minigrad.random: which generator a caller draws from (``generator``/``seed`` for the tensor
constructors, ``rng`` for init and dropout), and ``manual_seed`` replacing the default one.
(``tests/project/test_default_generator.py`` checks every drawing function uses it.)"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad
from minigrad import random as mg_random


@pytest.fixture(autouse=True)
def _restore_default_generator():
    saved = mg_random.default_generator()
    yield
    mg_random._default = saved


def test_manual_seed_replaces_the_default_generator_with_a_seeded_one():
    minigrad.manual_seed(7)
    first = mg_random.default_generator()
    drawn = first.random(3)
    minigrad.manual_seed(7)
    assert mg_random.default_generator() is not first
    np.testing.assert_array_equal(mg_random.default_generator().random(3), drawn)


def test_generator_picks_the_given_one_a_seeded_one_or_the_default():
    mine = np.random.default_rng(1)
    assert mg_random.generator(mine) is mine
    assert mg_random.generator() is mg_random.default_generator()
    np.testing.assert_array_equal(mg_random.generator(seed=5).random(2),
                                  np.random.default_rng(5).random(2))
    with pytest.raises(ValueError, match="not both"):
        mg_random.generator(mine, seed=5)


def test_get_rng_takes_a_generator_an_int_seed_or_none():
    mine = np.random.default_rng(1)
    assert mg_random.get_rng(mine) is mine
    assert mg_random.get_rng(None) is mg_random.default_generator()
    np.testing.assert_array_equal(mg_random.get_rng(np.int64(4)).random(2),
                                  np.random.default_rng(4).random(2))
    for bad in (True, 1.5, "3"):
        with pytest.raises(TypeError, match="rng must be"):
            mg_random.get_rng(bad)
