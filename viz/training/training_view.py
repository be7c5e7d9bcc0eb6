"""``TrainingView``: a network watched while it learns, updated every ``every`` steps.

A hand-written loop::

    view = viz.TrainingView(model, every=10, data=(X, y))
    for step in range(200):
        ...                                   # forward, zero_grad, backward, step
        view.update(step, loss=loss, acc=acc)
    view.close()                              # the last frame, whatever the step

or ``fit(model, opt, loss_fn, loader, epochs, live=True)`` (``minigrad.fitting``),
which makes one and calls it for you. Each frame shows the loss and accuracy curves,
per layer the weight and gradient histograms, the update-to-weight ratio of every layer
on a log scale with the ~1e-3 guide (``layer_stats``), the model's graph with modules
boxed and edges coloured by gradient norm (``graph_panel``) and, for 2-D inputs, the
decision boundary (``decision_grid``). Every number is recorded too: ``view.samples``
(one ``{layer: LayerSample}`` per frame) and ``view.summary()`` (plain lists), so a
lesson or an exercise can read what the pictures show.

The ratio needs the weights before and after one optimiser step: the view copies the
weights on the step before a sample (``step % every == every - 1``) and compares them with
the weights at the sample, so it costs one copy every ``every`` steps, not one per step.
Call ``update`` after ``optimizer.step()``.

Sampling and drawing are separate, like a progress bar's: the numbers are sampled every
``every`` steps (microseconds), and the picture is redrawn at a sample at most every
``interval`` seconds (a frame costs a few milliseconds, and neither an eye nor a notebook
front end follows a hundred frames a second); ``close()`` draws the latest sample, with the
curves up to the last step, if the throttle skipped it.
``interval=0`` draws at every sample.
"""

from __future__ import annotations

import base64
import math
import re
import time
from html import escape

import numpy as np

from .decision_grid import decision_grid
from .graph_panel import GraphPanel
from .layer_stats import LayerStats, layers_of
from .live_output import Frame, output_for
from .svg_panels import PALETTE, boundary_map, histogram, line_chart, ratio_chart

__all__ = ["TrainingView", "as_img"]

MAX_HISTOGRAM_LAYERS = 6
_PANEL = re.compile(r'<svg[^>]*?data-panel="([^"]*)"')


def as_img(svg: str, panel: str | None = None) -> str:
    """An SVG panel as ``<img src="data:image/svg+xml;base64,...">``.

    A notebook reopened by someone else is untrusted, and Jupyter then sanitises its HTML
    outputs: inline ``<svg>`` elements are stripped (their text is left as a jumble), while
    an image with a data URI is kept. So every panel of a frame is an image: the saved
    notebook shows the last frame exactly as it was drawn, with no script and no widget.
    """
    if panel is None:
        found = _PANEL.search(svg)
        panel = found.group(1) if found else ""
    if "xmlns=" not in svg[:svg.find(">")]:
        svg = svg.replace("<svg", '<svg xmlns="http://www.w3.org/2000/svg"', 1)
    data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    return (f'<img class="tv-panel" data-panel="{escape(panel)}" alt="{escape(panel)}" '
            f'src="data:image/svg+xml;base64,{data}"/>')


def _number(v) -> float:
    if hasattr(v, "item"):
        return float(v.item())
    return float(getattr(v, "data", v))


class TrainingView:
    """Loss/accuracy curves, per-layer histograms and update ratios, the model's graph and
    the decision boundary, redrawn every ``every`` steps (see the module docstring).

    ``data``: ``(X, y)`` (or a ``DataLoader`` over arrays): the points of the decision
    boundary when ``X`` has two columns, and the probe batch the graph is drawn from.
    ``display``: ``"auto"`` (Jupyter or marimo when running there, else nothing), ``None``,
    or a function receiving each frame's HTML. ``graph=False`` leaves the graph out.
    ``interval``: the least number of seconds between two drawn frames (0: every sample).
    """

    def __init__(self, model, every: int = 10, *, data=None, bins: int = 30, grid: int = 40,
                 graph: bool = True, display="auto", guide: float = 1e-3,
                 interval: float = 0.25):
        if isinstance(every, bool) or not isinstance(every, int) or every < 1:
            raise ValueError(f"TrainingView: every must be a positive int, got {every!r}")
        self.model, self.every, self.bins, self.grid_size = model, every, int(bins), int(grid)
        self.guide, self.interval = float(guide), float(interval)
        self.drawn_steps: list[int] = []
        self._last_draw = -math.inf
        self.layers = layers_of(model)
        self._stats = LayerStats(self.layers)
        self.X, self.y = _arrays(data)
        self.steps: list[int] = []
        self.metrics: dict[str, list[float]] = {}
        self.sample_steps: list[int] = []
        self.samples: list[dict] = []
        self.frames = 0
        self._html: str | None = None
        self._html_at = None
        self._arrays: dict[tuple, np.ndarray] = {}  # the curves' numbers so far, as arrays
        self._show = output_for(display)
        probe = self._probe()
        self._graph = GraphPanel(model, probe) if graph and probe is not None else None

    # --- recording -----------------------------------------------------------------
    def update(self, step: int, loss=None, acc=None, **metrics) -> bool:
        """Record this step's numbers; every ``every`` steps take a sample, and draw a frame
        if ``interval`` seconds passed since the last one.

        Returns True when a frame was drawn. ``loss``, ``acc`` and any other metric may be
        numbers, ``Value`` s or one-element ``Tensor`` s.
        """
        step = int(step)
        self.steps.append(step)
        if loss is not None:
            self._record("loss", loss)
        if acc is not None:
            self._record("acc", acc)
        for name, value in metrics.items():
            if value is not None:
                self._record(name, value)
        if step % self.every:
            if step % self.every == self.every - 1:
                self._stats.keep(step)
            return False
        self._sample(step)
        if time.perf_counter() - self._last_draw < self.interval:
            return False
        self._draw()
        return True

    def _record(self, name: str, value) -> None:
        series = self.metrics.get(name)
        if series is None:
            series = self.metrics[name] = []
        if len(series) < len(self.steps) - 1:  # a metric given from a later step on
            series.extend([math.nan] * (len(self.steps) - 1 - len(series)))
        series.append(value if type(value) is float else _number(value))

    def _sample(self, step: int) -> None:
        self.sample_steps.append(step)
        self.samples.append(self._stats.sample(step))

    def close(self) -> None:
        """Draw the latest sample, with the curves up to the last step, if it was not drawn
        with them (the throttle skipped it, or steps came after it)."""
        if not self.steps:
            return
        if not self.samples:  # (steps that never met a multiple of every)
            self._sample(self.steps[-1])
        if self._html_at != (len(self.steps), len(self.sample_steps)) or not self.drawn_steps:
            self._draw()

    # --- reading ---------------------------------------------------------------------
    def series(self, field: str) -> dict[str, list[float]]:
        """``{layer: [value per frame]}`` of a ``LayerSample`` field (``"ratio"``, ``"dead"``,
        ``"grad_std"``, ``"grad_norm"``, ``"weight_std"``, ``"grad_abs_mean"``)."""
        return {layer.name: [getattr(s[layer.name], field) for s in self.samples]
                for layer in self.layers}

    def summary(self) -> dict:
        """Everything recorded, as plain lists: ``steps``, the metrics, and per layer the
        ratio, dead fraction and gradient/weight spread at each frame (``frame_steps``)."""
        out = {"layers": [layer.name for layer in self.layers], "steps": list(self.steps),
               "frame_steps": list(self.sample_steps)}
        out.update({name: list(values) for name, values in self.metrics.items()})
        for field in ("ratio", "dead", "grad_std", "grad_abs_mean", "grad_norm", "weight_std"):
            out[field] = self.series(field)
        return out

    def frame(self) -> str:
        """The HTML of the latest sample (self-contained: each panel an SVG image in a data
        URI, no script), drawn now if the throttle skipped it."""
        latest = (len(self.steps), len(self.sample_steps))
        if self._html is None or self._html_at != latest:
            self._html, self._html_at = self._render(), latest
        return self._html

    def _repr_html_(self) -> str:
        return self.frame()

    def __repr__(self) -> str:
        return self._text()

    def _text(self) -> str:
        parts = [f"TrainingView: {len(self.layers)} layers"]  # (no frame count: it depends
        # on the clock, and this text is what nbval compares)
        if self.steps:
            parts.append(f"step {self.steps[-1]}")
        for name, values in self.metrics.items():
            if values and math.isfinite(values[-1]):
                parts.append(f"{name} {values[-1]:.4f}")
        return ", ".join(parts)

    # --- drawing ---------------------------------------------------------------------
    def _draw(self) -> None:
        """Draw the latest sample (its histograms are taken now, from its weights and
        gradients, which ``LayerStats`` keeps until the next sample)."""
        self._stats.histograms(self.samples[-1], self.bins, MAX_HISTOGRAM_LAYERS)
        self.frames += 1
        self.drawn_steps.append(self.steps[-1])
        self._html, self._html_at = self._render(), (len(self.steps), len(self.sample_steps))
        self._last_draw = time.perf_counter()
        # The text of a displayed frame stays the same from the first frame to the last: a
        # notebook stores the last (Jupyter applies each update in place) while nbval
        # compares the first (it ignores updates), so a changing text would never compare.
        self._show(Frame(self._html, f"TrainingView of {', '.join(l.name for l in self.layers)}"
                                     f", every {self.every} steps"))

    def _grown(self, key: tuple, values: list, field: str | None = None) -> np.ndarray:
        """``values`` (a list the view only appends to) as a float64 array, converting
        only what was appended since the last frame: a frame late in a long run would
        otherwise spend milliseconds turning thousands of recorded steps into arrays.
        With ``field``, ``values`` are samples and the array holds that layer's field."""
        done = self._arrays.get(key)
        if done is None or len(done) > len(values):
            done = np.empty(0)
        if len(done) < len(values):
            new = values[len(done):]
            if field is not None:
                new = [getattr(s[key[1]], field) for s in new]
            done = self._arrays[key] = np.concatenate([done, np.asarray(new, np.float64)])
        return done

    def _render(self) -> str:
        top = []
        steps = self._grown(("steps",), self.steps)
        for name, values in self.metrics.items():
            top.append(line_chart(name, name, steps, {name: self._grown(("metric", name),
                                                                         values)}))
        if self.samples:
            ratios = {layer.name: self._grown(("ratio", layer.name), self.samples, "ratio")
                      for layer in self.layers}
            top.append(ratio_chart(self._grown(("sample_steps",), self.sample_steps), ratios,
                                   self.guide))
        if self.X is not None and self.X.ndim == 2 and self.X.shape[1] == 2:
            top.append(self._boundary())
        hists = []
        if self.samples:
            last = self.samples[-1]
            if last[self.layers[0].name].weight_hist is None:  # frame() of an undrawn sample
                self._stats.histograms(last, self.bins, MAX_HISTOGRAM_LAYERS)
            for i, layer in enumerate(self.layers[:MAX_HISTOGRAM_LAYERS]):
                s, color = last[layer.name], PALETTE[i % len(PALETTE)]
                hists.append(histogram(f"weights {layer.name}", f"{layer.name} weights",
                                       *s.weight_hist, color=color))
                hists.append(histogram(f"grads {layer.name}",
                                       f"{layer.name} grads (dead {100 * s.dead:.0f}%)",
                                       *s.grad_hist, color=color))
        graph = ""
        if self._graph is not None and self.samples:
            norms = {name: s.grad_norm for name, s in self.samples[-1].items()}
            svg = self._graph.svg_for(norms)
            if svg:
                graph = (f'<div class="tv-graph" style="overflow:auto;'
                         f'max-height:420px;border-top:1px solid #e5e7eb">'
                         f'<div style="font:bold 10px sans-serif">graph: edges coloured by the '
                         f'gradient norm of the module they enter (blue small, red large, '
                         f'grey zero)</div>{as_img(svg, "graph")}</div>')
            elif self._graph.error:
                error = escape(self._graph.error)
                graph = f'<p class="tv-note"><small>no graph: {error}</small></p>'
        row = '<div style="display:flex;flex-wrap:wrap;gap:4px">'
        return (f'<div class="minigrad-training-view" style="font-family:sans-serif">'
                f'<div class="tv-title" style="font-size:12px">{escape(self._text())}</div>'
                f'{row}{"".join(map(as_img, top))}</div>{row}{"".join(map(as_img, hists))}</div>'
                f'{graph}</div>')

    def _boundary(self) -> str:
        g = decision_grid(self.model, self.X, size=self.grid_size)
        y = np.asarray(self.y).reshape(-1) if self.y is not None else np.zeros(len(self.X))
        if y.size and y.min() < 0:  # labels in {-1, +1} (a margin loss): colour as 0 / 1
            y = (y > 0).astype(np.int64)
        return boundary_map(g, self.X, y)

    def _probe(self):
        """A few rows of the data in the form the model takes (the graph panel's input)."""
        if self.X is None:
            return None
        from minigrad import Tensor, Value

        params = list(self.model.parameters())
        if params and isinstance(params[0], Value):
            return [float(v) for v in self.X[0]]
        dtype = params[0].data.dtype if params else self.X.dtype
        return Tensor(self.X[:4].astype(dtype))


def _arrays(data):
    if data is None:
        return None, None
    data = getattr(data, "dataset", data)  # a DataLoader over (X, y)
    if isinstance(data, (tuple, list)) and len(data) == 2:
        X, y = (np.asarray(getattr(a, "data", a)) for a in data)
        return X, y
    raise TypeError("TrainingView: data must be (X, y) arrays or a DataLoader over them, got "
                    f"{type(data).__name__}")


def _register() -> None:
    """Offer this view to ``fit(..., live=True)`` (``minigrad`` cannot import ``viz``)."""
    from minigrad.fitting import register_live_view

    register_live_view(TrainingView)


_register()
