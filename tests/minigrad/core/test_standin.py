"""What the core knows of arrays that stand for arrays (vmap's batches)."""

from __future__ import annotations

import numpy as np
import pytest

from minigrad.core.standin import ARRAYS, StandIn, StandInRefused, per_example


class Doubled(StandIn):
    """A toy stand-in: it loops by calling ``fn`` twice."""

    @classmethod
    def per_example(cls, name, fn, args):
        return [fn(*args), fn(*args)]


def test_arrays_are_ndarrays_and_stand_ins():
    assert isinstance(np.zeros(2), ARRAYS) and isinstance(Doubled(), ARRAYS)
    assert not isinstance(1.0, ARRAYS)


def test_a_stand_in_shares_its_contributions_unchanged_by_default():
    s = Doubled()
    assert s.share_for(s, 3) is s


def test_per_example_asks_the_first_stand_in_and_refuses_without_one():
    assert per_example("f", lambda a, b, c: c, (1, Doubled(), 2)) == [2, 2]
    with pytest.raises(StandInRefused, match="f: refused"):
        per_example("f", lambda a: a, (np.zeros(2),))
    with pytest.raises(NotImplementedError):
        StandIn.per_example("f", lambda: None, ())
    with pytest.raises(NotImplementedError):  # (minigrad.memory asks it what it holds)
        Doubled().every_example()


def test_per_example_finds_a_stand_in_inside_tuples_and_lists():
    assert per_example("f", lambda a, b: b, ((1, [Doubled()]), 2)) == [2, 2]
