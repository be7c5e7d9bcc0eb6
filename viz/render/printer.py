"""``viz.text``: a computation graph as an indented tree, one node per line.

>>> from minigrad import Value
>>> a = Value(2.0, label="a"); b = Value(-3.0, label="b")
>>> c = a * b; c.label = "c"
>>> d = c + a; d.label = "d"
>>> L = d * d; L.label = "L"
>>> L.backward()
>>> print_graph(L)
× L  data=16.0000  grad=1.0000
├── + d  data=-4.0000  grad=-8.0000
│   ├── × c  data=-6.0000  grad=-8.0000
│   │   ├── leaf a  data=2.0000  grad=16.0000
│   │   └── leaf b  data=-3.0000  grad=-16.0000
│   └── leaf a [seen]
└── + d [seen]

The format, which exercises compare exactly (it only changes with a note in
the changelog):

* the root first, then each node's inputs below it in slot order (input 0
  first), drawn with ``├── ``, ``└── `` and ``│   `` guides, 4 characters
  per level;
* a line is its fields separated by two spaces: the head, for tensors the
  shape and dtype (``(2, 2) float32``), ``data=…``, ``grad=…``;
* the head is the op's symbol (``×``, ``tanh``, ``Σ(axis=1)``; a custom
  Function's class name), or ``leaf`` for a leaf that requires grad and
  ``const`` for one that does not; then the node's name, if it has one
  (control characters written as escapes, ``x\\ny``, as in the picture);
* numbers have a fixed number of decimals (``digits``, 4), scientific
  notation outside 1e-3..1e5 (``viz.format_number``); tensors print on one
  line, numpy style, summarised with ``...`` past ``preview`` elements and
  cut with ``…`` at ``width`` characters;
* ``grad=—`` means not computed yet (never a silent 0); a node that needs no
  gradient (``const``) has no grad field; ``show_grad=False`` drops them all;
* a node reached a second time (``x*x``, or a shared subexpression) prints
  its head and ``[seen]``, and its inputs are not repeated;
* several roots (or a tape's outputs) print one tree after another, and
  nodes of an earlier tree are ``[seen]`` in later ones;
* past ``max_indent`` levels (40) a line starts with its depth instead of
  guides, ``[41] └── …``, so a 100,000-node chain stays printable;
* ``ids=True`` starts each head with the node's ``#id``; ``show_saved=True``
  adds ``saved=(…)`` (``saved=released`` after backward) to op nodes, which
  custom Functions get by default: each value by its name, ``;``-separated,
  ``saved=(a = input 0: 2.0000; b = input 1: -3.0000)`` (``SavedItem.line``);
* a gradient's graph (``create_graph=True``): a node built by a backward pass
  has its order's mark after the head (``× ∂¹``, ``+ ∂²``; the forward graph's
  nodes have none), and a last line counts the nodes per order,
  ``nodes: 12 (order 0: 5, order 1: 7)`` (``minigrad.memory.orders_text``); with
  ``orders=`` some orders only are printed, and a node of another order they
  use is a stub: ``[stub]``, its inputs not followed (``viz.render.derivative_orders``);
* ``overview=True`` prints the overview ``viz.draw`` draws for a big graph
  (``viz.render.overview``): a box is one line, its title then what it holds,
  ``example × 100  each 643 ops:  layers.0.neurons.* × 16 (2 mul, 2 add, relu)  …``, and a
  last ``note:`` line says it is an overview and how to see every node.
"""

from __future__ import annotations

from minigrad.memory import order_counts, orders_text

from .derivative_orders import order_mark
from .options import UNSET, DisplayOptions, resolve
from .overview import overview_of
from .torch_graph import graph_view
from .view import GraphView

__all__ = ["text", "print_graph", "render_text"]


def text(
    root,
    *,
    options: DisplayOptions | None = None,
    params=UNSET,
    scopes=UNSET,
    show_grad: bool = UNSET,
    show_saved: bool | None = UNSET,
    digits: int = UNSET,
    width: int | None = UNSET,
    preview: int = UNSET,
    ids: bool = UNSET,
    max_indent: int = UNSET,
    orders=UNSET,
    overview=UNSET,
    expand=UNSET,
    example=UNSET,
) -> str:
    """The graph behind ``root`` (a Value/Tensor, a list of them, or a Tape) as a tree;
    a torch tensor gives PyTorch's backward graph (``viz.render.torch_graph``).

    ``options`` is a ``viz.DisplayOptions``; keywords given here override its
    fields.  ``params`` names leaves (Module, dict or pairs); ``show_grad=False``
    leaves grads out (forward view); ``show_saved`` adds what ops saved
    (``None``: for custom Functions only);
    ``digits`` decimals (4); ``width`` characters per tensor preview (60); ``preview``
    elements before numpy summarises with ``...`` (6); ``ids`` prefixes each line
    with the node's ``#id``; past ``max_indent`` levels (40) lines stop indenting and
    say their depth instead; ``orders`` prints some derivative orders only
    (``viz.render.derivative_orders``); ``overview=True`` prints the overview
    ``viz.draw`` draws for a big graph (groups with counts, folded chains; ``expand=``
    opens groups, see ``viz.render.overview``), ``"auto"`` and ``False``: every node.
    ``example`` picks the example shown of a node computed inside ``vmap`` (``viz.draw``).
    """
    opts = resolve("viz.text", options, dict(
        params=params, scopes=scopes, show_grad=show_grad, show_saved=show_saved,
        digits=digits, width=width, preview=preview, ids=ids, max_indent=max_indent,
        orders=orders, overview=overview, expand=expand, example=example))
    view = graph_view(root, options=opts)  # (a torch tensor too)
    return render_text(overview_of(view, opts, "viz.text"), options=opts)


def print_graph(root, **options) -> None:
    """Print ``viz.text(root, **options)``."""
    print(text(root, **options))


def render_text(view: GraphView, *, options: DisplayOptions | None = None, ids: bool = UNSET,
                max_indent: int = UNSET) -> str:
    """The text tree of an already built view (what ``text`` and ``Graph.text`` use);
    only ``ids`` and ``max_indent`` of the options matter here."""
    opts = resolve("viz.text", options, dict(ids=ids, max_indent=max_indent))
    ids, max_indent = opts.ids, opts.max_indent
    by_id = view.by_id
    seen: set[int] = set()
    lines: list[str] = []
    for root in view.roots:
        # Each stack entry: node id, what goes before it on its line, the prefix its
        # own inputs continue from, and its depth.  Inputs are pushed in reverse so
        # input 0 is printed first.
        stack = [(root, "", "", 0)]
        while stack:
            nid, lead, prefix, depth = stack.pop()
            n = by_id[nid]
            if nid in seen:
                lines.append(f"{lead}{_head(n, ids)} [seen]")
                continue
            if n.stub:
                lines.append(f"{lead}{_line(n, ids)}  [stub]")
                seen.add(nid)
                continue
            seen.add(nid)
            lines.append(lead + _line(n, ids))
            inputs = n.inputs
            last = len(inputs) - 1
            child_depth = depth + 1
            for i in range(last, -1, -1):
                branch = "└── " if i == last else "├── "
                if child_depth <= max_indent:
                    stack.append((inputs[i], prefix + branch,
                                  prefix + ("    " if i == last else "│   "), child_depth))
                else:
                    stack.append((inputs[i], f"[{child_depth}] {branch}", "", child_depth))
    counts = order_counts({n.id: n.order for n in view.nodes if not n.stub})
    if any(counts.keys() - {0}) or any(n.stub for n in view.nodes):
        lines.append(orders_text(counts) + _stub_note(view))
    lines.extend(f"note: {note}" for note in view.notes)
    return "\n".join(lines)


def _stub_note(view) -> str:
    stubs = sum(1 for n in view.nodes if n.stub)
    return f", and {stubs} stub{'' if stubs == 1 else 's'} of other orders" if stubs else ""


def _head(n, ids: bool) -> str:
    what = n.symbol if n.symbol is not None else ("leaf" if n.requires_grad else "const")
    if n.name is not None:  # (the view wrote its control characters as escapes: one line)
        what += " " + n.name
    if n.order:
        what += " " + order_mark(n.order)
    return f"#{n.id} {what}" if ids else what


def _line(n, ids: bool) -> str:
    parts = [_head(n, ids)]
    if n.kind == "tensor" and n.shape is not None:  # (a multi-output op's node has none)
        parts.append(" · ".join(n.shape_lines))
    if n.data is not None:  # (a torch graph's op node: torch keeps no value there)
        # (inside vmap: example_2=..., the line says "batch of 5" already)
        word = "data" if n.example is None else n.example.split(" of ")[0]
        parts.append(f"{word.replace(', ', ',').replace(' ', '_')}={n.data}")
    if n.grad is not None:
        parts.append(f"grad={n.grad}")
    if n.kind == "group":  # a box of the overview: what it holds
        parts.extend(n.detail)
    if n.saved is None:
        parts.append("saved=released")
    elif n.saved:
        parts.append("saved=(" + "; ".join(s.line for s in n.saved) + ")")
    return "  ".join(parts)
