"""Big graphs: the drawing direction chosen from the graph's shape, module boxes that keep
their output's gradient, parameter names taken from the model in the caller's variables."""

from __future__ import annotations

import random
import re
import shutil

import pytest

import minigrad as mg
import viz
from minigrad import Value
from minigrad.nn import record_scopes
from minigrad.nn.neurons import MLP
from tests._graphs import neuron
from viz.render.direction import TARGET_PT, choose_rankdir, estimate, label_size, ranks
from viz.render.view import model_param_names

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz 'dot' not installed")


def scalar_mlp(sizes=(4, 4, 1)):
    model = MLP(3, list(sizes), rng=random.Random(0))
    x = [Value(v, label=f"x{i}") for i, v in enumerate((0.5, -1.0, 2.0))]
    loss = (model(x) - 1.0) ** 2
    loss.backward()
    return model, loss


def rankdir_of(graph) -> str:
    return re.search(r"rankdir=(\w+)", graph.source).group(1)


def rows_of(graph, node) -> int:
    """How many table rows the node's label has (DOT source we write, not dot's output)."""
    line = next(x for x in graph.source.splitlines() if x.strip().startswith(f"n_{node.id} ["))
    return line.count("<tr>")


# --------------------------------------------------------------------- direction


def test_a_small_graph_still_reads_left_to_right():
    o, _ = neuron()
    assert viz.DisplayOptions().rankdir == "auto"
    assert rankdir_of(viz.draw(o)) == "LR"


def test_a_deep_wide_scalar_mlp_reads_top_to_bottom_with_stacked_fields():
    _, loss = scalar_mlp()
    g = viz.draw(loss, params=())
    assert len(g.view) == 120
    assert rankdir_of(g) == "TB"
    assert rows_of(g, loss) == 3  # one field a row: op, data, grad
    assert rows_of(viz.draw(loss, rankdir="LR"), loss) == 1  # side by side, as before


def test_an_explicit_rankdir_wins():
    _, loss = scalar_mlp()
    assert rankdir_of(viz.draw(loss, rankdir="LR")) == "LR"
    assert rankdir_of(viz.draw(loss, options=viz.DisplayOptions(rankdir="BT"))) == "BT"
    o, _ = neuron()
    assert rankdir_of(viz.draw(o, rankdir="TB")) == "TB"


def test_a_bad_rankdir_names_auto_among_the_choices():
    with pytest.raises(ValueError, match="'auto'"):
        viz.draw(Value(1.0) * 2.0, rankdir="sideways")


def test_label_size_grows_with_text_and_rows():
    one = "<table><tr><td>data 1.0</td></tr></table>"
    longer = "<table><tr><td>data 1.000000000</td></tr></table>"
    side = "<table><tr><td>data 1.0</td><td>grad 2.0</td></tr></table>"
    stacked = "<table><tr><td>data 1.0</td></tr><tr><td>grad 2.0</td></tr></table>"
    assert label_size(longer)[0] > label_size(one)[0]
    assert label_size(side)[0] > label_size(stacked)[0]
    assert label_size(stacked)[1] > label_size(side)[1]
    lines = '<table><tr><td>a<br align="left"/>b</td></tr></table>'
    assert label_size(lines)[1] > label_size(one)[1]


def test_ranks_put_a_leaf_just_before_its_first_consumer():
    # a -> b -> c -> d, and a leaf w feeding d only
    edges = [("a", "b"), ("b", "c"), ("c", "d"), ("w", "d")]
    r = ranks("abcdw", edges)
    assert [r[k] for k in "abcd"] == [0, 1, 2, 3]
    assert r["w"] == 2


def test_a_long_chain_of_wide_nodes_goes_top_to_bottom_a_short_fan_stays_left_to_right():
    wide = (200.0, 30.0)
    chain = [f"n{i}" for i in range(12)]
    sizes = {k: wide for k in chain}
    edges = list(zip(chain, chain[1:]))
    assert estimate(sizes, ranks(chain, edges), "LR")[0] > TARGET_PT
    assert choose_rankdir(sizes, sizes, edges) == "TB"
    fan = ["out"] + [f"x{i}" for i in range(12)]
    sizes = {k: wide for k in fan}
    edges = [(k, "out") for k in fan[1:]]
    assert choose_rankdir(sizes, sizes, edges) == "LR"


def test_a_deep_chain_is_ranked_without_recursion():
    chain = list(range(5000))
    r = ranks(chain, list(zip(chain, chain[1:])))
    assert r[4999] == 4999


# --------------------------------------------------------------------- module boxes


@needs_dot
def test_a_scalar_module_box_shows_its_output_data_and_grad():
    from xml.etree import ElementTree as ET

    model = MLP(3, [2, 1], rng=random.Random(1))
    with record_scopes() as scopes:
        out = model([1.0, -2.0, 0.5])
    out.backward()
    g = viz.draw(out, scopes=scopes, modules="box")
    root = ET.fromstring(g.svg())
    ns = "{http://www.w3.org/2000/svg}"
    box = next(e for e in root.iter(f"{ns}g") if e.get("id") == "c_layers_1")  # the last layer
    texts = [t.text for t in box.iter(f"{ns}text")]
    view = viz.build_view(out, scopes=scopes)
    assert texts[-2:] == [f"→ data {view.node(out).data}", view.node(out).grad_label]


def test_box_summary_of_a_big_tensor_gives_shape_and_grad_norm():
    from viz.render.dot import box_summary

    x = mg.Tensor([[1.0, 2.0, 3.0, 4.0]] * 3, requires_grad=True)
    y = (x * 2.0).sum()
    y.backward()
    node = viz.build_view(y).node(y.parents[0])
    assert box_summary(node) == ["→ (3, 4) float32", node.grad_label]
    assert node.grad_label.startswith("grad norm ")


# --------------------------------------------------------------------- parameter names


def test_parameters_are_named_from_the_model_in_the_callers_variables():
    model, loss = scalar_mlp((2, 1))
    view = viz.build_view(loss)
    names = {view.node(p).name for p in model.parameters()}
    assert names == {name for name, _ in model.named_parameters()}
    assert "layers.0.neurons.1.w.2" in names


def test_params_still_win_and_an_empty_params_turns_the_lookup_off():
    model, loss = scalar_mlp((2, 1))
    w = model.layers[0].neurons[0].w[0]
    assert viz.build_view(loss, params={"first": w}).node(w).name == "first"
    assert viz.build_view(loss, params=()).node(w).name == "w.0"  # its own label


def test_no_module_in_sight_leaves_the_labels_alone():
    def draw_it():
        loss = scalar_mlp((1,))[1]  # (the model is in no variable here)
        return viz.build_view(loss)

    names = {n.name for n in draw_it().nodes if n.role == "param"} - {"x0", "x1", "x2"}
    assert names == {"w.0", "w.1", "w.2", "b"}


def test_the_module_naming_most_leaves_wins_a_clash():
    model, loss = scalar_mlp((2, 1))
    layer0 = model.layers[0]  # names its own parameters "neurons.0.w.0", ...
    leaves = [p.id for _, p in model.named_parameters()]
    names = model_param_names(leaves)
    assert names[layer0.neurons[0].b.id] == "layers.0.neurons.0.b"
    del layer0


def test_scope_names_win_over_the_variables():
    model = MLP(3, [1], rng=random.Random(0))
    with record_scopes() as scopes:
        out = model([1.0, 2.0, 3.0])
    b = model.layers[0].neurons[0].b
    scopes.param_names[b.id] = "from.scopes"
    assert viz.build_view(out, scopes=scopes).node(b).name == "from.scopes"


# --------------------------------------------------------------------- widget zoom


def test_zoom_css_fits_by_default_and_scales_the_fitted_width():
    from viz.stepper.zoom import zoom_css

    assert zoom_css("mgs-1", 1.0, 1869.0) == ""  # fit: the player's own max-width:100%
    assert "width:1869px" in zoom_css("mgs-1", "100%", 1869.0)
    assert "calc(2.0 * min(100%, 1869px))" in zoom_css("mgs-1", 2.0, 1869.0)
    assert zoom_css("mgs-1", 2.0, 1869.0).startswith("#mgs-1 .mg-graph svg{")


FAKE = ('<svg width="300pt" height="60pt" viewBox="0 0 300 60">'
        '<g id="graph0" class="graph"></g></svg>')


def test_the_widget_zoom_buttons_step_through_the_levels():
    pytest.importorskip("ipywidgets")
    with mg.record() as tape:
        y = Value(2.0, label="x") * 3.0
        y.backward()
    widget = viz.Stepper(tape, svg=FAKE).widget
    zoom = widget.zoom
    assert zoom.natural_px == 400 and zoom.style.value == ""
    zoom.in_button.click()
    assert zoom.level == 1.5 and "calc(1.5 * min(100%, 400px))" in zoom.style.value
    zoom.out_button.click()
    zoom.out_button.click()
    assert zoom.level == 0.75 and zoom.readout.value == "0.75× fit"
    zoom.one_button.click()
    assert "width:400px" in zoom.style.value and zoom.readout.value == "100%"
    zoom.fit_button.click()
    assert zoom.style.value == "<style></style>" and zoom.readout.value == "fit"
    assert zoom.box in widget.box.children
