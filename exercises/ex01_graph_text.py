"""Exercise 01 · reading and writing graphs with the text printer (lesson 1).

``viz.text(root)`` prints the graph behind ``root`` as a tree: the root first,
each node's inputs indented below it in slot order (input 0 first).  A line
shows the op's symbol (or ``leaf`` for a leaf that requires grad, ``const`` for
a number that does not), the node's label if it has one, its ``data``, and its
``grad`` (``grad=—`` until backward has run; a ``const`` has no grad).  A node
reached a second time prints ``[seen]`` and its inputs are not repeated.

Part 1, writing.  ``build_graph()`` builds ``Value``s and returns the root whose
printout is exactly this (set labels with ``Value(..., label="w")`` or
``node.label = "p"``; do not call backward)::

    tanh out  data=0.9640  grad=—
    └── + h  data=2.0000  grad=—
        ├── × p  data=6.0000  grad=—
        │   ├── leaf w  data=-3.0000  grad=—
        │   └── leaf x  data=-2.0000  grad=—
        └── × q  data=-4.0000  grad=—
            ├── leaf x [seen]
            └── const  data=2.0000

Mind the slot order: ``x * 2`` and ``2 * x`` are different graphs.

Part 2, reading.  Here is another graph, printed after ``L.backward()``::

    +  data=-0.1534  grad=1.0000
    ├── ×  data=0.3466  grad=1.0000
    │   ├── tanh  data=-0.4621  grad=-0.7500
    │   │   └── ×  data=-0.5000  grad=-0.5898
    │   │       ├── +  data=-0.2500  grad=-1.1797
    │   │       │   ├── ×  data=-0.7500  grad=-1.6418
    │   │       │   │   ├── leaf x  data=0.5000  grad=2.2830
    │   │       │   │   └── leaf y  data=-1.5000  grad=-0.8209
    │   │       │   └── leaf x [seen]
    │   │       └── const  data=2.0000
    │   └── × [seen]
    └── −  data=-0.5000  grad=1.0000
        ├── leaf x [seen]
        └── const  data=1.0000

``read_graph()`` returns a dict with your answers, read off the printout:

* ``"leaves"``: the labels of the leaves that require grad, sorted (a list);
* ``"constants"``: how many ``const`` nodes the graph has;
* ``"ops"``: how many op nodes (neither leaf nor const) the graph has;
* ``"edges"``: how many edges (an edge joins an op to one of its inputs);
* ``"grad_x"``: dL/dx, as printed.

Check it:  python -m exercises ex01   (in a notebook: ``check("ex01")``)
"""

__all__ = ["build_graph", "read_graph"]


def build_graph():
    """Build and return the root whose ``viz.text`` is the Part 1 printout."""
    raise NotImplementedError


def read_graph() -> dict:
    """Answers about the Part 2 printout: leaves, constants, ops, edges, grad_x."""
    raise NotImplementedError
