"""``viz.stepper.torch_recording``: ``viz.step_through`` of torch tensors records PyTorch's
own backward into the kit's trace events, checked against hooks the test registers
itself, and the stepper, its panel and the offline player replay it unchanged."""

from __future__ import annotations

import numpy as np
import pytest

import viz
from viz.stepper.torch_recording import PYTORCH_RULE, BackwardRecorder

torch = pytest.importorskip("torch", reason="torch is optional: torch step-through is tested "
                                             "with it")


# --------------------------------------------------------------------- oracles


def all_nodes(t):
    out, todo = [], [t.grad_fn]
    while todo:
        fn = todo.pop()
        if fn is None or any(fn is n for n in out):
            continue
        out.append(fn)
        todo.extend(p for p, _ in fn.next_functions)
    return out


def torch_oracle(make):
    """What PyTorch's own hooks see for a fresh graph from ``make()``: the prehook order
    (Node names), each Node's grad_inputs, and the leaves' plain ``.grad``."""
    loss, leaves = make()
    order, grad_inputs, handles = [], {}, []
    for fn in all_nodes(loss):
        handles.append(fn.register_prehook(lambda go, fn=fn: order.append(fn.name())))
        handles.append(fn.register_hook(
            lambda gi, go, fn=fn: grad_inputs.setdefault(fn.name(), []).append(
                [None if g is None else g.detach().numpy().copy() for g in gi])))
    loss.backward()
    for h in handles:
        h.remove()
    return order, grad_inputs, [p.grad.detach().numpy().copy() for p in leaves]


def recorded(stepper):
    """``(visit order as Node names, contributions per Node name)`` from the tape."""
    tape = stepper.frames.replay
    visits = [e.node.fn.name() for e in tape.events if e.kind == "visit"]
    contribs = {}
    for e in tape.events:
        if e.kind == "contribute":
            contribs.setdefault(e.node.fn.name(), []).append(e.local_grad)
    return visits, contribs


def tanh_mul(seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(3, 4, dtype=torch.float64, generator=g, requires_grad=True)
    w = torch.randn(3, 4, dtype=torch.float64, generator=g, requires_grad=True)
    return x, w


def mlp(seed=0):
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(4, 5), torch.nn.Tanh(), torch.nn.Linear(5, 2))
    model.double()
    x = torch.randn(6, 4, dtype=torch.float64)
    y = torch.randn(6, 2, dtype=torch.float64)
    return model, x, y


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g


def split_fn(x, w):
    a, b = x.split(2)
    return (torch.tanh(a * w) + b * 2).sum()


CASES = {
    "tanh": lambda: _leaves(lambda x, w: torch.tanh(x * w).sum(), *tanh_mul()),
    "split": lambda: _leaves(split_fn, torch.linspace(-1, 1, 4, dtype=torch.float64)
                             .requires_grad_(), torch.tensor([0.5, -2.0], dtype=torch.float64,
                                                             requires_grad=True)),
    "custom": lambda: _leaves(lambda x, w: Square.apply(x * w).sum(), *tanh_mul(1)),
}


def _leaves(f, *xs):
    return f(*xs), list(xs)


def mlp_case():
    model, x, y = mlp()
    loss = ((model(x) - y) ** 2).mean()
    return loss, list(model.parameters())


CASES["mlp"] = mlp_case


@pytest.mark.parametrize("case", sorted(CASES))
def test_recorded_backward_is_pytorchs_own(case):
    order, grad_inputs, plain = torch_oracle(CASES[case])
    loss, leaves = CASES[case]()  # the same graph again, stepped through
    s = viz.step_through(loss)
    visits, contribs = recorded(s)
    ops = [name for name in order if "AccumulateGrad" not in name]
    assert visits == ops  # the engine's real order
    for name, gis in grad_inputs.items():
        if "AccumulateGrad" in name:
            continue
        want = [g for gi in gis for g in gi if g is not None]
        got = contribs.get(name, [])
        assert len(got) == len(want)
        for a, b in zip(got, want):
            assert a.dtype == np.float64 and np.array_equal(a, b)
    for p, g in zip(leaves, plain):  # .grad as a plain backward leaves it
        assert np.array_equal(p.grad.numpy(), g)


def test_step_through_a_function_runs_it_and_names_inputs():
    x, w = tanh_mul()
    s = viz.step_through(lambda x, w: torch.tanh(x * w).sum(), x, w)
    x2, w2 = tanh_mul()
    torch.tanh(x2 * w2).sum().backward()
    assert np.array_equal(x.grad.numpy(), x2.grad.numpy())
    assert np.array_equal(w.grad.numpy(), w2.grad.numpy())
    created = s.frames.replay.forward
    assert [n.label for n in created[:2]] == ["x", "w"]
    assert [n.op.name for n in created[2:]] == ["MulBackward0", "TanhBackward0", "SumBackward0"]
    # the end step says the leaves' gradients, the ones PyTorch left in .grad
    s.last()
    assert "x.grad" in s.panel and "w.grad" in s.panel


def test_leaves_accumulate_like_pytorch():
    x, w = tanh_mul()
    torch.tanh(x * w).sum().backward()
    first = x.grad.clone()
    s = viz.step_through(torch.tanh(x * w).sum())
    assert torch.equal(x.grad, 2 * first)
    first_edge = next(e for e in s.frames.replay.events
                      if e.kind == "contribute" and e.parent.label == "x")
    assert np.array_equal(first_edge.before, first.numpy())  # it started from what x had


def test_hooks_are_removed_afterwards():
    x, w = tanh_mul()
    loss = torch.tanh(x * w).sum()
    s = viz.step_through(loss, retain_graph=True)
    recorder = s.torch_recorder
    seen = len(recorder.raw)
    assert seen == 2 * 5  # a prehook and a hook on each of 5 Nodes
    loss.backward()  # a plain second backward: nothing listens any more
    assert len(recorder.raw) == seen


def test_hooks_are_removed_when_backward_raises():
    x, w = tanh_mul()
    loss = torch.tanh(x * w).sum()
    fns = all_nodes(loss)
    recorder = BackwardRecorder(fns)

    def bad(grad):
        raise RuntimeError("boom")

    handle = x.register_hook(bad)
    with pytest.raises(RuntimeError, match="boom"):
        recorder.run(loss, retain_graph=True)
    handle.remove()
    seen = len(recorder.raw)
    loss.backward()
    assert len(recorder.raw) == seen


def test_without_retain_graph_the_graph_is_freed_like_pytorchs():
    x, w = tanh_mul()
    loss = torch.tanh(x * w).sum()
    viz.step_through(loss)
    with pytest.raises(RuntimeError):
        loss.backward()
    with pytest.raises(ValueError, match="retain_graph=True"):
        viz.step_through(loss)


def test_bad_inputs_say_what_to_do():
    x = torch.ones(3, requires_grad=True)
    with pytest.raises(ValueError, match="leaf"):
        viz.step_through(x)
    with pytest.raises(ValueError, match="no grad_fn"):
        viz.step_through(torch.ones(3).sum())
    with pytest.raises(ValueError, match="scalar"):
        viz.step_through(lambda x: x * 2, x)
    with pytest.raises(ValueError, match="create_graph"):
        viz.step_through(lambda x: (x * 2).sum(), x, create_graph=True)


def test_panel_names_the_node_and_the_kits_rule_or_pytorchs():
    x, w = tanh_mul()
    s = viz.step_through(lambda x, w: Square.apply(x * w).sum(), x, w)
    texts = {f.title: f.text for f in s.frames.frames}
    visit_mul = next(t for k, t in texts.items() if "visit" in k and "MulBackward0" in k)
    assert "the kit's mul rule, ∂/∂a = b" in visit_mul
    visit_custom = next(t for k, t in texts.items() if "visit" in k and "Square" in k)
    assert PYTORCH_RULE in visit_custom and "Square.backward" in visit_custom
    model, xs, y = mlp()
    s = viz.step_through(((model(xs) - y) ** 2).mean())
    addmm = next(f.text for f in s.frames.frames if f.kind == "visit"
                 and "AddmmBackward0" in f.title)
    assert f"{PYTORCH_RULE} (the kit has no addmm op)" in addmm
    # the leaves carry the Module's names, and the forward replay says it
    assert any(f.title == "Forward · create 0.weight" for f in s.frames.frames)


def test_pending_counts_and_ready_queue_show():
    x, w = tanh_mul()
    s = viz.step_through(torch.tanh(x * w).sum())
    shown = [g for i in range(len(s)) for g in s.frames.shown_grads(i).values()]
    assert any(getattr(g, "note", "") == "pending 1" for g in shown)
    assert any("ready queue: TanhBackward0" in f.text for f in s.frames.frames)


@pytest.mark.parametrize("layout", ["builtin", pytest.param("dot", marks=pytest.mark.skipif(
    not viz.dot_available(), reason="graphviz 'dot' not available"))])
def test_offline_player_page_builds(tmp_path, layout):
    x, w = tanh_mul()
    s = viz.step_through(lambda x, w: torch.tanh(x * w).sum(), x, w, layout=layout)
    path = s.save_html(tmp_path / "torch.html")
    page = path.read_text(encoding="utf-8")
    assert s.template is not None and not s.template.missing
    assert "MulBackward0" in page and 'id="n_0"' in page
    assert len(s.frames) == 17


@pytest.mark.parametrize("retain", [None, True])
def test_first_backward_step_says_the_backward_ran_once(retain):
    x, w = tanh_mul()
    loss = torch.tanh(x * w).sum()
    s = viz.step_through(loss, retain_graph=retain)
    seeds = [f for f in s.frames.frames if f.kind == "seeded"]
    assert len(seeds) == 1
    said = seeds[0].text
    assert "This step-through ran the loss's backward once" in said
    assert ".grad accumulated as after that call" in said
    if retain:
        assert "loss.backward(retain_graph=True)" in said and "kept the graph" in said
    else:
        assert "without retain_graph=True PyTorch freed the graph" in said
    # only there: the other steps do not repeat it
    assert sum("ran the loss's backward once" in f.text for f in s.frames.frames) == 1
    # a minigrad step-through says nothing of the kind
    plain = viz.step_through(lambda a, b: a * b, 2.0, 3.0)
    assert not any("ran the loss's backward" in f.text for f in plain.frames.frames)
