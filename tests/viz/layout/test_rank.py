"""Ranks of the built-in layout (``viz.layout.rank``): the shortest edges in total, as
``dot`` ranks, checked against every ranking of small graphs."""

from __future__ import annotations

import itertools
import random

import pytest

from viz.layout.rank import tighten


def longest_path(n: int, edges: list) -> dict:
    """A feasible start: each node one rank after its latest input (nodes in topological order)."""
    rank: dict = {}
    for b in range(n):
        rank[b] = max([rank[a] + 1 for a, c in edges if c == b], default=0)
    return rank


def length(rank: dict, edges: list) -> int:
    return sum(rank[b] - rank[a] for a, b in edges)


def shortest_by_search(n: int, edges: list) -> int:
    """The least total edge length over every ranking with ranks below ``n``."""
    return min(length(dict(enumerate(r)), edges) for r in itertools.product(range(n), repeat=n)
               if all(r[b] > r[a] for a, b in edges))


def random_dag(seed: int, most: int = 6) -> tuple[int, list]:
    rng = random.Random(seed)
    n = rng.randint(2, most)
    edges = [(a, b) for a in range(n) for b in range(a + 1, n) if rng.random() < 0.45]
    if edges and rng.random() < 0.3:
        edges.append(edges[0])  # a parallel edge (x*x) counts twice
    return n, edges


@pytest.mark.parametrize("seed", range(40))
def test_the_total_edge_length_is_the_least_any_ranking_gives(seed):
    n, edges = random_dag(seed)
    rank = tighten(longest_path(n, edges), edges)
    assert all(rank[b] > rank[a] for a, b in edges)
    assert min(rank.values()) == 0
    assert length(rank, edges) == shortest_by_search(n, edges)


def test_a_neurons_products_sit_just_before_the_sum_that_takes_them():
    """``((w0*x0 + b) + w1*x1) + w2*x2``: longest path puts the three products in one rank."""
    edges = [("w0", "p0"), ("x0", "p0"), ("w1", "p1"), ("x1", "p1"), ("w2", "p2"), ("x2", "p2"),
             ("p0", "s0"), ("b", "s0"), ("s0", "s1"), ("p1", "s1"), ("s1", "s2"), ("p2", "s2")]
    keys = ["w0", "x0", "w1", "x1", "w2", "x2", "b", "p0", "p1", "p2", "s0", "s1", "s2"]
    start = {k: 0 for k in keys}
    for a, b in edges * 3:  # (the edges are listed tail first: three passes settle them)
        start[b] = max(start[b], start[a] + 1)
    assert start["p0"] == start["p1"] == start["p2"]
    rank = tighten(start, edges)
    for p, s in (("p1", "s1"), ("p2", "s2")):
        assert rank[p] == rank[s] - 1
    for w, x, p in (("w1", "x1", "p1"), ("w2", "x2", "p2")):
        assert rank[w] == rank[x] == rank[p] - 1
    assert length(rank, edges) == len(edges)  # every edge one rank long


def test_separate_pieces_are_each_ranked_from_zero_up():
    edges = [("a", "b"), ("b", "c"), ("a", "c"), ("x", "y"), ("z", "y")]
    rank = tighten({"a": 0, "b": 1, "c": 2, "x": 0, "z": 3, "y": 4}, edges)
    assert (rank["a"], rank["b"], rank["c"]) == (0, 1, 2)
    assert rank["x"] == rank["z"] == rank["y"] - 1
    assert tighten({"q": 5}, []) == {"q": 0}  # a lone node


def test_a_node_free_to_move_goes_to_the_least_crowded_rank():
    """``m`` (one edge in, one out) costs the same on ranks 1 to 3; rank 1 is the crowded one."""
    edges = [("s", "m"), ("m", "t"), ("s", "x1"), ("s", "y1"), ("x1", "x2"), ("y1", "x2"),
             ("x2", "x3"), ("x3", "t")]
    start = {"s": 0, "m": 1, "x1": 1, "y1": 1, "x2": 2, "x3": 3, "t": 4}
    rank = tighten(start, edges)
    assert length(rank, edges) == length(start, edges)
    assert rank["m"] in (2, 3)


def test_a_deep_chain_is_ranked_without_recursion():
    n = 5000
    edges = [(i, i + 1) for i in range(n - 1)] + [(0, n - 1)]
    rank = tighten({i: i for i in range(n)}, edges)
    assert rank == {i: i for i in range(n)}
