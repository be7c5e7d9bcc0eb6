"""Saved values by name (``SavedItem``): the drawing (both layouts), the DOT text and the
text tree say ``shape = (3, 4)``, ``a = input 0``, ``out``, never a bare ``saved[0]``
where the op's rules name it; ids stay ``s_<id>_<k>``."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest

import minigrad as mg
import viz
from minigrad import Value
from minigrad.nn.functional import fused
from viz.render.view import SavedItem, build_view

SVG = "{http://www.w3.org/2000/svg}"
LAYOUTS = ["builtin", pytest.param("dot", marks=pytest.mark.skipif(
    not viz.dot_available(), reason="graphviz 'dot' not available"))]


def saved_texts(svg: str) -> dict[str, list[str]]:
    """Each saved value's box: its text rows, by id."""
    root = ET.fromstring(svg)
    return {g.get("id"): [t.text for t in g.iter(f"{SVG}text")]
            for g in root.iter(f"{SVG}g") if g.get("id", "").startswith("s_")}


def test_a_saved_item_reads_name_then_what_it_is():
    aliased = SavedItem("s_3_0", 0, "(3, 4) float32", "input 0", "x")
    assert aliased.rows == ["x = input 0", "(3, 4) float32"]
    assert aliased.line == "x = input 0: (3, 4) float32"
    out = SavedItem("s_3_1", 1, "-0.7616", "out", "out")
    assert out.rows == ["out", "-0.7616"] and out.line == "out: -0.7616"
    plain = SavedItem("s_3_2", 2, "(3, 4)", None, "shape")
    assert plain.rows == ["shape = (3, 4)"] and plain.line == plain.head == "shape = (3, 4)"
    unnamed = SavedItem("s_3_3", 3, "0", None)
    assert unnamed.name == "saved[3]" and unnamed.rows == ["saved[3] = 0"]


def test_the_view_names_each_op_s_saved_values_by_its_rule():
    x = mg.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
    w = mg.tensor(np.ones((4, 2)), requires_grad=True)
    h = (x @ w).tanh()
    y = mg.cat([h, h * 2.0], axis=1).sum(axis=1)
    view = build_view(y, show_saved=True)
    heads = {vn.op: [s.head for s in vn.saved] for vn in view.nodes if vn.op}
    assert heads["matmul"] == ["a = input 0", "b = input 1"]
    assert heads["tanh"] == ["out"]
    assert heads["cat"] == ["lengths[0] = 2", "lengths[1] = 2"]
    assert heads["sum"] == ["shape = (3, 4)"]
    for vn in view.nodes:  # the ids are the positions, as before
        assert [s.key for s in vn.saved or ()] == [f"s_{vn.id}_{k}"
                                                   for k in range(len(vn.saved or ()))]


def test_an_op_whose_rules_do_not_name_them_shows_indices():
    x = mg.tensor(np.ones((2, 3)), requires_grad=True)
    w = mg.tensor(np.ones((4, 3)), requires_grad=True)
    b = mg.tensor(np.ones(4), requires_grad=True)
    y = fused.linear_relu(x, w, b)  # (fused: its rules take *saved)
    (vn,) = [vn for vn in build_view(y, show_saved=True).nodes if vn.op == "linear_relu"]
    assert [s.name for s in vn.saved] == ["saved[0]", "saved[1]", "saved[2]"]
    assert vn.saved[0].head == "saved[0] = input 0" and vn.saved[2].head == "saved[2] = out"


@pytest.mark.parametrize("layout", LAYOUTS)
def test_the_drawing_writes_the_names_in_each_box(layout):
    a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    e = a * b
    t = e.tanh()
    boxes = saved_texts(viz.draw(t, show_saved=True, layout=layout).svg())
    assert boxes[f"s_{e.id}_0"] == ["a = input 0", "2.0000"]
    assert boxes[f"s_{e.id}_1"] == ["b = input 1", "-3.0000"]
    assert boxes[f"s_{t.id}_0"] == ["out", "-1.0000"]
    x = mg.tensor(np.ones((3, 4)), requires_grad=True)
    s = x.sum(axis=0)
    boxes = saved_texts(viz.draw(s, show_saved=True, layout=layout).svg())
    assert boxes == {f"s_{s.id}_0": ["shape = (3, 4)"]}  # one row: its value is the text


def test_the_dot_text_writes_the_same_rows():
    a, b = Value(2.0), Value(-3.0)
    e = a * b
    src = viz.draw(e, show_saved=True).source
    line = next(ln for ln in src.splitlines() if ln.strip().startswith(f"s_{e.id}_1 "))
    assert ">b = input 1<" in line and ">-3.0000<" in line


def test_the_text_tree_lists_them_by_name():
    x = mg.tensor(np.ones((2, 2)), requires_grad=True)
    text = viz.text(x.exp().sum(), show_saved=True, show_grad=False)
    assert "saved=(shape = (2, 2))" in text and "saved=(out: [[2.7183" in text
