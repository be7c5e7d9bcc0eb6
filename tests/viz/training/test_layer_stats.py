"""Per-layer numbers come from the model's real parameters: grouping, histograms, the
update-to-weight ratio, the fraction of exactly-zero gradients."""

import math

import numpy as np
import pytest

from viz.training.layer_stats import (
    Histograms,
    LayerStats,
    gradients,
    layers_of,
    sample_layer,
    snapshot,
    weights,
)

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
    before = flat_before = snapshot(layer)
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


def test_snapshot_is_a_flat_copy():
    model = TensorMLP()
    layer = layers_of(model)[0]
    kept = snapshot(layer)
    np.testing.assert_array_equal(kept, weights(layer))
    model.fc1.weight.data[...] += 1.0
    assert not np.array_equal(kept, weights(layer))


@pytest.mark.parametrize("engine, dtype", [("scalar", np.float64), ("tensor", np.float32),
                                           ("tensor", np.float64)])
def test_all_layers_at_once_equal_each_layer_alone(engine, dtype):
    """The fast sample of every layer (a few calls over one array) gives the plain
    per-layer definitions of ``sample_layer`` (float32 within its rounding)."""
    model = scalar_mlp() if engine == "scalar" else TensorMLP(bias=-0.3)
    if engine == "tensor":
        for p in model.parameters():
            p.data = p.data.astype(dtype)
    X, y = moons()
    step_fn = scalar_step if engine == "scalar" else tensor_step
    step_fn(model, X, y)
    layers = layers_of(model)
    stats = LayerStats(layers)
    stats.keep(4)
    befores = [weights(layer) for layer in layers]
    step_fn(model, X, y)
    together = stats.sample(5)
    stats.histograms(together, bins=7)
    rel = 1e-9 if dtype == np.float64 else 1e-4
    for layer, before in zip(layers, befores):
        alone = sample_layer(5, layer, before, bins=7)
        s = together[layer.name]
        for field in ("weight_std", "grad_std", "grad_abs_mean", "grad_norm", "dead", "ratio"):
            assert getattr(s, field) == pytest.approx(getattr(alone, field), rel=rel), field
        for mine, theirs in ((s.weight_hist, alone.weight_hist), (s.grad_hist, alone.grad_hist)):
            np.testing.assert_array_equal(mine[0], theirs[0])
            np.testing.assert_array_equal(mine[1], theirs[1])
        assert s.ratio > 0
    if engine == "tensor":
        assert 0 < together["fc2"].dead < 1  # some of fc2's ReLUs dead, so the count counts


def test_a_layer_with_no_numbers_has_nan_statistics():
    model = TensorMLP()
    model.fc2.weight.data = np.zeros((0, 16), np.float32)
    model.fc2.bias.data = np.zeros(0, np.float32)
    model.fc3.weight.data = np.ones((2, 0), np.float32)
    stats = LayerStats(layers_of(model))
    samples = stats.sample(0)
    alone = sample_layer(0, layers_of(model)[1], None)
    assert math.isnan(samples["fc2"].weight_std) and math.isnan(alone.weight_std)
    assert samples["fc1"].weight_std == pytest.approx(weights(layers_of(model)[0]).std(),
                                                      rel=1e-5)


def test_the_kept_weights_count_only_for_the_next_step():
    model = TensorMLP()
    X, y = moons()
    stats = LayerStats(layers_of(model))
    stats.keep(3)
    tensor_step(model, X, y)
    assert all(math.isnan(s.ratio) for s in stats.sample(5).values())  # kept at 3, not 4
    stats.keep(5)
    tensor_step(model, X, y)
    assert all(s.ratio > 0 for s in stats.sample(6).values())
    assert all(math.isnan(s.ratio) for s in stats.sample(7).values())  # used up


def test_a_parameter_changing_shape_gives_a_sample_without_a_ratio():
    model = TensorMLP()
    stats = LayerStats(layers_of(model))
    stats.keep(0)
    model.fc3.bias.data = np.zeros(5, dtype=np.float32)
    s = stats.sample(1)
    assert all(math.isnan(x.ratio) for x in s.values()) and s["fc3"].weight_std > 0
    assert s["fc3"].dead == 1.0  # (no gradient yet: zeros of the new shape)
    stats.keep(1)
    assert stats.sample(2)["fc3"].ratio == 0.0  # the new layout, kept and compared


def test_histograms_of_diverged_weights_count_the_finite_ones():
    model = TensorMLP()
    layer = layers_of(model)[0]
    model.fc1.weight.data[0, 0] = np.nan
    model.fc1.weight.data[0, 1] = np.inf
    s = sample_layer(0, layer, None, bins=5)
    assert s.weight_hist[0].sum() == weights(layer).size - 2
    assert math.isnan(s.weight_std)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("seed", range(6))
def test_histograms_in_one_pass_are_numpys(seed, dtype):
    rng = np.random.default_rng(seed)
    parts = [rng.standard_normal(rng.integers(1, 300)) * 10.0 ** rng.integers(-8, 3)
             for _ in range(5)]
    parts[1][:] = 0.25                                        # one value: widened by 0.5
    parts[2] = np.round(parts[2] * 4) / 4                     # values on the bin edges
    parts[3] = np.concatenate([parts[3], [1e-300, -1e-300, 0.0]])
    parts.append(np.array([3.0]))                             # a single value
    bins = int(rng.integers(1, 40))
    parts = [p.astype(dtype).astype(np.float64) for p in parts]
    x = np.concatenate(parts).astype(dtype)
    bounds = np.concatenate([[0], np.cumsum([len(p) for p in parts])]).tolist()
    for (counts, edges), part in zip(Histograms(bounds, bins)(x), parts):
        want_counts, want_edges = np.histogram(part, bins=bins)
        np.testing.assert_array_equal(edges, want_edges)
        np.testing.assert_array_equal(counts, want_counts)


def test_histograms_after_a_change_of_shape_are_of_the_weights_now():
    model = TensorMLP()
    layers = layers_of(model)
    stats = LayerStats(layers)
    samples = stats.sample(0)
    model.fc3.bias.data = np.arange(5, dtype=np.float32)
    stats.keep(1)  # (a new layout: the sample's buffers are gone)
    stats.histograms(samples, bins=4)
    np.testing.assert_array_equal(samples["fc3"].weight_hist[0],
                                  np.histogram(weights(layers[-1]), 4)[0])
