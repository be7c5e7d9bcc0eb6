"""Rendering: a graph as one neutral view, then as a picture or as text.

Read in this order:

* ``view.py``: ``build_view``, the ``GraphView`` every renderer reads (nodes with a role,
  edges by slot, module clusters, element ids);
* ``options.py``: ``DisplayOptions``, the one set of settings every renderer takes;
* ``numbers.py``: how a value, an array or a shape is written in a label;
* ``derivative_orders.py``: how each derivative order looks (colour, mark, legend);
* ``multi_output.py``: how an op with several outputs is shown;
* ``printer.py``: ``viz.text``, the graph as an indented tree;
* ``dot.py``: the view as DOT text, the element ids and classes the stepper relies on;
* ``direction.py``: ``rankdir="auto"``, left to right or top to bottom;
* ``svg_cards.py`` and ``svg_draw.py``: the same picture as SVG without ``dot``
  (placed by ``viz.layout``);
* ``draw.py``: ``viz.draw`` and ``Graph``, which picks ``dot`` or the built-in layout.
* ``torch_graph.py``: PyTorch's backward graph read into the same ``GraphView``;
* ``side_by_side.py``: ``viz.side_by_side``, one function in minigrad and in PyTorch,
  both graphs drawn with matching nodes paired, and a table of their gradients.

(The package is called ``render``, not ``draw``, because ``viz.draw`` is the function.)
"""
