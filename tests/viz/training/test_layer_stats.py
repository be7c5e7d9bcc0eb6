"""Per-layer numbers come from the model's real parameters: grouping, histograms, the
update-to-weight ratio, the fraction of exactly-zero gradients."""

import math

import numpy as np
import pytest

from viz.training.layer_stats import gradients, layers_of, sample_layer, snapshot, weights

from ._models import TensorMLP, moons, scalar_mlp, scalar_step, tensor_step


def test_layers_of_a_tensor_model_are_its_modules():
    model = TensorMLP()
    layers = layers_of(model)
    assert [layer.name for layer in layers] == ["fc1", "fc2", "fc3"]
    assert [len(layer.params) for layer in layers] == [2, 2, 2]


def test_layers_of_a_scalar_mlp_are_its_layers_of_neurons():
    model = scalar_mlp()
    layers = layers_of(model)
    assert [layer.name for layer in layers] == ["layers.0", "layers.1", "layers.2"]
    assert [len(layer.params) for layer in layers] == [8 * 3, 8 * 9, 9]


def test_weights_and_gradients_are_the_parameters_flattened():
    model = TensorMLP()
    X, y = moons()
    tensor_step(model, X, y)
    fc1 = layers_of(model)[0]
    np.testing.assert_array_equal(weights(fc1), np.concatenate(
        [model.fc1.weight.data.ravel(), model.fc1.bias.data.ravel()]).astype(np.float64))
    np.testing.assert_array_equal(gradients(fc1), np.concatenate(
        [model.fc1.weight.grad.ravel(), model.fc1.bias.grad.ravel()]).astype(np.float64))


def test_gradients_before_backward_are_zeros():
    layer = layers_of(scalar_mlp())[0]
    assert not gradients(layer).any()


def test_sample_histograms_count_every_weight_and_grad():
    model = scalar_mlp()
    X, y = moons()
    scalar_step(model, X, y)
    layer = layers_of(model)[1]
    s = sample_layer(3, layer, None, bins=12)
    w, g = weights(layer), gradients(layer)
    counts, edges = s.weight_hist
    assert counts.sum() == w.size and len(edges) == 13
    assert edges[0] == w.min() and edges[-1] == w.max()
    assert s.grad_hist[0].sum() == g.size
    assert s.weight_std == pytest.approx(w.std()) and s.grad_std == pytest.approx(g.std())
    assert s.grad_abs_mean == pytest.approx(np.abs(g).mean())
    assert s.grad_norm == pytest.approx(np.linalg.norm(g))
    assert s.dead == pytest.approx(np.mean(g == 0))
    assert math.isnan(s.ratio) and s.step == 3 and s.layer == "layers.1"


def test_ratio_is_std_of_the_update_over_std_of_the_weights():
    model = TensorMLP()
    X, y = moons()
    layer = layers_of(model)[1]
    before, flat_before = snapshot(layer), weights(layer)
    tensor_step(model, X, y, lr=0.1)
    after = weights(layer)
    s = sample_layer(1, layer, before)
    assert s.weight_hist is None and s.grad_hist is None  # histograms only when asked
    assert s.ratio == pytest.approx((after - flat_before).std() / after.std(), rel=1e-5)
    # the update of plain SGD is lr * grad
    assert s.ratio == pytest.approx(0.1 * gradients(layer).std() / after.std(), rel=1e-4)


def test_a_dead_relu_layer_has_all_gradients_exactly_zero():
    model = TensorMLP(bias=-50.0)
    X, y = moons()
    tensor_step(model, X, y)
    samples = {layer.name: sample_layer(0, layer, None, 10) for layer in layers_of(model)}
    assert samples["fc2"].dead == 1.0 and samples["fc1"].dead == 1.0
    assert samples["fc3"].dead < 1.0  # its bias still learns


def test_a_model_without_parameters_is_refused():
    from minigrad import nn

    with pytest.raises(ValueError, match="has none"):
        layers_of(nn.ReLU())
    with pytest.raises(TypeError, match="named_parameters"):
        layers_of(object())


def test_snapshot_is_a_copy_and_the_scalar_engine_is_one_array():
    model = TensorMLP()
    layer = layers_of(model)[0]
    kept = snapshot(layer)
    assert [a.shape for a in kept] == [p.data.shape for p in layer.params]
    model.fc1.weight.data[...] += 1.0
    assert not np.array_equal(kept[0], model.fc1.weight.data)
    scalar = layers_of(scalar_mlp())[0]
    (flat,) = snapshot(scalar)
    np.testing.assert_array_equal(flat, weights(scalar))
