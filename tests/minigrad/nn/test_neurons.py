"""nn.neurons: the scalar-engine Neuron, Layer and MLP."""

from __future__ import annotations

import random

import pytest

from minigrad import nn
from minigrad.nn.neurons import MLP as ScalarMLP
from minigrad.nn.neurons import Neuron


def test_scalar_mlp_shares_the_protocol():
    random.seed(0)
    mlp = ScalarMLP(2, [3, 1])
    params = mlp.parameters()
    assert isinstance(params, list) and len(params) == 3 * 3 + 4
    assert params[0] is mlp.layers[0].neurons[0].w[0] and params[2] is mlp.layers[0].neurons[0].b
    names = [n for n, _ in mlp.named_parameters()]
    assert names[:3] == ["layers.0.neurons.0.w.0", "layers.0.neurons.0.w.1",
                         "layers.0.neurons.0.b"]
    out = mlp([1.0, -2.0])
    out.backward()
    assert all(p.grad is not None for p in params)
    mlp.zero_grad()
    assert all(p.grad is None for p in params)
    state = mlp.state_dict()
    other = ScalarMLP(2, [3, 1])
    other.load_state_dict(state)
    assert other([1.0, -2.0]).data == pytest.approx(out.data)
    with nn.record_scopes() as scopes:
        mlp([1.0, -2.0])
    assert list(scopes.clusters()) == ["layers.0.neurons.0", "layers.0.neurons.1",
                                       "layers.0.neurons.2", "layers.1.neurons.0"]
    assert repr(mlp).startswith("MLP of [Layer of [ReLUNeuron(2)")


# --- 3. scalar MLP input length ------------------------------------------------------------
def test_scalar_mlp_rejects_a_wrong_length_input():
    with pytest.raises(ValueError, match=r"MLP\(3, \[1\]\) expects 3 inputs, got 2"):
        ScalarMLP(3, [1])([1.0, 2.0])
    with pytest.raises(ValueError, match="expects 3 inputs, got 4"):
        ScalarMLP(3, [2, 1])([1.0, 2.0, 3.0, 4.0])
    with pytest.raises(ValueError, match=r"Neuron\(2\) expects 2 inputs, got 3"):
        Neuron(2)([1.0, 2.0, 3.0])


def test_scalar_mlp_accepts_a_width_one_hidden_layer():
    """A one-neuron Layer returns a single Value; the next layer takes it as one input."""
    import random

    mlp = ScalarMLP(2, [1, 2], rng=random.Random(0))
    out = mlp([1.0, -2.0])
    n0 = mlp.layers[0].neurons[0]
    h = max(0.0, n0.w[0].data * 1.0 + n0.w[1].data * -2.0 + n0.b.data)
    for o, n in zip(out, mlp.layers[1].neurons):
        assert o.data == pytest.approx(n.w[0].data * h + n.b.data)


def test_nn_mlp_is_the_micrograd_style_mlp_of_values():
    """``from micrograd.nn import MLP`` becomes ``from minigrad.nn import MLP`` (issue 31)."""
    from minigrad import Value

    assert nn.MLP is ScalarMLP and nn.Neuron is Neuron
    assert nn.Layer.__module__ == "minigrad.nn.neurons"
    model = nn.MLP(2, [16, 16, 1], rng=random.Random(0))
    out = model([2.0, -1.0])
    assert isinstance(out, Value)
    assert len(model.parameters()) == 2 * 16 + 16 + 16 * 16 + 16 + 16 + 1
