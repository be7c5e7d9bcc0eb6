"""Differential fuzzing of the Tensor engine against PyTorch (skipped without torch).

A small, fixed number of derandomized Hypothesis examples per op family and dtype;
``tests/fuzz/torch_fuzz.py`` has the program generator and a command line for long runs.
A failure's message ends with the minimal (shrunk) reproducer program.
"""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from hypothesis import Phase, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tests.fuzz.torch_fuzz import (  # noqa: E402
    FAMILIES,
    HEALTH,
    MIX_OPS,
    TIE_OPS,
    check_dtype_mixing,
    check_program,
    check_ties,
)

EXAMPLES = 30  # per family and dtype (or op); long runs: python tests/fuzz/torch_fuzz.py all 300
DTYPES = pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["f64", "f32"])
fuzz = settings(max_examples=EXAMPLES, derandomize=True, database=None, deadline=None,
                suppress_health_check=HEALTH, print_blob=False,
                phases=[Phase.explicit, Phase.generate, Phase.shrink])


@DTYPES
@pytest.mark.parametrize("family", list(FAMILIES))
def test_family_agrees_with_torch(family, dtype):
    @fuzz
    @given(st.data())
    def run(data):
        check_program(data.draw, dtype, family)

    run()


@DTYPES
@pytest.mark.parametrize("op", TIE_OPS)
def test_ties_share_the_gradient(op, dtype):
    @fuzz
    @given(st.data())
    def run(data):
        check_ties(data.draw, dtype, op)

    run()


@pytest.mark.parametrize("op", MIX_OPS)
def test_dtype_mixing_follows_torch_promotion(op):
    @fuzz
    @given(st.data())
    def run(data):
        check_dtype_mixing(data.draw, op)

    run()
