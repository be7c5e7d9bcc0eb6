"""``viz.stepper.torch_recording``: what a torch step-through shows besides the order
the engine ran: each Node's saved tensors (read before backward frees them, released
as minigrad's are), a multi-output Node's gradient per output and numbered edges,
inputs that need no gradient, and each op's forward value (captured as ``f`` runs)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import viz
from viz.render.multi_output import OutputGrads
from viz.stepper.torch_recording import NO_FORWARD_VALUES, Unknown

torch = pytest.importorskip("torch", reason="torch is optional: torch step-through is tested "
                                             "with it")


def tanh_mul(seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(2, 3, dtype=torch.float64, generator=g, requires_grad=True)
    w = torch.randn(2, 3, dtype=torch.float64, generator=g, requires_grad=True)
    return x, w


def f(x, w):
    return torch.tanh(x * w).sum()


def op(s, name):
    return next(n for n in s.frames.nodes if n.op is not None and n.op.name == name)


def companions(svg: str) -> dict[str, str]:
    return dict(re.findall(r'<g id="(se?_\d+_\w+)" class="([^"]*)"', svg))


# --------------------------------------------------------------------- saved tensors


def test_saved_tensors_are_read_before_backward_frees_them():
    x, w = tanh_mul()
    s = viz.step_through(f, x, w, show_saved=True)
    x2, w2 = tanh_mul()
    loss = f(x2, w2)
    tanh2 = loss.grad_fn.next_functions[0][0]
    mul2 = tanh2.next_functions[0][0]
    created = s.options.saved_values  # what the tape kept when each Node was made
    tanh, mul = op(s, "TanhBackward0"), op(s, "MulBackward0")
    (result,) = created[tanh.id]
    assert np.array_equal(result, tanh2._saved_result.detach().numpy())
    assert result is tanh.data  # the output itself: drawn as "out"
    a, b = created[mul.id]  # _saved_self (x), _saved_other (w): the leaves' own arrays
    assert np.array_equal(a, mul2._saved_self.detach().numpy()) and a is mul.parents[0].data
    assert np.array_equal(b, mul2._saved_other.detach().numpy()) and b is mul.parents[1].data
    assert created[op(s, "SumBackward0").id] == ((2, 3),)  # self_sym_sizes: a shape


def test_release_after_backward_is_shown_as_minigrads_is():
    x, w = tanh_mul()
    s = viz.step_through(f, x, w, show_saved=True, layout="builtin")
    tanh = op(s, "TanhBackward0")
    assert tanh.saved is None and tanh.id in s.frames.released_at
    ops = {n.id for n in s.frames.nodes if n.op is not None}
    assert set(s.frames.released_at) == ops
    end = s.frames.released_at[tanh.id]
    visit = next(k.index for k in s.frames.frames if k.kind == "visit" and k.node == tanh.id)
    assert end > visit  # struck through once its visit is over
    before, after = companions(s.render_svg(end - 1)), companions(s.render_svg(end))
    key = f"s_{tanh.id}_0"
    assert "freed" not in before[key].split() and "freed" in after[key].split()
    assert ">result = out<" in s.render_svg(0)  # (TanhBackward0._saved_result)


def test_retain_graph_keeps_the_saved_tensors():
    x, w = tanh_mul()
    loss = f(x, w)
    s = viz.step_through(loss, retain_graph=True, show_saved=True)
    assert s.frames.released_at == {}
    assert op(s, "TanhBackward0").saved is not None
    loss.backward()  # PyTorch kept them too


def test_memory_strip_weighs_the_saved_tensors():
    x, w = tanh_mul()
    s = viz.step_through(f, x, w, memory=True)
    assert s.memory.peak[-1] >= 3 * 6 * 8  # tanh's result, mul's x and w: float64 (2, 3)
    assert s.memory.alive[-1] == 0
    assert any("freed TanhBackward0" in k.text for k in s.frames.frames)


# --------------------------------------------------------------------- several outputs


def split_f(x, w):
    a, b = x.split(2)
    return (torch.tanh(a * w) + b * 2).sum()


def split_inputs():
    return (torch.linspace(-1, 1, 4, dtype=torch.float64).requires_grad_(),
            torch.tensor([0.5, -2.0], dtype=torch.float64, requires_grad=True))


def test_a_split_card_shows_its_outputs_gradients_and_pending_count():
    s = viz.step_through(split_f, *split_inputs(), layout="builtin")
    split = op(s, "SplitBackward0")
    shown = [s.frames.shown_grads(i).get(split.id) for i in range(len(s))]
    grads = [getattr(g, "value", g) for g in shown if g is not None]
    assert any(isinstance(g, OutputGrads) and all(x is not None for x in g.grads)
               for g in grads)
    assert any(getattr(g, "note", "") == "pending 1" for g in shown)
    texts = [s.grad_text(split, g) for g in shown if g is not None]
    assert any(t.startswith("grad (0: ") and "· pending" in t for t in texts)
    svg = s.render_svg(len(s) - 1)
    card = re.search(rf'<g id="n_{split.id}"[^>]*>(.*?)</g>', svg, re.S).group(1)
    assert "grad (0: " in card


def test_edges_from_a_split_are_numbered_by_output():
    x, w = split_inputs()
    s = viz.step_through(split_f, x, w, layout="builtin")
    split = op(s, "SplitBackward0")
    into = {e.child: e.output_nr for e in s.frames.view.edges if e.parent == split.id}
    readers = {n.id: n for n in s.frames.nodes if split in n.parents}
    # each reader's input_nr, as PyTorch's next_functions say
    for nid, nr in into.items():
        want = [k for p, k in readers[nid].fn.next_functions if p is split.fn]
        assert [nr] == want
    assert sorted(into.values()) == [0, 1]
    assert s.render_svg(0).count("output_nr") >= 2


# --------------------------------------------------------------------- no-grad inputs


def test_a_constant_is_an_argument_of_its_op():
    x, w = tanh_mul()
    s = viz.step_through(lambda x: (x * 2.5).sum(), x)
    mul = op(s, "MulBackward0")
    assert len(mul.parents) == 2
    const = mul.parents[1]
    assert const.op is None and not const.requires_grad and const.data == 2.5
    created = next(k for k in s.frames.frames if k.kind == "created" and k.node == const.id)
    assert "constant 2.5000" in created.text
    assert "x × 2.5000" in next(k.text for k in s.frames.frames if k.node == mul.id)
    # it gets no gradient, and nothing waits for one
    assert not any(e.kind == "contribute" and e.parent is const for e in s.frames.replay.events)


def test_data_and_unknown_inputs():
    x, w = tanh_mul()
    c = torch.full((2, 3), 0.5, dtype=torch.float64)
    s = viz.step_through(lambda x: (x + c).sum(), x)
    add = op(s, "AddBackward0")
    assert np.array_equal(add.parents[1].data, c.numpy())  # captured from the call
    loss = (x + c).sum()
    s = viz.step_through(loss)  # an existing graph: add saved nothing of c
    data = op(s, "AddBackward0").parents[1].data
    assert isinstance(data, Unknown) and repr(data) == "value not saved"
    add = op(s, "AddBackward0")
    assert "#2 = x + input 1" in next(k.text for k in s.frames.frames if k.node == add.id)


# --------------------------------------------------------------------- forward values


def test_ops_carry_their_forward_values():
    x, w = tanh_mul()
    s = viz.step_through(f, x, w)
    with torch.no_grad():
        want = {"MulBackward0": x * w, "TanhBackward0": torch.tanh(x * w)}
    for name, value in want.items():
        assert np.array_equal(op(s, name).data, value.numpy())
        assert not getattr(op(s, name).data, "no_value", False)
    text = next(k.text for k in s.frames.frames if k.node == op(s, "TanhBackward0").id)
    assert "no value" not in text


def test_split_outputs_carry_their_values():
    x, w = split_inputs()
    s = viz.step_through(split_f, x, w)
    a, b = op(s, "SplitBackward0").data
    assert np.array_equal(a, x.detach()[:2].numpy()) and np.array_equal(b, x.detach()[2:].numpy())


def test_step_through_loss_says_why_ops_have_no_values():
    x, w = tanh_mul()
    s = viz.step_through(f(x, w))
    assert getattr(op(s, "TanhBackward0").data, "no_value", False)
    assert NO_FORWARD_VALUES in s.frames.frames[0].text
    s2 = viz.step_through(f, *tanh_mul())
    assert NO_FORWARD_VALUES not in s2.frames.frames[0].text


def test_a_saved_no_grad_input_is_drawn_as_that_input():
    x, _ = tanh_mul()
    c = torch.full((2, 3), 0.5, dtype=torch.float64)
    s = viz.step_through(lambda x: (x * c).sum(), x, show_saved=True, layout="builtin")
    mul = op(s, "MulBackward0")
    (other,) = s.options.saved_values[mul.id]  # mul saved c (for x's gradient)
    assert other is mul.parents[1].data
    assert ">other = input 1<" in s.render_svg(0)  # (MulBackward0._saved_other)
