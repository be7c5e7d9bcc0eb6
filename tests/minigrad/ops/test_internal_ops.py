"""The library's own ops (``core/op.py``, "Internal ops") are declared, so the table tests see them.

* no ``Op(...)`` is built in ``minigrad/`` outside ``core/op.py`` (a bare one would be
  invisible to every test that walks the table);
* every fixed internal op has an example, and every example's op is internal;
* each example's forward makes a node of its op, with the value it computes without it.

The other registry checks run the same examples where they walk the table: gradcheck
(``test_tensor_registry.py``), engine equivalence (``autograd/test_engine_equivalence.py``),
second order (``autograd/test_second_order_registry.py``), forward mode
(``test_forward_rules.py``).
"""

from __future__ import annotations

import ast

import numpy as np
import pytest

from minigrad.core.op import Op, define_op, get_op, internal_op, internal_ops, registered_ops
from tests._helpers import INTERNAL_EXAMPLES, ROOT, example_leaves, example_node

#: files that may build an ``Op`` directly, with the reason
BARE_OP_ALLOWED = {
    "minigrad/core/op.py": "defines Op, define_op and internal_op",
    "minigrad/custom_function.py": "a custom Function's op is its user's op, one per subclass, "
                                   "made when the user's class is defined "
                                   "(tests/minigrad/test_custom_function.py covers it)",
}


def _bare_op_calls(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            if (f.id if isinstance(f, ast.Name) else getattr(f, "attr", None)) == "Op":
                yield node.lineno


def test_no_op_is_built_bare_outside_core_op():
    found = []
    for path in sorted((ROOT / "minigrad").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel not in BARE_OP_ALLOWED:
            found += [f"{rel}:{line}" for line in _bare_op_calls(path)]
    assert not found, ("an Op built with Op(...) is invisible to the table tests: use "
                       "define_op (internal=True for the library's own fixed ops) or "
                       "internal_op(family, ...) with an @op_example:\n" + "\n".join(found))


def test_the_bare_op_check_sees_a_bare_op(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("from minigrad.core import op\nX = op.Op(name='x')\nY = define_op(name='y')\n")
    assert list(_bare_op_calls(path)) == [2]


def test_every_fixed_internal_op_has_an_example_and_every_example_is_internal():
    covered = {id(e.op) for e in INTERNAL_EXAMPLES}
    missing = [op for op in internal_ops() if id(op) not in covered]
    assert not missing, f"internal ops with no @op_example: {missing}"
    public = {id(op) for op in registered_ops()}
    assert not [e for e in INTERNAL_EXAMPLES if id(e.op) in public]
    assert {e.op.name for e in INTERNAL_EXAMPLES} >= {
        "unpack", "output", "make_dual", "primal", "checkpoint", "fused", "jit_example"}


def test_internal_ops_are_kept_apart_from_the_users_table():
    with pytest.raises(KeyError):
        get_op("output", "tensor")  # a user may define an op named "output"
    with pytest.raises(ValueError, match="already declared"):
        define_op(internal=True, name="output", engine="tensor", symbol="→",
                  forward=lambda x: (x, ()), grads=(lambda g: g,), formulas=("∂/∂x = 1",))


def test_a_per_call_op_needs_a_family_with_an_example():
    with pytest.raises(LookupError, match="no example"):
        internal_op("no_such_family", name="x", engine="tensor", symbol="x",
                    forward=lambda x: (x, ()), grads=(lambda g: g,), formulas=("∂/∂x = 1",))
    op = internal_op("fused", name="x", engine="tensor", symbol="x", forward=lambda x: (x, ()),
                     grads=(lambda g: g,), formulas=("∂/∂x = 1",))
    assert isinstance(op, Op) and op not in list(internal_ops())


@pytest.mark.parametrize("example", INTERNAL_EXAMPLES, ids=lambda e: e.name)
def test_each_example_makes_a_node_of_its_op_with_the_plain_value(example):
    for inputs, attrs in example.cases(np.random.default_rng(1234)):
        leaves = example_leaves(example, inputs)
        node = example_node(example, *leaves, **attrs)
        assert node.op is example.op, (node.op, example.op)
        if example.plain is None:
            want = example.op.forward(*inputs, **attrs)[0]
        else:
            want = example.plain(*example_leaves(example, inputs), **attrs)
        want = getattr(want, "data", want)
        np.testing.assert_allclose(node.data, want, rtol=1e-13, atol=0)
        assert np.asarray(node.data).dtype == np.asarray(want).dtype
