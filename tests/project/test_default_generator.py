"""One default random generator (minigrad/random.py): one ``manual_seed`` repeats every draw."""

import numpy as np
import pytest

import minigrad
import minigrad.nn.functional as F
from minigrad import nn
from minigrad.data import DataLoader


def _draws():
    """Everything that draws from the default generator when handed none, in one sequence."""
    return {
        "randn": minigrad.randn(3, 4).data,
        "rand": minigrad.rand(5).data,
        "init.kaiming_uniform": nn.init.kaiming_uniform((4, 6)),
        "init.xavier_normal": nn.init.xavier_normal((4, 6)),
        "Linear": nn.Linear(6, 3).weight.data,
        "F.dropout": F.dropout(minigrad.ones(64), 0.5).data,
        "Dropout": nn.Dropout(0.5)(minigrad.ones(64)).data,
        "DataLoader": next(iter(DataLoader((np.arange(50),), 50, shuffle=True)))[0],
    }


def test_one_manual_seed_repeats_randn_init_and_dropout():
    minigrad.manual_seed(123)
    first = _draws()
    minigrad.manual_seed(123)
    again = _draws()
    for name in first:
        np.testing.assert_array_equal(first[name], again[name], err_msg=name)
    minigrad.manual_seed(124)
    other = _draws()
    changed = [name for name in first if not np.array_equal(first[name], other[name])]
    assert changed == list(first), f"not reseeded by manual_seed: {set(first) - set(changed)}"


def test_every_seeding_entry_point_is_the_same_function():
    assert nn.init.manual_seed is minigrad.manual_seed is minigrad.random.manual_seed
    assert nn.init.get_rng is minigrad.random.get_rng


def test_manual_seed_returns_the_new_default_generator():
    g = minigrad.manual_seed(5)
    assert minigrad.random.default_generator() is g
    assert minigrad.random.generator() is g
    assert nn.init.get_rng() is g


def test_generator_and_seed_arguments():
    mine = np.random.default_rng(0)
    assert minigrad.random.generator(mine) is mine
    assert minigrad.random.get_rng(mine) is mine
    np.testing.assert_array_equal(minigrad.random.generator(seed=7).random(3),
                                  np.random.default_rng(7).random(3))
    np.testing.assert_array_equal(minigrad.random.get_rng(7).random(3),
                                  np.random.default_rng(7).random(3))
    with pytest.raises(ValueError, match="not both"):
        minigrad.random.generator(mine, seed=1)
    with pytest.raises(TypeError, match="rng must be"):
        minigrad.random.get_rng(True)
