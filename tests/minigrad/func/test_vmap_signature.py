"""``vmap(f)`` keeps ``f``'s signature (``__wrapped__``, as ``functools.wraps`` and
``torch.func.vmap`` do): what names a step-through's inputs after ``f``'s parameters."""

from __future__ import annotations

import inspect

from minigrad import func


def test_a_vmapped_function_has_the_signature_of_the_function_it_maps():
    def loss(weight, x, *, scale=1.0):
        return (x * weight).sum() * scale

    mapped = func.vmap(loss, in_dims=(None, 0))
    assert mapped.__wrapped__ is loss
    assert list(inspect.signature(mapped).parameters) == ["weight", "x", "scale"]
    nested = func.vmap(mapped)
    assert list(inspect.signature(nested).parameters) == ["weight", "x", "scale"]
