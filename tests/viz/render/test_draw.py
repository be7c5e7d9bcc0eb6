"""``viz.draw``: the ``Graph`` it returns, its guards, display and files, and life without
``dot``."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

import viz
from minigrad import Value
from tests._graphs import neuron

SVG = "{http://www.w3.org/2000/svg}"
needs_dot = pytest.mark.skipif(not viz.dot_available(), reason="graphviz 'dot' not installed")


def groups(svg: str) -> dict[str, ET.Element]:
    """Every <g> with an id, by id."""
    root = ET.fromstring(svg)
    return {g.get("id"): g for g in root.iter(f"{SVG}g") if g.get("id")}


# --------------------------------------------------------------------- the Graph and its guards


def test_repr_counts_nodes_and_edges():
    o, _ = neuron()
    assert repr(viz.draw(o)) == "<Graph 10 nodes, 9 edges>"
    x = Value(3.0)
    assert repr(viz.draw(x * x)) == "<Graph 2 nodes, 2 edges>"


def test_options_are_checked():
    y = Value(1.0) * 2.0
    with pytest.raises(ValueError, match="rankdir"):
        viz.draw(y, rankdir="up")
    with pytest.raises(ValueError, match="modules"):
        viz.draw(y, modules="boxes")
    assert "rankdir=TB" in viz.draw(y, rankdir="TB").source


def test_a_graph_over_max_nodes_is_drawn_as_an_overview_that_says_so():
    x = Value(0.1)
    y = x
    for _ in range(300):
        y = y.tanh()
    g = viz.draw(y, max_nodes=100)
    assert repr(g) == "<Graph 4 nodes, 3 edges>"  # x, the first tanh, the fold, the last
    assert "overview=False" in g.view.notes[-1] and "301 nodes" in g.view.notes[-1]
    assert "Overview" in g._repr_html_()
    assert repr(viz.draw(y, overview=False)) == "<Graph 301 nodes, 300 edges>"


def test_ten_thousand_nodes_dot_source_only():
    x = Value(1.0, label="x")
    y = x
    for _ in range(3_400):
        y = y * 1.0001 + x  # 3 nodes and 4 edges per step
    g = viz.draw(y, overview=False)  # DOT text only: laying out 10k nodes would take minutes
    assert repr(g) == "<Graph 10201 nodes, 13600 edges>"
    assert g.source.count(' [id="n_') == 10_201
    assert g.source.count(' [id="e_') == 13_600
    assert g.source == viz.draw(y, overview=False).source


# --------------------------------------------------------------------- display and files


@needs_dot
def test_notebook_display_and_save(tmp_path):
    o, _ = neuron()
    g = viz.draw(o)
    html = g._repr_html_()
    assert html.startswith('<div class="minigrad-graph"') and "<svg" in html
    assert "<?xml" not in html
    assert g._repr_svg_() == g.svg()
    for suffix, magic in ((".svg", b"<?xml"), (".png", b"\x89PNG"), (".pdf", b"%PDF")):
        path = g.save(tmp_path / f"graph{suffix}")
        assert path.read_bytes().startswith(magic)
    ET.parse(tmp_path / "graph.svg")  # a well-formed standalone file
    with pytest.raises(ValueError, match="suffix"):
        g.save(tmp_path / "graph.gif")


def test_missing_dot_draws_with_the_builtin_layout(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty directory: no dot anywhere
    assert not viz.dot_available()
    o, _ = neuron()
    g = viz.draw(o)
    assert repr(g) == "<Graph 10 nodes, 9 edges>"
    assert g.source.startswith("digraph")
    assert g.layout == "builtin"
    html = g._repr_html_()  # a picture, with a note that dot draws nicer ones
    assert html.startswith('<div class="minigrad-graph"') and "<svg" in html
    assert "built-in layout" in html and "apt-get install graphviz" in html
    assert g._repr_svg_() == g.svg()
    drawn = set(groups(g.svg()))
    assert {n.key for n in g.view.nodes} | {e.key for e in g.view.edges} <= drawn
    ET.parse(g.save(tmp_path / "x.svg"))
    with pytest.raises(viz.DotNotFoundError, match=r"save as \.svg"):
        g.save(tmp_path / "x.png")


def test_forcing_missing_dot_falls_back_to_text(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    o, _ = neuron()
    g = viz.draw(o, layout="dot")
    html = g._repr_html_()  # never raises in a notebook
    assert "<pre>tanh o  data=0.7071  grad=—" in html
    assert "apt-get install graphviz" in html and "layout=&#x27;builtin&#x27;" in html
    assert g._repr_svg_() is None
    with pytest.raises(viz.DotNotFoundError, match="apt-get install graphviz"):
        g.svg()


def test_dot_vanishing_after_the_check_is_still_a_clear_error(monkeypatch, tmp_path):
    import viz.render.draw

    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("MINIGRAD_LAYOUT", raising=False)
    monkeypatch.setattr(viz.render.draw, "dot_available", lambda: True)
    g = viz.draw(Value(1.0) * 2.0)
    with pytest.raises(viz.DotNotFoundError, match="graphviz"):
        g.svg()
    assert "<pre>" in g._repr_html_()


def test_a_failing_dot_never_raises_on_display(monkeypatch):
    g = viz.draw(Value(1.0) * 2.0, layout="dot")

    def broken(format="svg"):
        raise RuntimeError("graphviz 'dot' failed on this graph: syntax error")

    monkeypatch.setattr(g, "pipe", broken)
    assert "syntax error" in g._repr_html_() and "<pre>" in g._repr_html_()
    assert g._repr_svg_() is None
    assert viz.render.draw.Graph.pipe is not broken
