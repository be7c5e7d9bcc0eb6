"""Wrong answers that ``checks/ex01_graph_text.py`` must reject (lesson 1)."""

from __future__ import annotations

from ._registry import mistake


def _graph01(const_first=False, labels=True, backward=False):
    from minigrad import Value

    def build_graph():
        w, x = Value(-3.0, label="w"), Value(-2.0, label="x")
        p = w * x
        q = 2 * x if const_first else x * 2
        h = p + q
        out = h.tanh()
        if labels:
            p.label, q.label, h.label, out.label = "p", "q", "h", "out"
        if backward:
            out.backward()
        return out

    return build_graph


mistake("ex01", "build_graph", "2 * x instead of x * 2", "slot 0")(_graph01(const_first=True))
mistake("ex01", "build_graph", "labels only on leaves", "differs at line 1")(
    _graph01(labels=False))
mistake("ex01", "build_graph", "calls backward", "do not call backward")(_graph01(backward=True))


def _answers(**wrong):
    def read_graph():
        answers = {"leaves": ["x", "y"], "constants": 2, "ops": 7, "edges": 13,
                   "grad_x": 2.2830}
        answers.update(wrong)
        return answers

    return read_graph


mistake("ex01", "read_graph", "counts [seen] lines as nodes", "count each node once")(
    _answers(ops=8))
mistake("ex01", "read_graph", "skips [seen] edges", "[seen]")(_answers(edges=9))
mistake("ex01", "read_graph", "one x per line", "count each label once")(
    _answers(leaves=["x", "x", "x", "x", "y"]))
mistake("ex01", "read_graph", "grad of one edge only", "total")(_answers(grad_x=-1.6418 * -1.5))
