"""Which layout ``viz.draw`` uses (``layout=``, ``MINIGRAD_LAYOUT``), and saving a
built-in picture."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

import viz
from minigrad import Value
from tests.viz._builtin_pictures import (
    SVG,
    _neuron,
    groups,
)
from viz.render.draw import layout_engine


def test_choosing_the_layout(monkeypatch, tmp_path):
    monkeypatch.delenv("MINIGRAD_LAYOUT", raising=False)
    assert layout_engine("builtin") == "builtin" and layout_engine("dot") == "dot"
    monkeypatch.setenv("MINIGRAD_LAYOUT", "builtin")
    assert not viz.dot_available()  # hidden, as on a machine without graphviz
    assert layout_engine("auto") == "builtin"
    assert layout_engine("dot") == "dot"  # an explicit choice wins (and then fails clearly)
    with pytest.raises(viz.DotNotFoundError, match="MINIGRAD_LAYOUT=builtin"):
        viz.draw(Value(1.0) * 2.0, layout="dot").svg()
    monkeypatch.setenv("MINIGRAD_LAYOUT", "auto")
    monkeypatch.setenv("PATH", str(tmp_path))
    assert layout_engine("auto") == "builtin"
    monkeypatch.setenv("MINIGRAD_LAYOUT", "graphviz")
    with pytest.raises(ValueError, match="MINIGRAD_LAYOUT='graphviz' must be one of"):
        layout_engine("auto")
    with pytest.raises(ValueError, match="layout must be one of"):
        viz.draw(Value(1.0), layout="neato")
    with pytest.raises(ValueError, match="layout must be one of"):
        viz.DisplayOptions(layout="fast")


def test_builtin_picture_saves_as_svg_and_refuses_png_without_dot(monkeypatch, tmp_path):
    monkeypatch.setenv("MINIGRAD_LAYOUT", "builtin")
    g = _neuron()
    assert g.layout == "builtin"
    root = ET.parse(g.save(tmp_path / "n.svg")).getroot()
    assert root.tag == f"{SVG}svg" and len(groups(root)) == 19
    with pytest.raises(viz.DotNotFoundError, match=r"PDF needs graphviz.*save as \.svg"):
        g.save(tmp_path / "n.pdf")
    assert "built-in layout" in g._repr_html_()
    assert "built-in layout" not in _neuron(layout="builtin")._repr_html_()  # asked for it
