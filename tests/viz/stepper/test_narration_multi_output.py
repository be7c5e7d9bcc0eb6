"""``viz.stepper.narration``: a step that reads one output of a multi-output op names
that output, ``#3[k]``, with the ``k`` ``viz.draw`` writes on the edge from the op, and
gives that output's shape, not the whole record's.

minigrad's ops read an ``output`` node (``#4 = #3[0]``); PyTorch's Nodes read the
record itself (``MulBackward0: #3 = #1[0] × w``); both name the output alike."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad
import viz
from minigrad import Tensor
from viz.render.multi_output import is_record, output_nr
from viz.stepper.frames import Frames
from viz.stepper.narration import fmt_num, read_output


def created_text(fr, node) -> str:
    return next(f.text for f in fr.frames if f.kind == "created" and f.node == node.id)


def edge_number(fr, child, parent) -> int:
    """The number the drawing writes on the edge ``parent`` → ``child``."""
    (nr,) = {e.output_nr for e in fr.view.edges if e.child == child.id and e.parent == parent.id}
    return nr


# --------------------------------------------------------------------- minigrad


def minigrad_split():
    """An unequal split, so each output's shape says which output it is."""
    x = Tensor(np.linspace(-1, 1, 4), requires_grad=True, name="x")
    w = Tensor(np.array([0.5]), requires_grad=True, name="w")
    with minigrad.record() as tape:
        a, b = x.split([1, 3])
        loss = (a * w).tanh().sum() + (b * 2.0).sum()
        loss.backward()
    return Frames(tape), a, b


def test_an_output_node_is_named_as_output_k_of_its_op():
    fr, a, b = minigrad_split()
    assert len({a.parents[0].id, b.parents[0].id}) == 1
    for out in (a, b):
        k = output_nr(out)
        text = created_text(fr, out)
        name, rec = fr.name(out), fr.name(out.parents[0])
        assert edge_number(fr, out, out.parents[0]) == k  # (the drawing's number)
        first, shapes = text.splitlines()
        assert first == f"output: {name} = {rec}[{k}] (output {k} of split)"
        # that output's shape, not both ("((1,), (3,))")
        shape = str(tuple(out.data.shape))
        assert shapes.startswith(f"shapes {shape} → {shape};")
        assert "output_nr=" not in text


def test_an_op_reading_an_output_node_names_the_node():
    fr, a, _ = minigrad_split()
    mul = next(n for n in fr.nodes if n.op is not None and n.op.name == "mul"
               and a in n.parents)
    assert read_output(mul, 0) is None  # (a is a node of its own, not the record)
    first = created_text(fr, mul).splitlines()[0]
    assert first == f"mul: {fr.name(mul)} = {fr.name(a)} × w"


def test_a_scalar_output_shows_its_own_value():
    """A custom Function of Values with two outputs: the output's value, not the pair."""

    class TwoWays(minigrad.Function):
        @staticmethod
        def forward(ctx, x):
            return x.data * 2.0, x.data + 1.0

        @staticmethod
        def backward(ctx, g0, g1):
            return g0 * 2.0 + g1

    x = minigrad.Value(3.0, label="x")
    with minigrad.record() as tape:
        p, q = TwoWays.apply(x)
        loss = p * q
        loss.backward()
    fr = Frames(tape)
    assert is_record(q.parents[0])
    text = created_text(fr, q)
    rec = fr.name(q.parents[0])
    assert text == f"output: {fr.name(q)} = {rec}[1] (output 1 of TwoWays) = {fmt_num(q.data)}"
    # and the pair's backward reads: contribution / upstream is no derivative there
    last = next(f.text for f in fr.frames if f.kind == "contribute" and f.node == rec_id(q))
    assert last.startswith(f"TwoWays: ∂{rec}/∂x (rule: ")
    assert f"added to x.grad: — → {fmt_num(x.grad)}" in last


def rec_id(out) -> int:
    return out.parents[0].id


# --------------------------------------------------------------------- torch


def torch_split_f(x, w):
    a, b = x.split([1, 3])
    return torch_mod().tanh(a * w).sum() + (b * 2).sum()


def torch_mod():
    return pytest.importorskip("torch", reason="torch is optional")


def torch_stepper():
    torch = torch_mod()
    x = torch.linspace(-1, 1, 4, dtype=torch.float64).requires_grad_()
    w = torch.tensor([0.5], dtype=torch.float64, requires_grad=True)
    return viz.step_through(torch_split_f, x, w, layout="builtin")


def torch_muls(fr):
    split = next(n for n in fr.nodes if n.op is not None and n.op.name.startswith("Split"))
    muls = [n for n in fr.nodes if n.op is not None and n.op.name == "MulBackward0"]
    return split, sorted(muls, key=lambda n: read_output(n, 0))


def test_a_torch_node_reading_a_split_names_the_output_it_reads():
    fr = torch_stepper().frames
    split, (first, second) = torch_muls(fr)
    rec = fr.name(split)
    for mul, k, other, shapes in ((first, 0, "w", "(1,), (1,) → (1,)"),
                                  (second, 1, "2.0000", "(3,), () → (3,)")):
        assert mul.parents[0] is split and read_output(mul, 0) == k
        assert edge_number(fr, mul, split) == k  # the number on the drawn edge
        name, shape_line = created_text(fr, mul).splitlines()
        assert name == f"MulBackward0: {fr.name(mul)} = {rec}[{k}] × {other}"
        assert shape_line.startswith(f"shapes {shapes};")


def test_the_backward_steps_name_the_output_too():
    fr = torch_stepper().frames
    split, (first, _) = torch_muls(fr)
    rec, name = fr.name(split), fr.name(first)
    visit = next(f.text for f in fr.frames if f.kind == "visit" and f.node == first.id)
    assert visit.startswith(f"MulBackward0: {name} = {rec}[0] × w holds")
    into = [f.text.splitlines()[0] for f in fr.frames
            if f.kind == "contribute" and f.node == first.id]
    assert any(t.startswith(f"MulBackward0: ∂{name}/∂{rec}[0] = w;") for t in into)
    assert any(t.startswith(f"MulBackward0: ∂{name}/∂w = {rec}[0];") for t in into)
