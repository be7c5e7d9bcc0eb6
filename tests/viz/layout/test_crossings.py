"""Step 3 of the built-in layout (``viz.layout.crossings``): the order within each rank
removes the crossings it can, and keeps a module's members together as one block."""

from __future__ import annotations

import random

from viz.layout.crossings import RankOrder, block_of, is_a


def crossings(order: list, segments: list) -> int:
    pos = {it: j for rank in order for j, it in enumerate(rank)}
    return sum(1 for a, b in segments for c, d in segments
               if (pos[a] - pos[c]) * (pos[b] - pos[d]) < 0) // 2


def test_a_crossing_that_can_be_undone_is_undone():
    order = [["a", "b", "c"], ["z", "y", "x"]]
    segments = [("a", "x"), ("b", "y"), ("c", "z")]  # all three cross each other
    scope = {it: () for rank in order for it in rank}
    assert crossings(order, segments) == 3
    best = RankOrder([list(r) for r in order], scope, segments).run()
    assert crossings(best, segments) == 0
    assert [sorted(r) for r in best] == [sorted(r) for r in order]  # same items per rank


def test_a_modules_members_stay_together_in_every_rank():
    rng = random.Random(0)
    ranks = [[f"r{r}n{i}" for i in range(5)] for r in range(3)]
    scope = {it: (("m",) if it.endswith(("n1", "n3")) else ()) for rank in ranks for it in rank}
    segments = [(a, rng.choice(ranks[r + 1])) for r in range(2) for a in ranks[r]]
    best = RankOrder([list(r) for r in ranks], scope, segments).run()
    for rank in best:
        at = [j for j, it in enumerate(rank) if scope[it] == ("m",)]
        assert at == list(range(at[0], at[0] + 2)), rank  # adjacent: one block


def test_what_an_item_is_at_a_clusters_level():
    assert block_of(("m", "0"), "n_3", ()) == ("@", "m")
    assert block_of(("m", "0"), "n_3", ("m",)) == ("@", "m", "0")
    assert block_of(("m", "0"), "n_3", ("m", "0")) == "n_3"
    assert is_a(("~", 1, 2), "~") and not is_a("n_3", "~") and not is_a(("@", "m"), "~")
