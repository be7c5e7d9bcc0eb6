"""The model's graph in a live view: modules boxed, edges coloured by gradient norm.

The picture is ``viz.draw(..., modules="box")`` of the model on a small probe batch (a
few rows of the training data), laid out once: the model's structure does not change
while it trains, and a layout costs more than the rest of a frame. Each frame only
recolours the drawn edges: an edge into (or, for the output, out of) a module's box takes
the colour of that module's gradient norm ``‖∂L/∂θ‖`` at this step, on a log scale from
blue (the smallest in the frame) to red (the largest). Vanishing gradients show as a graph
fading to blue towards the inputs; a dead layer's edges turn grey (norm exactly 0).

Drawing the probe runs one forward and backward pass of its own, in eval mode; the model's
gradients are saved before and put back after, so the training step is not disturbed.
"""

from __future__ import annotations

import math
import re

import numpy as np

from .decision_grid import eval_mode

__all__ = ["GraphPanel", "norm_color", "DEAD_COLOR"]

DEAD_COLOR = "#cbd5e1"
_EDGE = re.compile(r'(<g id="(e_[0-9_]+)" class="edge[^"]*">)(.*?)(</g>)', re.S)
_STROKE = re.compile(r'(stroke|fill)="#[0-9a-fA-F]{6}"')


def norm_color(t: float) -> str:
    """Blue (t = 0) through purple to red (t = 1)."""
    t = min(max(t, 0.0), 1.0)
    r, g, b = 37 + t * (220 - 37), 99 + t * (38 - 99), 235 + t * (38 - 235)
    return f"#{int(r):02x}{int(g):02x}{int(b):02x}"


class GraphPanel:
    """Draws the probe graph once (``svg_for`` the first time), then recolours it."""

    def __init__(self, model, probe):
        self.model, self.probe = model, probe
        self.svg = None          # the laid-out picture, drawn on first use
        self.edge_layer = {}     # SVG edge id -> the layer (box title) it is coloured by
        self.error = None        # why there is no picture, if there is none

    def _draw(self, layer_names) -> None:
        from minigrad.nn import record_scopes

        from ..render.dot import box_depth, drawn_edges
        from ..render.draw import draw
        from ..render.view import cluster_key

        params = list(self.model.parameters())
        saved = [p.grad for p in params]
        try:
            for p in params:
                p.grad = None
            with eval_mode(self.model), record_scopes() as scopes:
                out = self.model(self.probe)
            if isinstance(out, (list, tuple)):
                out = sum(out[1:], out[0])
            out = out.sum() if hasattr(out, "sum") and not _is_scalar(out) else out
            out.backward()
            graph = draw(out, scopes=scopes, params=self.model, modules="box",
                         show_grad=False, max_nodes=None)
            self.svg = graph.svg()
            view = graph.view
        finally:
            for p, g in zip(params, saved):
                p.grad = g
        depth = box_depth(view)
        where = {n.id: cluster_key(n.scope[:depth]) if len(n.scope) >= depth else n.key
                 for n in view.nodes}
        boxes = {cluster_key(tuple(name.split("."))): name for name in layer_names}
        for e, src, dst, _ in drawn_edges(view, where):
            layer = boxes.get(dst) or boxes.get(src)
            if layer is not None:
                self.edge_layer[e.key] = layer

    def svg_for(self, norms: dict) -> str:
        """The picture with each edge coloured by ``norms[layer]`` (``{layer: ‖grad‖}``)."""
        if self.svg is None and self.error is None:
            try:
                self._draw(list(norms))
            except Exception as exc:  # a model the probe cannot run: the frame says so
                self.error = f"{type(exc).__name__}: {exc}"
        if self.svg is None:
            return ""
        logs = [math.log10(v) for v in norms.values() if v > 0 and math.isfinite(v)]
        lo, hi = (min(logs), max(logs)) if logs else (0.0, 0.0)

        def color(layer):
            v = norms.get(layer, 0.0)
            if not v > 0:
                return DEAD_COLOR
            return norm_color((math.log10(v) - lo) / (hi - lo) if hi > lo else 1.0)

        def paint(match):
            layer = self.edge_layer.get(match.group(2))
            if layer is None:
                return match.group(0)
            c = color(layer)
            body = _STROKE.sub(lambda m: f'{m.group(1)}="{c}"', match.group(3))
            body = body.replace("<path ", '<path stroke-width="2.5" ', 1)
            return match.group(1) + body + match.group(4)

        return _EDGE.sub(paint, self.svg)


def _is_scalar(out) -> bool:
    return np.ndim(getattr(out, "data", 0)) == 0
