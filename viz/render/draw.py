"""``viz.draw``: a computation graph as a picture.

``draw`` takes a snapshot: it walks the graph and writes the DOT text at
once, so drawing before and after ``backward()`` gives two pictures.  Laying
it out waits until the picture is first shown or saved, and happens once.

Who lays it out (``layout=``, a ``DisplayOptions`` field): graphviz's ``dot``
program when it is installed, otherwise the layout that ships with the
package (``viz.layout``, drawn by ``viz.render.svg_draw``), with the same element ids
and classes, so the stepper and the player work on either.  ``"dot"`` or
``"builtin"`` force one.  The environment variable ``MINIGRAD_LAYOUT=builtin``
hides ``dot`` from the whole process (``dot_available()`` is then false), as
on a machine without graphviz: the test suite runs once that way.

Without ``dot`` only PNG and PDF files are out of reach: ``Graph.save`` says
so and suggests ``.svg``.  If ``dot`` is forced and missing (or fails), a
notebook shows the text tree (``viz.text``) with the reason instead.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import numbers
import os
import re
import shutil
from html import escape
from pathlib import Path

from .dot import render_dot
from .dot_mirror import against, mirror_layout
from .options import LAYOUTS, UNSET, DisplayOptions, resolve
from .overview import overview_of, overview_title, overview_view
from .svg_draw import render_svg
from .torch_graph import graph_view
from .view import DRAW_WIDTH, GraphView, is_node

__all__ = ["draw", "Graph", "DotNotFoundError", "GraphTooLargeError", "dot_available",
           "layout_engine", "INSTALL_HINT", "BUILTIN_NOTE", "LAYOUT_ENV"]

INSTALL_HINT = (
    "Install graphviz's 'dot' with `sudo apt-get install graphviz` (Debian/Ubuntu), "
    "`brew install graphviz` (macOS) or `conda install -c conda-forge graphviz`."
)
BUILTIN_NOTE = "Drawn by minigrad's built-in layout; graphviz's 'dot' gives nicer layouts. "
#: the environment variable that hides ``dot`` (``builtin``) or leaves the choice (``auto``)
LAYOUT_ENV = "MINIGRAD_LAYOUT"

_FORMATS = ("svg", "png", "pdf")


class DotNotFoundError(RuntimeError):
    """graphviz's ``dot`` program (or the ``graphviz`` Python package) is missing."""


class GraphTooLargeError(ValueError):
    """No longer raised by ``draw``, which draws an overview of a big graph instead
    (``viz.render.overview``); kept so code that catches it still imports."""


def dot_available() -> bool:
    """Is graphviz's ``dot`` program on ``PATH`` (and not hidden by ``MINIGRAD_LAYOUT=builtin``)?"""
    return _env_layout() != "builtin" and shutil.which("dot") is not None


def _env_layout() -> str:
    value = os.environ.get(LAYOUT_ENV, "").strip().lower() or "auto"
    if value not in LAYOUTS:
        raise ValueError(f"the environment variable {LAYOUT_ENV}={value!r} must be one of "
                         f"{LAYOUTS} ('builtin' hides graphviz's dot)")
    return value


def layout_engine(layout: str = "auto") -> str:
    """``"dot"`` or ``"builtin"``: who lays out a picture drawn with ``layout=``.

    An explicit choice wins; ``"auto"`` takes ``MINIGRAD_LAYOUT`` if it names one,
    else ``dot`` when it is installed.
    """
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")
    if layout == "auto":
        layout = _env_layout()
    if layout == "auto":
        layout = "dot" if dot_available() else "builtin"
    return layout


class Graph:
    """A drawn graph: shows inline in Jupyter, saves as SVG/PNG/PDF.

    ``source`` is the DOT text; ``svg()`` the laid-out SVG with the stable
    element ids documented in ``viz.render.dot`` (``n_<id>``, ``e_<child>_<parent>_<slot>``),
    by ``dot`` or the built-in layout (``layout``); ``view`` the ``GraphView`` it
    was drawn from; ``text()`` the text tree.
    """

    def __init__(self, view: GraphView, source: str, options: DisplayOptions, counts: tuple,
                 highlight=frozenset(), full_view: GraphView | None = None):
        self.view = view
        #: the whole graph's view when ``view`` is its overview (``viz.render.overview``)
        self.full_view = full_view
        self.source = source
        self.options = options
        self._counts = counts
        self._highlight = frozenset(highlight)
        self._svg: str | None = None
        self._engine: str | None = None
        self._mirrored: str | None = None  # dot's layout mirrored (``svg``), as DOT

    @property
    def layout(self) -> str:
        """Who lays this picture out: ``"dot"`` or ``"builtin"`` (decided once)."""
        if self._engine is None:
            self._engine = layout_engine(self.options.layout)
        return self._engine

    def relabeled(self, grad_labels: dict) -> Graph:
        """This picture with other gradient texts, ``{node id: text}`` (the stepper's:
        a ready-queue replay writes each node's pending count after its gradient).
        Nodes with no gradient field keep none; ``self`` when nothing changes.

        A step shows every node, so an overview is redrawn whole, as before overviews
        existed: up to ``max_nodes`` nodes (a long chain), else ``GraphTooLargeError``
        (the stepper then steps on the overview itself)."""
        base = self.view
        if self.full_view is not None:
            base, count, limit = self.full_view, len(self.full_view.nodes), self.options.max_nodes
            if limit is not None and count > limit:
                exc = GraphTooLargeError(f"this graph has {count:,} nodes, more than "
                                         f"max_nodes={limit}: drawn as an overview, not node "
                                         f"by node")
                exc.count, exc.max_nodes = count, limit
                raise exc
        changed = [(vn, grad_labels[vn.id]) for vn in base.nodes
                   if vn.grad_label is not None and vn.id in grad_labels
                   and grad_labels[vn.id] != vn.grad_label]
        if not changed and base is self.view:
            return self
        view = copy.copy(base)
        view.nodes = [dataclasses.replace(vn) for vn in base.nodes]
        view.by_id = {vn.id: vn for vn in view.nodes}
        for vn in view.nodes:
            if vn.grad_label is not None and vn.id in grad_labels:
                vn.grad_label = grad_labels[vn.id]
        o = self.options
        dot = render_dot(view, rankdir=o.rankdir, show_attrs=o.show_attrs, modules=o.modules,
                         depth=o.depth, highlight=self._highlight, legend=o.legend,
                         edge_labels=o.edge_labels, title=o.title)
        return Graph(view, dot.source, o, (dot.nodes, dot.edges), self._highlight)

    def expanded(self, names) -> Graph:
        """This overview drawn with the groups ``names`` opened (as ``expand=names``), from
        the whole graph's view it already holds: nothing is walked again."""
        if self.full_view is None:
            raise ValueError("Graph.expanded: this drawing is not an overview (it has no "
                             "groups to open); draw it with overview=True")
        o = self.options.replace(expand=tuple(names))
        view = overview_view(self.full_view, expand=o.expand, modules=o.modules, depth=o.depth)
        dot = render_dot(view, rankdir=o.rankdir, show_attrs=o.show_attrs, modules=o.modules,
                         depth=o.depth, highlight=self._highlight, legend=o.legend,
                         edge_labels=o.edge_labels, title=o.title)
        return Graph(view, dot.source, o, (dot.nodes, dot.edges), self._highlight,
                     self.full_view)

    # --- layout ------------------------------------------------------------------
    def pipe(self, format: str = "svg") -> bytes:
        """Run ``dot -T<format>`` on the source and return its output bytes."""
        if not dot_available():
            raise DotNotFoundError(
                f"cannot run graphviz's 'dot' program: it is not installed"
                f"{' (hidden by ' + LAYOUT_ENV + '=builtin)' if _env_layout() == 'builtin' else ''}"
                f". {INSTALL_HINT} Without it, draw(..., layout='builtin') draws the "
                f"picture (as SVG), viz.text(root) prints the graph as text, and "
                f"Graph.source holds the DOT text."
            )
        try:
            import graphviz
        except ImportError:
            raise DotNotFoundError(
                "the graphviz Python package is missing: pip install graphviz "
                "(or pip install 'minigrad-kit[viz]')"
            ) from None
        return _run(graphviz, "dot", format, self.source)

    def svg(self) -> str:
        """The SVG markup (starting at ``<svg``), ready to inline in HTML; cached.

        ``dot``'s picture is mirrored when that puts more of its module frames in the
        model's order than not (``viz.render.dot_mirror``)."""
        if self._svg is None:
            if self.layout == "dot":
                self._svg = self._in_model_order(strip_prolog(self.pipe("svg").decode("utf-8")))
            else:
                o = self.options
                self._svg = render_svg(
                    self.view, rankdir=o.rankdir, show_attrs=o.show_attrs, modules=o.modules,
                    depth=o.depth, highlight=self._highlight, legend=o.legend,
                    edge_labels=o.edge_labels, title=o.title)
        return self._svg

    def _in_model_order(self, svg: str) -> str:
        """``svg`` (dot's), or its mirror image if that has more sibling frames side by
        side in the model's order (``layers.0`` left of ``layers.1``) than against it."""
        if not self.view.clusters or self.options.modules != "cluster":
            return svg
        rankdir = re.search(r"\brankdir=(\w+)", self.source).group(1)
        bad, good = against(self.view, svg, rankdir)
        if bad <= good:
            return svg
        import graphviz

        self._mirrored = mirror_layout(self.pipe("dot").decode("utf-8"), rankdir)
        return strip_prolog(_run(graphviz, "neato", "svg", self._mirrored,
                                 neato_no_op=2).decode("utf-8"))

    def save(self, path, format: str | None = None) -> Path:
        """Write the picture to ``path``; the format comes from the suffix (svg, png, pdf)."""
        path = Path(path)
        fmt = (format or path.suffix.lstrip(".")).lower()
        if fmt not in _FORMATS:
            raise ValueError(
                f"Graph.save: cannot tell the format from {path.name!r}; use a .svg, .png or "
                f".pdf suffix, or pass format='svg'|'png'|'pdf'"
            )
        if fmt == "svg":
            path.write_text('<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n'
                            + self.svg() + "\n", encoding="utf-8")
        else:
            if not dot_available():
                raise DotNotFoundError(
                    f"Graph.save: {fmt.upper()} needs graphviz's 'dot' program, which is not "
                    f"installed; save as .svg instead (the built-in layout draws it), or "
                    f"install graphviz. {INSTALL_HINT}"
                )
            self.svg()  # (decides whether dot's picture is drawn mirrored)
            if self._mirrored is not None:
                import graphviz

                path.write_bytes(_run(graphviz, "neato", fmt, self._mirrored, neato_no_op=2))
            else:
                path.write_bytes(self.pipe(fmt))
        return path

    def text(self) -> str:
        """The same graph as ``viz.text`` prints it."""
        from .printer import render_text

        return render_text(self.view, options=self.options)

    # --- display -------------------------------------------------------------------
    def _repr_html_(self) -> str:
        try:
            svg = self.svg()
        except RuntimeError as exc:  # dot forced but missing, or dot failed: the text tree
            note = str(exc).strip().splitlines()[0] if str(exc).strip() else repr(exc)
            return (
                f'<div class="minigrad-graph minigrad-graph-text"><pre>{escape(self.text())}'
                f"</pre><p><small>{escape(note)}</small></p></div>"
            )
        note = "".join(f"<p><small>{escape(text)}</small></p>" for text in self.view.notes)
        if self.layout == "builtin" and self.options.layout == "auto":  # dot was not there
            note += f'<p><small>{escape(BUILTIN_NOTE + INSTALL_HINT)}</small></p>'
        from .overview_html import expandable_html
        from .pan_zoom import pan_zoom_html

        # an overview: its group boxes open on a click (viz.render.overview_html); bigger
        # than a cell: the step-through player's own zoom and pan (viz.render.pan_zoom)
        return ((self.full_view is not None and expandable_html(self, note))
                or pan_zoom_html(svg, note)
                or f'<div class="minigrad-graph" style="overflow:auto">{readable(svg)}{note}</div>')

    def _repr_svg_(self) -> str | None:
        try:
            return self.svg()
        except RuntimeError:
            return None  # Jupyter then shows the HTML (text) view

    def __repr__(self) -> str:
        nodes, edges = self._counts
        return f"<Graph {nodes} nodes, {edges} edges>"


def _run(graphviz, engine: str, format: str, source: str, **kw) -> bytes:
    """graphviz's ``engine`` run on ``source``, its errors said in our words."""
    try:
        return graphviz.pipe(engine, format, source.encode("utf-8"), **kw)
    except graphviz.ExecutableNotFound as exc:  # PATH changed under our feet
        raise DotNotFoundError(str(exc) + ". " + INSTALL_HINT) from None
    except graphviz.CalledProcessError as exc:
        err = exc.stderr.decode("utf-8", "replace") if exc.stderr else str(exc)
        raise RuntimeError(f"graphviz '{engine}' failed on this graph: {err.strip()}") from None


#: the smallest node text (CSS px) a notebook may shrink a picture to
MIN_TEXT_PX = 10.0
_NODE_TEXT_PT = 11.0  # the node font size of both renderers, in points


def readable(svg: str) -> str:
    """``svg`` with a ``min-width`` that keeps its node text at least ``MIN_TEXT_PX`` high.

    JupyterLab (and Notebook 7) fit a picture to the cell (``max-width: 100%``): an
    1,700 px wide graph in an 800 px cell would show 11 pt text at 7 px.  CSS lets
    ``min-width`` win over ``max-width``, so the picture shrinks only down to readable
    text, then scrolls sideways in its ``overflow: auto`` box.  (Both renderers draw node
    text 11 user units high, one unit a point at full size.)"""
    head = svg[:svg.find(">") + 1]
    # 11 user units of text shown at (shown px / user units across) px each
    across = re.search(r'\sviewBox="[-\d.]+ [-\d.]+ ([\d.]+) ', head) or re.search(
        r'\swidth="([\d.]+)pt"', head)
    if across is None or "style=" in head:
        return svg
    least = float(across.group(1)) * MIN_TEXT_PX / _NODE_TEXT_PT
    return f'<svg style="min-width:{math.ceil(least)}px"' + svg[4:]


def strip_prolog(svg: str) -> str:
    """Drop the ``<?xml …?>``, DOCTYPE and comments before ``<svg``: inline HTML wants none."""
    start = svg.find("<svg")
    return svg[start:].strip() if start >= 0 else svg


def draw(
    root,
    *,
    options: DisplayOptions | None = None,
    params=UNSET,
    scopes=UNSET,
    rankdir: str = UNSET,
    show_grad: bool = UNSET,
    show_saved: bool | None = UNSET,
    show_attrs: bool = UNSET,
    modules: str | None = UNSET,
    depth: int | None = UNSET,
    highlight=UNSET,
    max_nodes: int | None = UNSET,
    digits: int = UNSET,
    preview: int = UNSET,
    legend: bool = UNSET,
    edge_labels: bool = UNSET,
    title: str | None = UNSET,
    saved_values: dict | None = UNSET,
    layout: str = UNSET,
    orders=UNSET,
    overview=UNSET,
    expand=UNSET,
    example=UNSET,
) -> Graph:
    """Draw the graph behind ``root`` (a Value/Tensor, a list of them, or a Tape), or
    PyTorch's backward graph behind a torch tensor (``viz.render.torch_graph``).

    ``options`` is a ``viz.DisplayOptions`` (its defaults are the ones below);
    keywords given here override its fields:

    * ``params``: names for leaves, a Module (``named_parameters()``), a dict
      ``{name: parameter}`` or ``(name, parameter)`` pairs;
    * ``scopes``: which module made each node, a ``ScopeMap`` from
      ``minigrad.nn.record_scopes()`` (or ``{node id: "fc1"}``): gives the
      module clusters and names parameters ``fc1.weight``;
    * ``rankdir``: ``"LR"`` (inputs left, output right, the default) or ``"TB"`` (top-down);
    * ``show_grad=False``: the forward-only view, no grad fields;
    * ``show_saved``: draw what each op saved for backward (orange, dashed);
      ``None`` (default) does it for custom ``Function``s only;
    * ``show_attrs``: add op settings (axis, shapes, …) to op nodes;
    * ``modules``: ``"cluster"`` (default) frames the nodes each module created,
      ``"box"`` collapses each module into one box, ``None`` ignores modules; an
      overview keeps the frames (its boxes sit in their modules' frames);
    * ``depth``: which level of nested modules becomes boxes (1: top-level
      scopes); ``None`` picks the first level with more than one module; an
      overview groups leaves per module at this level (``param × 48`` per layer);
    * ``highlight``: nodes (or their ids) to outline in red; an edge between
      two highlighted nodes is highlighted too;
    * ``overview``: ``"auto"`` (default): a graph of more than ``max_nodes`` nodes
      (1000), or with a chain of 64 ops, is drawn as an overview: repeated structure
      (batch examples, neurons, layers) grouped into boxes with counts, ``tanh × 16``,
      ``example × 100``, and long chains folded, ``… 349 ops: tanh``; the caption says
      so.  ``True`` always, ``False`` never: every node (slow past a few thousand);
    * ``expand``: names of groups to open (the title before ``×``: ``"example"``,
      ``"layers.0.neurons.*"``, or a key ``"g_2"``): one unit is drawn, itself as an
      overview, beside a box for the others.  ``viz.render.overview`` says how groups are found;
    * ``max_nodes``: above this many nodes ``overview="auto"`` draws the overview
      (1000; ``None``: only for long chains);
    * ``digits``: decimals shown (4); ``preview``: tensors with at most this many
      elements (6) show their values; ``legend``: add a colour legend;
      ``edge_labels``: number each edge with its input slot (which input of
      ``a - b`` is ``a``?); ``title``: a caption;
    * ``saved_values``: ``{node id: saved tuple}`` to show for nodes whose
      saved values backward already released (``viz.Stepper`` passes the ones
      it kept while recording);
    * ``layout``: ``"auto"`` (default: graphviz's ``dot`` when installed, else
      the built-in layout), ``"dot"`` or ``"builtin"`` (no system program; SVG only);
    * ``orders``: after ``create_graph=True``, which derivative orders to show:
      ``"all"`` (default: the forward graph and its gradients' graphs, each order
      with its own border colour, ``∂¹``/``∂²`` mark and legend entry),
      ``"gradient"`` (orders 1 and up) or e.g. ``(1, 2)``; the nodes of other
      orders they use are drawn as faded stubs (see ``viz.render.derivative_orders``);
    * ``example``: inside ``vmap`` a node stands for a whole batch and shows one
      example's values, the first unless ``example=k`` picks another (nested vmaps: a
      tuple, one index per vmap, outermost first); the card says ``example 2 of 5``.

    >>> from minigrad import Value
    >>> x = Value(2.0, label="x"); y = x * x; y.backward()
    >>> draw(y)
    <Graph 2 nodes, 2 edges>
    """
    opts = resolve("draw", options, dict(
        params=params, scopes=scopes, rankdir=rankdir, show_grad=show_grad,
        show_saved=show_saved, show_attrs=show_attrs, modules=modules, depth=depth,
        highlight=highlight, max_nodes=max_nodes, digits=digits, preview=preview,
        legend=legend, edge_labels=edge_labels, title=title, saved_values=saved_values,
        layout=layout, orders=orders, overview=overview, expand=expand, example=example))
    highlighted = _ids(opts.highlight)
    full = graph_view(root, options=opts, width=DRAW_WIDTH)  # (a torch tensor too)
    view = overview_of(full, opts, "draw")
    if view is not full and opts.title is None:
        opts = opts.replace(title=overview_title(full))
    dot = render_dot(view, rankdir=opts.rankdir, show_attrs=opts.show_attrs,
                     modules=opts.modules, depth=opts.depth, highlight=highlighted,
                     legend=opts.legend, edge_labels=opts.edge_labels, title=opts.title)
    return Graph(view, dot.source, opts, (dot.nodes, dot.edges), highlighted,
                 full if view is not full else None)


def _ids(items) -> frozenset:
    """Node ids from nodes, ids or keys ``"n_<id>"``."""
    if items is None:
        return frozenset()
    if hasattr(items, "parents") or isinstance(items, (int, str)):
        items = [items]
    out = set()
    for item in items:
        if isinstance(item, str) and item.removeprefix("n_").isdigit():
            out.add(int(item.removeprefix("n_")))
        elif isinstance(item, numbers.Integral) and not isinstance(item, bool):
            out.add(int(item))
        elif is_node(item):
            out.add(item.id)
        else:
            raise TypeError(
                f"draw: highlight takes graph nodes, node ids (int) or keys like 'n_7'; got "
                f"{type(item).__name__} {item!r}"
            )
    return frozenset(out)
