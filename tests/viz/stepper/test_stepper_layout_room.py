"""The graph is laid out once with room for every gradient text the replay shows.

A leaf the stepped function captures (a ``w`` from outside, a module's
parameters) has no gradient when drawn: its gradient is set aside during the
recorded backward and restored afterwards.  Laid out with "grad —", its box
was too narrow for "grad 0.8399".  (The browser tier checks the boxes.)
"""

from __future__ import annotations

import html
import re

import numpy as np

from minigrad import Value, nn
from tests._helpers import needs_dot
from viz.render.view import node_key
from viz.stepper.stepper import step_through


def drawn_texts(svg: str) -> dict[str, list[str]]:
    """``{node element id: the texts drawn in it}``."""
    out = {}
    for m in re.finditer(r'<g id="(n_\d+)" class="node[^"]*">(.*?)</g>', svg, re.S):
        out[m.group(1)] = [html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>",
                                                                m.group(2))]
    return out


def replay_texts(s) -> dict[str, set[str]]:
    """``{node element id: every gradient text it shows over the replay}``."""
    out = {}
    for i in range(len(s)):
        for n, g in zip(s.frames.nodes, s.frames.grads(i).values()):
            out.setdefault(node_key(n), set()).add(s.grad_text(n, g))
    return out


def assert_laid_out_with_the_widest(s):
    drawn = drawn_texts(s.svg)
    shown = replay_texts(s)
    for el in s.template.grad_nodes:
        widest = max(len(t) for t in shown[el])
        grad = [t for t in drawn[el] if t.startswith("grad")]
        assert len(grad) == 1 and len(grad[0]) == widest, (el, grad, shown[el])
    return drawn


@needs_dot
def test_a_captured_leaf_is_drawn_with_its_widest_gradient():
    w = Value(0.5, label="w")
    s = step_through(lambda x: (w * x).tanh(), 2.0)
    assert w.grad is None  # set aside, then given back: the caller's w is untouched
    assert node_key(w) in s.template.grad_nodes
    drawn = assert_laid_out_with_the_widest(s)
    assert "grad 0.8399" in drawn[node_key(w)]  # not "grad —"
    assert w.grad is None  # drawing did not leave the replay's value behind
    s.goto(0)
    assert f'data-mg-grad="{node_key(w)}">grad —<' in s.render_svg()  # the replay still swaps


@needs_dot
def test_a_modules_parameters_are_drawn_with_their_widest_gradient():
    np.random.seed(0)
    layer = nn.Linear(3, 2)
    s = step_through(lambda x: layer(x).tanh().sum(), np.array([[1.0, 2.0, 3.0]]), params=layer)
    assert layer.weight.grad is None and layer.bias.grad is None
    assert {node_key(layer.weight), node_key(layer.bias)} <= set(s.template.grad_nodes)
    drawn = assert_laid_out_with_the_widest(s)
    assert all(t != "grad —" for t in drawn[node_key(layer.weight)])
