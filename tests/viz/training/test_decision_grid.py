"""The decision grid asks the model at points covering the data, for both engines."""

import numpy as np
import pytest

from minigrad import Tensor, no_grad
from viz.training.decision_grid import classes_of, decision_grid

from ._models import TensorMLP, moons, scalar_mlp


def test_grid_covers_the_data_with_a_margin():
    X, _ = moons()
    g = decision_grid(TensorMLP(), X, size=7, padding=0.5)
    assert g.classes.shape == (7, 7)
    assert g.xs[0] == pytest.approx(X[:, 0].min() - 0.5) and g.xs[-1] == pytest.approx(
        X[:, 0].max() + 0.5)
    assert g.ys[0] == pytest.approx(X[:, 1].min() - 0.5)


def test_tensor_model_grid_matches_calling_the_model():
    X, _ = moons()
    model = TensorMLP()
    g = decision_grid(model, X, size=9)
    xx, yy = np.meshgrid(g.xs, g.ys)
    with no_grad():
        out = model(Tensor(np.column_stack([xx.ravel(), yy.ravel()]).astype(np.float32)))
    np.testing.assert_array_equal(g.classes.ravel(), out.data.argmax(axis=1))


def test_scalar_mlp_grid_from_weights_matches_the_values_graph():
    X, _ = moons()
    model = scalar_mlp(seed=3)
    g = decision_grid(model, X, size=6)
    for i, yv in enumerate(g.ys):
        for j, xv in enumerate(g.xs):
            assert g.classes[i, j] == int(model([float(xv), float(yv)]).data > 0)


def test_any_callable_is_asked_point_by_point():
    X, _ = moons()
    g = decision_grid(lambda p: [p[0] - p[1]], X, size=5)
    xx, yy = np.meshgrid(g.xs, g.ys)
    np.testing.assert_array_equal(g.classes, (xx - yy > 0).astype(int))


def test_classes_of_scores():
    np.testing.assert_array_equal(classes_of(np.array([[0.2], [-1.0]])), [1, 0])
    np.testing.assert_array_equal(classes_of(np.array([[0.1, 0.3, 0.2]])), [1])


def test_grid_needs_two_columns():
    with pytest.raises(ValueError, match=r"shape \(N, 2\)"):
        decision_grid(TensorMLP(), np.zeros((5, 3)))


def test_the_grid_leaves_batch_norm_statistics_and_the_mode_alone():
    from minigrad import nn

    g = np.random.default_rng(0)
    model = nn.Sequential(nn.Linear(2, 4, rng=g), nn.BatchNorm1d(4), nn.Linear(4, 2, rng=g))
    model.train()
    bn = model[1]
    mean, var = bn.running_mean.copy(), bn.running_var.copy()
    X, _ = moons()
    decision_grid(model, X, size=5)
    np.testing.assert_array_equal(bn.running_mean, mean)
    np.testing.assert_array_equal(bn.running_var, var)
    assert model.training
