"""Bytes a saved output carries: the player's module and stylesheet as written and compacted.

Every saved player (a lesson's output, ``save_html``, nbconvert) and every big ``viz.draw``
output inlines the whole front end (``viz/assets``), so that it works alone.  For three
outputs, this prints their size with the files compacted (what they carry) beside the same
output with the files as written (the reference, built in the same run by putting the
readable text back in place of the compacted one), as HTML and as a cell's output stored
in an ``.ipynb`` (nbformat's JSON: a list of lines, each quoted and indented):

* **player**: ``viz.step_through`` of a neuron, ``tanh(a*b + c)`` (19 steps);
* **page**: the same as a standalone page (``to_html()``);
* **big drawing**: ``viz.draw`` of an MLP 8-16-4, built-in layout (wider than a cell: zoom
  and pan, the player's module).

    python benchmarks/player_size.py

The big drawing's bytes are the same everywhere (the built-in layout); the player's graph is
laid out by ``dot`` where it is installed, and dot builds differ by a few bytes: read the ratios.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import nbformat  # noqa: E402
import numpy as np  # noqa: E402

import viz  # noqa: E402
from minigrad import Tensor, Value, nn  # noqa: E402
from viz.assets import asset  # noqa: E402


def as_written(html: str) -> str:
    """``html`` with the readable files in place of the compacted ones."""
    for name in ("player.js", "player.css"):
        html = html.replace(asset(name, compact=True), asset(name))
    return html


def in_ipynb(html: str) -> int:
    """Bytes ``html`` adds to a notebook as one cell's ``text/html`` output."""
    def size(outputs):
        cell = nbformat.v4.new_code_cell(outputs=outputs)
        return len(nbformat.writes(nbformat.v4.new_notebook(cells=[cell])).encode())

    return size([nbformat.v4.new_output("display_data", data={"text/html": html})]) - size([])


def outputs() -> dict[str, str]:
    def neuron(a, b, c):
        e = a * b
        e.label = "e"
        return (e + c).tanh()

    stepper = viz.step_through(neuron, Value(2.0), Value(-3.0), Value(10.0))
    np.random.seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
    big = viz.draw(model(Tensor(np.ones((2, 8)))).sum(), layout="builtin")
    return {"player": stepper.to_html(fragment=True), "page": stepper.to_html(),
            "big drawing": big._repr_html_()}


def main() -> None:
    js, css = asset("player.js"), asset("player.css")
    print(f"player.js  {len(js.encode()):7,d} B as written, "
          f"{len(asset('player.js', compact=True).encode()):7,d} B compacted")
    print(f"player.css {len(css.encode()):7,d} B as written, "
          f"{len(asset('player.css', compact=True).encode()):7,d} B compacted\n")
    print(f"{'output':12s} {'HTML':>22s} {'in an .ipynb':>24s}")
    for name, html in outputs().items():
        ref = as_written(html)
        a, b = len(html.encode()), len(ref.encode())
        c, d = in_ipynb(html), in_ipynb(ref)
        print(f"{name:12s} {a:7,d} / {b:7,d} = {a / b:4.2f}x {c:8,d} / {d:8,d} = {c / d:4.2f}x")
    print("\n(compacted / as written, the same output built in this run)")


if __name__ == "__main__":
    main()
