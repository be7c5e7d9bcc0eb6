"""Regression tests for fixes in minigrad.optim: scalar-engine Values are refused with a
hint, duplicate parameters, and clear errors for misuse (a Tensor as .grad, hyperparameters
and scheduler settings that are not real numbers).  Each test failed before its fix."""

from __future__ import annotations

import numpy as np
import pytest

from minigrad import Tensor, nn, optim
from minigrad.nn.neurons import MLP as ScalarMLP
from tests._helpers import param


# --- 1. optimizers reject scalar-engine Values -----------------------------------------
@pytest.mark.parametrize("opt_cls", [optim.SGD, optim.Adam, optim.AdamW])
def test_optimizers_reject_values_with_a_hint(opt_cls):
    mlp = ScalarMLP(3, [4, 4, 1])
    with pytest.raises(TypeError, match=r"works on Tensors.*v\.data -= lr \* v\.grad"):
        opt_cls(mlp.parameters(), lr=0.01)


def test_optimizers_still_reject_other_objects():
    with pytest.raises(TypeError, match="only optimize Tensors/Parameters, got ndarray"):
        optim.SGD([np.zeros(2)], lr=0.1)


# --- 2. duplicate parameters --------------------------------------------------------------
def test_same_parameter_twice_in_one_list():
    w = param([1.0])
    with pytest.raises(ValueError, match=r"appears twice in the parameter list \(positions 0 "
                                         r"and 1\)"):
        optim.SGD([w, w], lr=0.1)
    with pytest.raises(ValueError, match="appears twice"):
        optim.Adam([{"params": [w, param([2.0]), w]}])
    with pytest.raises(ValueError, match="more than one parameter group"):
        optim.SGD([{"params": [w]}, {"params": [w]}], lr=0.1)


# --- 3. misuse errors ---------------------------------------------------------------------
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

