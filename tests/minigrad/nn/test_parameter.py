"""nn.Parameter: a float32 leaf that requires grad."""

from __future__ import annotations

import numpy as np

from minigrad import nn
from tests.minigrad.nn.test_module import Net


def test_parameter_is_a_float32_leaf():
    p = nn.Parameter(np.zeros((2, 3)))
    assert p.dtype == np.float32 and p.requires_grad and p.is_leaf and p.op is None
    assert nn.Parameter(np.zeros(2), dtype=None).dtype == np.float64
    assert "Parameter containing" in repr(p)
    for p in Net().parameters():
        assert p.dtype == np.float32
