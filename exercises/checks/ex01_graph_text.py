"""Checks for exercise 01: the exact printout of the student's graph, and the
answers about a printed graph, computed from the same graph built here."""

import viz
from minigrad import Value
from minigrad.core import order

from ._support import call, fail, fmt

TARGET = """\
tanh out  data=0.9640  grad=—
└── + h  data=2.0000  grad=—
    ├── × p  data=6.0000  grad=—
    │   ├── leaf w  data=-3.0000  grad=—
    │   └── leaf x  data=-2.0000  grad=—
    └── × q  data=-4.0000  grad=—
        ├── leaf x [seen]
        └── const  data=2.0000"""


def quiz_graph():
    """The graph of Part 2, after backward (the stub's docstring shows its printout)."""
    x, y = Value(0.5, label="x"), Value(-1.5, label="y")
    u = x * y
    v = u + x
    w = (v * 2.0).tanh()
    loss = w * u + (x - 1.0)
    loss.backward()
    return loss, x


def _first_difference(got: str, want: str) -> str:
    g, w = got.split("\n"), want.split("\n")
    for i in range(max(len(g), len(w))):
        a = g[i] if i < len(g) else "(no line)"
        b = w[i] if i < len(w) else "(no line)"
        if a != b:
            return f"line {i + 1}: got {a!r}, expected {b!r}"
    return "identical"


def check_build_graph(build_graph):
    root = call(build_graph, "build_graph", {})
    if not hasattr(root, "parents"):
        fail(f"build_graph() should return the root Value, got {fmt(root)}")
    got = viz.text(root)
    if got == TARGET:
        return
    where = _first_difference(got, TARGET)
    hint = "labels: Value(..., label='w') for leaves, node.label = 'p' for op results"
    if "grad=—" not in got.split("\n")[0]:
        hint = "do not call backward: the target shows grad=— (not computed yet)"
    elif "const" in where and "leaf x" in where:
        hint = "x * 2 puts x in slot 0 and the constant in slot 1; 2 * x is the other way round"
    elif "leaf x" in where and "leaf w" in where:
        hint = "slot order: w * x prints w first"
    fail(f"viz.text(build_graph()) differs at {where}\nyour graph prints:\n{got}\n"
         f"the target is:\n{TARGET}", hint)


HINTS = {
    "leaves": "a leaf that requires grad prints as 'leaf <label>'; count each label once",
    "constants": "numbers combined with a Value become 'const' nodes",
    "ops": "a line ending in [seen] is a node already printed above: count each node once",
    "edges": ("every line except the root's is one edge from an op to an input, [seen] "
              "lines included (x*x has two edges)"),
    "grad_x": "the first line of x shows its gradient, the total of all its contributions",
}


def check_read_graph(read_graph):
    loss, x = quiz_graph()
    nodes = list(order.ancestors(loss).values())
    want = {
        "leaves": sorted(n.label for n in nodes if n.op is None and n.requires_grad),
        "constants": sum(1 for n in nodes if n.op is None and not n.requires_grad),
        "ops": sum(1 for n in nodes if n.op is not None),
        "edges": sum(len(n.parents) for n in nodes),
        "grad_x": x.grad,
    }
    answers = call(read_graph, "read_graph", {})
    if not isinstance(answers, dict):
        fail(f"read_graph() should return a dict, got {fmt(answers)}")
    missing = [k for k in want if k not in answers]
    if missing:
        fail(f"read_graph() has no answer for {', '.join(map(repr, missing))}; "
             f"keys expected: {', '.join(map(repr, want))}")
    for key, expected in want.items():
        got = answers[key]
        if key == "leaves":
            ok = isinstance(got, (list, tuple)) and list(got) == expected
        elif key == "grad_x":
            ok = isinstance(got, (int, float)) and abs(got - expected) <= 6e-5
        else:
            ok = got == expected and not isinstance(got, bool)
        if not ok:
            shown = f"{expected:.4f}" if key == "grad_x" else fmt(expected)
            fail(f"read_graph()[{key!r}] = {fmt(got)}, expected {shown}", HINTS[key])
