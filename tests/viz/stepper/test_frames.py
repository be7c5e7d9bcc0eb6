"""``Frames``: the tape turned into steps (classes per element, gradients held, panel text)."""

from __future__ import annotations

import random
import shutil

import numpy as np
import pytest

import minigrad
from minigrad import Value
from tests._graphs import Cube
from tests._helpers import FAKE_SVG
from viz.stepper.frames import Frames, fmt_num, fmt_value, node_name
from viz.stepper.stepper import step_through


def record_scalar(fn, *values, labels="abcdefgh"):
    with minigrad.record() as tape:
        leaves = [Value(v, label=labels[i]) for i, v in enumerate(values)]
        out = fn(*leaves)
        out.backward()
    return tape, leaves, out


def random_graph(seed: int, n_ops: int = 25):
    """A random scalar expression with shared subexpressions (nodes reused)."""
    rng = random.Random(seed)
    with minigrad.record() as tape:
        pool = [Value(rng.uniform(0.5, 1.5), label=f"x{i}") for i in range(4)]
        for _ in range(n_ops):
            a, b = rng.choice(pool), rng.choice(pool)
            kind = rng.randrange(6)
            if kind == 0:
                v = a + b
            elif kind == 1:
                v = a * b
            elif kind == 2:
                v = a - b * 0.5
            elif kind == 3:
                v = a.tanh()
            elif kind == 4:
                v = (a * a).sigmoid()
            else:
                v = a / (b.exp() + 1.0)
            pool.append(v)
        out = sum(pool[4:], pool[0])
        out.backward()
    return tape, pool[:4], out


# --- formatting ------------------------------------------------------------------


def test_numbers_are_short_and_deterministic():
    assert [fmt_num(x) for x in (6, 0.0, -0.0, 3.0, 0.76159415, 1234.5, 12345.0, 1e-8)] == [
        "6.0000", "0.0000", "0.0000", "3.0000", "0.7616", "1234.5000", "12345.0000", "1.0000e-08",
    ]
    assert fmt_num(float("nan")) == "nan" and fmt_num(float("-inf")) == "-inf"
    assert fmt_value(np.array([[1.0, 2.0], [3.0, 4.0]])) == "[[1.0000, 2.0000], [3.0000, 4.0000]]"
    assert fmt_value(np.arange(12.0).reshape(3, 4)) == "shape (3, 4) [0.0000, 1.0000, 2.0000, …]"


def test_node_names():
    a = Value(2.0, label="a")
    c = a * 3
    assert node_name(a) == "a"
    assert node_name(c) == f"#{c.id}"
    assert node_name(c.parents[1]) == "3.0000"  # an unnamed constant reads as its value
    assert node_name(c, {c.id: "out"}) == "out"


# --- forward ---------------------------------------------------------------------


def test_forward_reveals_exactly_the_created_nodes_in_order():
    tape, _, _ = random_graph(0)
    fr = Frames(tape, "forward")
    created = tape.nodes
    assert len(fr) == len(created) + 2  # start, one per node, end
    assert [f.node for f in fr.frames[1:-1]] == [n.id for n in created]
    assert all(f.phase == "forward" for f in fr.frames)
    for k in range(len(created) + 1):
        hidden = {el for el in fr.having(k, "hidden") if el.startswith("n_")}
        assert hidden == {f"n_{n.id}" for n in created[k:]}
        current = [el for el in fr.having(k, "current") if el.startswith("n_")]
        assert current == ([f"n_{created[k - 1].id}"] if k else [])
    assert not fr.classes(len(fr) - 1).keys() - set(fr.having(len(fr) - 1, "done"))


def test_forward_edges_appear_with_their_child():
    tape, (a, b), c = record_scalar(lambda a, b: a * b, 2.0, 3.0)
    fr = Frames(tape, "forward")
    edges = [f"e_{c.id}_{a.id}_0", f"e_{c.id}_{b.id}_1"]
    assert set(edges) <= set(fr.having(0, "hidden"))
    assert set(fr.having(3, "current")) == {f"n_{c.id}", *edges}
    assert fr.frames[3].text == f"mul: #{c.id} = a × b = 2.0000 × 3.0000 = 6.0000"
    assert fr.frames[1].text.startswith("a = 2.0000: a leaf")


def test_nodes_made_before_recording_are_shown_from_the_start():
    a = Value(2.0, label="a")
    with minigrad.record() as tape:
        y = a * a
        y.backward()
    fr = Frames(tape, "both")
    assert fr.classes(0) == {f"n_{y.id}": "hidden", f"e_{y.id}_{a.id}_0": "hidden",
                             f"e_{y.id}_{a.id}_1": "hidden"}
    assert "Already there before recording" in fr.frames[0].text


# --- backward --------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_backward_contributions_sum_exactly_to_the_engines_gradients(seed):
    tape, leaves, out = random_graph(seed)
    fr = Frames(tape, "backward")
    total: dict[int, float] = {}
    for e in tape.events:
        if e.kind == "contribute":
            pid = e.parent.id
            assert e.before == total.get(pid)  # the replay sees what the engine saw
            total[pid] = e.local_grad if pid not in total else total[pid] + e.local_grad
            assert total[pid] == e.after
    nodes = {n.id: n for n in fr.nodes}
    for pid, g in total.items():
        assert g == nodes[pid].grad  # exact: same additions in the same order
    final = fr.grads(len(fr) - 1)
    for n in fr.nodes:
        if n.requires_grad and n is not out:
            assert final[n.id] == n.grad
    assert final[out.id] == 1.0
    # one frame per engine event, plus a start and an end frame
    assert len(fr) == sum(1 for e in tape.events if e.kind != "created") + 2


def test_backward_classes_follow_the_chain_rule():
    tape, (a, b), out = record_scalar(lambda a, b: a * b * 2, 2.0, 3.0)
    fr = Frames(tape, "backward")
    kinds = [f.kind for f in fr.frames]
    assert kinds[:3] == ["start", "seeded", "visit"] and kinds[-1] == "end"
    assert fr.classes(0) == {}
    mul1 = out.parents[0]
    i = next(k for k, f in enumerate(fr.frames)
             if f.kind == "contribute" and f.edge == f"e_{mul1.id}_{a.id}_0")
    cls = fr.classes(i)
    assert cls[f"n_{mul1.id}"] == "current has-grad"
    assert cls[f"n_{a.id}"] == "receiving has-grad"
    assert cls[f"e_{mul1.id}_{a.id}_0"] == "current"
    assert cls[f"n_{out.id}"] == "done has-grad"
    assert cls[f"e_{out.id}_{mul1.id}_0"] == "passed"
    assert fr.frames[i].text.splitlines()[0] == (  # the graph's names; "—": none yet
        f"mul: ∂#{mul1.id}/∂a = b = 3.0000; 2.0000 × 3.0000 = 6.0000 added to a.grad: — → 6.0000"
    )
    assert fr.grads(i)[a.id] == 6.0 and fr.grads(i - 1)[a.id] is None
    end = fr.classes(len(fr) - 1)
    assert "current" not in " ".join(end.values()) and "receiving" not in " ".join(end.values())


def test_shared_subexpression_is_marked_accumulated():
    tape, (x,), y = record_scalar(lambda x: x * x + x, 3.0)
    fr = Frames(tape, "backward")
    receiving = [k for k, f in enumerate(fr.frames)
                 if f.kind == "contribute" and f.edge.split("_")[2] == str(x.id)]
    assert len(receiving) == 3  # x feeds the add once and the mul twice
    assert "accumulated" not in fr.classes(receiving[0])[f"n_{x.id}"]
    for k in receiving[1:]:
        assert "accumulated" in fr.classes(k)[f"n_{x.id}"].split()
        assert "contribution" in fr.frames[k].text and "used more than once" in fr.frames[k].text
    assert "accumulated" in fr.classes(len(fr) - 1)[f"n_{x.id}"]
    mul = y.parents[0]
    assert fr.frames[receiving[-1]].edge == f"e_{mul.id}_{x.id}_1"
    assert fr.grads(len(fr) - 1)[x.id] == x.grad == 7.0


def test_visit_text_names_the_upstream_gradient_and_formula():
    tape, (a,), out = record_scalar(lambda a: a.tanh(), 0.5)
    fr = Frames(tape, "backward")
    visit = next(f for f in fr.frames if f.kind == "visit")
    assert "holds its full gradient" in visit.text and "= 1.0000." in visit.text
    assert "Local derivatives of tanh: ∂/∂x = 1 − tanh²(x) = 1 − out²." in visit.text
    contrib = next(f for f in fr.frames if f.kind == "contribute")
    assert contrib.text.startswith(f"tanh: ∂#{out.id}/∂a = 1 − tanh²(a) = 1 − #{out.id}² = "
                                   "0.7864; 1.0000 × 0.7864 = 0.7864 added to a.grad: — → 0.7864")
    assert fr.frames[-1].text == "Backward pass complete. Gradients of the leaves: a.grad = 0.7864."


def test_both_mode_is_forward_then_backward():
    tape, _, _ = record_scalar(lambda a, b: a * b + a, 2.0, 3.0)
    fw, bw, both = Frames(tape, "forward"), Frames(tape, "backward"), Frames(tape, "both")
    assert len(both) == len(fw) + len(bw)
    assert [f.text for f in both.frames] != []
    assert [f.title for f in both.frames[: len(fw)]] == [f.title for f in fw.frames]
    assert [f.text for f in both.frames[len(fw):]] == [f.text for f in bw.frames]
    assert both.frames[len(fw) - 1].text.endswith("Next: the backward pass sends gradients "
                                                  "from the output back to the inputs.")
    for k in range(len(bw)):
        assert both.classes(len(fw) + k) == bw.classes(k)


def test_second_backward_pass_accumulates_into_leaves():
    with minigrad.record() as tape:
        a = Value(2.0, label="a")
        y = a * a
        y.backward(retain_graph=True)
        y.backward()
    fr = Frames(tape, "backward")
    assert sum(1 for f in fr.frames if f.kind == "seeded") == 2
    assert "Backward pass 2, seed" in [f for f in fr.frames if f.kind == "seeded"][1].text
    assert fr.grads(len(fr) - 1)[a.id] == a.grad == 8.0
    last = [f for f in fr.frames if f.kind == "contribute"][-1]
    assert last.text.splitlines()[0].endswith("added to a.grad: 6.0000 → 8.0000")


def test_clear_errors():
    with minigrad.record() as tape:
        Value(1.0) * 2
    with pytest.raises(ValueError, match="needs a backward pass.*tape.backward"):
        Frames(tape, "both")
    assert len(Frames(tape, "forward")) == 5
    with pytest.raises(ValueError, match="mode must be one of"):
        Frames(tape, "sideways")
    with minigrad.record() as empty:
        pass
    with pytest.raises(ValueError, match="recorded nothing"):
        Frames(empty, "forward")


def test_tape_backward_after_the_block():
    with minigrad.record() as tape:
        a = Value(1.5, label="a")
        y = a.exp()
    tape.backward(y)
    fr = Frames(tape, "both")
    assert fr.grads(len(fr) - 1)[a.id] == a.grad


# --- tensors and custom functions ----------------------------------------------------


def _tensor():
    return getattr(minigrad, "Tensor", None)


@pytest.mark.skipif(_tensor() is None, reason="minigrad.Tensor not available yet")
def test_tensor_graph_frames_and_final_gradients():
    Tensor = minigrad.Tensor
    rng = np.random.default_rng(0)
    with minigrad.record() as tape:
        x = Tensor(rng.standard_normal((4, 3)), name="x")
        W = Tensor(rng.standard_normal((3, 2)), requires_grad=True, name="W")
        b = Tensor(rng.standard_normal(2), requires_grad=True, name="b")
        h = (x @ W + b).tanh()
        loss = (h * h).sum()
        loss.backward()
    fr = Frames(tape, "both")
    final = fr.grads(len(fr) - 1)
    np.testing.assert_array_equal(final[W.id], W.grad)
    np.testing.assert_array_equal(final[b.id], b.grad)
    assert final[x.id] is None  # x needs no gradient
    texts = [f.text for f in fr.frames]
    created = next(t for t in texts if t.startswith("matmul:"))
    assert created.splitlines()[1].startswith("shapes (4, 3), (3, 2) → (4, 2)")
    bias = next(f.text for f in fr.frames if f.kind == "contribute" and f.edge.split("_")[2]
                == str(b.id))
    assert "summed over the broadcast axes from (4, 2) to (2,)" in bias
    assert "added to b.grad: — → [" in bias
    # h is used twice (h * h): its node is marked once the second contribution lands
    assert "accumulated" in fr.classes(len(fr) - 1)[f"n_{h.id}"]


@pytest.mark.skipif(not hasattr(minigrad, "Function"), reason="minigrad.Function not available yet")
def test_custom_function_on_tensors():
    x0 = np.array([1.0, 2.0])
    s = step_through(lambda x: Cube.apply(x).sum(), x0)
    fr = s.frames
    # the nodes Cube.backward computes with are not part of the forward graph
    assert [f.title for f in fr.frames if f.kind == "created"] == [
        "Forward · create x", f"Forward · create #{fr.nodes[1].id} (Cube)",
        f"Forward · create #{fr.nodes[2].id} (sum)"]
    assert len(fr.nodes) == 3 and len(fr.edges) == 2
    last = [f for f in fr.frames if f.kind == "contribute"][-1]
    assert last.text.startswith(f"Cube: ∂#{fr.nodes[1].id}/∂x = 3x²; upstream × local "
                                "derivative = [3.0000, 12.0000], added to x.grad: — → "
                                "[3.0000, 12.0000]")
    np.testing.assert_array_equal(fr.grads(len(fr) - 1)[fr.nodes[0].id], 3 * x0**2)
    if shutil.which("dot"):
        assert s.template is not None and s.template.missing == []


@pytest.mark.skipif(not hasattr(minigrad, "Function"), reason="minigrad.Function not available yet")
def test_custom_function_on_values():
    s = step_through(lambda a: Cube.apply(a) * 2, 1.5, svg=FAKE_SVG)
    fr = s.frames
    assert len(fr.nodes) == 4  # a, Cube(a), the constant 2.0, the product
    cube = fr.nodes[1]
    assert fr.frames[2].text == f"Cube: #{cube.id} = Cube(a) = Cube(1.5000) = 3.3750"
    last = [f for f in fr.frames if f.kind == "contribute"][-1]
    assert last.text.splitlines()[0] == (
        f"Cube: ∂#{cube.id}/∂a = 3a² = 6.7500; 2.0000 × 6.7500 = 13.5000 added to a.grad: "
        "— → 13.5000")


# --- guards and panel text -------------------------------------------------------------


def test_too_big_a_recording_is_refused_with_advice(monkeypatch):
    import viz.stepper.frames

    tape, _, _ = random_graph(1)
    monkeypatch.setattr(viz.stepper.frames, "MAX_CELLS", 1000)
    with pytest.raises(ValueError, match="too big to step through.*smaller computation"):
        Frames(tape, "both")


def test_panel_names_the_edge_slot_and_the_formula_variable():
    """Slots count from 0 like edge ids and Contribute.slot; the panel says which
    formula variable a slot is, since users name their leaves differently."""
    with minigrad.record() as tape:
        x = minigrad.Value(2.0, "x")
        y = minigrad.Value(3.0, "y")
        z = y * x
        z.name = "z"
        z.backward()
    texts = [fr.text for fr in Frames(tape, "both").frames]
    assert any(t.startswith("x = 2.0000: a leaf parameter (requires_grad=True") for t in texts)
    to_y = next(t for t in texts if "added to y.grad" in t)
    assert to_y.startswith("mul: ∂z/∂y = x = 2.0000; 1.0000 × 2.0000 = 2.0000 added to y.grad: "
                           "— → 2.0000")
    assert to_y.endswith("Edge y → z: slot 0 of mul, called a in the formula.")
    to_x = next(t for t in texts if "added to x.grad" in t)
    assert to_x.endswith("slot 1 of mul, called b in the formula.")


def test_the_panel_takes_each_edges_formula_from_the_ops_formulas():
    """One formula per input (``op.formulas``): an edge's panel text shows its own input's
    formula, named as the op names it, even where the two formulas are long."""
    from minigrad import Tensor
    from viz.stepper.narration import _deriv_text, _slots

    op = minigrad.ops.tensor.MAXIMUM
    names, parts = _slots(op, 2)
    assert names == ["a", "b"] and parts == list(op.formulas)
    assert _deriv_text(op, 1, None, 2).startswith(
        "∂out/∂b (maximum's rule: ∂/∂b = 1 if b > a")
    a = Tensor(np.ones(2), requires_grad=True)
    fr = step_through(lambda x: x.maximum(x * 2.0).sum(), a).frames
    texts = "\n".join(fr[k].text for k in range(len(fr)))
    # prose (", ½ on a tie") keeps its letters: it is quoted as the general rule
    assert "(maximum's rule: ∂/∂a = 1 if a > b" in texts and "rule: ∂/∂b = 1 if b > a" in texts
