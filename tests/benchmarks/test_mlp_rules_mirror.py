"""benchmarks/mlp.py's ``rules_step_fn`` is what it says: the numpy calls minigrad's rules
make for the MLP step, written out.  Its losses equal minigrad's bit for bit, step after
step (each step's loss depends on every earlier update), so the paired ``numpy-rules``
row measures minigrad's arithmetic and nothing else."""

from __future__ import annotations

import sys

from tests._helpers import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
import mlp  # noqa: E402


def test_the_written_out_rules_give_minigrads_losses_bit_for_bit():
    X, y = mlp.make_data(4 * mlp.BATCH, seed=5)
    rules, engine = mlp.rules_step_fn(), mlp.minigrad_step_fn()
    for x, t in list(mlp.batches(X, y)) * 2:  # 8 steps: the weights move in between
        assert rules(x, t) == engine(x, t)


def test_the_hand_written_reference_is_a_different_spelling():
    # (so the test above is not vacuous: a different but equivalent formula differs in
    # the last bits somewhere along the way)
    X, y = mlp.make_data(4 * mlp.BATCH, seed=5)
    reference, engine = mlp.numpy_step_fn(), mlp.minigrad_step_fn()
    losses = [(reference(x, t), engine(x, t)) for x, t in mlp.batches(X, y)]
    assert any(a != b for a, b in losses)
    assert all(abs(a - b) < 1e-4 for a, b in losses)
