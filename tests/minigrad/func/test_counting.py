"""func.counting: count_passes counts a transform's forward and backward passes."""

from __future__ import annotations

from minigrad import func
from tests.minigrad.func.test_forward_transforms import wide
from tests.minigrad.func.test_reverse_transforms import t64, tall


def test_jacfwd_counts_one_forward_pass_per_input_and_jacrev_one_backward_per_output():
    x = t64([0.1, 0.2, -0.3, 0.4, -0.5, 0.6])  # wide: 6 inputs, 2 outputs
    with func.count_passes() as forward:
        func.jacfwd(wide)(x)
    with func.count_passes() as reverse:
        func.jacrev(wide)(x)
    assert (forward.forward, forward.backward) == (6, 0)
    assert (reverse.forward, reverse.backward) == (1, 2)


def test_jacrev_runs_one_backward_pass_per_output_element():
    with func.count_passes() as n:
        func.jacrev(tall)(t64([0.3, -0.2]))
    assert (n.forward, n.backward) == (1, 5)
    assert n.backward_ops > 0 and n.forward_ops > 0
