"""How wide the two big graphs of issue #20 draw: a scalar MLP and a tensor MLP written op by op.

Width is the SVG's ``width`` in CSS pixels (graphviz writes points; a browser
shows 1 pt as 4/3 px), with ``viz.draw``'s defaults, so the figure is what a
student sees before zooming.  The graphs:

* the lessons' scalar MLP 3-4-4-1 (``minigrad.nn.neurons.MLP``) on one input,
  squared-error loss, after backward (120 nodes);
* a tensor MLP 64-16-10 on 8 digits, written op by op (matmul, add, relu,
  a hand-written softmax cross-entropy), after backward.

    python benchmarks/graph_widths.py [--rankdir LR|TB]   # (default: viz's own default)

Prints one line per graph: nodes, width and height in px, the rankdir used.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def scalar_mlp():
    from minigrad import Value
    from minigrad.nn.neurons import MLP

    model = MLP(3, [4, 4, 1], rng=random.Random(0))
    x = [Value(v, label=f"x{i}") for i, v in enumerate((0.5, -1.0, 2.0))]
    loss = (model(x) - 1.0) ** 2
    loss.label = "loss"
    loss.backward()
    return loss


def tensor_mlp_op_by_op():
    import numpy as np

    import minigrad as mg
    from minigrad.data import load_digits

    X, y = load_digits()
    rng = np.random.default_rng(0)
    x = mg.Tensor(X[:8], name="x")
    w1 = mg.Tensor(rng.normal(0, 0.1, (64, 16)), requires_grad=True, name="w1")
    b1 = mg.Tensor(np.zeros(16), requires_grad=True, name="b1")
    w2 = mg.Tensor(rng.normal(0, 0.1, (16, 10)), requires_grad=True, name="w2")
    b2 = mg.Tensor(np.zeros(10), requires_grad=True, name="b2")
    onehot = mg.Tensor(np.eye(10)[y[:8]], name="onehot")
    h = (x @ w1 + b1).relu()
    logits = h @ w2 + b2
    shifted = logits - logits.max(axis=1, keepdims=True)
    logp = shifted - shifted.exp().sum(axis=1, keepdims=True).log()
    loss = -(logp * onehot).sum(axis=1).mean()
    loss.backward()
    return loss


def size_px(svg: str) -> tuple[float, float]:
    tag = re.search(r"<svg\b[^>]*>", svg).group(0)
    w = float(re.search(r'width="([\d.]+)pt"', tag).group(1))
    h = float(re.search(r'height="([\d.]+)pt"', tag).group(1))
    return w * 4 / 3, h * 4 / 3


def main() -> None:
    import viz

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rankdir", choices=("LR", "TB", "RL", "BT"), default=None)
    args = ap.parse_args()
    kw = {"rankdir": args.rankdir} if args.rankdir else {}
    for name, build in (("scalar MLP 3-4-4-1", scalar_mlp),
                        ("tensor MLP op by op", tensor_mlp_op_by_op)):
        g = viz.draw(build(), **kw)
        w, h = size_px(g.svg())
        rankdir = re.search(r"rankdir=(\w+)", g.source).group(1)
        print(f"{name:22s} {len(g.view):4d} nodes  {w:7.0f} x {h:5.0f} px  rankdir={rankdir}")


if __name__ == "__main__":
    main()
