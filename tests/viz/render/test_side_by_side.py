"""``viz.side_by_side``: one function run in minigrad and in PyTorch, both graphs drawn with
paired nodes, and a table of the gradients (both layouts)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import viz
from minigrad import Tensor, nn
from minigrad.interop import to_torch
from viz.render.torch_graph import torch_op_name

torch = pytest.importorskip("torch", reason="torch is optional: side_by_side needs it")

ROOT = Path(__file__).resolve().parents[3]
LAYOUTS = ["builtin", pytest.param("dot", marks=pytest.mark.skipif(
    not viz.dot_available(), reason="graphviz 'dot' not available"))]


def groups(svg: str) -> dict[str, str]:
    return dict(re.findall(r'<g id="(n_\d+)" class="([^"]*)"', svg))


def arrays(*shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=s) for s in shapes]


def tanh_of_product(x, w):
    return (x * w).tanh().sum()


def mlp(dtype=np.float64):
    return nn.Sequential(nn.Linear(3, 5, seed=1, dtype=dtype), nn.ReLU(),
                         nn.Linear(5, 2, seed=2, dtype=dtype))


def assert_pair_classes(sbs):
    """Each pair's class is on its node in both SVGs; every other node is ``unpaired``."""
    left, right = groups(sbs.minigrad.svg()), groups(sbs.torch.svg())
    for p in sbs.pairs:
        assert left[f"n_{p.minigrad}"].split()[-2:] == ["pair", f"pair_{p.number}"]
        assert right[f"n_{p.torch}"].split()[-2:] == ["pair", f"pair_{p.number}"]
    for u in sbs.unpaired:
        found = left if u.side == "minigrad" else right
        assert found[f"n_{u.node}"].split()[-1] == "unpaired"
    assert len(left) == len(sbs.minigrad.view.nodes)
    assert len(right) == len(sbs.torch.view.nodes)


# --------------------------------------------------------------------- agreeing


@pytest.mark.parametrize("layout", LAYOUTS)
def test_tanh_of_a_product_pairs_every_node_and_every_gradient_agrees(layout):
    x, w = arrays((3, 4), (3, 4))
    sbs = viz.side_by_side(tanh_of_product, x, w, layout=layout)
    assert sbs.minigrad.layout == sbs.torch.layout == layout
    assert len(sbs.pairs) == len(sbs.minigrad.view.nodes) == len(sbs.torch.view.nodes) == 5
    assert sbs.unpaired == []
    assert [(p.number, p.what) for p in sbs.pairs] == [
        (1, "x"), (2, "w"), (3, "mul ↔ MulBackward0"), (4, "tanh ↔ TanhBackward0"),
        (5, "sum ↔ SumBackward0")]
    for p in sbs.pairs:  # the torch Node differentiates the op it is paired with
        a, b = sbs.minigrad.view.by_id[p.minigrad], sbs.torch.view.by_id[p.torch]
        assert a.name == b.name if a.is_leaf else torch_op_name(b.op) == a.op
    assert sbs.agrees and sbs.output.agrees
    assert [(r.name, r.shape, r.agrees) for r in sbs.grads] == [
        ("x", (3, 4), True), ("w", (3, 4), True)]
    assert all(r.max_abs <= 1e-10 for r in sbs.grads)
    table = sbs.table()
    assert table.count("agrees (float64, max |Δ| ≤ 1.0e-10)") == 3  # output, x, w
    assert "every gradient agrees" in table and "5 paired" in table and str(sbs) == table
    assert_pair_classes(sbs)
    # the drawings show the pair numbers beside the names
    assert sbs.minigrad.view.by_id[sbs.pairs[0].minigrad].name == "x #1"
    assert sbs.torch.view.by_id[sbs.pairs[2].torch].name == "MulBackward0 #3"


@pytest.mark.parametrize("layout", LAYOUTS)
def test_an_mlp_and_its_torch_copy_agree_and_the_addmm_fusion_is_explained(layout):
    model = mlp()
    torch_model = to_torch(model)
    (x,) = arrays((4, 3))
    sbs = viz.side_by_side((lambda x: model(x).sum(), lambda x: torch_model(x).sum()),
                           Tensor(x), params=(model, torch_model), layout=layout)
    assert sbs.agrees
    assert [r.name for r in sbs.grads] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert all(r.agrees and r.verdict.startswith("agrees (float64") for r in sbs.grads)
    ops = [p.what for p in sbs.pairs if "↔" in p.what]
    assert ops == ["linear ↔ AddmmBackward0", "relu ↔ ReluBackward0",
                   "linear ↔ AddmmBackward0", "sum ↔ SumBackward0"]
    fused = [p for p in sbs.pairs if p.note]
    assert [p.what for p in fused] == ["linear ↔ AddmmBackward0"] * 2
    assert "matmul + add" in fused[0].note
    # torch's transposes of the weights, and minigrad's data x, are on one side only
    assert sorted((u.side, u.what) for u in sbs.unpaired) == [
        ("PyTorch", "ᵀ TBackward0"), ("PyTorch", "ᵀ TBackward0"), ("minigrad", "leaf x")]
    assert len(sbs.pairs) == 8  # 4 parameters, 2 linear/addmm, relu, sum
    table = sbs.table()
    assert "fused: #5 linear ↔ AddmmBackward0, #7 linear ↔ AddmmBackward0" in table
    assert "only in PyTorch: ᵀ TBackward0 (×2): PyTorch's Linear transposes" in table
    assert "data or a constant" in table
    assert_pair_classes(sbs)
    assert all(p.grad is not None for p in model.parameters())  # the caller's models ran


def test_a_model_as_params_reaches_f_as_a_float64_copy_and_is_left_alone():
    model = mlp(np.float32)
    (x,) = arrays((4, 3))
    seen = []

    def f(m, x):
        seen.append(type(m).__module__.split(".")[0])
        return m(x).tanh().sum()

    sbs = viz.side_by_side(f, Tensor(x), params=model)
    assert seen == ["minigrad", "torch"] and sbs.agrees and sbs.dtype == "float64"
    assert [r.name for r in sbs.grads] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert all(p.data.dtype == np.float32 and p.grad is None for p in model.parameters())


# --------------------------------------------------------------------- differing


def test_a_different_function_is_reported_for_the_right_parameter_with_its_delta():
    x, w, b = arrays((3, 4), (3, 4), (3, 4))
    sbs = viz.side_by_side((lambda x, w, b: ((x * w).tanh() + b).sum(),
                            lambda x, w, b: ((x * w).tanh() + b * 1.0001).sum()), x, w, b)
    assert not sbs.agrees and not sbs.output.agrees
    rows = {r.name: r for r in sbs.grads}
    assert rows["x"].agrees and rows["w"].agrees
    assert not rows["b"].agrees
    assert rows["b"].max_abs == pytest.approx(1e-4, rel=1e-9)  # d/db of b * 1.0001 - 1
    assert rows["b"].rel == pytest.approx(1e-4 / 1.0001, rel=1e-9)
    assert rows["b"].verdict == ("differs: the outputs already differ; × MulBackward0 only "
                                 "in PyTorch")
    assert [(u.side, u.what) for u in sbs.unpaired] == [("PyTorch", "× MulBackward0")]
    table = sbs.table()
    assert "1 of 3 gradients differ (b)" in table
    assert re.search(r"grad b +\(3, 4\) +1\.0e-04 +1\.0e-04 +differs", table)


def test_an_extra_op_in_the_chain_leaves_its_neighbours_paired():
    x, w = arrays((3, 4), (3, 4))
    sbs = viz.side_by_side((tanh_of_product, lambda x, w: (x * w * 1.0001).tanh().sum()),
                           x, w)
    assert [p.what for p in sbs.pairs] == ["x", "w", "mul ↔ MulBackward0",
                                           "tanh ↔ TanhBackward0", "sum ↔ SumBackward0"]
    extra = sbs.unpaired[0]
    assert extra.side == "PyTorch" and extra.what == "× MulBackward0"
    # the inner mul (of x and w) is the one paired; the × 1.0001 after it is not
    mul = sbs.torch.view.by_id[sbs.pairs[2].torch]
    assert set(mul.inputs) == {sbs.pairs[0].torch, sbs.pairs[1].torch}
    assert [r.agrees for r in sbs.grads] == [False, False]
    assert all("× MulBackward0 only in PyTorch" in r.verdict for r in sbs.grads)


def test_the_same_graph_with_other_numbers_blames_a_paired_op():
    (x,) = arrays((2, 2))
    sbs = viz.side_by_side((lambda a: (a * 2.0).sum(), lambda a: (a * 3.0).sum()), x,
                           names=["a"])
    assert [p.what for p in sbs.pairs] == ["a", "mul ↔ MulBackward0", "sum ↔ SumBackward0"]
    (row,) = sbs.grads
    assert row.name == "a" and row.max_abs == 1.0 and not row.agrees
    assert row.verdict == ("differs: the outputs already differ; the graphs pair node for "
                           "node, so a paired op computes other numbers")


# --------------------------------------------------------------------- the result


def test_pairing_is_deterministic():
    model = mlp()
    torch_model = to_torch(model)
    (x,) = arrays((4, 3))
    runs = [viz.side_by_side((lambda x: model(x).sum(), lambda x: torch_model(x).sum()),
                             Tensor(x), params=(model, torch_model)) for _ in range(2)]
    a, b = ([(p.number, p.what, p.torch) for p in r.pairs] for r in runs)
    assert a == b
    assert runs[0].table() == runs[1].table()


def test_html_shows_minigrad_left_and_pytorch_right_with_the_table(tmp_path):
    x, w = arrays((2, 3), (2, 3))
    sbs = viz.side_by_side(tanh_of_product, x, w, layout="builtin")
    html = sbs._repr_html_()
    left, right = html.index('class="sbs-side sbs-minigrad"'), html.index(
        'class="sbs-side sbs-pytorch"')
    assert left < right and html.count("<svg") == 2
    assert html.count('class="node leaf param tensor pair pair_1"') == 2  # one per side
    assert "every gradient agrees" in html
    page = sbs.save(tmp_path / "sbs.html").read_text(encoding="utf-8")
    assert page.startswith("<!doctype html>") and html in page
    assert repr(sbs) == "<SideBySide agrees: 5 pairs, 0 unpaired>"


def test_inputs_are_named_from_f_and_cross_as_new_float64_leaves():
    x = Tensor(np.array([1.0, 2.0], dtype=np.float32), requires_grad=True)
    sbs = viz.side_by_side(lambda a, b: (a * b).sum(), x, [3, 4])
    assert [r.name for r in sbs.grads] == ["a", "b"] and sbs.dtype == "float64"
    leaves = [vn for vn in sbs.minigrad.view.nodes + sbs.torch.view.nodes if vn.is_leaf]
    assert [vn.dtype for vn in leaves] == ["float64"] * 4
    assert x.grad is None  # the caller's tensor is not the leaf: a copy is
    data = Tensor(np.ones(2), requires_grad=False)  # data: no gradient, no torch Node
    sbs = viz.side_by_side(lambda a, d: (a * d).sum(), x, data)
    assert [r.name for r in sbs.grads] == ["a"]
    assert [(u.side, u.what) for u in sbs.unpaired] == [("minigrad", "leaf d")]
    kept = viz.side_by_side(lambda a: (a * a).sum(), x, dtype=None)
    assert kept.dtype == "float32" and kept.tol == 1e-5


def test_a_non_scalar_output_is_seeded_with_ones():
    x, w = arrays((2, 3), (2, 3))
    sbs = viz.side_by_side(lambda x, w: (x * w).tanh(), x, w)
    assert sbs.agrees and len(sbs.pairs) == 4 and sbs.output.shape == (2, 3)


def test_params_as_a_dict_are_keyword_leaves():
    x, w = arrays((2, 3), (2, 3))
    sbs = viz.side_by_side(lambda x, *, w: (x * w).sum(), x, params={"w": w})
    assert [r.name for r in sbs.grads] == ["x", "w"] and sbs.agrees


def test_bad_arguments_say_what_is_expected():
    (x,) = arrays((2,))
    with pytest.raises(TypeError, match=r"a pair \(f_minigrad, f_torch\)"):
        viz.side_by_side("f", x)
    with pytest.raises(TypeError, match="params= takes"):
        viz.side_by_side(lambda x: x.sum(), x, params=3)
    with pytest.raises(ValueError, match="names= gives 2 names for 1 inputs"):
        viz.side_by_side(lambda x: x.sum(), x, names=["a", "b"])
    with pytest.raises(TypeError, match="must return a tensor or a tuple of tensors"):
        viz.side_by_side(lambda x: (x.sum(), 2.0), x)


def test_without_torch_the_error_names_the_extra_and_import_stays_cheap():
    code = ("import sys\n"
            "import viz.render.side_by_side\n"
            "assert 'torch' not in sys.modules, 'torch was imported'\n"
            "sys.modules['torch'] = None\n"
            "import numpy as np, viz\n"
            "try:\n"
            "    viz.side_by_side(lambda x: x.sum(), np.ones(2))\n"
            "except ModuleNotFoundError as e:\n"
            "    print(e)\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "viz.side_by_side needs PyTorch" in done.stdout
    assert 'minigrad-kit[torch]' in done.stdout
