"""A torch step-through names what each Node saved (``read_saved_values``): the drawing's
boxes, the click panel and the static drawing of the same graph agree, key for key."""

from __future__ import annotations

import re

import pytest

import viz
from viz.render.saved_boxes import saved_boxes
from viz.render.torch_graph import torch_view

torch = pytest.importorskip("torch", reason="torch is optional: torch step-through is tested "
                                             "with it")


def inputs():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(3, 4, generator=g, requires_grad=True)
    w = torch.randn(4, 2, generator=g, requires_grad=True)
    return x, w


def f(x, w):
    return torch.cat([x.mm(w), x[:, :2]], dim=0).sum(dim=1).sum()


def boxes(svg: str) -> dict[str, str]:
    """Each saved value's first row, by id (``s_<id>_<k>``)."""
    return dict(re.findall(r'<g id="(s_\d+_\d+)"[^>]*>.*?<text[^>]*>([^<]*)<', svg,
                           flags=re.S))


def test_the_stepper_names_each_saved_value_by_its_attribute():
    s = viz.step_through(f, *inputs(), show_saved=True, layout="builtin")
    info = {i["k"]: i["s"] for i in s.node_info()}
    assert info["SumBackward1"] == ["dim = (1,)", "keepdim = False", "self_sym_sizes = (6, 2)"]
    assert info["CatBackward0"] == ["dim = 0"]
    mm = info["MmBackward0"]
    assert mm[:2] == ["self = input 0: (3, 4) float32", "mat2 = input 1: (4, 2) float32"]
    drawn = boxes(s.render_svg(0))
    cat = next(n for n in s.frames.nodes if n.op is not None and n.op.name == "CatBackward0")
    assert drawn[f"s_{cat.id}_0"] == "dim = 0"


def test_the_stepper_and_the_static_drawing_give_each_key_the_same_name():
    x, w = inputs()
    # (a node's settings share one box, the id of the first: viz.render.saved_boxes)
    static = {b.key: b.rows[0].split(" = ")[0] for vn in torch_view(
        f(x, w), show_saved=True).nodes for b in saved_boxes(vn.saved or ())}
    stepped = viz.step_through(f, *inputs(), show_saved=True, layout="builtin")
    drawn = boxes(stepped.render_svg(0))
    assert set(drawn) == set(static) and len(static) >= 6
    for key, name in static.items():
        assert drawn[key].split(" = ")[0] == name, key
