"""``viz.side_by_side`` with several outputs (a row per output, gradients seeded as for
the sum of every output's elements) and with a model, whose modules are framed on the
minigrad side as on PyTorch's."""

from __future__ import annotations

import re

import numpy as np
import pytest

import viz
from minigrad import nn

torch = pytest.importorskip("torch", reason="torch is optional: side_by_side needs it")


def arrays(*shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=s) for s in shapes]


def two_outputs(x, w):
    y = x * w
    return y.tanh(), (y * y).sum()


def test_a_row_per_output_and_gradients_of_their_sum():
    x, w = arrays((2, 3), (2, 3))
    sbs = viz.side_by_side(two_outputs, x, w)
    assert [r.name for r in sbs.outputs] == ["output 0", "output 1"]
    assert sbs.outputs[0].shape == (2, 3) and sbs.outputs[1].shape == ()
    assert sbs.agrees and [r.name for r in sbs.grads] == ["x", "w"]
    table = sbs.table()
    assert "output 0" in table and "output 1" in table
    # the oracle: PyTorch's gradient of the sum of every element of every output
    xt = torch.tensor(x, requires_grad=True)
    wt = torch.tensor(w, requires_grad=True)
    a, b = two_outputs(xt, wt)
    (a.sum() + b.sum()).backward()
    got = sbs.minigrad.view
    mg_x = next(vn for vn in got.nodes if (vn.name or "").split()[0] == "x").node
    np.testing.assert_allclose(mg_x.grad, xt.grad.numpy(), rtol=1e-12)
    # both graphs are drawn with both outputs as roots
    assert len(sbs.minigrad.view.roots) == 2 and len(sbs.torch.view.roots) == 2


def test_an_output_that_differs_is_named():
    x, w = arrays((2, 3), (2, 3))
    sbs = viz.side_by_side((two_outputs, lambda x, w: (torch.tanh(x * w),
                                                       (x * w * x * w).sum() * 1.5)), x, w)
    assert sbs.outputs[0].agrees and not sbs.outputs[1].agrees
    assert not sbs.agrees and sbs.output is sbs.outputs[0]


def test_the_two_sides_must_return_as_many_outputs():
    x, w = arrays((2,), (2,))
    with pytest.raises(ValueError, match="returned 2 outputs and the PyTorch one 1"):
        viz.side_by_side((two_outputs, lambda x, w: (x * w).sum()), x, w)


def mlp():
    return nn.Sequential(nn.Linear(3, 5, seed=1, dtype=np.float64), nn.ReLU(),
                         nn.Linear(5, 2, seed=2, dtype=np.float64))


def titles(svg: str) -> list[str]:
    return re.findall(r'<g id="c_[^"]*" class="[^"]*cluster[^"]*">\s*<title>([^<]*)', svg)


@pytest.mark.parametrize("how", ["module", "pair"])
def test_modules_are_framed_on_the_minigrad_side(how):
    (x,) = arrays((4, 3))
    if how == "module":
        sbs = viz.side_by_side(lambda m, x: m(x).sum(), x, params=mlp(), modules="box")
    else:
        from minigrad.interop import to_torch

        m = mlp()
        t = to_torch(m)
        sbs = viz.side_by_side((lambda x: m(x).sum(), lambda x: t(x).sum()), x,
                               params=(m, t), modules="box")
    mg = [c.title for c in sbs.minigrad.view.clusters]
    pt = [c.title for c in sbs.torch.view.clusters]
    assert "0: Linear" in mg and "2: Linear" in mg
    assert "0: Linear" in pt and "2: Linear" in pt
    # the minigrad side's linear ops sit in their modules' frames
    scope = {vn.id: vn.scope for vn in sbs.minigrad.view.nodes}
    linear = [vn for vn in sbs.minigrad.view.nodes if vn.op == "linear"]
    assert [scope[vn.id] for vn in linear] == [("0",), ("2",)]
    assert 'id="c_0"' in sbs.minigrad.svg() and sbs.agrees


def test_no_model_no_frames():
    x, w = arrays((2, 3), (2, 3))
    sbs = viz.side_by_side(lambda x, w: (x * w).sum(), x, w)
    assert sbs.minigrad.view.clusters == []
