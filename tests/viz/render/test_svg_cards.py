"""Node cards of the built-in SVG (``viz.render.svg_cards``): the rows dot's table has."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from tests.viz._builtin_pictures import (
    SVG,
    _neuron,
    groups,
    texts,
)


@pytest.mark.parametrize("rankdir, rows", [("TB", "stacked"), ("BT", "stacked"), ("LR", 1)])
def test_scalar_nodes_stack_their_fields_top_to_bottom_as_dot_does(rankdir, rows):
    g = _neuron(rankdir=rankdir, layout="builtin")
    found = groups(ET.fromstring(g.svg()))
    for n in g.view.nodes:
        line = next(x for x in g.source.splitlines() if x.strip().startswith(f"{n.key} ["))
        assert line.count("<tr>") == (len(texts(found[n.key])) if rows == "stacked" else rows)
        baselines = {t.get("y") for t in found[n.key].iter(f"{SVG}text")}
        assert len(baselines) == line.count("<tr>")  # one text a row, as in dot's table
