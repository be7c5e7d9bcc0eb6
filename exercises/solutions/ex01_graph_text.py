"""Reference solution for exercise 01 (reading and writing graphs with the text printer)."""

from minigrad import Value

__all__ = ["build_graph", "read_graph"]


def build_graph():
    """Build and return the root whose ``viz.text`` is the Part 1 printout."""
    w = Value(-3.0, label="w")
    x = Value(-2.0, label="x")
    p = w * x  # input 0 is w: it is printed first
    p.label = "p"
    q = x * 2  # the number on the right: the const is input 1
    q.label = "q"
    h = p + q
    h.label = "h"
    out = h.tanh()
    out.label = "out"
    return out


def read_graph() -> dict:
    """Answers about the Part 2 printout: leaves, constants, ops, edges, grad_x."""
    return {
        "leaves": ["x", "y"],  # x appears four times but is one node
        "constants": 2,
        "ops": 7,  # the shared × is printed twice, the second time as [seen]
        "edges": 13,  # every line but the root's is one edge, [seen] lines included
        "grad_x": 2.2830,  # the first x line shows the total of its four contributions
    }
