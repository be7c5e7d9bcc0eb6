"""The built-in layout puts module frames (and a rank's nodes) in the model's order where
crossings leave it free (``viz.layout.crossings``): ``layers.0`` before ``layers.1``,
``layers.9`` before ``layers.10``, never at the cost of a crossing.  Checked on the order
itself and on real models' pictures, positions read from the SVG."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET

import pytest

import viz
from minigrad import Value, nn
from minigrad.nn.neurons import MLP
from viz.layout.crossings import RankOrder, natural
from viz.render.view import cluster_key

from .._scoped_models import cnn, demo, digits_mlp

SVG = "{http://www.w3.org/2000/svg}"


def test_natural_compares_numbers_as_numbers():
    paths = [("layers", "10"), ("layers", "9"), ("layers", "b"), ("layers", "0")]
    assert sorted(paths, key=natural) == [("layers", "0"), ("layers", "9"), ("layers", "10"),
                                          ("layers", "b")]


def siblings(names, fan_in=True):
    """One source per sibling cluster, each feeding one sink: any order is crossing-free."""
    sources = [f"s{k}" for k in range(len(names))]
    scope = {s: ("layers", name) for s, name in zip(sources, names)}
    scope["sink"] = ()
    return [sources[::-1], ["sink"]], scope, [(s, "sink") for s in sources]


@pytest.mark.parametrize("names", [["0", "1", "2"], ["0", "2", "1"], ["9", "10", "11", "2"]])
def test_tied_sibling_clusters_come_in_the_models_order(names):
    order, scope, segments = siblings(names)
    best = RankOrder(order, scope, segments).run()
    got = [scope[it][1] for it in best[0]]
    assert got == sorted(names, key=lambda n: int(n))


def test_nodes_of_a_rank_keep_the_order_they_were_made_in_when_free():
    # a, b, c feed one sink: the sweeps see a tie; the mirror image is as good
    order = [["a", "b", "c"], ["z"]]
    scope = {it: () for rank in order for it in rank}
    for start in (order, [["a", "b", "c"][::-1], ["z"]]):
        best = RankOrder([list(r) for r in start], scope, [(x, "z") for x in "abc"]).run()
        assert best[0] == start[0]  # (made in the order given)


def test_the_models_order_never_costs_a_crossing():
    # two clusters whose edges would cross if they took the model's order
    order = [["b0", "a0"], ["a1", "b1"]]
    scope = {"a0": ("m", "1"), "a1": (), "b0": ("m", "0"), "b1": ()}
    segments = [("a0", "a1"), ("b0", "b1")]
    best = RankOrder([list(r) for r in order], scope, segments).run()
    pos = {it: j for rank in best for j, it in enumerate(rank)}
    assert (pos["a0"] - pos["b0"]) * (pos["a1"] - pos["b1"]) > 0  # still no crossing
    assert best[0] == ["b0", "a0"] or best[1] == ["a1", "b1"]  # model order where it can


def test_the_chosen_order_has_no_more_crossings_than_the_sweeps_best():
    rng = random.Random(3)
    for _ in range(20):
        ranks = [[f"r{r}n{i}" for i in range(6)] for r in range(4)]
        scope = {it: (("m", str(rng.randrange(3))) if rng.random() < 0.7 else ())
                 for rank in ranks for it in rank}
        segments = [(a, rng.choice(ranks[r + 1])) for r in range(3) for a in ranks[r]]
        plain = RankOrder([list(r) for r in ranks], scope, segments)
        plain.made = {}
        sweeps, _ = plain._sweeps(plain._gkeys)
        chosen = RankOrder([list(r) for r in ranks], scope, segments)
        assert chosen._crossings(chosen.run()) <= sweeps


# --------------------------------------------------------------------- real models


def frames(svg: str) -> dict:
    out = {}
    for g in ET.fromstring(svg).iter(f"{SVG}g"):
        rect = g.find(f"{SVG}rect")
        if "cluster" in (g.get("class") or "") and rect is not None:
            x, y, w, h = (float(rect.get(k)) for k in ("x", "y", "width", "height"))
            out[g.get("id")] = (x, y, x + w, y + h)
    return out


def out_of_order(g) -> list:
    """Sibling frames (``a`` before ``b`` in the model) side by side in some rank with
    ``b`` first across the picture (left of ``a`` drawn top to bottom, above it drawn
    left to right)."""
    boxes = frames(g.svg())
    across, along = (1, 0) if "rankdir=LR" in g.source else (0, 1)
    kids: dict = {}
    for c in g.view.clusters:
        kids.setdefault(c.path[:-1], []).append(c.path)
    bad = []
    for paths in kids.values():
        paths.sort(key=natural)
        for i, a in enumerate(paths):
            for b in paths[i + 1:]:
                A, B = boxes[cluster_key(a)], boxes[cluster_key(b)]
                side_by_side = min(A[along + 2], B[along + 2]) - max(A[along], B[along]) > 1
                if side_by_side and A[across] > B[across]:
                    bad.append((".".join(a), ".".join(b)))
    return bad


def scalar_mlp(sizes):
    model = MLP(2, list(sizes), rng=random.Random(0))
    with nn.record_scopes() as scopes:
        out = model([Value(0.5), Value(-1.0)])
    out.backward()
    return out, scopes


@pytest.mark.parametrize("make, overview", [
    (digits_mlp, False),  # the second Linear beside the ReLU it follows: drawn below it
    (cnn, True),  # each Conv2d's weights beside the layer before
    (demo, True),  # micrograd's demo: param × 48, × 272, × 17 side by side
    (lambda: scalar_mlp((3, 3, 3, 3, 1)), True),
    (lambda: scalar_mlp((16, 16, 1)), False),  # 979 nodes, each neuron framed
])
def test_real_models_frames_follow_the_model_in_the_builtin_layout(make, overview):
    root, scopes = make()
    g = viz.draw(root, scopes=scopes, overview=overview, layout="builtin")
    assert len(g.view.clusters) >= 3
    assert out_of_order(g) == []
