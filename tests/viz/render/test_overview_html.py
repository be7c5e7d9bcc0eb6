"""An overview's notebook output embeds its groups opened (``viz.render.overview_html``):
which drawings, how they link, the bounds, and the markup the player's module reads."""

from __future__ import annotations

import json
import re

import pytest

import viz
from viz.assets import module_script
from viz.render.overview_html import MAX_DRAWINGS, expandable_html, expansions

from .test_overview import batch_loss, groups, tanh_chain


def _alts(html: str) -> list:
    return json.loads(re.search(r'<script type="application/json" class="mg-alts">(.*?)</script>',
                                html, re.S).group(1))


def test_each_group_box_leads_to_its_drawing_and_back():
    loss, model = batch_loss(examples=6)
    graph = viz.draw(loss, params=model, overview=True, layout="builtin")
    drawings, skipped = expansions(graph, max_drawings=50)
    assert skipped == 0 and drawings[0].graph is graph and drawings[0].opened == ()
    by_opened = {d.opened: k for k, d in enumerate(drawings)}
    example = by_opened[("example",)]
    key = groups(graph.view)["example × 6"].key
    assert drawings[0].links[key] == example
    opened = drawings[example].graph
    assert groups(opened.view).keys() == groups(viz.draw(
        loss, params=model, expand="example", layout="builtin").view).keys()
    more = groups(opened.view)["example × 5 more"].key
    assert drawings[example].links[more] == 0  # its own box folds it
    # nested: a neuron of the opened example, and every opening of every drawing is linked
    neuron = groups(opened.view)["layers.0.neurons.* × 3"].key
    nested = drawings[drawings[example].links[neuron]]
    assert nested.opened == ("example", "layers.0.neurons.*")
    for d in drawings:
        for n in d.graph.view.nodes:
            if n.kind == "group" and not n.is_leaf and " ×" in n.symbol:
                assert n.key in d.links, (d.opened, n.symbol)
        assert all(key in {n.key for n in d.graph.view.nodes} for key in d.links)


def test_the_bounds_leave_openings_out_and_the_caption_says_so():
    loss, model = batch_loss(examples=6)
    graph = viz.draw(loss, params=model, overview=True, layout="builtin")
    everything, _ = expansions(graph, max_drawings=50)
    assert len(everything) - 1 > MAX_DRAWINGS  # (so the default cap bites below)
    drawings, skipped = expansions(graph)
    assert len(drawings) - 1 == MAX_DRAWINGS
    # left out: the openings a click on an embedded drawing asks for and does not find
    asked = {everything[t].opened for d in everything[:MAX_DRAWINGS + 1] for t in d.links.values()}
    assert skipped == len(asked - {d.opened for d in drawings}) > 0
    assert [d.opened for d in drawings] == [d.opened for d in everything[:MAX_DRAWINGS + 1]]
    small, left = expansions(graph, max_items=len(graph.view.nodes) + 1)
    assert all(len(d.graph.view.nodes) <= len(graph.view.nodes) + 1 for d in small)
    assert left > 0
    none, left = expansions(graph, max_bytes=len(graph.svg()))
    assert len(none) == 1 and left > 0 and none[0].links == {}
    html = graph._repr_html_()
    assert f"{MAX_DRAWINGS} opened drawings embedded; {skipped} more left out" in html


def test_the_output_carries_the_drawings_for_the_players_module():
    loss, model = batch_loss(examples=6)
    graph = viz.draw(loss, params=model, overview=True, layout="builtin")
    html = graph._repr_html_()
    assert html.startswith('<div class="minigrad-graph" data-mg-zoom-pan="1" data-mg-expand="1">')
    data = _alts(html)
    drawings, _ = expansions(graph)
    assert [d["open"] for d in data] == [list(d.opened) for d in drawings]
    for k in range(1, len(drawings)):
        body = re.search(rf'<template class="mg-alt" data-mg-alt="{k}">(<svg.*?</svg>)</template>',
                         html, re.S).group(1)
        assert 'id="' + next(iter(data[k]["links"])) + '"' in body
    alternatives = re.findall(r'<template class="mg-alt" data-mg-alt="\d+">', html)
    assert len(alternatives) == len(drawings) - 1
    assert module_script() in html and html.count("function expandable(") == 1
    assert html.count("mountAll(document);") == 1


def test_graphs_without_groups_to_open_keep_their_output():
    y = tanh_chain(350)  # an overview whose only box is a folded chain
    graph = viz.draw(y, layout="builtin")
    assert graph.full_view is not None and expandable_html(graph, "") is None
    assert 'data-mg-expand="1"' not in graph._repr_html_()
    small = viz.draw(tanh_chain(3), layout="builtin")
    assert 'data-mg-expand="1"' not in small._repr_html_()
    with pytest.raises(ValueError, match="not an overview"):
        small.expanded(["example"])


def test_a_drawing_opened_by_expand_links_its_groups_but_folds_to_nothing_missing():
    loss, model = batch_loss(examples=6)
    graph = viz.draw(loss, params=model, expand="example", layout="builtin")
    drawings, _ = expansions(graph)
    assert drawings[0].opened == ("example",)
    more = groups(graph.view)["example × 5 more"].key
    assert more not in drawings[0].links  # () was never drawn here: no link to it
    neuron = groups(graph.view)["layers.0.neurons.* × 3"].key
    assert drawings[drawings[0].links[neuron]].opened == ("example", "layers.0.neurons.*")
