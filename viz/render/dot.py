"""From a ``GraphView`` to DOT text (graphviz's input language).

The DOT text is a pure function of the view and the options: no dict-order
or memory-address surprises, so the same graph gives the same text run after
run and tests can compare it.

SVG hooks (what the stepper and your CSS can rely on)
----------------------------------------------------
graphviz copies each element's ``id`` and ``class`` into the SVG and puts its
own word first (``node``, ``edge``, ``cluster``):

====================================  ==============================================
element                               ``<g id=…>`` and ``class``
====================================  ==============================================
graph node                            ``n_<id>``; ``node {leaf|op} {role} {scalar|tensor}``
                                      plus ``function`` (custom Function) and
                                      ``highlight`` when highlighted; role is one of
                                      ``param input intermediate output``
node of a gradient's graph            the same, plus ``order1`` (``order2`` ...): built
                                      by a ``create_graph`` backward
                                      (``viz.render.derivative_orders``);
                                      ``stub``: of an order ``orders=`` hides
edge parent → child, input ``slot``   ``e_<child>_<parent>_<slot>``; ``edge data``
                                      (+ ``collapsed`` next to a module box,
                                      + ``highlight``, + ``output_nr`` from a
                                      multi-output op to its output, labelled k)
op with several outputs (``split``)   the same as a node, plus ``multi``
                                      (``viz.render.multi_output``)
saved value ``k`` of node ``id``      ``s_<id>_<k>``, ``node saved``; its edge
                                      ``se_<id>_<k>``, ``edge saved``; a node's
                                      settings (two or more: sizes, strides, dims)
                                      share one box, the first one's id
                                      (``viz.render.saved_boxes``);
                                      released values: ``s_<id>_released``
module scope (``modules="cluster"``)  ``c_<path>``; ``cluster module``
module box (``modules="box"``)        ``c_<path>``; ``node module box``
legend (``legend=True``)              ``legend``; ``node legend``
====================================  ==============================================

Inside a node's group the text elements read, in order: the op symbol, the
name, then ``data …`` (a small matrix: one text line per row) and ``grad …``
(tensors: shape and dtype before data).  A node of order k >= 1 starts with a
band cell in its order's colour holding its mark (``∂¹``), and its borders take
that colour (``viz.render.derivative_orders``).  The grad field is always one text
element whose text is ``viz.render.view.grad_label(data, grad, digits=, preview=)``:
``grad —`` before any gradient arrived, ``grad 0.5000``, ``grad [1.0000, 2.0000]``
or, for a tensor with more than ``preview`` elements, ``grad norm 9.4868``.

A module box (``modules="box"``) reads: its title, ``3 ops, 2 params``, then,
when the module has one output node, that node's summary (``box_summary``):
``→ (32, 10) float32`` (or ``→ data 0.5000`` for a scalar) and its grad field,
the same text the node itself would show, so collapsing a module keeps its
gradient in sight.
"""

from __future__ import annotations

import dataclasses
from html import escape as _html_escape
from typing import NamedTuple

from .derivative_orders import legend_orders, order_color, order_fill, order_mark, order_title
from .direction import choose_rankdir, label_size
from .numbers import visible
from .options import MODULES, RANKDIRS
from .saved_boxes import saved_boxes
from .view import GraphView, cluster_key

__all__ = ["to_dot", "render_dot", "edge_label", "box_summary", "box_contents", "auto_rankdir",
           "in_frame", "drawn_edges",
           "legend_entries", "stacks_fields", "scalar_fields", "Dot", "COLORS", "RANKDIRS",
           "MODULES"]


#: (fill, border) per role; "highlight" is the border of highlighted nodes.
COLORS = {
    "param": ("#dbeafe", "#2563eb"),
    "input": ("#f1f5f9", "#94a3b8"),
    "intermediate": ("#ffffff", "#475569"),
    "output": ("#dcfce7", "#16a34a"),
    "saved": ("#ffedd5", "#ea580c"),
    "module": ("#f8fafc", "#64748b"),
    "highlight": ("#fee2e2", "#dc2626"),
}

_FONT = "Helvetica,Arial,sans-serif"
_ROLE_TITLES = {
    "param": "parameter (leaf, requires grad)",
    "input": "input / constant (leaf)",
    "intermediate": "op result",
    "output": "output / loss",
    "saved": "saved for backward",
}


class Dot(NamedTuple):
    source: str
    nodes: int  # graph nodes and module boxes drawn (saved values and legend excluded)
    edges: int  # data edges drawn (saved-value edges excluded)


def edge_label(view: GraphView, e, edge_labels: bool, collapsed: bool) -> str | None:
    """The number written on edge ``e``: the output number of a multi-output op's output
    (always: which piece of a ``split`` is which), else its input slot when
    ``edge_labels`` asks and the child has several inputs (which input of ``a - b``)."""
    if collapsed:
        return None
    if e.output_nr is not None:
        return str(e.output_nr)
    if edge_labels and len(view.by_id[e.child].inputs) > 1:
        return str(e.slot)
    return None


def to_dot(view: GraphView, **options) -> str:
    """DOT source for ``view``; see ``viz.draw`` for what the options mean."""
    return render_dot(view, **options).source


def render_dot(
    view: GraphView,
    *,
    rankdir: str = "auto",
    show_attrs: bool = False,
    modules: str | None = "cluster",
    depth: int | None = None,
    highlight=frozenset(),
    legend: bool = False,
    edge_labels: bool = False,
    title: str | None = None,
) -> Dot:
    """DOT source for ``view`` and how many nodes and edges it draws.

    ``rankdir="auto"`` picks LR or TB from the graph's shape (``viz.render.direction``).
    Drawn top to bottom, a scalar node stacks its fields (op, name, data, grad)
    one per row instead of side by side: width is what a vertical picture lacks.
    """
    boxes = _boxes(view, depth) if modules == "box" else {}
    where = {}  # node id -> the key it is drawn as (itself, or its module box)
    for n in view.nodes:
        where[n.id] = boxes.get(n.id, n.key)
    if rankdir == "auto":
        rankdir = _auto_rankdir(view, boxes, where, show_attrs)
    stacked = stacks_fields(rankdir)
    lines = [
        "digraph minigrad {",
        f'  graph [rankdir={rankdir}, fontname="{_FONT}", fontsize=12, nodesep=0.25, '
        f'ranksep=0.35, bgcolor="white"'
        + (f", label=<{_esc(title)}>, labelloc=t" if title else "")
        + "];",
        f'  node [shape=plaintext, margin=0, width=0, height=0, fontname="{_FONT}", '
        'fontsize=11];',
        '  edge [color="#475569", arrowsize=0.7];',
    ]
    # Nodes: grouped by module cluster, each group in creation order.
    body: dict[tuple, list[str]] = {}
    for n in view.nodes:
        if n.id in boxes:
            continue
        scope = n.scope if modules == "cluster" else ()
        out = body.setdefault(scope, [])
        n = in_frame(n, modules)
        out.append(_node_line(n, show_attrs, n.id in highlight, stacked))
        if n.saved:
            for box in saved_boxes(n.saved):
                out.append(_saved_line(box))
        elif n.saved is None:
            out.append(_released_line(n))
    if boxes:
        body.setdefault((), []).extend(_box_lines(view, boxes, highlight))
    if modules == "cluster" and view.clusters:
        lines.extend(_cluster_lines(view, body))
    else:
        lines.extend("  " + line for line in body.get((), []))

    # Edges, in (child, slot) order; into a module box only once per pair.
    n_edges = 0
    for e, src, dst, collapsed in drawn_edges(view, where):
        cls = "data"
        if collapsed:
            cls += " collapsed"
        if e.output_nr is not None:
            cls += " output_nr"
        attrs = [f'id="{e.key}"']
        if e.parent in highlight and e.child in highlight:
            cls += " highlight"
            attrs.append(f'color="{COLORS["highlight"][1]}", penwidth=2.5')
        attrs.insert(1, f'class="{cls}"')
        label = edge_label(view, e, edge_labels, collapsed)
        if label is not None:
            # (the node font, dark, and set back from the arrowhead: it is read on slides)
            attrs.append(f'headlabel="{label}", labelfontname="{_FONT}", labelfontsize=11, '
                         f'labelfontcolor="#1e293b", labeldistance=1.8')
        lines.append(f"  {src} -> {dst} [{', '.join(attrs)}];")
        n_edges += 1
    for n in view.nodes:
        if n.saved and n.id not in boxes:
            for item in saved_boxes(n.saved):
                lines.append(
                    f'  {item.key} -> {n.key} [id="se_{n.id}_{item.index}", class="saved", '
                    f'style=dashed, color="{COLORS["saved"][1]}", arrowhead=none];'
                )
    if legend:
        lines.extend(_legend_lines(view))
    lines.append("}")
    n_nodes = len(view.nodes) - len(boxes) + len(set(boxes.values()))
    return Dot("\n".join(lines) + "\n", n_nodes, n_edges)


# --------------------------------------------------------------------- node labels


def _esc(text: str) -> str:
    """Text for an HTML-like DOT label: control characters as visible escapes
    (graphviz's XML parser rejects them even as entities), then ``&<>"`` escaped."""
    return _html_escape(visible(str(text)))


def _td(text: str, bold: bool = False, align: str | None = None) -> str:
    body = _esc(text)
    if bold:
        body = f"<b>{body}</b>"
    extra = f' align="{align}"' if align else ""
    return f"<td{extra}>{body}</td>"


def _td_rows(what: str, preview: str) -> str:
    """A left-aligned cell showing a small matrix one row per line."""
    if not preview.startswith("[[") or "…" in preview:
        return _td(f"{what} {preview}", align="left")
    rows = preview.split("], [")
    lines = [r + ("]," if i < len(rows) - 1 else "") for i, r in enumerate(rows)]
    lines = [lines[0]] + [" [" + r for r in lines[1:]]
    body = '<br align="left"/>'.join(_esc(line) for line in lines)
    return f'<td align="left" balign="left">{_esc(what)} {body}</td>'


def auto_rankdir(view, *, modules="cluster", depth=None, show_attrs=False) -> str:
    """What ``rankdir="auto"`` resolves to for this view and these options (LR or TB);
    the built-in layout asks too, so both renderers turn the same way."""
    boxes = _boxes(view, depth) if modules == "box" else {}
    where = {n.id: boxes.get(n.id, n.key) for n in view.nodes}
    return _auto_rankdir(view, boxes, where, show_attrs)


def _auto_rankdir(view, boxes, where, show_attrs) -> str:
    """LR or TB for what will be drawn: graph nodes and module boxes, sized from their labels."""
    lr, tb = {}, {}
    for n in view.nodes:
        if n.id not in boxes:
            lr[n.key] = label_size(_node_line(n, show_attrs, False, False))
            tb[n.key] = label_size(_node_line(n, show_attrs, False, True))
    for line in _box_lines(view, boxes, frozenset()):
        key = line.split(" ", 1)[0]
        lr[key] = tb[key] = label_size(line)
    edges = [(where[e.parent], where[e.child]) for e in view.edges
             if where[e.parent] != where[e.child]]
    return choose_rankdir(lr, tb, edges)


def _mark_td(order: int) -> str:
    """The band cell of a node of order >= 1: its mark, white on the order's colour."""
    return (f'<td bgcolor="{order_color(order)}"><font color="white"><b>{order_mark(order)}'
            f"</b></font></td>")


def stacks_fields(rankdir: str) -> bool:
    """Does a scalar node stack its fields one per row?  Drawn top to bottom (or bottom
    to top) width is what the picture lacks; both renderers ask here, so they agree."""
    return rankdir in ("TB", "BT")


def scalar_fields(n, show_attrs: bool) -> list[tuple[str, bool]]:
    """A scalar node's fields in the order both renderers draw them, ``(text, bold)``:
    op symbol, name, data, grad, attrs (the stepper finds the grad text by this order)."""
    fields = [(n.symbol, True)] if n.symbol is not None else []
    if n.name is not None:
        fields.append((n.name, False))
    fields.append((f"data {n.data}", False))
    if n.grad_label is not None:
        fields.append((n.grad_label, False))
    if show_attrs and n.attrs:
        fields.append((n.attrs, False))
    return fields


def _node_line(n, show_attrs: bool, highlighted: bool, stacked: bool = False) -> str:
    if n.kind == "group":
        return _group_line(n)
    fill, border = COLORS["module" if n.op == "checkpoint" else n.role]
    width = 0
    style = ' style="rounded"' if n.op == "checkpoint" else ""
    cls = n.classes
    if n.order:
        border = order_color(n.order)
    if n.stub:  # of an order not shown: grey and dashed
        border, style = COLORS["input"][1], ' style="dashed"'
    if highlighted:
        border, width = COLORS["highlight"][1], 3
        cls += " highlight"
    cellborder = 1
    if n.stub and not highlighted:  # one dashed outline instead of cell borders
        width, cellborder = 1, 0
    table = (
        f'<table border="{width}" cellborder="{cellborder}" cellspacing="0" cellpadding="4" '
        f'bgcolor="{fill}" color="{border}"{style}>'
    )
    mark = _mark_td(n.order) if n.order else ""
    if n.kind == "scalar":
        cells = ([mark] if mark else []) + [
            _td(text, bold=bold) for text, bold in scalar_fields(n, show_attrs)]
        if stacked:  # one field a row: a narrow node for a top-to-bottom picture
            rows = ["<tr>" + cell + "</tr>" for cell in cells]
        else:
            rows = ["<tr>" + "".join(cells) + "</tr>"]
    else:
        head = " ".join(x for x in (n.symbol, n.name) if x is not None)
        rows = []
        if head or mark:
            first = mark + (_td(n.symbol, bold=True) if n.symbol is not None else "") + (
                _td(n.name) if n.name is not None else ""
            )
            span = (n.symbol is not None) + (n.name is not None) + bool(mark)
            rows.append(("<tr>" + first + "</tr>", span))
        if n.shape is not None:  # (a multi-output op's record has no shape of its own)
            rows.extend((f"<tr>{_td(line)}</tr>", 1) for line in n.shape_lines)
        tiny = n.tiny
        if tiny:
            rows.append((f"<tr>{_td_rows(n.data_word, n.data)}</tr>", 1))
        if n.grad_label is not None:  # one line: the stepper rewrites it as grads flow in
            rows.append((f"<tr>{_td(n.grad_label, align='left')}</tr>", 1))
        if show_attrs and n.attrs:
            rows.append((f"<tr>{_td(n.attrs, align='left')}</tr>", 1))
        widest = max(span for _, span in rows)
        # single-cell rows span the two-cell head row
        rows = [
            r.replace("<td", f'<td colspan="{widest}"', 1) if span < widest else r
            for r, span in rows
        ]
    label = table + "".join(rows) + "</table>"
    return f'{n.key} [id="{n.key}", class="{cls}", label=<{label}>];'


def _saved_line(item) -> str:
    fill, border = COLORS["saved"]
    rows = "".join(f"<tr>{_td(row)}</tr>" for row in item.rows)
    label = (
        f'<table border="1" cellborder="0" cellspacing="0" cellpadding="3" style="dashed" '
        f'bgcolor="{fill}" color="{border}">{rows}</table>'
    )
    return f'{item.key} [id="{item.key}", class="saved", fontsize=9, label=<{label}>];'


def _released_line(n) -> str:
    fill, border = COLORS["saved"]
    key = f"s_{n.id}_released"
    label = (
        f'<table border="1" cellborder="0" cellspacing="0" cellpadding="3" style="dashed" '
        f'bgcolor="{fill}" color="{border}"><tr>{_td("saved: released")}</tr></table>'
    )
    return (
        f'{key} [id="{key}", class="saved released", fontsize=9, label=<{label}>];\n'
        f'  {key} -> {n.key} [id="se_{n.id}_released", class="saved", style=dashed, '
        f'color="{border}", arrowhead=none];'
    )


# --------------------------------------------------------------------- modules


def _cluster_lines(view, body) -> list[str]:
    """Nested ``subgraph cluster_…`` blocks, one per module scope."""
    fill, border = COLORS["module"]
    out = []
    open_paths: list[tuple] = []
    for c in view.clusters:  # sorted by path: a parent scope comes before its children
        while open_paths and c.path[: len(open_paths[-1])] != open_paths[-1]:
            open_paths.pop()
            out.append("  " * (len(open_paths) + 1) + "}")
        pad = "  " * (len(open_paths) + 1)
        out.append(
            f'{pad}subgraph cluster_{c.key[2:]} {{ id="{c.key}"; class="module"; '
            f'label=<{_esc(c.title)}>; style="rounded,filled"; fillcolor="{fill}"; '
            f'color="{border}"; fontsize=10; labeljust=l;'
        )
        open_paths.append(c.path)
        out.extend(pad + "  " + line for line in body.get(c.path, []))
    while open_paths:
        open_paths.pop()
        out.append("  " * (len(open_paths) + 1) + "}")
    out.extend("  " + line for line in body.get((), []))
    return out


def box_depth(view) -> int:
    """The scope depth at which module boxes split the graph into several parts.

    Depth 1 unless every scoped node sits in one top-level scope (a model
    wrapping all its layers): then one level deeper, and so on.
    """
    scoped = {n.scope for n in view.nodes if n.scope}  # (each path once: a big graph has few)
    depth = 1
    while scoped and any(len(p) > depth for p in scoped):
        if len({p[:depth] for p in scoped}) > 1 or any(len(p) == depth for p in scoped):
            break
        depth += 1
    return depth


def _boxes(view, depth: int | None) -> dict[int, str]:
    """``{node id: box key}`` for nodes inside a scope collapsed at ``depth``."""
    if depth is None:
        depth = box_depth(view)
    return {n.id: cluster_key(n.scope[:depth]) for n in view.nodes if len(n.scope) >= depth}


def drawn_edges(view, where):
    """``(edge, src key, dst key, collapsed)`` for each edge a picture draws, in (child,
    slot) order: an edge inside one module box is not drawn, and an edge into or out of
    a box is drawn once per pair of keys (``where``: node id -> the key it is drawn as)."""
    seen = set()
    for e in view.edges:
        src, dst = where[e.parent], where[e.child]
        if src == dst:
            continue
        collapsed = src != f"n_{e.parent}" or dst != f"n_{e.child}"
        if collapsed:
            if (src, dst) in seen:
                continue
            seen.add((src, dst))
        yield e, src, dst, collapsed


def in_frame(n, modules):
    """The node as drawn inside its module frame: a name that repeats the frame's path
    drops it (inside the frame titled "layers.0.neurons.1", "w.0" says it all)."""
    prefix = ".".join(map(str, n.scope)) + "."
    if modules == "cluster" and n.scope and n.name and n.name.startswith(prefix):
        return dataclasses.replace(n, name=n.name[len(prefix):])
    return n


def _group_line(n) -> str:
    """A box of the overview (``viz.render.overview``): its title, then what it holds."""
    fill, border = COLORS[n.role]
    rows = f"<tr>{_td(n.symbol, bold=True)}</tr>" + "".join(
        f"<tr>{_td(text, align='left')}</tr>" for text in n.detail)
    label = (f'<table border="2" cellborder="0" cellspacing="0" cellpadding="4" '
             f'bgcolor="{fill}" color="{border}" style="rounded">{rows}</table>')
    return f'{n.key} [id="{n.key}", class="{n.classes}", label=<{label}>];'


def box_contents(view, boxes, highlight):
    """``(key, text lines, highlighted)`` per module box, for both renderers: its title,
    what it holds (ops, params), then its output's summary (``box_summary``)."""
    members: dict[str, list] = {}
    for n in view.nodes:
        if n.id in boxes:
            members.setdefault(boxes[n.id], []).append(n)
    titles = {c.key: c.title for c in view.clusters}
    used_outside = {e.parent for e in view.edges if boxes.get(e.child) != boxes.get(e.parent)}
    used_outside.update(view.roots)
    for key, nodes in members.items():
        # (an overview's group box counts what it stands for: viz.render.overview)
        ops = sum(n.holds[0] if n.kind == "group" else not n.is_leaf for n in nodes)
        params = sum(n.holds[1] if n.kind == "group" else n.role == "param" for n in nodes)
        outputs = [n for n in nodes if n.id in used_outside and not n.is_leaf]
        counts = [_plural(k, word) for k, word in ((ops, "op"), (params, "param")) if k]
        lines = [titles.get(key, key[2:]), ", ".join(counts) or "0 ops"]
        if len(outputs) == 1 and outputs[0].kind != "group":
            lines += box_summary(outputs[0])
        yield key, lines, any(n.id in highlight for n in nodes)


def _box_lines(view, boxes, highlight) -> list[str]:
    fill, border = COLORS["module"]
    out = []
    for key, lines, lit in box_contents(view, boxes, highlight):
        cls = "module box"
        bc, width = border, 1
        if lit:
            cls += " highlight"
            bc, width = COLORS["highlight"][1], 3
        label = (
            f'<table border="{width}" cellborder="0" cellspacing="0" cellpadding="4" '
            f'bgcolor="{fill}" color="{bc}" style="rounded"><tr>{_td(lines[0], bold=True)}</tr>'
            f"<tr>{_td(lines[1])}</tr>"
        )
        label += "".join(f"<tr>{_td(text, align='left')}</tr>" for text in lines[2:])
        label += "</table>"
        out.append(f'{key} [id="{key}", class="{cls}", label=<{label}>];')
    return out


def box_summary(n) -> list[str]:
    """What a module box says about its output node ``n``: its shape, then its data (a
    scalar, or a tensor small enough to print) and its grad field, as the node would.

    The grad text is ``n.grad_label``, the node's own (``grad norm …`` for a big tensor).
    """
    lines = []
    if n.kind == "tensor":
        lines.append(f"→ {' · '.join(n.shape_lines)}")
        if n.tiny:
            lines.append(f"{n.data_word} {n.data}")
    else:
        lines.append(f"→ data {n.data}")
    if n.grad_label is not None:
        lines.append(n.grad_label)
    return lines


def _plural(k: int, word: str) -> str:
    return f"{k} {word}" if k == 1 else f"{k} {word}s"


# --------------------------------------------------------------------- legend


def legend_entries(view) -> list[tuple[str, str, str, int, bool]]:
    """``(fill, border, text, border width, dashed)`` per legend row, for both renderers:
    the roles, then one row per derivative order present, then stubs if any."""
    roles = ["param", "input", "intermediate", "output"]
    if any(n.saved or n.saved is None for n in view.nodes):
        roles.append("saved")
    rows = [(*COLORS[role], _ROLE_TITLES[role], 1, False) for role in roles]
    rows += [(order_fill(k), order_color(k), order_title(k), 2, False)
             for k in legend_orders(view.nodes)]
    if any(n.stub for n in view.nodes):
        rows.append(("#ffffff", COLORS["input"][1], "stub: of an order not shown", 1, True))
    return rows


def _legend_lines(view) -> list[str]:
    """One small node listing the roles (and derivative orders) in their colours."""
    rows = "".join(
        f'<tr><td bgcolor="{fill}" color="{border}" border="{width}"'
        f'{" style=" + chr(34) + "dashed" + chr(34) if dashed else ""}>{_esc(text)}</td></tr>'
        for fill, border, text, width, dashed in legend_entries(view)
    )
    label = (
        f'<table border="0" cellborder="0" cellspacing="3" cellpadding="3">'
        f"<tr><td><b>legend</b></td></tr>{rows}</table>"
    )
    return [f'  legend [id="legend", class="legend", fontsize=9, label=<{label}>];']
