"""Regression tests for fixes in minigrad.nn, minigrad.optim and the grad-mode decorators:
in-place loads/inits tracked, clear errors for misuse, BatchNorm momentum=None, PyTorch's
state_dict order.  Each test failed before its fix; torch is the oracle where it applies."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import minigrad
from minigrad import Tensor, nn, optim
from minigrad.nn import init
from minigrad.nn.scalar import MLP as ScalarMLP
from minigrad.nn.scalar import Neuron
from tests._helpers import param


def small_net(seed=0):
    return nn.Sequential(nn.Linear(2, 3, seed=seed), nn.BatchNorm1d(3),
                         nn.Linear(3, 1, seed=seed + 1))


X = np.array([[1.0, -2.0], [0.5, 3.0], [-1.0, 0.25]], np.float32)


# --- 1. load_state_dict and init.*_ mark parameters modified ------------------------------
def test_load_state_dict_refuses_backward_through_an_older_graph():
    net, other = small_net(0), small_net(5)
    loss = net(Tensor(X)).sum()
    net.load_state_dict(other.state_dict())
    with pytest.raises(RuntimeError, match="changed in place"):
        loss.backward()
    net(Tensor(X)).sum().backward()  # a fresh forward pass is fine
    assert net[0].weight.grad is not None


def test_load_state_dict_marks_all_changed_parameters_in_one_call(monkeypatch):
    import minigrad.nn.module as module

    calls = []
    real = module.mark_modified
    monkeypatch.setattr(module, "mark_modified", lambda nodes: calls.append(list(nodes))
                        or real(nodes))
    net = small_net()
    net.load_state_dict(small_net(3).state_dict())
    assert len(calls) == 1
    assert {id(p) for p in calls[0]} == {id(p) for p in net.parameters()}


@pytest.mark.parametrize("fill", [init.kaiming_uniform_, init.kaiming_normal_,
                                  init.xavier_uniform_, init.xavier_normal_])
def test_init_fill_refuses_backward_through_an_older_graph(fill):
    w = param(np.ones((2, 2)))
    loss = (Tensor(np.ones((2, 2), np.float32)) * w).sum()
    assert fill(w, rng=0) is w
    with pytest.raises(RuntimeError, match="changed in place"):
        loss.backward()


# --- 2. optimizers reject scalar-engine Values -----------------------------------------
@pytest.mark.parametrize("opt_cls", [optim.SGD, optim.Adam, optim.AdamW])
def test_optimizers_reject_values_with_a_hint(opt_cls):
    mlp = ScalarMLP(3, [4, 4, 1])
    with pytest.raises(TypeError, match=r"works on Tensors.*v\.data -= lr \* v\.grad"):
        opt_cls(mlp.parameters(), lr=0.01)


def test_optimizers_still_reject_other_objects():
    with pytest.raises(TypeError, match="only optimize Tensors/Parameters, got ndarray"):
        optim.SGD([np.zeros(2)], lr=0.1)


# --- 3. duplicate parameters --------------------------------------------------------------
def test_same_parameter_twice_in_one_list():
    w = param([1.0])
    with pytest.raises(ValueError, match=r"appears twice in the parameter list \(positions 0 "
                                         r"and 1\)"):
        optim.SGD([w, w], lr=0.1)
    with pytest.raises(ValueError, match="appears twice"):
        optim.Adam([{"params": [w, param([2.0]), w]}])
    with pytest.raises(ValueError, match="more than one parameter group"):
        optim.SGD([{"params": [w]}, {"params": [w]}], lr=0.1)


# --- 4. misuse errors ---------------------------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda ps: optim.SGD(ps, lr=0.1),
    lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9),
    lambda ps: optim.Adam(ps),
    lambda ps: optim.AdamW(ps),
])
def test_step_with_a_tensor_grad_says_to_use_data(make):
    p = param([1.0, 2.0])
    opt = make([p])
    p.grad = Tensor([1.0, 1.0])
    name = type(opt).__name__
    with pytest.raises(TypeError, match=rf"{name}\.step\(\).*numpy array \(use t\.data\), "
                                        "got Tensor"):
        opt.step()
    p.grad = [1.0, 1.0]
    with pytest.raises(TypeError, match="must be a numpy array, got list"):
        opt.step()
    p.grad = np.ones(3, np.float32)  # the shape check still applies
    with pytest.raises(ValueError, match="gradient of shape"):
        opt.step()


def test_numpy_scalar_grad_of_a_0d_parameter_still_works():
    p = nn.Parameter(np.array(1.0, np.float32))
    opt = optim.SGD([p], lr=0.5)
    p.grad = np.float32(2.0)
    opt.step()
    assert float(p.data) == 0.0


OPTIMIZERS = [
    (optim.SGD, "lr"), (optim.SGD, "momentum"), (optim.SGD, "dampening"),
    (optim.SGD, "weight_decay"), (optim.Adam, "lr"), (optim.Adam, "eps"),
    (optim.Adam, "weight_decay"), (optim.AdamW, "lr"), (optim.AdamW, "weight_decay"),
]


@pytest.mark.parametrize("opt_cls, key", OPTIMIZERS)
def test_optimizer_hyperparameters_must_be_real_numbers(opt_cls, key):
    p = param([1.0])
    name = opt_cls.__name__
    with pytest.raises(TypeError, match=rf"{name}: {key} must be a real number, got '0.1' "
                                        r"\(str\)"):
        opt_cls([p], **{key: "0.1"})
    with pytest.raises(TypeError, match=f"{key} must be a real number"):  # a group's override
        opt_cls([{"params": [p], key: None}])
    with pytest.raises(ValueError, match=f"{key} must be finite"):
        opt_cls([p], **{key: float("nan")})


def test_adam_betas_must_be_two_real_numbers():
    p = param([1.0])
    with pytest.raises(TypeError, match=r"betas\[1\] must be a real number"):
        optim.Adam([p], betas=(0.9, "0.999"))
    with pytest.raises(ValueError, match="betas must be two numbers"):
        optim.Adam([p], betas=0.9)
    with pytest.raises(ValueError, match="betas must be two numbers"):
        optim.Adam([p], betas=(0.9, 1.0))


def test_valid_numeric_types_are_still_accepted():
    p = param([1.0])
    optim.SGD([p], lr=np.float32(0.1), momentum=1)
    optim.Adam([p], lr=1, betas=[np.float64(0.5), 0.9])
    optim.StepLR(optim.SGD([p]), step_size=np.int64(2), gamma=1)
    sched = optim.CosineAnnealingLR(optim.SGD([p], lr=0.1), T_max=4.0)
    assert sched.T_max == 4


@pytest.mark.parametrize("make, match", [
    (lambda o: optim.StepLR(o, step_size="2"), r"StepLR: step_size must be a real number"),
    (lambda o: optim.StepLR(o, 2, gamma="0.5"), r"StepLR: gamma must be a real number"),
    (lambda o: optim.CosineAnnealingLR(o, T_max="4"), r"T_max must be a real number"),
    (lambda o: optim.CosineAnnealingLR(o, 4, eta_min="0"), r"eta_min must be a real number"),
    (lambda o: optim.StepLR(o, 2, last_epoch="-1"), r"last_epoch must be an integer"),
])
def test_scheduler_hyperparameters_must_be_numbers(make, match):
    with pytest.raises(TypeError, match=match):
        make(optim.SGD([param([1.0])], lr=0.1))


def test_scheduler_epoch_counts_are_not_silently_truncated():
    opt = optim.SGD([param([1.0])], lr=0.1)
    with pytest.raises(ValueError, match="whole number of epochs, got 2.5"):
        optim.StepLR(opt, step_size=2.5)
    with pytest.raises(ValueError, match="T_max must be >= 1"):
        optim.CosineAnnealingLR(opt, T_max=0)


# --- 5. BatchNorm momentum=None: cumulative moving average ---------------------------------
@pytest.mark.parametrize("cls, shape", [(nn.BatchNorm1d, (6, 3)), (nn.BatchNorm1d, (4, 3, 5)),
                                        (nn.BatchNorm2d, (4, 3, 2, 2))])
def test_batchnorm_momentum_none_is_a_cumulative_average(cls, shape):
    rng = np.random.default_rng(0)
    bn = cls(3, momentum=None)
    batches = [(rng.normal(size=shape) * (i + 1) + i).astype(np.float32) for i in range(4)]
    for x in batches:
        bn(Tensor(x))
    axes = tuple(a for a in range(len(shape)) if a != 1)
    np.testing.assert_allclose(bn.running_mean, np.mean([x.mean(axes) for x in batches], 0),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.running_var,
                               np.mean([x.var(axes, ddof=1) for x in batches], 0), rtol=1e-5)
    assert int(bn.num_batches_tracked) == 4
    bn.eval()
    bn(Tensor(batches[0]))  # eval uses the statistics and leaves them alone
    assert int(bn.num_batches_tracked) == 4


@pytest.mark.parametrize("ours, theirs, shape", [("BatchNorm1d", "BatchNorm1d", (5, 3)),
                                                 ("BatchNorm2d", "BatchNorm2d", (4, 3, 2, 2))])
def test_batchnorm_momentum_none_matches_torch(ours, theirs, shape):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    bn, tbn = getattr(nn, ours)(3, momentum=None), getattr(torch.nn, theirs)(3, momentum=None)
    for i in range(5):
        x = (rng.normal(size=shape) * (i + 1) + i).astype(np.float32)
        y, ty = bn(Tensor(x)), tbn(torch.tensor(x))
        np.testing.assert_allclose(y.data, ty.detach().numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bn.running_mean, tbn.running_mean.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.running_var, tbn.running_var.numpy(), rtol=1e-5, atol=1e-6)
    assert "momentum=None" in repr(bn) and "momentum=None" in repr(tbn)


def test_batchnorm_momentum_must_be_a_number_or_none():
    with pytest.raises(TypeError, match="momentum must be a number or None"):
        nn.BatchNorm1d(3, momentum="0.1")


# --- 6. no_grad / enable_grad as bare decorators -------------------------------------------
def test_no_grad_and_enable_grad_work_as_bare_decorators():
    @minigrad.no_grad
    def evaluate(t):
        """Docstring kept."""
        return t * 2, minigrad.is_grad_enabled()

    @minigrad.enable_grad
    def train_step(t):
        return t * 2

    x = Tensor([1.0], requires_grad=True)
    y, enabled = evaluate(x)
    assert y.op is None and not enabled and minigrad.is_grad_enabled()
    assert evaluate.__name__ == "evaluate" and evaluate.__doc__ == "Docstring kept."
    with minigrad.no_grad():
        assert train_step(x).op is not None
        assert not minigrad.is_grad_enabled()
    with minigrad.no_grad() as ctx:  # still a context manager, and with parentheses
        assert isinstance(ctx, minigrad.no_grad)
    assert minigrad.no_grad()(lambda: minigrad.is_grad_enabled())() is False
    with pytest.raises(TypeError, match="no_grad"):
        minigrad.no_grad(3)


def test_bare_decorated_function_is_thread_safe():
    @minigrad.no_grad
    def inside(barrier, out, key):
        barrier.wait()  # both threads are inside at once
        out[key] = minigrad.is_grad_enabled()
        barrier.wait()

    out, barrier = {}, threading.Barrier(2)
    threads = [threading.Thread(target=inside, args=(barrier, out, k)) for k in "ab"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert out == {"a": False, "b": False} and minigrad.is_grad_enabled()


# --- 7. scalar MLP input length ------------------------------------------------------------
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


# --- 8. state_dict order --------------------------------------------------------------------
EXPECTED_KEYS = ["0.weight", "0.bias", "1.weight", "1.bias", "1.running_mean",
                 "1.running_var", "1.num_batches_tracked", "2.weight", "2.bias"]


def test_state_dict_orders_entries_module_by_module():
    assert list(small_net().state_dict()) == EXPECTED_KEYS


def test_state_dict_order_matches_torch():
    torch = pytest.importorskip("torch")
    tnet = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.BatchNorm1d(3),
                               torch.nn.Linear(3, 1))
    assert list(small_net().state_dict()) == list(tnet.state_dict())


@pytest.mark.parametrize("order", ["reversed", "params_first"])
def test_load_state_dict_accepts_any_key_order(order):
    src, dst = small_net(0), small_net(7)
    src.train()
    src(Tensor(X))  # move the running statistics away from their initial values
    state = src.state_dict()
    if order == "reversed":
        state = dict(reversed(list(state.items())))
    else:  # the old layout: all parameters, then all buffers
        names = [n for n, _ in src.named_parameters()]
        state = {**{k: state[k] for k in names},
                 **{k: v for k, v in state.items() if k not in names}}
    dst.load_state_dict(state)
    for (k, a), (k2, b) in zip(src.state_dict().items(), dst.state_dict().items()):
        assert k == k2
        np.testing.assert_array_equal(a, b)


def test_no_grad_on_a_generator_covers_its_body_not_the_caller():
    import minigrad as mg

    @mg.no_grad
    def evaluate(n):
        for _ in range(n):
            got = yield mg.is_grad_enabled()
            assert got is None or got == "ping"
        return "done"

    seen = []
    gen = evaluate(3)
    for flag in gen:
        seen.append((flag, mg.is_grad_enabled()))  # the caller's own mode between items
    assert seen == [(False, True)] * 3

    gen = evaluate(2)
    assert next(gen) is False
    assert gen.send("ping") is False
    with pytest.raises(StopIteration) as stop:
        gen.send(None)
    assert stop.value.value == "done"

    closed = []

    @mg.no_grad()
    def closing():
        try:
            yield 1
        finally:
            closed.append(mg.is_grad_enabled())

    g = closing()
    next(g)
    g.close()
    assert closed == [False] and mg.is_grad_enabled()
