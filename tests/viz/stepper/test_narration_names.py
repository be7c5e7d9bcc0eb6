"""The panel speaks in the graph's own names; the op's letters stay in its general rule."""

from __future__ import annotations

import minigrad
from minigrad import Value
from minigrad.ops.shared import NOTATION
from tests._graphs import Cube
from viz.stepper.frames import Frames
from viz.stepper.narration import _deriv_text


def edge_texts(tape) -> dict[str, str]:
    """``{parent name: first line of its contribution}`` (first contribution wins)."""
    fr = Frames(tape, "backward")
    out = {}
    for f in fr.frames:
        if f.kind == "contribute":
            parent = f.title.rsplit("→ ", 1)[1]
            out.setdefault(parent, f.text.splitlines()[0])
    return out


def test_an_edge_is_said_in_the_graphs_names_even_when_they_clash_with_the_ops_letters():
    # the graph: a node named b (6.88) next to mul's formula letter b
    with minigrad.record() as tape:
        x1 = Value(2.0, label="x1")
        x2 = Value(1.0, label="x2")
        b = Value(6.88, label="b")
        e = x1 * x2
        e.label = "e"
        out = e + b
        out.label = "o"
        out.backward()
    texts = edge_texts(tape)
    assert texts["x2"].startswith("mul: ∂e/∂x2 = x1 = 2.0000; ")
    assert texts["x1"].startswith("mul: ∂e/∂x1 = x2 = 1.0000; ")
    assert texts["b"].startswith("add: ∂o/∂b = 1; ")  # a number needs no "= 1.0000"
    fr = Frames(tape, "backward")
    visit = next(f.text for f in fr.frames if f.kind == "visit" and "e = x1 × x2" in f.text)
    assert "Local derivatives of mul: ∂/∂a = b,  ∂/∂b = a." in visit  # the general rule
    edge = next(f.text for f in fr.frames if f.title.endswith("mul → x2"))
    assert edge.endswith("Edge x2 → e: slot 1 of mul, called b in the formula.")


def test_swapped_operands_take_each_others_names():
    with minigrad.record() as tape:
        a = Value(2.0, label="a")
        b = Value(5.0, label="b")
        w = b * a  # slot 0 is b, called a in mul's rule
        w.label = "w"
        w.backward()
    texts = edge_texts(tape)
    assert texts["b"].startswith("mul: ∂w/∂b = a = 2.0000")
    assert texts["a"].startswith("mul: ∂w/∂a = b = 5.0000")


def test_out_in_a_rule_becomes_the_output_name():
    with minigrad.record() as tape:
        d = Value(0.5, label="d")
        L = d.tanh()
        L.label = "L"
        L.backward()
    assert edge_texts(tape)["d"].startswith("tanh: ∂L/∂d = 1 − tanh²(d) = 1 − L² = 0.7864; ")


def test_a_first_contribution_starts_from_nothing_not_from_zero():
    with minigrad.record() as tape:
        x = Value(3.0, label="x")
        y = x * x
        y.label = "y"
        y.backward()
    fr = Frames(tape, "backward")
    to_x = [f.text.splitlines()[0] for f in fr.frames if f.kind == "contribute"]
    assert to_x[0].endswith("added to x.grad: — → 3.0000")
    assert to_x[1].endswith("added to x.grad: 3.0000 → 6.0000")


def test_prose_rules_keep_their_letters_and_are_quoted_as_the_rule():
    op = minigrad.ops.tensor.MAXIMUM
    text = _deriv_text(op, 0, 1.0, 2, out="m", inputs=["a", "t"])
    # "½ on a tie": renaming the letter a would change the words
    assert text == ("∂m/∂a = 1.0000 (maximum's rule: ∂/∂a = 1 if a > b, 0 if a < b, "
                    "½ on a tie (1 if either is NaN))")


def test_a_closing_remark_is_dropped_from_the_specific_edge():
    class Pow:  # the notation table's pow: "∂/∂x = p·x^(p−1) (0 where p = 0)"
        name, formula = "pow", ""
        formulas = NOTATION["pow"]["formulas"]
    assert _deriv_text(Pow, 0, 12.0, 2, out="y", inputs=["h", "k"]) == (
        "∂y/∂h = k·h^(k−1) = 12.0000")


def test_names_that_are_not_symbols_are_parenthesised_and_glued():
    class Square:
        name, formulas, formula = "Square", ("∂/∂x = 3x² + c",), ""
    assert _deriv_text(Square, 0, None, 1, out="my loss", inputs=["weight"]) == (
        "∂(my loss)/∂weight (Square's rule: ∂/∂x = 3x² + c)")  # c: no input of Square

    class Cubed:
        name, formulas, formula = "Cubed", ("∂/∂x = 3x²",), ""
    assert _deriv_text(Cubed, 0, None, 1, out="#7", inputs=["weight"]) == "∂#7/∂weight = 3·weight²"
    assert _deriv_text(Cubed, 0, 3.0, 1, out="#7", inputs=["-1.0000"]) == (
        "∂#7/∂(-1.0000) = 3·(-1.0000)² = 3.0000")


def test_a_custom_functions_docstring_formula_is_said_in_names():
    with minigrad.record() as tape:
        a = Value(1.5, label="a")
        c = Cube.apply(a)
        c.label = "c"
        c.backward()
    assert edge_texts(tape)["a"].startswith("Cube: ∂c/∂a = 3a² = 6.7500; ")
