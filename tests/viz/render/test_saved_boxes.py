"""A node's saved values as the pictures box them (``viz.render.saved_boxes``): each array
its own box, two or more settings one box with a row each, keyed by the first."""

from __future__ import annotations

import re

import pytest

import minigrad as mg
import viz
from viz.render.saved_boxes import saved_boxes
from viz.render.view import SavedItem


def item(k, name, text, alias=None, setting=False):
    return SavedItem(f"s_7_{k}", k, text, alias, name, setting)


def test_settings_share_one_box_and_arrays_keep_theirs():
    items = [item(0, "self", "(3, 4) float32", "input 0"), item(1, "mat2", "(4, 2) float32"),
             item(2, "sizes", "(4, 2)", setting=True), item(3, "strides", "(2, 1)", setting=True)]
    got = saved_boxes(items)
    assert [b.key for b in got] == ["s_7_0", "s_7_1", "s_7_2"]
    assert [list(b.rows) for b in got] == [["self = input 0", "(3, 4) float32"],
                                           ["mat2 = (4, 2) float32"],
                                           ["sizes = (4, 2)", "strides = (2, 1)"]]


def test_one_setting_keeps_its_own_box():
    items = [item(0, "x", "[1.0, 2.0]", "input 0"), item(1, "dim", "0", setting=True)]
    assert [list(b.rows) for b in saved_boxes(items)] == [["x = input 0", "[1.0, 2.0]"],
                                                         ["dim = 0"]]


def test_minigrad_marks_shapes_and_axes_as_settings_and_arrays_not():
    x = mg.Tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = (x * x).sum(axis=1)
    view = viz.build_view(y, show_saved=True)
    for vn in view.nodes:
        for s in vn.saved or ():
            assert s.setting == (s.alias is None and not s.text.endswith(("float64", "]"))), s


def test_a_torch_mm_draws_its_sizes_and_strides_in_one_box():
    torch = pytest.importorskip("torch")
    x = torch.randn(3, 4, requires_grad=True)
    w = torch.randn(4, 2, requires_grad=True)
    g = viz.draw((x @ w).sum(), show_saved=True, layout="builtin")
    (mm,) = [vn for vn in g.view.nodes if vn.op == "MmBackward0"]
    assert len(mm.saved) == 6  # the view keeps each value (the text tree, the panel)
    svg = g.svg()
    drawn = re.findall(rf'<g id="(s_{mm.id}_\d+)"', svg)
    assert len(drawn) == 3  # self, mat2, and one box of settings
    settings = [s for s in mm.saved if s.setting]
    box = svg.split(f'<g id="{settings[0].key}"')[1].split("</g>")[0]
    assert [t for t in re.findall(r">([^<>]+)</text>", box)] == [s.head for s in settings]
    assert svg.count(f'id="se_{mm.id}_') == 3  # one dashed edge per box
    assert viz.text((x @ w).sum(), show_saved=True).count("_sym_s") == 4 + 1  # (+ the sum's)
