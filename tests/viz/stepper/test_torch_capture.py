"""``viz.stepper.torch_capture``: a ``TorchFunctionMode`` sees each torch call ``f``
makes and keeps its results' values by ``(grad_fn, output_nr)``, and the no-grad
arguments where they line up with ``next_functions``, without changing the results."""

from __future__ import annotations

import numpy as np
import pytest

from viz.stepper.torch_capture import capture_forward

torch = pytest.importorskip("torch", reason="torch is optional: the capture is tested with it")


def run(f, *args):
    with capture_forward(torch) as mode:
        out = f(*args)
    return out, mode.seen


def test_values_are_keyed_by_grad_fn_and_output_nr():
    x = torch.linspace(-1, 1, 6, dtype=torch.float64).requires_grad_()
    a, b = None, None

    def f(x):
        nonlocal a, b
        a, b = (x * 3).split(4)
        return torch.tanh(a).sum() + b.sum()

    out, seen = run(f, x)
    split = a.grad_fn
    assert split is b.grad_fn and (a.output_nr, b.output_nr) == (0, 1)
    assert np.array_equal(seen.value(split, 0), a.detach().numpy())
    assert np.array_equal(seen.value(split, 1), b.detach().numpy())
    assert seen.value(out.grad_fn) == pytest.approx(out.item())
    mul = split.next_functions[0][0]
    assert np.array_equal(seen.value(mul), (x * 3).detach().numpy())


def test_values_are_copies_taken_when_computed():
    x = torch.ones(3, requires_grad=True)
    box = {}

    def f(x):
        y = x * 2
        box["y"] = y
        return y.sum()

    _, seen = run(f, x)
    y = box["y"]
    with torch.no_grad():
        y.add_(10)  # changed afterwards: the capture kept the value it had
    assert np.array_equal(seen.value(y.grad_fn), [2.0, 2.0, 2.0])


def test_the_results_are_the_ones_torch_computes():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU())
    x = torch.randn(2, 3)
    want = model(x)
    got, seen = run(model, x)
    assert torch.equal(got, want) and got.grad_fn is not None
    assert np.array_equal(seen.value(got.grad_fn), want.detach().numpy())


def test_no_grad_arguments_when_they_line_up():
    x = torch.ones(2, requires_grad=True)
    c = torch.tensor([3.0, 4.0])
    out, seen = run(lambda x: x * 2.5 + c, x)
    add = out.grad_fn
    mul = add.next_functions[0][0]
    assert seen.input_value(mul, 1) == 2.5
    assert np.array_equal(seen.input_value(add, 1), [3.0, 4.0])
    assert seen.input_value(add, 0) is None  # a grad input: no value kept here


def test_arguments_out_of_order_are_not_trusted():
    # F.linear(x, W, b) is AddmmBackward0(b, x, W.t()): three arguments, another order
    torch.manual_seed(0)
    lin = torch.nn.Linear(3, 2)
    x = torch.randn(4, 3)
    out, seen = run(lin, x)
    assert out.grad_fn.name() == "AddmmBackward0"
    assert seen.input_value(out.grad_fn, 1) is None


def test_a_value_it_cannot_copy_does_not_break_the_function(monkeypatch):
    import viz.stepper.torch_capture as capture

    def broken(*a, **k):
        raise RuntimeError("cannot copy")

    monkeypatch.setattr(capture, "host_array", broken)
    x = torch.ones(2, requires_grad=True)
    out, seen = run(lambda x: (x * 2).sum(), x)
    assert out.item() == 4.0 and seen.values == {}
