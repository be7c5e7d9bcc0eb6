"""checkpoint / checkpoint_sequential: one node in forward, the block recomputed in backward."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad
from minigrad import Tensor, Value, checkpoint, checkpoint_sequential, graph_memory, nn
from minigrad.autograd import grad, record
from minigrad.autograd.graph import saved_tensors_hooks
from minigrad.memory import ledger


def _mlp(depth=6, width=16, p=0.2, seed=0):
    minigrad.manual_seed(seed)
    layers = []
    for _ in range(depth):
        layers += [nn.Linear(width, width), nn.Tanh(), nn.Dropout(p)]
    return nn.Sequential(*layers)


def _input(width=16, seed=1, requires_grad=False):
    x = minigrad.randn(8, width, seed=seed)
    x.requires_grad = requires_grad
    return x


def _grads(model, *extra):
    return [p.grad.copy() for p in model.parameters()] + [t.grad.copy() for t in extra]


def _same(a, b) -> bool:
    return len(a) == len(b) and all(x.tobytes() == y.tobytes() for x, y in zip(a, b))


@pytest.mark.parametrize("segments", [1, 2, 3, 5, 18])
def test_checkpoint_sequential_gives_the_same_bits_with_dropout(segments):
    model, x = _mlp(), _input(requires_grad=True)
    loss = model(x).sum()
    loss.backward()
    want = _grads(model, x)
    model, x = _mlp(), _input(requires_grad=True)
    checked = checkpoint_sequential(model, segments, x).sum()
    assert checked.data.tobytes() == loss.data.tobytes()
    checked.backward()
    assert _same(_grads(model, x), want)


def test_without_restoring_the_random_state_dropout_masks_differ():
    model, x = _mlp(), _input()
    model(x).sum().backward()
    want = _grads(model)
    model, x = _mlp(), _input()
    checkpoint(model, x, preserve_rng_state=False).sum().backward()
    assert not _same(_grads(model), want)


def test_the_random_stream_after_backward_is_as_without_checkpointing():
    def run(checkpointed):
        model, x = _mlp(), _input()

        def block(t):  # draws from the default generator too
            return minigrad.nn.functional.dropout(model(t), 0.5)

        (checkpoint(block, x) if checkpointed else block(x)).sum().backward()
        return _grads(model), minigrad.randn(3).data

    (want, after), (got, after_checkpointed) = run(False), run(True)
    assert _same(got, want) and np.array_equal(after_checkpointed, after)


def test_the_block_is_one_node_that_names_the_function_and_counts_its_ops():
    model, x = _mlp(depth=2, p=0.0), _input(requires_grad=True)
    y = checkpoint(model, x)
    assert y.op.name == "checkpoint"
    assert y.attrs["fn"] == "Sequential" and y.attrs["ops"] == 4  # linear, tanh, twice
    assert y.parents[0] is x and {id(p) for p in y.parents[1:]} == \
        {id(p) for p in model.parameters()}
    assert len([n for n in minigrad.topological_order(y) if n.op is not None]) == 1
    assert y.saved == (x.data,)


def test_a_parameter_read_from_a_closure_gets_its_gradient_and_autograd_grad_works():
    w = Tensor(np.linspace(-1, 1, 12).reshape(3, 4), requires_grad=True)
    x = Tensor(np.ones((2, 3)), requires_grad=True)

    def block(t):
        return (t @ w).tanh() * 2.0

    (want_w, want_x) = grad(block(x).sum(), [w, x])
    got_w, got_x = grad(checkpoint(block, x).sum(), [w, x])
    assert np.array_equal(got_w, want_w) and np.array_equal(got_x, want_x)
    assert w.grad is None and x.grad is None


def test_the_ready_queue_scheduler_gives_the_same_bits():
    model, x = _mlp(), _input()
    model(x).sum().backward()
    want = _grads(model)
    model, x = _mlp(), _input()
    checkpoint_sequential(model, 3, x).sum().backward(scheduler="ready-queue")
    assert _same(_grads(model), want)


def test_keyword_and_non_tensor_arguments_are_passed_again():
    x = Tensor(np.array([0.5, -1.0, 2.0]), requires_grad=True)
    calls = []

    def block(t, power, *, mode):
        calls.append((power, mode))
        return (t ** power).sum() if mode == "sum" else t

    y = checkpoint(block, x, 3, mode="sum")
    y.backward()
    assert calls == [(3, "sum"), (3, "sum")]
    assert np.array_equal(x.grad, 3 * x.data ** 2)


def test_create_graph_through_a_checkpoint_gives_the_second_derivative():
    x = Tensor(np.array([0.3, -0.7, 1.1]), requires_grad=True)

    def block(t):
        return (t.tanh() * t).exp()

    (g,) = grad(block(x).sum(), [x], create_graph=True)
    (want,) = grad((g * g).sum(), [x])
    (g2,) = grad(checkpoint(block, x).sum(), [x], create_graph=True)
    (got,) = grad((g2 * g2).sum(), [x])
    assert np.array_equal(g2.data, g.data) and np.allclose(got.data, want.data, rtol=1e-12)


def test_value_engine_blocks_work():
    a, b = Value(0.4, requires_grad=True), Value(-1.2, requires_grad=True)

    def block(u, v):
        return (u * v).tanh() + u.exp()

    block(a, b).backward()
    want = a.grad, b.grad
    a.grad = b.grad = None
    out = checkpoint(block, a, b)
    assert out.op.name == "checkpoint" and isinstance(out, Value)
    out.backward()
    assert (a.grad, b.grad) == want


def test_a_block_input_used_outside_too_gets_both_contributions():
    x = Tensor(np.array([0.2, 0.4, -0.5]), requires_grad=True)
    (want,) = grad((x.tanh() * x).sum() + (x * x).sum(), [x])
    (got,) = grad(checkpoint(lambda t: (t.tanh() * t).sum(), x) + (x * x).sum(), [x])
    assert np.allclose(got, want, rtol=1e-15)


def test_a_gradient_hook_on_a_parameter_inside_runs_once():
    model, x = _mlp(depth=2, p=0.0), _input()
    seen = []
    model[0].weight.register_hook(lambda g: seen.append(g.shape))
    checkpoint(model, x).sum().backward()
    assert seen == [(16, 16)]


def test_nested_checkpoints_recompute_inside_each_other():
    model, x = _mlp(depth=4), _input()
    model(x).sum().backward()
    want = _grads(model)
    model, x = _mlp(depth=4), _input()
    inner = model[3:9]
    y = checkpoint(lambda t: model[9:](checkpoint(inner, model[:3](t))), x)
    y.sum().backward()
    assert _same(_grads(model), want)


def test_a_recording_sees_one_node_in_forward_and_the_recompute_in_backward():
    model, x = _mlp(depth=3, p=0.0), _input()
    with record() as tape:
        y = checkpoint(model, x).sum()
        forward = len(tape.nodes)
        y.backward()
    assert forward == 2  # the checkpoint node and the sum
    made_in_backward = [e.node for e in tape.events[forward:] if e.kind == "created"]
    assert len([n for n in made_in_backward if n.op is not None]) == 6


def test_the_ledger_shows_a_lower_peak_and_the_recompute():
    model, x = _mlp(depth=8, p=0.0), _input()
    plain = ledger(model(x).sum())
    model, x = _mlp(depth=8, p=0.0), _input()
    checked = ledger(checkpoint_sequential(model, 4, x).sum())
    assert checked.peak < plain.peak
    assert sum(s.allocated > 0 for s in checked.steps[1:]) == 3  # three blocks recomputed
    assert checked.alive == 0


def test_saved_tensor_hooks_pack_the_checkpoint_inputs_not_the_block():
    model, x = _mlp(depth=2, p=0.0), _input(requires_grad=True)
    packed = []
    with saved_tensors_hooks(lambda a: packed.append(a) or a.copy(), lambda a: a):
        y = checkpoint(model, x)
    assert len(packed) == 1 and packed[0] is x.data
    y.sum().backward()
    model2, x2 = _mlp(depth=2, p=0.0), _input(requires_grad=True)
    model2(x2).sum().backward()
    assert _same(_grads(model, x), _grads(model2, x2))


def test_graph_memory_holds_only_the_inputs_of_checkpointed_segments():
    model, x = _mlp(depth=8, p=0.0), _input()
    plain = graph_memory(model(x).sum()).saved_bytes
    model, x = _mlp(depth=8, p=0.0), _input()
    assert graph_memory(checkpoint_sequential(model, 8, x).sum()).saved_bytes < plain / 2


def test_without_grad_it_is_a_plain_call():
    model, x = _mlp(depth=1), _input()
    with minigrad.no_grad():
        y = checkpoint(model, x)
    assert y.op is None


def test_bad_uses_are_clear_errors():
    x = Tensor(np.ones(3), requires_grad=True)
    with pytest.raises(TypeError, match="returned a list, not a Tensor or Value or a "
                                        "non-empty tuple of them"):
        checkpoint(lambda t: [t * 2, t * 3], x)
    with pytest.raises(TypeError, match="returned float"):
        checkpoint(lambda t: 2.0, x)
    with pytest.raises(ValueError, match="non-reentrant"):
        checkpoint(lambda t: t * 2, x, use_reentrant=True)
    with pytest.raises(TypeError, match="callable"):
        checkpoint(3, x)
    with pytest.raises(ValueError, match="segments"):
        checkpoint_sequential([lambda t: t * 2], 2, x)


def test_a_block_that_reads_something_new_when_recomputed_is_refused():
    x = Tensor(np.ones(3), requires_grad=True)
    others = [Tensor(np.full(3, 2.0), requires_grad=True), Tensor(np.full(3, 3.0),
                                                                   requires_grad=True)]

    def block(t):
        return (t * others.pop(0)).sum()

    y = checkpoint(block, x)
    with pytest.raises(RuntimeError, match="did not give the block of its first run"):
        y.backward()


def _two_heads(model):
    def block(x):
        h = model(x)
        return h.tanh(), (h * h).sum(axis=1)

    return block


@pytest.mark.parametrize("use", ["both", "first", "second"])
def test_a_block_returning_a_tuple_gives_the_plain_graphs_bits(use):
    """One record, one output node per item (PyTorch lets a block return a tuple); an
    output that the loss does not use gets zeros in the recompute's backward."""
    def loss_of(a, b):
        return {"both": a.sum() * 2.0 + b.sum(), "first": a.sum(), "second": b.sum()}[use]

    model, x = _mlp(depth=2), _input(requires_grad=True)
    loss_of(*_two_heads(model)(x)).backward()
    want = _grads(model, x)
    model, x = _mlp(depth=2), _input(requires_grad=True)
    a, b = checkpoint(_two_heads(model), x)
    assert a.op.name == b.op.name == "output" and a.parents[0] is b.parents[0]
    assert a.parents[0].op.name == "checkpoint"
    loss_of(a, b).backward()
    assert _same(_grads(model, x), want)


def test_a_tuple_block_works_with_create_graph_values_and_an_output_returned_twice():
    x = Tensor(np.array([0.3, -1.2, 2.0]), requires_grad=True)

    def block(t):
        y = (t * t * t).sum()
        return y, y

    a, b = checkpoint(block, x)
    (g,) = grad(a + b * 2.0, [x], create_graph=True)
    np.testing.assert_allclose(g.data, 9 * x.data ** 2)  # d(3 Σt³)/dt = 9t²
    (h,) = grad(g.sum(), [x])
    np.testing.assert_allclose(h.data, 18 * x.data)
    v = Value(1.5)
    p, q = checkpoint(lambda t: (t * t, t.tanh()), v)
    (p + q).backward()
    assert v.grad == pytest.approx(3.0 + 1 - np.tanh(1.5) ** 2)
