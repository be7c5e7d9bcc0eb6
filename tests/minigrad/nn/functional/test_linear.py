"""nn.functional.linear: linear on batched input, dropout in train and eval mode."""

from __future__ import annotations

import numpy as np

import minigrad.nn.functional as F
from minigrad import Tensor


def test_linear_values_and_batched_input():
    rng = np.random.default_rng(2)
    x, w, b = rng.normal(size=(2, 3, 4)), rng.normal(size=(5, 4)), rng.normal(size=5)
    np.testing.assert_allclose(F.linear(Tensor(x), Tensor(w), Tensor(b)).data, x @ w.T + b)
    np.testing.assert_allclose(F.linear(Tensor(x), Tensor(w)).data, x @ w.T)


# --- dropout, normalisation ----------------------------------------------------------------
def test_dropout_train_eval_and_reproducibility():
    x = Tensor(np.ones((200, 50), np.float32))
    assert F.dropout(x, 0.5, training=False) is x
    assert F.dropout(x, 0.0) is x
    a = F.dropout(x, 0.3, rng=np.random.default_rng(1)).data
    b = F.dropout(x, 0.3, rng=np.random.default_rng(1)).data
    np.testing.assert_array_equal(a, b)
    assert set(np.unique(a)) <= {0.0, np.float32(1 / 0.7)}
    assert abs((a == 0).mean() - 0.3) < 0.02 and abs(a.mean() - 1) < 0.03
    assert (F.dropout(x, 1.0).data == 0).all()
