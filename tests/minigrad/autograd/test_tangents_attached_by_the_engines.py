"""Forward mode in the engines, op by op over the registry: the tangent an engine attaches
when an op runs on dual nodes is exactly ``output_tangent`` on the raw data.

``tests/minigrad/ops/test_forward_rules.py`` checks each op's rule (``output_tangent``)
against central differences; this file checks that both engines, on every path
that makes a node (the constructor, the Tensor operators' inlined copy, Value's
operator closures; recorded or not), attach that very tangent, bit for bit, and
keep float32 float32.  Ops in ``PENDING`` (no rule yet) must stop with
``NoForwardRuleError`` naming the op and the input shapes.
"""

from __future__ import annotations

import operator

import numpy as np
import pytest

import minigrad  # noqa: F401  (registers every op)
from minigrad import Tensor, Value
from minigrad.autograd import registered_ops
from minigrad.autograd.forward_ad import dual_level, make_dual, unpack_dual
from minigrad.autograd.tangents import output_tangent
from tests.minigrad.ops.forward_checks import differentiable, random_tangents
from tests.minigrad.ops.test_forward_rules import PENDING

OPS = [op for op in registered_ops() if op.engine in ("scalar", "tensor")]
WITH_RULE = [op for op in OPS if op.name not in PENDING]
#: the operators that build nodes without going through ``apply_op``
OPERATORS = {"add": operator.add, "sub": operator.sub, "mul": operator.mul,
             "div": operator.truediv, "pow": operator.pow, "neg": operator.neg,
             "abs": abs, "maximum": lambda a, b: a.maximum(b),
             "minimum": lambda a, b: a.minimum(b)}


def _cases(op):
    cases = op.cases(np.random.default_rng(1234))
    return cases[:6] if op.engine == "scalar" else cases


def _as_dtype(x, dtype):
    return x.astype(dtype) if isinstance(x, np.ndarray) and x.dtype.kind == "f" else x


def _duals(op, inputs, tangents, requires_grad):
    """Each differentiable input as a dual node of the op's engine; others stay raw."""
    out = []
    for x, t in zip(inputs, tangents):
        if not differentiable(x):
            out.append(x)
            continue
        primal = (Value(x, requires_grad=requires_grad) if op.engine == "scalar"
                  else Tensor(x.copy(), requires_grad=requires_grad))
        out.append(make_dual(primal, t))
    return out


def _paths(op, attrs):
    """The ways to run ``op`` on nodes: the generic one, and its operator if it has one."""
    paths = {"apply": lambda *xs: op(*xs, **attrs)}
    if not attrs and op.name in OPERATORS:
        paths["operator"] = OPERATORS[op.name]
    if op.engine == "tensor" and op.elementwise and op.arity == 1 and not attrs:
        method = getattr(Tensor, op.name, None)
        if callable(method):
            paths["method"] = method
    return paths


def _assert_identical(got, want, where):
    if isinstance(want, np.ndarray):
        assert isinstance(got, np.ndarray), where
        assert got.dtype == want.dtype and got.shape == want.shape, (
            f"{where}: {got.dtype}{got.shape} != {want.dtype}{want.shape}")
        np.testing.assert_array_equal(got, want, err_msg=where, strict=True)
    else:
        assert type(got) is type(want) and (got == want or (got != got and want != want)), (
            f"{where}: {got!r} != {want!r}")


#: (op, dtype): the tensor engine in float64 and float32, the scalar engine's one float
OP_DTYPES = [pytest.param(op, dtype, id=f"{op.engine}-{op.name}-{np.dtype(dtype).name}")
             for op in WITH_RULE
             for dtype in ((np.float64, np.float32) if op.engine == "tensor" else (np.float64,))]


@pytest.mark.parametrize("requires_grad", [False, True], ids=["unrecorded", "recorded"])
@pytest.mark.parametrize("op, dtype", OP_DTYPES)
def test_the_engine_attaches_exactly_the_ops_output_tangent(op, dtype, requires_grad):
    for k, (inputs, attrs) in enumerate(_cases(op)):
        inputs = [_as_dtype(x, dtype) for x in inputs]
        tangents = [_as_dtype(t, dtype) for t in
                    random_tangents(inputs, np.random.default_rng(k))]
        out, saved = op.forward(*inputs, **attrs)
        want = output_tangent(op, inputs, out, saved, attrs, tangents)
        multi = isinstance(out, tuple)  # a multi-output op: one tangent per output
        wants = tuple(want) if multi else (want,)
        if op.engine == "tensor":
            wants = tuple(None if w is None else np.asarray(w) for w in wants)
        for path, run in _paths(op, attrs).items():
            where = f"{op.engine}.{op.name} case {k} via {path}"
            with dual_level():
                result = run(*_duals(op, inputs, tangents, requires_grad))
                results = tuple(result) if multi else (result,)
                made = results[0].parents[0].op if multi and requires_grad else results[0].op
                assert (made is op) == requires_grad, where  # recorded only if asked
                for r, w in zip(results, wants):
                    got = unpack_dual(r).tangent
                    if w is None:  # an integer output (indices): no tangent
                        assert got is None, where
                        continue
                    assert got is not None, f"{where}: no tangent attached"
                    _assert_identical(got.data, w, where)
                    if op.engine == "tensor":
                        assert got.data.dtype == r.data.dtype, where
                        if op.name != "cast":  # (cast's output dtype is its setting)
                            assert r.data.dtype == np.dtype(dtype), where


@pytest.mark.parametrize("op", WITH_RULE, ids=lambda op: f"{op.engine}-{op.name}")
def test_no_tangent_in_means_no_tangent_out_and_no_rule_run(op):
    inputs, attrs = _cases(op)[0]
    with dual_level():
        nodes = [(Value(x) if op.engine == "scalar" else Tensor(x.copy(), requires_grad=True))
                 if differentiable(x) else x for x in inputs]
        result = op(*nodes, **attrs)
        for r in (result if isinstance(result, tuple) else (result,)):
            assert unpack_dual(r).tangent is None
            assert r.origin is None  # nothing was attached
