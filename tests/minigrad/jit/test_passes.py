"""The passes, each a function from a Trace to a Trace: what each removes, merges or fuses."""

from __future__ import annotations

import numpy as np

import minigrad
from minigrad import Tensor, jit


def _x(shape=(3, 4), seed=0):
    return Tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def test_tracing_already_leaves_out_what_the_output_does_not_reach():
    def f(x):
        unused = (x * 3).exp()  # noqa: F841
        return (x + 1).sum()

    assert [e.op.name for e in jit.trace(f, _x()).eqns] == ["add", "sum"]


def test_dce_on_a_hand_edited_trace_drops_the_dead_equation():
    t = jit.trace(lambda x: ((x * 2) + x).sum(), _x())
    t.outputs = [t.eqns[0].out]  # now only x * 2 is wanted
    assert [e.op.name for e in jit.dce(t).eqns] == ["mul"]


def test_cse_computes_a_repeated_subexpression_once():
    t = jit.trace(lambda x, y: (x * y + x * y).sum(), _x(), _x(seed=1))
    assert [e.op.name for e in t.eqns].count("mul") == 2
    t2 = jit.cse(t)
    assert [e.op.name for e in t2.eqns].count("mul") == 1
    add = next(e for e in t2.eqns if e.op.name == "add")
    assert add.ins[0] is add.ins[1]
    x, y = _x(seed=2), _x(seed=3)
    np.testing.assert_array_equal(t2(x, y).data, t(x, y).data)


def test_cse_keeps_ops_that_differ_in_attrs():
    t = jit.trace(lambda x: x.sum(axis=0).sum() + x.sum(axis=1).sum(), _x())
    assert len(jit.cse(t).eqns) == len(t.eqns)


def test_freeze_and_fold_constants_precompute_what_depends_on_frozen_inputs():
    w = _x((4,), seed=1)
    t = jit.trace(lambda x, w: (x * (w * 2).exp()).sum(), _x(), w)
    frozen = jit.freeze(t, x1=w)
    folded = jit.fold_constants(frozen)
    assert [e.op.name for e in folded.eqns] == ["mul", "sum"]
    assert len(folded.inputs) == 1
    x = _x(seed=4)
    np.testing.assert_array_equal(folded(x).data, t(x, w).data)


def test_fusion_turns_a_chain_of_elementwise_ops_into_one_equation():
    t = jit.trace(lambda x, y: (((x * y + 1).tanh() * 0.5 - x).exp()).sum(), _x(), _x(seed=1))
    fused = jit.fuse_elementwise(t)
    assert [e.op.name for e in fused.eqns] == ["fused", "sum"]
    assert [e.op.name for e in fused.eqns[0].body] == ["mul", "add", "tanh", "mul", "sub", "exp"]
    assert fused.counts() == {"eqns": 2, "fused": 1, "ops": 7}
    x, y = _x(seed=2), _x(seed=3)
    np.testing.assert_allclose(fused(x, y).data, t(x, y).data, rtol=1e-6)


def test_a_value_used_twice_ends_a_chain():
    def f(x):
        h = (x * 2).exp()
        return (h.tanh() * h).sum()

    fused = jit.fuse_elementwise(jit.trace(f, _x()))
    bodies = [[i.op.name for i in e.body] for e in fused.eqns if e.body]
    assert bodies == [["mul", "exp"], ["tanh", "mul"]]


def test_ops_whose_rules_need_values_stay_unfused():
    # abs's rule asks whether sign(x) holds a NaN: a value, which a symbol has not
    fused = jit.fuse_elementwise(jit.trace(lambda x: ((x * 2).abs() + 1).abs().sum(), _x()))
    assert [e.op.name for e in fused.eqns] == ["mul", "abs", "add", "abs", "sum"]


def test_relu_and_maximum_fuse_through_their_masked_rule():
    # (their rules' NaN-safe product, masked(), is one step of the kernel: symbolic.py)
    fused = jit.fuse_elementwise(jit.trace(
        lambda x: minigrad.maximum((x * 2).relu() + 1, x).sum(), _x()))
    assert [e.op.symbol for e in fused.eqns] == ["fused[mul relu add maximum]", "Σ"]
    assert "masked(" in jit.jit(lambda x: (x * 2).relu().sum()).source(_x())


def test_printing_after_a_pass_shows_the_fused_body_and_history():
    t = jit.optimize(jit.trace(lambda x: ((x * 2 + 1).tanh()).sum(), _x()))
    text = str(t)
    assert "fused[mul add tanh]" in text and "| %3 = tanh %2" in text
    assert t.history[-1] == "fuse_elementwise: 4 -> 2 eqns"
