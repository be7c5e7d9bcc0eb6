"""Regression test for a fixed bug: ``minigrad.concatenate`` and the rest of the tensor
package's public names are exported from ``minigrad``; and ``minigrad.tensor`` is the
function, as ``torch.tensor`` is."""

from __future__ import annotations

import importlib

import numpy as np

import minigrad as mg
from tests._helpers import leaf

# (``import minigrad.tensor as m`` would give the function ``minigrad.tensor``)
TENSOR_MODULES = [importlib.import_module(f"minigrad.tensor{name}")
                  for name in ("", ".creation", ".combining")]


# --- the public API --------------------------------------------------------------------
def test_concatenate_is_exported():
    assert mg.concatenate is mg.cat
    assert "concatenate" in mg.__all__
    a, b = leaf(np.ones((2, 3))), leaf(np.zeros((1, 3)))
    out = mg.concatenate([a, b], axis=0)
    assert out.shape == (3, 3)
    (out * np.arange(9.0).reshape(3, 3)).sum().backward()
    np.testing.assert_array_equal(a.grad, np.arange(6.0).reshape(2, 3))


def test_every_tensor_module_name_is_exported():
    for module in TENSOR_MODULES:
        for name in module.__all__:
            assert getattr(mg, name, None) is getattr(module, name), name
            assert name in mg.__all__, name


def test_everything_in_all_exists():
    missing = [name for name in mg.__all__ if not hasattr(mg, name)]
    assert not missing
    assert len(set(mg.__all__)) == len(mg.__all__)



def test_minigrad_tensor_is_the_function_that_copies_data():
    from minigrad import tensor

    assert tensor is mg.tensor and callable(tensor)
    data = np.array([1.0, 2.0])
    t = mg.tensor(data)
    assert isinstance(t, mg.Tensor) and not np.shares_memory(t.data, data)
    from minigrad.tensor import Tensor, apply_op  # the package, by its full name

    assert Tensor is mg.Tensor and apply_op is mg.apply_op
