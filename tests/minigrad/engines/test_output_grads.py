"""engines.output_grads: a multi-output record's gradient, OutputGrads, adds slot by slot."""

from __future__ import annotations

import numpy as np

from minigrad.engines.output_grads import OutputGrads, Outputs


def test_output_grads_add_slot_by_slot():
    outs = Outputs((np.zeros(2), np.zeros(3), np.arange(2)))
    one = OutputGrads.one(outs, 0, np.ones(2))
    both = one + OutputGrads.one(outs, 1, np.full(3, 2.0)) + one
    filled = both.filled()
    np.testing.assert_array_equal(filled[0], [2.0, 2.0])
    np.testing.assert_array_equal(filled[1], [2.0, 2.0, 2.0])
    assert filled[2] is None  # integer output: no gradient
    assert OutputGrads.one(outs, 1, np.zeros(3)).filled()[0].shape == (2,)
