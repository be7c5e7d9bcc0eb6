"""Render the README's example graphs to docs/: one neuron after backward (graph.svg,
.png), and the graphs of tanh's first and second derivatives (gradient_graph.svg, .png).

    .venv/bin/python scripts/render_readme_graph.py [output directory]

The neuron is Karpathy's micrograd example, ``o = tanh(x1·w1 + x2·w2 + b)``,
with values chosen so that ``o ≈ 0.7071``.  The output is deterministic (a
fresh process gives the same node ids); rerun the script after changing the
renderer and commit the images.  Needs graphviz's ``dot``.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import viz  # noqa: E402
from minigrad import Value  # noqa: E402


def neuron():
    x1, x2 = Value(2.0, label="x1"), Value(0.0, label="x2")
    w1, w2 = Value(-3.0, label="w1"), Value(1.0, label="w2")
    b = Value(6.8813735870195432, label="b")
    x1w1 = x1 * w1
    x1w1.label = "x1·w1"
    x2w2 = x2 * w2
    x2w2.label = "x2·w2"
    s = x1w1 + x2w2
    s.label = "x1·w1 + x2·w2"
    n = s + b
    n.label = "n"
    o = n.tanh()
    o.label = "o"
    return o


def tanh_derivatives():
    """y = tanh(x), and the graphs of dy/dx and d²y/dx² built by create_graph passes."""
    from minigrad.autograd import grad

    x = Value(0.5, label="x")
    y = x.tanh()
    y.label = "y"
    (d1,) = grad(y, [x], create_graph=True)
    d1.label = "dy/dx"
    (d2,) = grad(d1, [x], create_graph=True)
    d2.label = "d²y/dx²"
    return d1, d2


def main(out_dir: Path) -> list[Path]:
    o = neuron()
    o.backward()
    graph = viz.draw(o, legend=True)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = [graph.save(out_dir / "graph.svg"), graph.save(out_dir / "graph.png")]
    orders = viz.draw(list(tanh_derivatives()), legend=True, show_grad=False)
    return written + [orders.save(out_dir / "gradient_graph.svg"),
                      orders.save(out_dir / "gradient_graph.png")]


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs"
    for path in main(target):
        print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
