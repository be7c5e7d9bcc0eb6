"""Drawing traces and jitted calls with ``viz.draw``: one node per equation, one per fused chain."""

from __future__ import annotations

import numpy as np

import viz
from minigrad import Tensor, jit
from viz.render.view import build_view


def _x(shape=(3, 4), seed=0):
    rng = np.random.default_rng(seed)
    return Tensor(rng.standard_normal(shape).astype(np.float32), requires_grad=True)


def f(x, y):
    return ((x * y + 1.0).tanh() * y).sum()


def test_a_trace_draws_one_node_per_equation_and_per_value_it_reads():
    t = jit.trace(f, _x(), _x((4,)))
    view = build_view(t)
    ops = [n for n in view.nodes if n.op is not None] if hasattr(view.nodes[0], "op") else None
    assert len(view.nodes) == len(t.eqns) + len(t.inputs) + len(t.consts)
    assert ops is None or len(ops) == len(t.eqns)


def test_a_fused_chain_draws_as_one_node():
    t = jit.optimize(jit.trace(f, _x(), _x((4,))))
    assert len(build_view(t).nodes) == len(t.eqns) + len(t.inputs) + len(t.consts)
    assert len(t.eqns) == 2
    svg = viz.draw(t, layout="builtin").svg()
    assert svg.count('class="node') >= 4


def test_a_jitted_call_draws_as_one_op_node():
    x, y = _x(), _x((4,))
    out = jit.jit(f)(x, y)
    view = build_view(out)
    assert len(view.nodes) == 3  # x, y and the compiled node


def test_a_traced_value_shows_no_data_but_a_param_shows_its_own():
    w = Tensor(np.array([1.5, -2.0], np.float32), requires_grad=True)
    t = jit.trace(lambda x: (x * w).sum(), _x((2,)))
    view = build_view(t)
    by_name = {n.name: n for n in view.nodes}
    roles = {"x0": "input", "p0": "param"}
    assert set(roles) <= set(by_name)
    unvalued = [n for n in view.nodes if n is not by_name["p0"]]
    assert len(unvalued) == 3  # the input, the product and the 0-d sum
    for n in unvalued:
        assert not n.tiny and "0.0000" not in n.data and n.shape is not None
    assert by_name["p0"].tiny and "1.5000" in by_name["p0"].data
