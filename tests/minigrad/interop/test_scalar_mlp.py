"""``minigrad.interop.scalar_mlp``: the scalar engine's ``MLP`` as a float64 torch
``Sequential`` of ``Linear`` and ``ReLU`` and back (``from_torch(engine="scalar")``):
the same outputs and gradients (float64), every weight bit for bit on a round trip."""

from __future__ import annotations

import random

import numpy as np
import pytest

from minigrad import interop
from minigrad.nn.neurons import MLP

torch = pytest.importorskip("torch", reason="PyTorch is optional: pip install "
                                            '"minigrad-kit[torch]" to run the interop tests')

TOL = {"rtol": 1e-12, "atol": 1e-14}


def mlp(seed=0, nin=3, nouts=(4, 4, 2)):
    return MLP(nin, list(nouts), rng=random.Random(seed))


def test_structure_and_weights():
    m = mlp()
    seq = interop.to_torch(m)
    assert [type(x).__name__ for x in seq] == ["Linear", "ReLU", "Linear", "ReLU", "Linear"]
    assert all(p.dtype == torch.float64 for p in seq.parameters())
    for name, (key, index) in interop.scalar_mlp_keys(m).items():
        ours = dict(m.named_parameters())[name].data
        assert seq.state_dict()[key][index].item() == ours  # the same float64, bit for bit
    assert len(interop.scalar_mlp_keys(m)) == len(m.parameters()) == sum(
        p.numel() for p in seq.parameters())


@pytest.mark.parametrize("nouts", [(4, 4, 2), (5, 1), (2,)])
def test_same_outputs_and_gradients(nouts):
    m = mlp(1, 3, nouts)
    seq = interop.to_torch(m)
    rng = np.random.default_rng(0)
    for x in rng.normal(size=(4, 3)):
        out = m(list(x))
        outs = out if isinstance(out, list) else [out]
        xt = torch.tensor(x, dtype=torch.float64)
        want = seq(xt)
        np.testing.assert_allclose([o.data for o in outs], want.detach().numpy(), **TOL)
        # the same loss on both sides: the sum of the outputs
        m.zero_grad()
        seq.zero_grad()
        sum(outs[1:], outs[0]).backward()
        want.sum().backward()
        grads = {k: t.grad for k, t in seq.named_parameters()}
        for name, (key, index) in interop.scalar_mlp_keys(m).items():
            ours = dict(m.named_parameters())[name].grad or 0.0
            assert ours == pytest.approx(grads[key][index].item(), rel=1e-12, abs=1e-14), name


def test_round_trip_keeps_every_weight_bit_for_bit():
    m = mlp(2)
    back = interop.from_torch(interop.to_torch(m), engine="scalar")
    assert isinstance(back, MLP) and (back.nin, back.nouts) == (m.nin, m.nouts)
    ours = [p.data for p in m.parameters()]
    theirs = [p.data for p in back.parameters()]
    assert np.array_equal(np.array(ours).view(np.int64), np.array(theirs).view(np.int64))
    assert [n for n, _ in m.named_parameters()] == [n for n, _ in back.named_parameters()]


def test_from_a_torch_sequential():
    torch.manual_seed(0)
    seq = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1))
    state = random.getstate()
    m = interop.from_torch(seq, engine="scalar")
    assert random.getstate() == state  # the user's random stream is left alone
    x = [0.3, -1.2]
    assert m(x).data == pytest.approx(seq(torch.tensor(x)).item(), rel=1e-6)
    # float32 weights widen to float64 exactly
    assert m.layers[0].neurons[1].w[0].data == float(seq[0].weight[1, 0].item())


@pytest.mark.parametrize("bad", [
    lambda: torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.Tanh(), torch.nn.Linear(3, 1)),
    lambda: torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU()),
    lambda: torch.nn.Sequential(torch.nn.Linear(2, 3, bias=False)),
    lambda: torch.nn.Linear(2, 3),
])
def test_other_models_are_refused_with_the_shape_expected(bad):
    with pytest.raises(TypeError, match="Linear, ReLU, Linear, ReLU, ..., Linear"):
        interop.from_torch(bad(), engine="scalar")


def test_engine_is_checked():
    with pytest.raises(ValueError, match="engine must be 'tensor' or 'scalar'"):
        interop.from_torch(torch.nn.Linear(2, 3), engine="value")
    # the default is the tensor engine, as before
    assert type(interop.from_torch(torch.nn.Linear(2, 3))).__name__ == "Linear"


def test_a_layer_mixing_relu_and_linear_neurons_is_refused():
    m = mlp()
    m.layers[0].neurons[0].nonlin = False
    with pytest.raises(TypeError, match="layer 0.*some of its neurons apply ReLU"):
        interop.to_torch(m)
