"""Parameter names taken from the model in the caller's variables
(``viz.render.view.model_param_names``), and what wins over them."""

from __future__ import annotations

import random

import viz
from minigrad import Value
from minigrad.nn import record_scopes
from minigrad.nn.neurons import MLP
from viz.render.view import model_param_names


def scalar_mlp(sizes=(4, 4, 1)):
    model = MLP(3, list(sizes), rng=random.Random(0))
    x = [Value(v, label=f"x{i}") for i, v in enumerate((0.5, -1.0, 2.0))]
    loss = (model(x) - 1.0) ** 2
    loss.backward()
    return model, loss


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
