"""Derivative orders: how every renderer tells a function's graph from its gradients' graphs.

A backward pass run with ``create_graph=True`` records what it computes, so a
gradient has a graph of its own, and that graph can be differentiated again.
Each node knows which pass built it: its derivative **order** (0 for the
forward computation, 1 for the graph of a first derivative, 2 for a second
...; ``minigrad.derivative_orders`` is the rule, ``ViewNode.order`` holds it).

One table here says how each order looks, so the DOT picture, the built-in
layout, the text tree, the stepper and the legends agree:

=====  ======================  =========  ==============================
order  border and band colour  mark       SVG class of the node group
=====  ======================  =========  ==============================
0      the role's (unchanged)  none       (none)
1      violet ``#7c3aed``      ``∂¹``     ``order1``
2      pink ``#db2777``        ``∂²``     ``order2``
3      teal ``#0d9488``        ``∂³``     ``order3``
4      amber ``#b45309``       ``∂⁴``     ``order4``
=====  ======================  =========  ==============================

(orders past 4 reuse the colours from the start; the mark and class keep counting.)

Which orders are shown: ``DisplayOptions.orders``

* ``"all"`` (default): the forward graph and its gradient graphs together;
* ``"gradient"``: orders 1 and up, the gradient graphs alone;
* an int or a tuple of ints, e.g. ``(1, 2)`` or ``2``: those orders.

A node of a hidden order that a shown node uses directly is kept as a **stub**
(class ``stub``, drawn faded and dashed, its own inputs not drawn): the
graph of ``tanh``'s derivative, ``g·(1 − y²)``, reads nothing without the
``y`` it is made of.  Edges into hidden nodes are dropped, and so are the
hidden nodes.  Module scopes (``modules="cluster"``/``"box"``) apply to what
is left, stubs included.
"""

from __future__ import annotations

import numbers

__all__ = ["ORDER_COLORS", "order_color", "order_fill", "order_mark", "order_class",
           "order_title", "check_orders", "shown_orders", "select_orders", "legend_orders"]

#: border/band colour of orders 1, 2, 3, 4 (then again from the start)
ORDER_COLORS = ("#7c3aed", "#db2777", "#0d9488", "#b45309")
#: a light tint of each, for legend swatches and the stepper's "new node" key
_FILLS = ("#ede9fe", "#fce7f3", "#ccfbf1", "#fef3c7")
_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
_ORDINALS = {1: "first", 2: "second", 3: "third", 4: "fourth"}
SELECTIONS = ("all", "gradient")


def order_color(k: int) -> str:
    """The border and band colour of order ``k`` >= 1."""
    return ORDER_COLORS[(k - 1) % len(ORDER_COLORS)]


def order_fill(k: int) -> str:
    return _FILLS[(k - 1) % len(_FILLS)]


def order_mark(k: int) -> str:
    """``∂¹``, ``∂²`` ...: the small mark drawn in a node of order ``k`` >= 1."""
    return "∂" + str(k).translate(_SUPERSCRIPT)


def order_class(k: int) -> str:
    """``order1``, ``order2`` ...; ``""`` for the forward graph (order 0)."""
    return f"order{k}" if k else ""


def order_title(k: int) -> str:
    """What a legend says of order ``k``: ``∂¹ graph of the first derivative (order 1)``."""
    nth = _ORDINALS.get(k, f"{k}th")
    return f"{order_mark(k)} graph of the {nth} derivative (order {k})"


def check_orders(where: str, orders) -> None:
    """Refuse an ``orders`` option that is not ``"all"``, ``"gradient"``, an order or orders."""
    if isinstance(orders, str):
        if orders in SELECTIONS:
            return
    else:
        items = orders if isinstance(orders, (tuple, list, set, frozenset)) else (orders,)
        if items and all(isinstance(k, numbers.Integral) and not isinstance(k, bool) and k >= 0
                         for k in items):
            return
    raise ValueError(f"{where}: orders must be 'all', 'gradient', a derivative order (0, 1, "
                     f"2 ...) or a tuple of them such as (1, 2); got {orders!r}")


def shown_orders(orders, present) -> set[int]:
    """The orders among ``present`` that the ``orders`` option shows."""
    present = set(present)
    if orders == "all":
        return present
    if orders == "gradient":
        return {k for k in present if k >= 1}
    wanted = set(orders) if isinstance(orders, (tuple, list, set, frozenset)) else {orders}
    return present & {int(k) for k in wanted}


def select_orders(nodes: list, edges: list, roots: tuple, orders):
    """Keep the view's nodes of the shown orders, plus stubs (see the module doc).

    ``nodes`` are ``ViewNode``s (``order``, ``inputs``, ``stub``), ``edges``
    ``ViewEdge``s (``child``, ``parent``).  Returns ``(nodes, edges, roots)``;
    raises ``ValueError`` when no node has a shown order: an empty picture
    would hide the mistake.
    """
    present = {n.order for n in nodes}
    shown = shown_orders(orders, present)
    if shown == present:
        return nodes, edges, roots
    if not shown:
        have = ", ".join(str(k) for k in sorted(present))
        raise ValueError(
            f"orders={orders!r}: this graph has no node of those orders (it has order "
            f"{have}; order 1 and up are built by backward(create_graph=True) or "
            f"minigrad.autograd.grad(..., create_graph=True))")
    keep = {n.id for n in nodes if n.order in shown}
    stubs = {p for n in nodes if n.id in keep for p in n.inputs} - keep
    out = []
    for n in nodes:
        if n.id in stubs:
            n.stub = True
            n.inputs = ()  # (a stub's own inputs are not drawn, nor printed)
        if n.id in keep or n.id in stubs:
            out.append(n)
    edges = [e for e in edges if e.child in keep]
    roots = tuple(r for r in roots if r in keep)
    if not roots:  # the outputs were all hidden: the shown nodes nothing else uses
        used = {e.parent for e in edges}
        roots = tuple(n.id for n in out if n.id in keep and n.id not in used)
    return out, edges, roots


def legend_orders(nodes) -> list[int]:
    """The orders >= 1 among ``nodes`` (``ViewNode``s), lowest first: one legend entry each."""
    return sorted({n.order for n in nodes if n.order >= 1})
