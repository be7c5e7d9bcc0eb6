"""The text printer's exact output: exercises compare against it, so it must not drift."""

from __future__ import annotations

import doctest

import numpy as np

import minigrad as mg
import viz
from minigrad import Value
from tests._graphs import Cube


def abcd():
    a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    c = a * b
    c.label = "c"
    d = c + a
    d.label = "d"
    L = d * d
    L.label = "L"
    return L, a, b


def test_exact_tree_before_and_after_backward():
    L, a, b = abcd()
    assert viz.text(L) == (
        "× L  data=16.0000  grad=—\n"
        "├── + d  data=-4.0000  grad=—\n"
        "│   ├── × c  data=-6.0000  grad=—\n"
        "│   │   ├── leaf a  data=2.0000  grad=—\n"
        "│   │   └── leaf b  data=-3.0000  grad=—\n"
        "│   └── leaf a [seen]\n"
        "└── + d [seen]"
    )
    L.backward()
    assert viz.text(L) == (
        "× L  data=16.0000  grad=1.0000\n"
        "├── + d  data=-4.0000  grad=-8.0000\n"
        "│   ├── × c  data=-6.0000  grad=-8.0000\n"
        "│   │   ├── leaf a  data=2.0000  grad=16.0000\n"
        "│   │   └── leaf b  data=-3.0000  grad=-16.0000\n"
        "│   └── leaf a [seen]\n"
        "└── + d [seen]"
    )


def test_forward_only_ids_and_constants():
    x = Value(3.0, label="x")
    y = (x * x + 1.0).relu()
    assert viz.text(y, show_grad=False) == (
        "ReLU  data=10.0000\n"
        "└── +  data=10.0000\n"
        "    ├── ×  data=9.0000\n"
        "    │   ├── leaf x  data=3.0000\n"
        "    │   └── leaf x [seen]\n"
        "    └── const  data=1.0000"
    )
    first = viz.text(y, ids=True).splitlines()[0]
    assert first == f"#{y.id} ReLU  data=10.0000  grad=—"


def test_several_roots_share_seen_nodes():
    a = Value(1.0, label="a")
    s = a + 2.0
    p = s * 3.0
    assert viz.text([s, p]) == (
        "+  data=3.0000  grad=—\n"
        "├── leaf a  data=1.0000  grad=—\n"
        "└── const  data=2.0000\n"
        "×  data=9.0000  grad=—\n"
        "├── + [seen]\n"
        "└── const  data=3.0000"
    )


def test_saved_values_and_release():
    a, b = Value(2.0, label="a"), Value(3.0, label="b")
    y = (a * b).tanh()
    lines = viz.text(y, show_saved=True, show_grad=False).splitlines()
    assert lines[1] == ("└── ×  data=6.0000  saved=(a = input 0: 2.0000; "
                        "b = input 1: 3.0000)")
    y.backward()
    assert viz.text(y, show_saved=True).splitlines()[0].endswith("saved=released")


def test_a_saved_shape_reads_as_one():
    x = mg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True, name="x")
    lines = viz.text(x.reshape(4).sum(), show_saved=True, show_grad=False).splitlines()
    assert lines[0].endswith("saved=(shape = (4,))")
    assert lines[1].endswith("saved=(in_shape = (2, 2))")


def test_params_names():
    w = Value(0.5)
    y = w * 2.0
    lines = viz.text(y, params={"weight": w}).splitlines()
    assert lines[1] == "├── leaf weight  data=0.5000  grad=—"


def test_tensor_lines_with_shapes_and_width_limited_previews():
    x = mg.Tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True, name="x")
    y = (x * 2.0).sum()
    y.backward()
    assert viz.text(y) == (
        "Σ  () float32  data=20.0000  grad=1.0000\n"
        "└── ×  (2, 2) float32  data=[[2.0000, 4.0000], [6.0000, 8.0000]]  "
        "grad=[[1.0000, 1.0000], [1.0000, 1.0000]]\n"
        "    ├── leaf x  (2, 2) float32  data=[[1.0000, 2.0000], [3.0000, 4.0000]]  "
        "grad=[[2.0000, 2.0000], [2.0000, 2.0000]]\n"
        "    └── const  () float32  data=2.0000"
    )
    big = mg.Tensor(np.arange(1000, dtype=np.float64).reshape(10, 100), name="big")
    w = mg.Tensor(np.ones(100), requires_grad=True, name="w")
    lines = viz.text((big @ w).sum(), width=30).splitlines()
    assert lines[2] == "    ├── const big  (10, 100) float64  data=[[0.0000, 1.0000, ..., 98.000…"
    assert lines[3] == "    └── leaf w  (100,) float64  data=[1.0000, 1.0000, ..., 1.0000,…  grad=—"


def test_a_tape_prints_its_outputs():
    w = Value(2.0, label="w")
    with mg.record() as tape:
        y = w * w
    assert viz.text(tape) == viz.text(y)


def test_deep_graph_prints_without_recursion_and_stops_indenting():
    x = Value(0.5, label="x")
    y = x
    for _ in range(50_000):
        y = y + 1.0  # 100,001 nodes, 50,000 levels deep
    out = viz.text(y, show_grad=False, max_indent=3)
    lines = out.splitlines()
    assert len(lines) == 100_001
    assert lines[:4] == [
        "+  data=50000.5000",
        "├── +  data=49999.5000",
        "│   ├── +  data=49998.5000",
        "│   │   ├── +  data=49997.5000",
    ]
    assert lines[4] == "[4] ├── +  data=49996.5000"
    assert "[50000] ├── leaf x  data=0.5000" in lines
    assert lines[-4:] == [
        "[4] └── const  data=1.0000",
        "│   │   └── const  data=1.0000",
        "│   └── const  data=1.0000",
        "└── const  data=1.0000",
    ]
    assert max(map(len, lines)) < 60


def test_ten_thousand_nodes_text():
    x = Value(1.0, label="x")
    y = x
    for _ in range(3_400):
        y = y * 1.0001 + x  # 10,201 nodes
    lines = viz.text(y).splitlines()
    assert len(lines) == 10_201 + 3_400  # x is used 3,401 times: printed once, then [seen]
    assert sum(line.endswith("leaf x [seen]") for line in lines) == 3_400
    assert viz.text(y) == "\n".join(lines)


def test_print_graph_prints(capsys):
    L, _, _ = abcd()
    viz.print_graph(L, show_grad=False)
    assert capsys.readouterr().out == viz.text(L, show_grad=False) + "\n"


def test_docstring_example_is_true():
    import viz.render.printer as module

    assert doctest.testmod(module).failed == 0


def test_custom_functions_show_class_name_and_saved_values():
    v = Value(2.0, label="v")
    z = Cube.apply(v) * 2.0
    assert viz.text(z) == (
        "×  data=16.0000  grad=—\n"
        "├── Cube  data=8.0000  grad=—  saved=(saved_tensors[0] = input 0: 2.0000)\n"
        "│   └── leaf v  data=2.0000  grad=—\n"
        "└── const  data=2.0000"
    )
    z.backward()
    assert viz.text(z).splitlines()[1] == "├── Cube  data=8.0000  grad=2.0000  saved=released"
    assert "saved" not in viz.text(z, show_saved=False)
    t = mg.Tensor([1.0, 2.0], requires_grad=True, name="t")
    assert viz.text(Cube.apply(t)).splitlines()[0] == (
        "Cube  (2,) float32  data=[1.0000, 8.0000]  grad=—  "
        "saved=(saved_tensors[0] = input 0: [1.0000, 2.0000])")
