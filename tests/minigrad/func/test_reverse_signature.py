"""``grad(f)`` and ``value_and_grad(f)`` keep ``f``'s signature (``__wrapped__``, as
``functools.wraps`` does): ``vmap(grad(loss))`` in a step-through names its inputs after
``loss``'s parameters."""

from __future__ import annotations

import inspect

from minigrad import func


def loss(weight, x):
    return (x * weight).sum()


def test_grad_and_value_and_grad_have_the_signature_of_their_function():
    for transform in (func.grad, func.value_and_grad):
        made = transform(loss)
        assert made.__wrapped__ is loss
        assert list(inspect.signature(made).parameters) == ["weight", "x"]
    mapped = func.vmap(func.grad(loss), in_dims=(None, 0))
    assert list(inspect.signature(mapped).parameters) == ["weight", "x"]
