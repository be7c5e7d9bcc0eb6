"""Small helpers shared by several test files: import them, do not copy them.

(Fixtures live in ``tests/conftest.py``; small graphs and custom Functions in
``tests/_graphs.py``.)
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from minigrad import Tensor, Value, apply_op, cat, nn
from minigrad.core.op import op_examples

# the repository's root (README.md, exercises/, notebooks/, pyproject.toml)
ROOT = Path(__file__).resolve().parents[1]

# a stand-in for graphviz's SVG: the stepper and the player need only its outer <g>
FAKE_SVG = '<svg xmlns="http://www.w3.org/2000/svg"><g id="graph0" class="graph"></g></svg>'

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz 'dot' not installed")


def leaf(a, dtype=np.float64):
    """A Tensor leaf that requires grad (float64 unless told: gradchecks need it)."""
    return Tensor(np.asarray(a, dtype=dtype), requires_grad=True)


def param(values, dtype=np.float32):
    """An ``nn.Parameter`` of ``values`` in ``dtype``."""
    return nn.Parameter(np.array(values, dtype=dtype), dtype=dtype)


def one_output(out, skip_last: bool = False):
    """An op's result as one node, for the registry-wide tests: a multi-output op's
    (split, topk ...) tuple becomes its differentiable outputs, flattened and joined.
    ``skip_last`` leaves the last of them unused (when there are two or more), so that
    the engines fill its gradient with zeros."""
    if not isinstance(out, tuple):
        return out
    parts = [o.reshape(-1) for o in out if o.data.dtype.kind == "f"]
    if skip_last and len(parts) > 1:
        parts = parts[:-1]
    return cat(parts)


#: every internal op's example (``core/op.py``: ``op_example``), for the registry-wide tests
INTERNAL_EXAMPLES = op_examples()


def example_leaves(example, inputs, dtype=np.float64):
    """An internal op example's raw inputs as leaves that require grad: Values on the
    scalar engine, Tensors in ``dtype`` otherwise (the cases are float64)."""
    if example.op.engine == "scalar":
        return [Value(float(x)) for x in inputs]
    return [Tensor(np.asarray(x, dtype=dtype), requires_grad=True) for x in inputs]


def example_node(example, *leaves, **attrs):
    """The node an internal op example makes from ``leaves``: its ``call``, or the op
    itself through ``apply_op``."""
    if example.call is not None:
        return example.call(*leaves, **attrs)
    return apply_op(example.op, *leaves, **attrs)
