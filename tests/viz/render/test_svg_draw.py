"""The built-in SVG (``viz.render.svg_draw``) draws dot's ids and classes.

Expected ids and classes are read from the DOT text (what ``dot`` would draw), so
these tests need no graphviz; with ``dot`` installed the two SVGs are compared too.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

import viz
from minigrad import Value
from tests.viz._builtin_pictures import (
    GRAPHS,
    _builtin_svg,
    dot_elements,
    groups,
    needs_dot,
    redraw,
    texts,
)


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_ids_and_classes_are_the_ones_dot_draws(name):
    g = GRAPHS[name]()
    drawn = {k: v.get("class") for k, v in groups(ET.fromstring(_builtin_svg(g))).items()}
    assert drawn == dot_elements(g.source)
    assert drawn  # (the parse found something)


@needs_dot
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_same_groups_and_node_texts_as_the_dot_picture(name):
    g = GRAPHS[name]()
    by_dot = groups(ET.fromstring(redraw(g, "dot").svg()))
    ours = groups(ET.fromstring(_builtin_svg(g)))
    assert {k: v.get("class") for k, v in ours.items()} == {
        k: v.get("class") for k, v in by_dot.items()}
    for key, group in ours.items():
        if group.get("class").startswith(("node", "cluster")):
            assert texts(group) == texts(by_dot[key]), key


def test_highlighted_nodes_and_edges_keep_their_classes():
    a, b = Value(2.0, label="a"), Value(3.0, label="b")
    c = a - b
    t = c.tanh()
    found = groups(ET.fromstring(viz.draw(t, highlight=[c, t], layout="builtin").svg()))
    assert found[f"n_{c.id}"].get("class") == "node op intermediate scalar highlight"
    assert found[f"e_{t.id}_{c.id}_0"].get("class") == "edge data highlight"
    assert found[f"e_{c.id}_{a.id}_0"].get("class") == "edge data"
    assert "#dc2626" in ET.tostring(found[f"n_{c.id}"], encoding="unicode")
