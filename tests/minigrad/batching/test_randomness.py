"""batching.randomness: a draw of one example's shape made per example at each "different"
vmap level, fills that have no room for a batch refused, and chunks rewound under "same"."""

from __future__ import annotations

import numpy as np
import pytest

from minigrad.batching import BatchedArray, BatchingError
from minigrad.batching.randomness import (
    check_fill,
    draw_per_example,
    levels_of,
    note_generator,
    same_draws_per_chunk,
)
from minigrad.batching.state import batching


def _recording(shapes):
    def sample(size):
        shapes.append(size)
        return np.random.default_rng(0).standard_normal(size)
    return sample


def test_outside_different_vmaps_a_draw_is_one_examples_shape():
    shapes = []
    out = draw_per_example(_recording(shapes), (2, 3))
    assert isinstance(out, np.ndarray) and out.shape == (2, 3) and shapes == [(2, 3)]
    with batching(21, "same", 5):  # ("same" adds no batch axis: one draw, shared)
        assert draw_per_example(_recording(shapes), (2, 3)).shape == (2, 3)


def test_each_different_level_adds_its_batch_axis_outermost_first():
    shapes = []
    with batching(31, "different", 4), batching(32, "same", 7), batching(33, "different", 2):
        out = draw_per_example(_recording(shapes), (3,))
    assert shapes == [(4, 2, 3)]  # one call to the generator for every example
    # the inner level wraps the outer one, as vmap nests its inputs
    assert isinstance(out, BatchedArray) and out.level == 33 and out.shape == (3,)
    assert isinstance(out.value, BatchedArray) and out.value.level == 31
    assert out.value.value.shape == (4, 2, 3)
    assert levels_of(out) == {31, 33} and levels_of(np.zeros(3)) == set()


def test_explicit_levels_replay_a_draw_without_a_running_vmap():
    out = draw_per_example(lambda size: np.zeros(size), (3,), [(41, 5)])
    assert out.level == 41 and out.value.shape == (5, 3)


def test_a_fill_needs_an_array_batched_at_every_different_level():
    plain = np.zeros((2, 3))
    check_fill("xavier_normal_", plain)  # outside vmap: nothing to check
    with batching(51, "same", 4):
        check_fill("xavier_normal_", plain)  # one draw fits any array
    with batching(52, "different", 4):
        with pytest.raises(BatchingError, match=r"xavier_normal_.*shape \(2, 3\).*'same'"):
            check_fill("xavier_normal_", plain)
        check_fill("xavier_normal_", BatchedArray(np.zeros((4, 2, 3)), 52))
    with batching(53, "error", 4), pytest.raises(BatchingError, match="randomness='error'"):
        check_fill("xavier_normal_", plain)


def test_same_draws_per_chunk_rewinds_the_generators_drawn_from():
    g, h = np.random.default_rng(1), np.random.default_rng(2)
    with same_draws_per_chunk(True) as rewind:
        note_generator(g)
        first = g.random(3)
        note_generator(g)  # (a second draw in the chunk: the first state is kept)
        g.random(2)
        rewind()
        np.testing.assert_array_equal(g.random(3), first)
    before = h.bit_generator.state
    note_generator(h)  # (no tape running: nothing remembered)
    h.random(1)
    with same_draws_per_chunk(False) as rewind:
        rewind()
    assert h.bit_generator.state != before
