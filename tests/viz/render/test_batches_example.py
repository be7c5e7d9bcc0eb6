"""``example=``: which example of a vmap's batch a picture shows (``viz.render.batches``:
``choose_example`` and ``Examples``), checked against the batches the graph holds."""

from __future__ import annotations

import numpy as np
import pytest

from minigrad.batching import BatchedArray
from viz.render.batches import FIRST, check_example, choose_example


def _batch(sizes=(5,), shape=(3,), levels=(7,), seed=0):
    """A batch of ``levels`` (outermost first) holding random values."""
    x = np.random.default_rng(seed).normal(size=sizes + shape)
    for level in levels:
        x = BatchedArray(x, level)
    return x


def test_an_int_picks_that_example_and_says_which_of_how_many():
    b = _batch((5,))
    chosen = choose_example([b, np.ones(3)], 2)
    np.testing.assert_array_equal(chosen.of(b), b.value[2])
    assert chosen.word(b) == "example 2 of 5" and chosen.short(b) == "example 2"
    np.testing.assert_array_equal(chosen.of(np.ones(3)), np.ones(3))  # (not batched: itself)


def test_no_choice_is_the_first_example():
    b = _batch((5,))
    assert choose_example([b], None) is FIRST
    np.testing.assert_array_equal(FIRST.of(b), b.value[0])
    assert FIRST.word(b) == "example 0 of 5"


@pytest.mark.parametrize("k", [5, 6, 100])
def test_an_index_past_the_batch_is_refused_with_its_size(k):
    with pytest.raises(IndexError, match=f"example={k} is out of range.*5 examples, "
                                         f"numbered 0 to 4"):
        choose_example([_batch((5,))], k)


def test_a_graph_with_no_batch_refuses_any_example():
    with pytest.raises(ValueError, match="no value of this graph is batched"):
        choose_example([np.ones(3), 2.0, None], 0)


@pytest.mark.parametrize("bad", [True, 1.5, "2", (), [0, "a"], (1, 2.0)])
def test_what_is_no_index_is_refused_by_type(bad):
    with pytest.raises(TypeError, match="an int, or a tuple of ints"):
        check_example("draw", bad)


def test_a_negative_index_is_refused():
    with pytest.raises(ValueError, match="count from 0"):
        check_example("draw", (0, -1))


def test_nested_vmaps_take_one_index_per_level_outermost_first():
    b = _batch((2, 4), levels=(3, 9))  # outer level 3 (2 examples), inner level 9 (4)
    chosen = choose_example([b], (1, 2))
    np.testing.assert_array_equal(chosen.of(b), b.every_example()[1, 2])
    assert chosen.word(b) == "example (1, 2) of 2 × 4"
    assert chosen.short(b) == "example (1, 2)"


def test_an_int_under_nested_vmaps_picks_the_outermost_and_the_first_inside():
    b = _batch((2, 4), levels=(3, 9))
    chosen = choose_example([b], 1)
    np.testing.assert_array_equal(chosen.of(b), b.every_example()[1, 0])
    assert chosen.word(b) == "example (1, 0) of 2 × 4"


def test_a_value_of_the_inner_vmap_alone_is_picked_by_the_inner_index():
    nested = _batch((2, 4), levels=(3, 9))
    inner_only = _batch((4,), levels=(9,), seed=1)  # (an input only the inner vmap maps)
    outer_only = _batch((2,), levels=(3,), seed=2)
    chosen = choose_example([nested, inner_only, outer_only], (1, 3))
    np.testing.assert_array_equal(chosen.of(inner_only), inner_only.value[3])
    np.testing.assert_array_equal(chosen.of(outer_only), outer_only.value[1])
    assert chosen.word(inner_only) == "example 3 of 4"


def test_nested_indices_are_each_checked_and_the_level_named():
    b = _batch((2, 4), levels=(3, 9))
    with pytest.raises(IndexError, match=r"index 1: the innermost vmap.*4 examples"):
        choose_example([b], (1, 4))
    with pytest.raises(IndexError, match=r"index 0: the outermost vmap.*2 examples"):
        choose_example([b], (2, 0))
    with pytest.raises(ValueError, match="3 indices.*nest 2 deep"):
        choose_example([b], (0, 0, 0))
