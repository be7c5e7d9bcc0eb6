"""How long ``viz.draw`` takes against the graph's size, with the overview (issue #31).

Two graphs per size, built with the scalar engine and ``backward()`` run:

* **chain**: ``x.tanh().tanh()…``, one node per op (the overview folds it);
* **mlp**: micrograd's demo loss, a ReLU MLP (``minigrad.nn.neurons.MLP``) over a batch with
  an SVM max-margin loss and L2 on the parameters; the batch and the width (2-4-1 below
  1,000 nodes, 2-8-8-1 below 10,000, else 2-16-16-1) are chosen so the graph has about the
  target number of nodes (2-16-16-1 over 100 examples is the ~66k-node graph of the issue).

and two last rows, **demo**: micrograd's demo itself, 2-16-16-1 over 100 examples (~66k
nodes; the issue asks for a readable overview in at most 3 s), and **framed**: the same
demo with its modules recorded (``record_scopes()``, drawn with ``scopes=``), so the overview
draws each box in its module's frame.

For each, in one process, medians of ``--repeats`` runs:

* ``build``: making the graph (forward and backward): the reference the drawing is read
  against (``(draw+dot)/build``: how many times longer drawing takes than computing);
* ``draw``: ``viz.draw(loss, params=model)``: the view of every node, the overview, the DOT
  text (no layout yet);
* ``dot`` / ``builtin``: laying the picture out (``Graph.svg()``) with graphviz's ``dot`` and
  with the built-in layout; ``-`` where ``dot`` is not installed;
* ``whole dot``: the same graph drawn node by node (``overview=False``), laid out by
  ``dot``, up to 2,000 nodes, for comparison.

    python benchmarks/draw_size.py [--sizes 100 1000 10000 100000] [--repeats 3] [--quick]

Timings vary on a shared machine: read the ratios of one run, never absolute times.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

WHOLE_UP_TO = 2_000  # nodes: the whole graph is laid out by dot for comparison up to here


def chain(nodes: int):
    from minigrad import Value

    x = Value(0.5, label="x")
    y = x
    for _ in range(nodes - 1):
        y = y.tanh()
    y.backward()
    return y, None, None


def mlp(nodes: int):
    """micrograd's demo loss with about ``nodes`` nodes (the batch sets the size)."""
    if nodes < 1_000:
        sizes, per_example, fixed = [4, 1], 25, 60
    elif nodes < 10_000:
        sizes, per_example, fixed = [8, 8, 1], 200, 220
    else:
        sizes, per_example, fixed = [16, 16, 1], 643, 700
    return demo(sizes, max(1, round((nodes - fixed) / per_example)))


def demo(sizes=(16, 16, 1), examples=100, scoped=False):
    """micrograd's demo loss: a ReLU MLP 2-``sizes`` over ``examples`` examples, SVM
    max-margin loss and L2 (2-16-16-1 over 100: the ~66k-node graph of issue #31);
    ``scoped``: the model's modules recorded (``record_scopes``), returned third."""
    import contextlib

    import numpy as np

    from minigrad import Value
    from minigrad.nn import record_scopes
    from minigrad.nn.neurons import MLP

    rng = np.random.default_rng(0)
    model = MLP(2, list(sizes), rng=random.Random(0))
    xs = [[Value(float(v)) for v in row] for row in rng.normal(size=(examples, 2))]
    ys = np.where(rng.normal(size=examples) > 0, 1.0, -1.0)
    with record_scopes() if scoped else contextlib.nullcontext() as scopes:
        losses = [(1 + -float(y) * model(x)).relu() for x, y in zip(xs, ys)]
    loss = sum(losses) * (1.0 / examples) + 1e-4 * sum(p * p for p in model.parameters())
    loss.backward()
    return loss, model, scopes


def _median(fn, repeats: int):
    times, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def measure(kind: str, size: int, repeats: int, has_dot: bool) -> dict:
    import minigrad as mg
    import viz

    make = {"chain": chain, "mlp": mlp, "demo": lambda _: demo(),
            "framed": lambda _: demo(scoped=True)}[kind]
    build, (loss, model, scopes) = _median(lambda: make(size), repeats)
    draw, graph = _median(lambda: viz.draw(loss, params=model, scopes=scopes), repeats)
    row = {"graph": kind, "nodes": len(mg.topological_order(loss)),
           "drawn": len(graph.view.nodes), "build": build, "draw": draw}
    for layout in ("dot", "builtin"):
        if layout == "dot" and not has_dot:
            row[layout] = None
            continue
        row[layout] = _layout_time(lambda lay=layout: viz.draw(
            loss, params=model, scopes=scopes, layout=lay), repeats)
    row["whole dot"] = None
    if has_dot and row["nodes"] <= WHOLE_UP_TO:
        row["whole dot"] = _layout_time(
            lambda: viz.draw(loss, params=model, scopes=scopes, overview=False, layout="dot"),
            1)
    return row


def _layout_time(draw, repeats: int) -> float:
    """Median time of ``Graph.svg()`` (the layout) on fresh drawings (``svg`` caches)."""
    times = []
    for _ in range(repeats):
        graph = draw()
        start = time.perf_counter()
        graph.svg()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _s(v) -> str:
    return "-" if v is None else f"{v:.3f}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1_000, 10_000, 100_000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="sizes 100 and 1,000, one run")
    parser.add_argument("--no-demo", action="store_true",
                        help="leave out the last rows, micrograd's demo (2-16-16-1 over 100), "
                             "plain and framed")
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes, args.repeats = [100, 1_000], 1
    import viz

    has_dot = viz.dot_available()
    head = ("graph", "nodes", "drawn", "build s", "draw s", "dot s", "builtin s",
            "(draw+dot)/build", "(draw+builtin)/build", "whole dot s")
    print(f"viz.draw with the overview; medians of {args.repeats}; dot "
          f"{'installed' if has_dot else 'not installed'}")
    print(" | ".join(head))
    runs = [(kind, size) for kind in ("chain", "mlp") for size in args.sizes]
    if not args.no_demo:
        runs += [("demo", 0), ("framed", 0)]
    for kind, size in runs:
        r = measure(kind, size, args.repeats, has_dot)
        ratios = ["-" if r[k] is None else f"{(r['draw'] + r[k]) / r['build']:.1f}x"
                  for k in ("dot", "builtin")]
        print(" | ".join([r["graph"], f"{r['nodes']:,}", f"{r['drawn']:,}", _s(r["build"]),
                          _s(r["draw"]), _s(r["dot"]), _s(r["builtin"]), *ratios,
                          _s(r["whole dot"])]), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
