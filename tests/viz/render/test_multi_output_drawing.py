"""A multi-output op is drawn as one op node (class ``multi``) with its out-edges
labelled by output number, in both layouts; the text tree and the stepper show it."""

from __future__ import annotations

import re

import numpy as np
import pytest

import minigrad
import viz
from tests._helpers import leaf
from viz.stepper.frames import Frames
from viz.stepper.stepper import step_through


def _graph():
    x = leaf(np.arange(8.0).reshape(4, 2))
    x.name = "x"
    a, b, c = x.split([1, 2, 1])
    values, indices = b.max(dim=1)
    y = (a.sum() + c.sum()) * values.sum()
    return x, (a, b, c), values, y


def _groups(svg: str) -> dict[str, str]:
    return dict(re.findall(r'<g id="([ens]_[\d_]+)" class="([^"]*)"', svg))


def _edge_texts(svg: str, key: str) -> list[str]:
    group = re.search(rf'<g id="{key}" class="[^"]*">(.*?)</g>', svg, re.S).group(1)
    return [t.strip() for t in re.findall(r"<text[^>]*>([^<]*)</text>", group)]


@pytest.mark.parametrize("layout", ["builtin", pytest.param("dot", marks=pytest.mark.skipif(
    not viz.dot_available(), reason="graphviz 'dot' not available"))])
def test_one_op_node_with_numbered_out_edges(layout):
    x, (a, b, c), values, y = _graph()
    y.backward()
    split = a.parents[0]
    svg = viz.draw(y, layout=layout).svg()
    groups = _groups(svg)
    assert "multi" in groups[f"n_{split.id}"].split()
    multis = [k for k, cls in groups.items() if "multi" in cls.split()]
    assert len(multis) == 2  # split and max(dim=)
    for k, out in enumerate((a, b, c)):
        key = f"e_{out.id}_{split.id}_0"
        assert "output_nr" in groups[key].split()
        assert _edge_texts(svg, key) == [str(k)]
    # an ordinary edge carries no number unless edge_labels asks
    assert _edge_texts(svg, f"e_{split.id}_{x.id}_0") == []


def test_the_dot_source_labels_out_edges_and_shows_the_outputs_shapes():
    x, (a, b, c), values, y = _graph()
    split = a.parents[0]
    src = viz.draw(y).source
    line = next(s for s in src.splitlines() if s.strip().startswith(f"n_{split.id} ["))
    assert "→ 3 outputs: (1, 2) · (2, 2) · (1, 2)" in line
    assert "grad" not in line  # each output shows its own gradient
    assert f'id="e_{c.id}_{split.id}_0", class="data output_nr", headlabel="2"' in src


def test_the_text_tree_prints_the_op_once_with_its_outputs():
    x, (a, b, c), values, y = _graph()
    text = viz.text(y)
    assert text.count("split[1, 2, 1]  data=→ 3 outputs") == 1
    assert "[0]" in text and "[2]" in text


def test_the_stepper_replays_a_backward_pass_through_a_record():
    x, (a, b, c), values, y = _graph()
    with minigrad.record() as tape:
        y.backward()
    fr = Frames(tape, "backward")
    split = a.parents[0]
    texts = [fr.frames[i].text for i in range(len(fr))]
    assert any("split" in t for t in texts)
    final = fr.grads(len(fr) - 1)
    np.testing.assert_array_equal(final[x.id], x.grad)
    s = step_through(lambda x: x.split(2)[1].sum(), leaf(np.ones((4, 2))), layout="builtin")
    s.goto(len(s.frames) - 1)
    assert split.op.name == "split" and "grad" in s.panel


def test_the_forward_replay_of_outputs_of_unequal_shapes_names_each_shape():
    # (numpy cannot stack (4, 1) and (4, 3): each output step says its own output's shape)
    s = step_through(lambda x: sum(p.sum() for p in x.split([1, 3], dim=1)),
                     leaf(np.ones((4, 4))), layout="builtin", mode="forward")
    texts = [s.frames.frames[i].text for i in range(len(s.frames))]
    assert any("→ 2 outputs: (4, 1) · (4, 3)" in t for t in texts), texts
    for k, shape in enumerate(("(4, 1)", "(4, 3)")):
        assert any(f"[{k}] (output {k} of split)\nshapes {shape} → {shape};" in t
                   for t in texts), texts
