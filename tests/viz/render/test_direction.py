"""``rankdir="auto"`` (``viz.render.direction``): the drawing direction chosen from the
graph's shape."""

from __future__ import annotations

import random
import re

import pytest

import viz
from minigrad import Value
from minigrad.nn.neurons import MLP
from tests._graphs import neuron
from viz.render.direction import TARGET_PT, choose_rankdir, estimate, label_size, ranks


def scalar_mlp(sizes=(4, 4, 1)):
    model = MLP(3, list(sizes), rng=random.Random(0))
    x = [Value(v, label=f"x{i}") for i, v in enumerate((0.5, -1.0, 2.0))]
    loss = (model(x) - 1.0) ** 2
    loss.backward()
    return model, loss


def rankdir_of(graph) -> str:
    return re.search(r"rankdir=(\w+)", graph.source).group(1)


def rows_of(graph, node) -> int:
    """How many table rows the node's label has (DOT source we write, not dot's output)."""
    line = next(x for x in graph.source.splitlines() if x.strip().startswith(f"n_{node.id} ["))
    return line.count("<tr>")


def test_a_small_graph_still_reads_left_to_right():
    o, _ = neuron()
    assert viz.DisplayOptions().rankdir == "auto"
    assert rankdir_of(viz.draw(o)) == "LR"


def test_a_deep_wide_scalar_mlp_reads_top_to_bottom_with_stacked_fields():
    _, loss = scalar_mlp()
    g = viz.draw(loss, params=())
    assert len(g.view) == 120
    assert rankdir_of(g) == "TB"
    assert rows_of(g, loss) == 3  # one field a row: op, data, grad
    assert rows_of(viz.draw(loss, rankdir="LR"), loss) == 1  # side by side, as before


def test_an_explicit_rankdir_wins():
    _, loss = scalar_mlp()
    assert rankdir_of(viz.draw(loss, rankdir="LR")) == "LR"
    assert rankdir_of(viz.draw(loss, options=viz.DisplayOptions(rankdir="BT"))) == "BT"
    o, _ = neuron()
    assert rankdir_of(viz.draw(o, rankdir="TB")) == "TB"


def test_a_bad_rankdir_names_auto_among_the_choices():
    with pytest.raises(ValueError, match="'auto'"):
        viz.draw(Value(1.0) * 2.0, rankdir="sideways")


def test_label_size_grows_with_text_and_rows():
    one = "<table><tr><td>data 1.0</td></tr></table>"
    longer = "<table><tr><td>data 1.000000000</td></tr></table>"
    side = "<table><tr><td>data 1.0</td><td>grad 2.0</td></tr></table>"
    stacked = "<table><tr><td>data 1.0</td></tr><tr><td>grad 2.0</td></tr></table>"
    assert label_size(longer)[0] > label_size(one)[0]
    assert label_size(side)[0] > label_size(stacked)[0]
    assert label_size(stacked)[1] > label_size(side)[1]
    lines = '<table><tr><td>a<br align="left"/>b</td></tr></table>'
    assert label_size(lines)[1] > label_size(one)[1]


def test_ranks_put_a_leaf_just_before_its_first_consumer():
    # a -> b -> c -> d, and a leaf w feeding d only
    edges = [("a", "b"), ("b", "c"), ("c", "d"), ("w", "d")]
    r = ranks("abcdw", edges)
    assert [r[k] for k in "abcd"] == [0, 1, 2, 3]
    assert r["w"] == 2


def test_a_long_chain_of_wide_nodes_goes_top_to_bottom_a_short_fan_stays_left_to_right():
    wide = (200.0, 30.0)
    chain = [f"n{i}" for i in range(12)]
    sizes = {k: wide for k in chain}
    edges = list(zip(chain, chain[1:]))
    assert estimate(sizes, ranks(chain, edges), "LR")[0] > TARGET_PT
    assert choose_rankdir(sizes, sizes, edges) == "TB"
    fan = ["out"] + [f"x{i}" for i in range(12)]
    sizes = {k: wide for k in fan}
    edges = [(k, "out") for k in fan[1:]]
    assert choose_rankdir(sizes, sizes, edges) == "LR"


def test_a_deep_chain_is_ranked_without_recursion():
    chain = list(range(5000))
    r = ranks(chain, list(zip(chain, chain[1:])))
    assert r[4999] == 4999
