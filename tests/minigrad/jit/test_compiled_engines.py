"""A compiled node's gradients: the fast engine's shortcut gives the reference engine's bits.

A ``jit``-compiled call records one node whose ``grads_fit_inputs`` is set: its
generated backward returns each gradient as a new array of its input's shape
and dtype, which the fast engine stores unchecked and uncopied
(``minigrad/engines/fast.py``).  Built through ``apply_op(compiled.op, ...)``,
the same node has no flag: the readable path, where the engine checks and
copies.  For the registry-wide random chains of ``test_symbolic_fusion_registry.py`` and
a few programs that are not elementwise chains (passthrough gradients, a
broadcast, a matmul, a reshape, a 0-d input, captured params), every path
(reference engine, fast engine, readable node) must give the same gradients bit
for bit, in a first pass and a second that accumulates, and no leaf's ``.grad``
may share memory with another gradient or with any node's data.
"""

from __future__ import annotations

import numpy as np
import pytest

from minigrad import Tensor, apply_op, jit
from minigrad.engines import choose
from minigrad.jit.passes import op_kernel
from minigrad.nn.functional.fused import BATCH_NORM2D_RELU, CONV2D_RELU, LINEAR_RELU
from tests.minigrad.jit.test_symbolic_fusion_registry import SHAPES, random_chain

W = np.random.default_rng(5).standard_normal((4, 3))


def _programs():
    """``(name, fn, input shapes)`` of programs that are not elementwise chains."""
    w = Tensor(W, requires_grad=True)  # a captured param
    b = Tensor(np.zeros(3), requires_grad=True)
    return [
        ("add passes g to both inputs", lambda x, y: x + y, [(3, 4), (3, 4)]),
        ("a broadcast input", lambda x, y: (x * y).tanh() - y, [(3, 4), (4,)]),
        ("an input used twice", lambda x, y: x * x + y, [(3, 4), (3, 4)]),
        ("a 0-d input", lambda x, y: (x * y).exp() + y, [(3, 4), ()]),
        ("matmul with params", lambda x, y: (x @ w + b).tanh() * y, [(5, 4), (5, 3)]),
        ("a reshape and a sum", lambda x, y: (x.reshape(4, 3) * y).sum(axis=0), [(3, 4), (3,)]),
        ("only a param", lambda x, y: x * 0.0 + w.sum() + y, [(2,), (2,)]),
        ("g itself out of a kernel", lambda x, y, z: (x * y).tanh() + z, [(3, 4)] * 3),
    ]


def _cases():
    cases = []
    for seed in range(8):
        rng = np.random.default_rng(seed)
        shape, other = SHAPES[seed % len(SHAPES)]
        fn, arrays = random_chain(rng, np.float64, shape, other)
        cases.append((f"random chain {seed}", fn, arrays))
    rng = np.random.default_rng(0)
    for name, fn, shapes in _programs():
        cases.append((name, fn, [rng.standard_normal(s) for s in shapes]))
    return cases


CASES = _cases()


def _graph(fn, arrays, path):
    """Leaves, the compiled node and a root that uses it three times and a leaf again."""
    leaves = [Tensor(a.copy(), requires_grad=True) for a in arrays]
    jitted = jit.jit(fn)
    pre = leaves[0] * 1.5  # a parent made by an op, not a leaf
    args = [pre, *leaves[1:]]
    out = jitted(*args)
    if path == "readable":  # the same op, through apply_op: no grads_fit_inputs
        (compiled,) = jitted.cache.values()
        out = apply_op(compiled.op, *args, *compiled.params)
        assert not out.grads_fit_inputs
    else:
        assert out.grads_fit_inputs
    root = (out + out) + out * 2.0
    params = list(next(iter(jitted.cache.values())).params)
    return leaves + params, [pre, out, root], root


def _bits(x):
    return None if x is None else (x.dtype.str, x.shape, x.tobytes())


def _passes(fn, arrays, path):
    leaves, others, root = _graph(fn, arrays, path)
    upstream = np.random.default_rng(3).standard_normal(root.data.shape)
    results = []
    for _ in range(2):  # the second pass adds into the leaves' gradients
        choose.backward(root, upstream, retain_graph=True,
                        engine="reference" if path == "reference" else "fast")
        results.append([_bits(n.grad) for n in (*leaves, *others)])
        for leaf in leaves:
            for node in (*leaves, *others):
                for a in (node.grad if node is not leaf else None, node.data):
                    assert a is None or not np.shares_memory(leaf.grad, a), (
                        f"a leaf's .grad shares memory with node #{node.id}")
    for leaf in leaves:  # each param's gradient was cleared by the next case's graph
        leaf.grad = None
    return results


@pytest.mark.parametrize("name, fn, arrays", CASES, ids=[c[0] for c in CASES])
def test_fast_engine_readable_node_and_reference_engine_agree_bit_for_bit(name, fn, arrays):
    want = _passes(fn, arrays, "reference")
    assert _passes(fn, arrays, "fast") == want
    assert _passes(fn, arrays, "readable") == want
    assert any(b is not None for b in want[0])


def test_a_gradient_passed_through_is_copied_for_each_input():
    x, y = (Tensor(np.ones(3), requires_grad=True) for _ in range(2))
    upstream = np.full(3, 2.0)
    jit.jit(lambda x, y: x + y)(x, y).backward(upstream)
    assert not np.shares_memory(x.grad, y.grad)
    assert not np.shares_memory(x.grad, upstream) and not np.shares_memory(y.grad, upstream)


def test_a_fused_kernel_marks_which_gradients_are_new_arrays():
    x, y = Tensor(np.ones((2, 3)), requires_grad=True), Tensor(np.ones(3), requires_grad=True)

    def kernel_of(fn, *args):
        (fused,) = [e for e in jit.optimize(jit.trace(fn, *args)).eqns if e.body is not None]
        return op_kernel[fused.op]

    # x: a sum of two edges; y: summed down to (3,)
    assert kernel_of(lambda x, y: (x + y).tanh() + x, x, y).fresh == (True, True)
    # z's gradient is the kernel's own g: not new
    assert kernel_of(lambda x, y, z: (x * y).tanh() + z, x, x, x).fresh == (True, True, False)


@pytest.mark.parametrize("op", [LINEAR_RELU, CONV2D_RELU, BATCH_NORM2D_RELU],
                         ids=lambda op: op.name)
def test_a_layer_relu_op_masks_g_once_and_gives_eager_bits(op):
    for inputs, attrs in op.cases(np.random.default_rng(0)):
        arrays = [np.asarray(x, np.float32) for x in inputs]
        shape = apply_op(op, *[Tensor(a) for a in arrays], **attrs).data.shape
        up = Tensor(np.random.default_rng(1).standard_normal(shape).astype(np.float32))

        def fn(*xs, attrs=attrs):
            return (apply_op(op, *xs[:-1], **attrs) * xs[-1]).sum()  # xs[-1]: upstream

        results = []
        for f in (fn, jit.jit(fn)):
            xs = [Tensor(a, requires_grad=True) for a in arrays]
            f(*xs, up).backward()
            results.append([_bits(x.grad) for x in xs])
        assert results[0] == results[1]
        xs = [Tensor(a, requires_grad=True) for a in arrays]
        assert jit.jit(fn).source(*xs, up).count("relu_rule(") == 1


def test_an_op_runs_directly_unless_apply_op_would_cast_its_inputs_first():
    """The generated forward calls an op's forward itself, and goes through ``run_eqn``
    only where ``apply_op`` would first cast an input (a 0-d float64 meeting float32);
    either way the value and the gradients are eager minigrad's, bit for bit."""
    import minigrad.nn.functional as F

    rng = np.random.default_rng(1)
    logits, targets = rng.standard_normal((6, 4)).astype(np.float32), rng.integers(0, 4, 6)
    scalar = np.asarray(2.5)  # 0-d float64: it takes the shaped input's float32
    for fn, args, direct in [
        (lambda x, t: F.cross_entropy(x, t), (logits, targets), True),  # f32 and int64: as is
        (lambda x, y: (x * y).sum(), (logits, scalar), False),
    ]:
        jitted = jit.jit(fn)
        eager_in = [Tensor(args[0], requires_grad=True), Tensor(args[1])]
        jit_in = [Tensor(args[0], requires_grad=True), Tensor(args[1])]
        eager, compiled = fn(*eager_in), jitted(*jit_in)
        source = jitted.source(*jit_in)
        assert ("run(" in source) is not direct, source
        eager.backward()
        compiled.backward()
        assert _bits(compiled.data) == _bits(eager.data)
        assert _bits(jit_in[0].grad) == _bits(eager_in[0].grad)
