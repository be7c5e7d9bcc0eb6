"""Every registered tensor op under ``vmap``, on its own test cases, in float64.

For each op and case, and several ``in_dims`` (every input mapped over axis 0;
over its last axis; the first input not mapped), ``vmap(op)`` must equal the op
applied to each example and stacked, and so must ``vmap(grad(⟨op, c⟩))``, which
runs the op's backward rules on batches, and ``vmap(jvp(op))`` (its forward-mode
rules on batches, the tangents mapped like their primals).  The test walks the registry, so a new
op is covered with no extra code.  ``PER_EXAMPLE`` lists the ops with no
batching of their own yet: they run once per example with a warning (the test
checks that they warn, and that no other op does).  It must shrink, never grow.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad  # noqa: F401  (registers every op)
from minigrad import Tensor
from minigrad.autograd import registered_ops
from minigrad.autograd.tangents import has_forward_rule
from minigrad.batching import BatchingFallbackWarning
from minigrad.func import grad, jvp, vmap
from minigrad.tensor.tensor import apply_op
from tests._helpers import INTERNAL_EXAMPLES, example_node, one_output

#: ops whose forward or backward runs once per example under some in_dims (the warning
#: names them), each with why
PER_EXAMPLE = {
    "cross_entropy": "logits not mapped but targets mapped: numpy indexes a plain array "
                     "with the batch of targets, which never reaches a batching rule",
    "nll_loss": "the same as cross_entropy",
    "jit_example": "a compiled kernel's generated backward writes into buffers it allocates "
                   "(out=), one example at a time",
}

OPS = list(registered_ops("tensor"))
B = 3


def _examples(x, b):
    """Example ``b`` of a batch built from a case's input: floats scaled a little
    (signs, ties and domains kept), integers and masks as they are."""
    if isinstance(x, np.ndarray) and x.dtype.kind == "f":
        return x * (1.0 + 0.1 * b)
    return x


def _variants(inputs):
    n = len(inputs)
    yield "all-0", (0,) * n
    if any(np.ndim(x) for x in inputs):
        yield "last", tuple(-1 if np.ndim(x) else 0 for x in inputs)
    if n > 1:
        yield "first-None", (None,) + (0,) * (n - 1)


def _batch(inputs, dims):
    out = []
    for x, d in zip(inputs, dims):
        if d is None:
            out.append(Tensor(x))
        else:
            out.append(Tensor(np.stack([_examples(x, b) for b in range(B)],
                                       axis=d if d >= 0 else np.ndim(x))))
    return out


def _per_example(inputs, dims, b):
    return [Tensor(x if d is None else _examples(x, b)) for x, d in zip(inputs, dims)]


def _apply(op, attrs):
    return lambda *ts: one_output(apply_op(op, *ts, **attrs))


def _check(op, fn, inputs, attrs, dims, warned, forward_mode=True):
    """``vmap(fn)`` against ``fn`` per example and stacked, for the forward and for the
    gradient of ``⟨fn(...), c⟩`` with respect to the floating inputs."""
    batched = _batch(inputs, dims)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", BatchingFallbackWarning)
        got = vmap(fn, in_dims=dims, randomness="same")(*batched)  # (dropout: a seed attr)
        want = np.stack([fn(*_per_example(inputs, dims, b)).data for b in range(B)])
        np.testing.assert_allclose(got.data, want, rtol=1e-10, atol=1e-12,
                                   err_msg=f"{op.name} forward, in_dims={dims}")
        floats = tuple(k for k, x in enumerate(inputs) if np.asarray(x).dtype.kind == "f")
        if floats:
            c = Tensor(np.random.default_rng(7).standard_normal(want.shape[1:]))

            def loss(*ts):
                return (fn(*ts) * c).sum()

            gots = vmap(grad(loss, argnums=floats), in_dims=dims, randomness="same")(*batched)
            for b in range(B):
                wants = grad(loss, argnums=floats)(*_per_example(inputs, dims, b))
                for k, g, w in zip(floats, gots, wants):
                    np.testing.assert_allclose(
                        g.data[b], w.data, rtol=1e-9, atol=1e-12,
                        err_msg=f"{op.name} gradient of input {k}, in_dims={dims}")
            if forward_mode:
                _check_jvp(fn, inputs, dims, floats)
    warned.update(str(w.message) for w in caught if w.category is BatchingFallbackWarning)


def _check_jvp(fn, inputs, dims, floats):
    """``vmap(jvp(fn))``, tangents mapped like their primals: the forward-mode rules on
    batches, against ``jvp`` per example."""
    tangents = [np.random.default_rng(11).standard_normal(np.shape(inputs[k])) for k in floats]
    n = len(inputs)

    def tangent_of(*args):
        ts, primals = args[n:], list(args[:n])

        def at(*xs):
            for k, x in zip(floats, xs):
                primals[k] = x
            return fn(*primals)

        return jvp(at, tuple(args[k] for k in floats), tuple(ts))[1]

    t_dims = tuple(dims[k] for k in floats)
    got = vmap(tangent_of, in_dims=dims + t_dims, randomness="same")(
        *_batch(inputs, dims), *_batch(tangents, t_dims))
    for b in range(B):
        want = tangent_of(*_per_example(inputs, dims, b), *_per_example(tangents, t_dims, b))
        np.testing.assert_allclose(got.data[b], want.data, rtol=1e-9, atol=1e-12,
                                   err_msg=f"tangent, in_dims={dims}")


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.name)
def test_vmap_of_the_op_is_the_op_per_example_stacked_forward_and_backward(op):
    warned: set[str] = set()
    for inputs, attrs in op.cases(np.random.default_rng(1234)):
        for _, dims in _variants(inputs):
            _check(op, _apply(op, attrs), inputs, attrs, dims, warned)
    if op.name in PER_EXAMPLE:
        assert warned, f"{op.name} is listed in PER_EXAMPLE but batches: remove it"
        assert all(op.name in w for w in warned), sorted(warned)
    else:
        assert not warned, f"{op.name} fell back to a per-example loop: {sorted(warned)}"


@pytest.mark.parametrize("example", [e for e in INTERNAL_EXAMPLES if e.op.engine != "scalar"],
                         ids=lambda e: e.name)
def test_vmap_through_every_internal_op_example(example):
    """The library's own ops (not the scalar engine's: vmap maps tensors), through their
    examples, the same way (forward mode where the op has a rule of its own: a compiled
    or fused kernel has none)."""
    warned: set[str] = set()
    # (no forward mode where the registry's own forward-mode test says there is none)
    forward_mode = "forward_mode" not in example.skip and has_forward_rule(example.op)
    for inputs, attrs in example.cases(np.random.default_rng(1234)):
        def fn(*ts, attrs=attrs):
            return one_output(example_node(example, *ts, **attrs))

        for _, dims in _variants(inputs):
            _check(example.op, fn, inputs, attrs, dims, warned, forward_mode)
    if example.op.name in PER_EXAMPLE:
        assert warned, f"{example.op.name} is listed in PER_EXAMPLE but batches: remove it"
    else:
        assert not warned, sorted(warned)
