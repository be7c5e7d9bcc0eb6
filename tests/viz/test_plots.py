"""Plots return matplotlib Figures (Agg backend, nothing shown) built from what training gives."""

from __future__ import annotations

import random

import numpy as np
import pytest

import minigrad as mg
import viz
from minigrad import Value, nn

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
from matplotlib.figure import Figure  # noqa: E402


def lines_of(ax):
    return [(line.get_label(), list(line.get_ydata())) for line in ax.get_lines()]


# --------------------------------------------------------------------- history


def test_history_groups_train_and_validation_curves():
    history = {"loss": [1.0, 0.5, 0.25], "val_loss": [1.1, 0.7, 0.6],
               "acc": [0.5, 0.8, 0.9], "val_acc": [0.4, 0.7, 0.8]}
    fig = viz.plot_history(history, title="run 1")
    assert isinstance(fig, Figure)
    loss_ax, acc_ax = fig.axes
    assert loss_ax.get_title() == "loss" and acc_ax.get_title() == "acc"
    assert lines_of(loss_ax) == [("train", [1.0, 0.5, 0.25]), ("val", [1.1, 0.7, 0.6])]
    assert list(loss_ax.get_lines()[0].get_xdata()) == [1, 2, 3]
    assert fig.get_suptitle() == "run 1"


def test_history_object_with_to_dict_and_an_epoch_axis():
    class History:
        def to_dict(self):
            return {"epoch": [0, 5, 10], "loss": [3.0, 2.0, 1.0], "test_acc": [0.1, 0.2, 0.3],
                    "lr": [0.1, 0.1, 0.01]}

    fig = viz.plot_history(History())
    assert [ax.get_title() for ax in fig.axes] == ["loss", "acc", "lr"]
    assert list(fig.axes[0].get_lines()[0].get_xdata()) == [0, 5, 10]
    assert fig.axes[1].get_lines()[0].get_label() == "test"
    assert len(viz.plot_history(History(), keys=["lr"]).axes) == 1


def test_history_errors():
    with pytest.raises(TypeError, match="dict of lists"):
        viz.plot_history([1, 2, 3])
    with pytest.raises(KeyError, match="acc"):
        viz.plot_history({"loss": [1.0]}, keys=["acc"])
    with pytest.raises(ValueError, match="no values"):
        viz.plot_history({"loss": []})


# --------------------------------------------------------------------- decision boundary


def blobs():
    rng = np.random.default_rng(0)
    X = np.concatenate([rng.normal(-1, 0.3, (20, 2)), rng.normal(1, 0.3, (20, 2))])
    return X.astype(np.float32), np.repeat([0, 1], 20)


def test_decision_boundary_with_a_numpy_model():
    X, y = blobs()
    fig = viz.plot_decision_boundary(lambda P: P[:, 0] + P[:, 1], X, y, input="array",
                                     title="linear")
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert ax.get_title() == "linear"
    assert len(ax.collections) >= 2  # filled regions + the scatter of points


def test_decision_boundary_with_a_tensor_model_and_class_scores():
    X, y = blobs()
    W = mg.Tensor(np.array([[1.0, -1.0], [1.0, -1.0]], dtype=np.float32), requires_grad=True)
    calls = []

    def model(t):
        calls.append(type(t).__name__)
        return t @ W  # two scores per point: argmax decides

    fig = viz.plot_decision_boundary(model, mg.Tensor(X), y, resolution=30)
    assert isinstance(fig, Figure) and calls == ["Tensor"]


def test_decision_boundary_with_a_scalar_mlp_point_by_point():
    from minigrad.nn.neurons import MLP

    X, y = blobs()
    model = MLP(2, [4, 1], rng=random.Random(0))
    fig = viz.plot_decision_boundary(model, X, 2 * y - 1, resolution=12)
    assert isinstance(fig, Figure)


def test_decision_boundary_draws_into_given_axes_and_explains_failures():
    X, y = blobs()
    fig = Figure()
    ax = fig.subplots()
    assert viz.plot_decision_boundary(lambda P: P[:, 0], X, y, ax=ax) is fig

    def broken(points):
        raise RuntimeError("nope")

    with pytest.raises(TypeError, match="could not call the model"):
        viz.plot_decision_boundary(broken, X, y, resolution=5)
    with pytest.raises(ValueError, match=r"shape \(N, 2\)"):
        viz.plot_decision_boundary(broken, X[:, :1], y)


# --------------------------------------------------------------------- gradient flow


def test_grad_flow_from_named_tensors():
    w1 = mg.Tensor(np.ones((3, 3)), requires_grad=True)
    w2 = mg.Tensor(np.ones(3), requires_grad=True)
    frozen = mg.Tensor(np.ones(2), requires_grad=True)
    ((w1 @ w2) * 2.0).sum().backward()
    fig = viz.plot_grad_flow({"fc1.weight": w1, "fc1.bias": w2, "unused": frozen})
    ax = fig.axes[0]
    assert isinstance(fig, Figure)
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels == ["fc1.weight", "fc1.bias", "unused\n(no grad)"]
    heights = [p.get_height() for p in ax.patches]
    assert heights[:3] == [2.0, 6.0, 0.0]  # max |grad| per parameter
    assert heights[3:] == [2.0, 6.0, 0.0]  # mean |grad| (constant here)


def test_grad_flow_of_a_scalar_mlp_per_layer():
    from minigrad.nn.neurons import MLP

    model = MLP(2, [3, 1], rng=random.Random(1))
    loss = model([Value(1.0), Value(-2.0)]) ** 2
    loss.backward()
    fig = viz.plot_grad_flow(model)
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["layers.0", "layers.1"]


def test_grad_flow_of_a_module_by_layer_and_by_parameter():
    model = nn.Sequential(nn.Linear(2, 4), nn.ReLU(), nn.Linear(4, 1))
    model(mg.Tensor(np.ones((3, 2), dtype=np.float32))).sum().backward()
    by_layer = viz.plot_grad_flow(model)
    assert [t.get_text() for t in by_layer.axes[0].get_xticklabels()] == ["0", "2"]
    by_param = viz.plot_grad_flow(model, by="parameter")
    assert [t.get_text() for t in by_param.axes[0].get_xticklabels()] == [
        "0.weight", "0.bias", "2.weight", "2.bias"]
    with pytest.raises(ValueError, match="by must be"):
        viz.plot_grad_flow(model, by="module")


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


def test_plots_are_pyplot_figures_so_plt_show_works():
    import matplotlib.pyplot as plt

    before = set(plt.get_fignums())
    fig = viz.plot_history({"loss": [1.0, 0.5, 0.25]})
    assert fig.number in set(plt.get_fignums()) - before
