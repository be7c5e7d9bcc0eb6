"""Forward-mode rule of matmul on the cases the registry-wide test
(``tests/minigrad/ops/test_forward_rules.py``) does not reach: 1-d and batched operands, a
tangent on one operand."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad  # noqa: F401  (registers every op)
from minigrad.autograd import get_op
from tests.minigrad.ops.forward_checks import check_forward_rule
from tests.minigrad.ops.tensor.test_reductions_forward_rules import (
    assert_transpose_of_backward,
    central_difference,
    tangent_of,
)

# --- matmul: 1-D operands and batch broadcasting ------------------------------------
MATMUL_SHAPES = [((3, 3), (3, 3)), ((4,), (4, 5)), ((3, 4), (4,)), ((4,), (4,)),
                 ((5,), (2, 5, 3)), ((2, 3, 4), (4,)), ((3, 4), (2, 4, 5)),
                 ((2, 1, 3, 4), (3, 4, 2))]


@pytest.mark.parametrize("sa, sb", MATMUL_SHAPES)
def test_matmul_tangent_follows_numpys_rules_for_1d_and_batched_operands(sa, sb):
    rng = np.random.default_rng(17)
    check_forward_rule(get_op("matmul", "tensor"),
                       (rng.standard_normal(sa), rng.standard_normal(sb)), {}, rng)


@pytest.mark.parametrize("sa, sb", MATMUL_SHAPES)
@pytest.mark.parametrize("moving", [0, 1])
def test_matmul_tangent_of_one_operand_has_the_outputs_shape(sa, sb, moving):
    rng = np.random.default_rng(18)
    inputs = (rng.standard_normal(sa), rng.standard_normal(sb))
    tangents = [None, None]
    tangents[moving] = rng.standard_normal(inputs[moving].shape)
    tangent, out = tangent_of("matmul", inputs, tangents)
    assert tangent.shape == out.shape
    np.testing.assert_allclose(tangent, central_difference("matmul", inputs, tangents),
                               rtol=1e-6, atol=1e-8)
    assert_transpose_of_backward("matmul", inputs, tangents, tangent, rng)
