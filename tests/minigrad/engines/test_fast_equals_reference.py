"""The fast engine computes exactly what the reference engine computes.

``minigrad/core/backward.py`` is the engine to read; ``fast.py`` takes
shortcuts (passthrough rules not called, gradients that fit added unchecked,
buffers it owns summed in place).  This test walks the whole op registry: every
op, every one of its cases, in float32 and float64, for a first pass and a
second pass with ``retain_graph`` (where leaves accumulate), through the
reference engine, the fast engine, the recorded path (``record()``, which
the stepper uses) and the ready-queue scheduler, alone and recorded.
Gradients and dtypes must agree bit for bit, and no leaf's ``.grad`` may
share memory with another node's gradient.  A new op is covered with no
extra code.
"""

from __future__ import annotations

import operator

import numpy as np
import pytest

import minigrad
from minigrad import Function, Tensor, Value, apply_op, record
from minigrad.core.op import registered_ops
from minigrad.engines import choose
from tests._helpers import INTERNAL_EXAMPLES, example_leaves, example_node, one_output

PATHS = ("reference", "fast", "recorded", "ready-queue", "ready-queue recorded")
OPS = list(registered_ops())
PARAMS = [(op, dtype) for op in OPS
          for dtype in ((np.float32, np.float64) if op.engine == "tensor" else (float,))]


def _leaves(op, inputs, dtype):
    """Float inputs become leaves that require grad; masks and indices stay constants."""
    if op.engine == "scalar":
        return [Value(x) for x in inputs]
    return [Tensor(x.astype(dtype), requires_grad=True)
            if isinstance(x, np.ndarray) and x.dtype == np.float64 else x for x in inputs]


def _backward(root, upstream, path):
    if path == "recorded":
        with record():
            root.backward(upstream, retain_graph=True)
    elif path == "ready-queue recorded":
        with record():
            root.backward(upstream, retain_graph=True, scheduler="ready-queue")
    elif path == "ready-queue":
        choose.backward(root, upstream, retain_graph=True, scheduler="ready-queue")
    else:
        choose.backward(root, upstream, retain_graph=True, engine=path)


def _bits(x):
    """A gradient as (type, dtype, shape, bytes): equal only if identical bit for bit."""
    if x is None:
        return None
    if isinstance(x, np.ndarray):
        return ("array", x.dtype.str, x.shape, x.tobytes())
    return (type(x).__name__, np.float64(x).tobytes())


def _run(make_root, path, seed):
    """Build the graph afresh, run two passes, return every node's gradient bits."""
    leaves, y, root = make_root()
    rng = np.random.default_rng(seed)
    data = root.data
    upstream = (rng.standard_normal(data.shape).astype(data.dtype)
                if isinstance(data, np.ndarray) else float(rng.standard_normal()))
    passes = []
    for _ in range(2):  # the second pass accumulates into the leaves
        _backward(root, upstream, path)
        passes.append([_bits(n.grad) for n in (*leaves, y, root)])
        _no_leaf_shares_memory(leaves, (y, root))
    return passes


def _no_leaf_shares_memory(leaves, others):
    grads = [(n, n.grad) for n in (*leaves, *others) if isinstance(n.grad, np.ndarray)]
    for leaf in leaves:
        if not isinstance(leaf.grad, np.ndarray):
            continue
        for node, grad in grads:
            if node is not leaf:
                assert not np.shares_memory(leaf.grad, grad), (
                    f"leaf #{leaf.id}'s .grad shares memory with node #{node.id}'s gradient")


#: ops that ``Tensor``/``Value`` run through an operator or method of their own (the
#: forward fast path, whose elementwise nodes get ``grads_fit_inputs``)
_METHODS = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "div": operator.truediv,
    "pow": operator.pow, "matmul": operator.matmul, "neg": operator.neg, "abs": abs,
    "maximum": lambda a, b: a.maximum(b), "minimum": lambda a, b: a.minimum(b),
    **{name: operator.methodcaller(name) for name in (
        "exp", "log", "sqrt", "tanh", "sigmoid", "relu", "gelu", "sin", "cos")},
}


def _graph(op, inputs, attrs, dtype, via):
    """``y = op(leaves)`` used three times (``root = (y + y) + y``): y gets three
    contributions, the first of them the very ``g`` that ``+`` passes through.
    ``via`` builds y with ``apply_op`` or with the engine's own operator."""

    def make():
        leaves = _leaves(op, inputs, dtype)
        if via == "apply_op":
            y = one_output(apply_op(op, *leaves, **attrs), skip_last=True)
        else:
            y = _METHODS[op.name](*leaves)
            assert y.op is op, (y.op, op)
        nodes = [x for x in leaves if isinstance(x, minigrad.autograd.Node)]
        return nodes, y, (y + y) + y

    return make


def _agree(make, what):
    results = {path: _run(make, path, seed=7) for path in PATHS}
    ref = results["reference"]
    for path in PATHS[1:]:
        for k in range(2):
            assert results[path][k] == ref[k], (
                f"{what}: the {path} engine differs from the reference one in pass {k + 1}")


@pytest.mark.parametrize("op, dtype", PARAMS,
                         ids=[f"{op.engine}.{op.name}-{getattr(d, '__name__', d)}"
                              for op, d in PARAMS])
def test_reference_fast_recorded_and_ready_queue_engines_agree_bit_for_bit(op, dtype):
    cases = op.cases(np.random.default_rng(1234))
    assert cases, f"{op.name} has no cases"
    for k, (inputs, attrs) in enumerate(cases):
        attrs = dict(attrs)
        if op.name == "cast":
            attrs["dtype"] = np.dtype(dtype)
        ways = ["apply_op"]
        if op.name in _METHODS and not attrs and all(isinstance(x, Value | Tensor)
                                                     for x in _leaves(op, inputs, dtype)):
            ways.append("operator")
        for via in ways:
            _agree(_graph(op, inputs, attrs, dtype, via),
                   f"{op.engine}.{op.name} case {k} via {via}")


INTERNAL = [(e, dtype) for e in INTERNAL_EXAMPLES
            for dtype in ((float,) if e.op.engine == "scalar" else (np.float32, np.float64))]


@pytest.mark.parametrize("example, dtype", INTERNAL,
                         ids=[f"{e.name}-{getattr(d, '__name__', d)}" for e, d in INTERNAL])
def test_the_engines_agree_bit_for_bit_on_the_internal_ops(example, dtype):
    """The library's own ops (``core/op.py``'s internal ops), through their examples."""
    if dtype is np.float32 and "float32" in example.skip:
        pytest.skip(f"{example.name}: {example.skip['float32']}")
    for k, (inputs, attrs) in enumerate(example.cases(np.random.default_rng(1234))):

        def make(inputs=inputs, attrs=attrs):
            leaves = example_leaves(example, inputs, dtype)
            y = example_node(example, *leaves, **attrs)
            assert y.op is example.op, (y.op, example.op)
            return leaves, y, (y + y) + y

        _agree(make, f"{example.name} case {k}")


class _Scaled(Function):
    """∂(s·a·b)/∂a = s·b,  ∂(s·a·b)/∂b = s·a"""

    @staticmethod
    def forward(ctx, a, b, s):
        ctx.save_for_backward(a, b)
        ctx.s = s
        return a.data * b.data * s

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        return g * b.data * ctx.s, g * a.data * ctx.s


@pytest.mark.parametrize("kind", ["tensor", "value"])
def test_custom_functions_agree_on_every_engine(kind):
    """A custom Function's one vjp (its backward) goes through the same engines."""

    def make():
        if kind == "tensor":
            a = Tensor(np.array([1.5, -2.0, 0.25]), requires_grad=True)
            b = Tensor(np.array([[0.5], [3.0]]), requires_grad=True)
        else:
            a, b = Value(1.5), Value(-0.5)
        y = _Scaled.apply(a, b, 2.0)
        return [a, b], y, y + y

    _agree(make, f"a custom Function on {kind}s")


def test_backward_refuses_an_unknown_engine():
    x = Value(2.0)
    with pytest.raises(ValueError, match="engine must be one of"):
        choose.backward(x * x, engine="quick")
