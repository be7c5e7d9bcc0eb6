"""The stepper and the player on a built-in-layout picture."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

import minigrad as mg
import viz
from tests.viz._builtin_pictures import (
    groups,
)
from viz.stepper.stepper import Stepper, step_through


def test_stepper_templates_every_element_of_the_builtin_picture():
    x = mg.Tensor([[1.0, -2.0], [3.0, 0.5]], requires_grad=True, name="x")
    s = step_through(lambda x: (x * x).relu().sum(), x, layout="builtin", show_saved=True)
    t = s.template
    assert t is not None and t.missing == [] and s.note is None
    assert set(t.grad_nodes) == {f"n_{n.id}" for n in s.frames.nodes if n.requires_grad}
    assert t.companions  # saved values restyled with their node
    for i in range(len(s)):
        root = ET.fromstring(s.render_svg(i))
        found = groups(root)
        for el, cls in s.frames.classes(i).items():
            assert found[el].get("class").split()[-len(cls.split()):] == cls.split()
    svg = s.render_svg()
    assert "mg-s" in svg and "data-mg-grad=" in svg  # what the player restyles


def test_player_page_from_the_builtin_picture(tmp_path):
    tape_s = step_through(lambda a, b: a * b + a, 2.0, 3.0, layout="builtin")
    with_picture = tape_s.to_html()
    assert with_picture.count("<svg") == 1 and 'class="mg-nograph"' not in with_picture
    page = viz.export_html(tape_s, tmp_path / "p.html").read_text(encoding="utf-8")
    assert 'class="node op output scalar' in page and "data-mg-grad" in page


def test_stepper_rejects_an_unknown_layout_at_the_call():
    tape_s = step_through(lambda a: a * 2, 1.0, layout="builtin")
    assert isinstance(tape_s, Stepper) and tape_s.options.layout == "builtin"
    with pytest.raises(ValueError, match="layout must be one of"):
        step_through(lambda a: a * 2, 1.0, layout="neato")
