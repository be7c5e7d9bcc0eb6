"""The shared core: topological order, grad mode, recording, anomaly mode, gradcheck."""

import math
import threading

import numpy as np
import pytest

import minigrad
from minigrad import Value
from minigrad.autograd import unbroadcast


def test_topological_order_parents_first_each_once():
    x = Value(1.0)
    a = x * 2
    b = x + a
    c = a * b
    order = minigrad.topological_order(c)
    assert order[-1] is c and len(order) == len({n.id for n in order})
    pos = {n.id: i for i, n in enumerate(order)}
    for n in order:
        for p in n.parents:
            assert pos[p.id] < pos[n.id]


def test_topological_order_of_several_roots_and_deep_chain():
    x = Value(1.0)
    y = x
    for _ in range(50_000):
        y = y * 1.0
    z = x + 1
    order = minigrad.topological_order([y, z])
    assert order[0] is x and {y.id, z.id} <= {n.id for n in order}


def test_set_grad_enabled_function_and_context():
    x = Value(1.0)
    with minigrad.set_grad_enabled(False):
        assert (x * 2).op is None
        with minigrad.enable_grad():
            assert (x * 2).op is not None
    assert minigrad.is_grad_enabled()
    minigrad.set_grad_enabled(False)
    try:
        assert not minigrad.is_grad_enabled()
    finally:
        minigrad.set_grad_enabled(True)
    with pytest.raises(TypeError):
        minigrad.set_grad_enabled("no")


def test_no_grad_as_decorator():
    @minigrad.no_grad()
    def f(v):
        return v * 2

    assert f(Value(1.0)).op is None and minigrad.is_grad_enabled()


def test_grad_mode_is_thread_local():
    seen = {}

    def worker():
        seen["other"] = minigrad.is_grad_enabled()
        seen["node"] = (Value(1.0) * 2).op is not None

    with minigrad.no_grad():
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        assert not minigrad.is_grad_enabled()
    assert seen == {"other": True, "node": True}


def test_record_captures_forward_and_backward_in_order():
    with minigrad.record() as tape:
        a = Value(2.0, "a")
        b = Value(3.0, "b")
        c = a * b
        d = c + a
        d.backward()
    assert [n.label for n in tape.nodes[:2]] == ["a", "b"]
    assert tape.nodes[2] is c and tape.nodes[-1] is d
    kinds = [e.kind for e in tape.backward_events]
    assert kinds[0] == "seeded" and kinds.count("visit") == 2 and kinds.count("contribute") == 4
    contribs = [e for e in tape.events if e.kind == "contribute"]
    mul_to_a = next(e for e in contribs if e.node is c and e.parent is a)
    assert mul_to_a.derivative == 3.0 and mul_to_a.local_grad == 3.0
    assert mul_to_a.before == 1.0 and mul_to_a.after == 4.0  # a got 1.0 from the add first
    # contributions to each leaf sum exactly to its final gradient
    for leaf in (a, b):
        assert sum(e.local_grad for e in contribs if e.parent is leaf) == leaf.grad
    assert tape.roots == [d]
    assert repr(tape) == "<Tape 4 created, 2 visits, 4 contributions>"


def test_tape_backward_after_the_block():
    with minigrad.record() as tape:
        x = Value(2.0)
        y = x * x
    y.backward()  # not recorded
    assert not tape.backward_events
    y2 = x * x
    tape.backward(y2)
    assert sum(1 for e in tape.events if e.kind == "contribute") == 2


def test_no_recorder_no_events():
    class Counter:
        n = 0

        def created(self, node):
            Counter.n += 1

        seeded = visit = contribute = lambda self, *a: None

    with minigrad.record(Counter()):
        Value(1.0) * 2
    assert Counter.n == 3
    Value(1.0) * 2
    assert Counter.n == 3


def test_detect_anomaly_names_the_op_and_where_it_was_created():
    with minigrad.detect_anomaly():
        x = Value(0.0)
        y = x.sqrt()  # d sqrt / dx at 0 is inf
        with pytest.raises(minigrad.AnomalyError) as info:
            y.backward()
    msg = str(info.value)
    assert "'sqrt'" in msg and "inf" in msg and "test_core.py" in msg and "x.sqrt()" in msg
    x = Value(0.0)
    x.sqrt().backward()  # outside anomaly mode: no error, just inf
    assert x.grad == math.inf


def test_anomaly_without_creation_stack_says_so():
    x = Value(0.0)
    y = x.log()
    with minigrad.detect_anomaly(), pytest.raises(minigrad.AnomalyError, match="No creation stack"):
        y.backward()


def test_gradcheck_passes_and_catches_a_wrong_rule():
    a, b = Value(1.3), Value(-0.7)
    assert minigrad.gradcheck(lambda x, y: (x * y).tanh() + x.exp(), a, b)

    from minigrad.core.op import Op

    wrong = Op(name="bad_square", engine="scalar", symbol="sq",
               forward=lambda x: (x * x, (x,)), grads=(lambda g, x: g * x,),
               formulas=("∂/∂x = 2x (implemented as x)",))
    with pytest.raises(minigrad.GradcheckError, match="input 0"):
        minigrad.gradcheck(lambda x: x._unary(wrong), Value(1.5))


def test_gradcheck_errors():
    with pytest.raises(ValueError, match="nothing to check"):
        minigrad.gradcheck(lambda x: x * 2, Value(1.0, requires_grad=False))
    with pytest.raises(TypeError, match="must return a Value or Tensor"):
        minigrad.gradcheck(lambda x: 3.0, Value(1.0))


@pytest.mark.parametrize(
    "grad_shape, shape",
    [((2, 3, 4), (3, 1)), ((5, 3), (3,)), ((3, 4), ()), ((3, 4), (1, 4)), ((3, 4), (3, 4))],
)
def test_unbroadcast_sums_broadcast_axes(grad_shape, shape):
    rng = np.random.default_rng(0)
    g = rng.standard_normal(grad_shape)
    out = unbroadcast(g, shape)
    assert out.shape == shape
    # the adjoint identity: <g, broadcast(x)> == <unbroadcast(g), x>
    x = rng.standard_normal(shape)
    assert np.sum(g * np.broadcast_to(x, grad_shape)) == pytest.approx(np.sum(out * x))


def test_unbroadcast_rejects_impossible_shapes():
    with pytest.raises(ValueError, match=r"\(3, 4\).*\(2, 4\)"):
        unbroadcast(np.ones((3, 4)), (2, 4))


def test_tape_never_reruns_a_custom_functions_backward():
    calls = []

    class Square(minigrad.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            calls.append(g)
            (x,) = ctx.saved_tensors
            return 2 * x * g

    with minigrad.record() as tape:
        x = Value(3.0)  # scalar: the bare-derivative path is the one at stake
        y = Square.apply(x)
        y.backward()
    assert len(calls) == 1 and x.grad == 6.0
    (contrib,) = [e for e in tape.events if e.kind == "contribute"]
    assert contrib.derivative is None


def test_anomaly_trace_keeps_only_user_frames_and_names_notebook_cells():
    import traceback

    from minigrad.autograd import anomaly

    here = anomaly.creation_stack()
    assert here and all("site-packages" not in f.filename for f in here)
    assert all(not f.filename.startswith(anomaly._PKG) for f in here)
    assert here[-1].filename == __file__
    cell = traceback.FrameSummary("/tmp/ipykernel_4242/123456.py", 3, "<module>", line="y = x")
    assert anomaly._user_frame(cell)
    assert anomaly._CELL_FILE.match(cell.filename)


def test_backward_is_quiet_about_inf_like_pytorch():
    import warnings

    x = minigrad.Tensor([0.0, 4.0], requires_grad=True)
    y = x.sqrt().sum()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y.backward()
    assert x.grad[0] == np.inf and x.grad[1] == 0.25


def test_released_error_hints_at_rebinding_parameters():
    w = Value(1.0)
    loss = w * 2
    loss.backward()
    with pytest.raises(minigrad.GraphReleasedError, match="w = w - lr"):
        loss.backward()


def test_gradcheck_of_a_float32_parameter_runs_in_float64():
    p = minigrad.nn.Parameter(np.array([0.3, -1.2, 2.0], dtype=np.float32))
    seen = []

    def fn(x):
        seen.append(x.dtype)
        return (x * x).tanh().sum()

    assert minigrad.gradcheck(fn, p, atol=1e-7, rtol=1e-6)
    assert set(seen) == {np.dtype(np.float64)}


def test_import_minigrad_registers_every_tensor_op():
    import subprocess
    import sys

    code = ("import minigrad; from minigrad.autograd import registered_ops; "
            "print(sorted(op.name for op in registered_ops('tensor')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    for name in ("cross_entropy", "conv2d", "max_pool2d", "matmul", "batch_norm"):
        assert f"'{name}'" in out.stdout


def test_topological_order_without_leaves_is_what_backward_visits():
    x = Value(1.0)
    w = Value(2.0)
    a = x * w
    b = a + w
    order = minigrad.topological_order(b, leaves=False)
    assert order == [a, b]  # parents first, made by an op, each once
    assert minigrad.topological_order(b)[:2] == [x, w]


def test_a_non_leaf_no_gradient_reaches_is_skipped_not_an_error():
    """An op may declare an input non-differentiable (its rule returns None), even
    one that requires grad: the node behind it gets no gradient and no visit."""
    from minigrad.core.op import Op
    from minigrad.tensor import apply_op

    stop = Op(name="stop_gradient", engine="tensor", symbol="sg",
              forward=lambda x: (x.copy(), ()), grads=(lambda g: None,),
              formulas=("∂/∂x = 0 by declaration",))
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    hidden = x * 3.0
    y = (apply_op(stop, hidden) + x).sum()
    y.backward()
    np.testing.assert_array_equal(x.grad, [1.0, 1.0])  # only the direct path
    assert hidden.grad is None and hidden.saved is None  # not reached, still released


def test_non_leaf_grads_hold_the_last_pass_only():
    x = Value(3.0)
    h = x * x
    y = h * 2.0
    y.backward(retain_graph=True)
    y.backward()
    assert h.grad == 2.0  # this pass's dy/dh, not 4.0
    assert x.grad == 24.0  # leaves accumulate: 2 passes of 12
