"""nn's loss modules: the same numbers as the functional losses they wrap."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad.nn.functional as F
from minigrad import Tensor, nn


def test_loss_modules():
    rng = np.random.default_rng(5)
    z, t = Tensor(rng.normal(size=(4, 3))), rng.integers(0, 3, 4)
    assert nn.CrossEntropyLoss()(z, t).item() == pytest.approx(F.cross_entropy(z, t).item())
    assert nn.CrossEntropyLoss(reduction="sum")(z, t).item() == pytest.approx(
        F.cross_entropy(z, t, "sum").item())
    assert nn.MSELoss()(z, z * 0).item() == pytest.approx((z.data ** 2).mean())
    y = rng.uniform(size=(4, 3))
    assert nn.BCEWithLogitsLoss()(z, y).item() == pytest.approx(
        F.binary_cross_entropy_with_logits(z, y).item())
    assert repr(nn.MSELoss(reduction="sum")) == "MSELoss(reduction='sum')"
    with pytest.raises(ValueError, match="reduction"):
        nn.MSELoss(reduction="avg")
