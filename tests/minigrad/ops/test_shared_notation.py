"""An op that both engines have is written alike in both: one table, ``ops.shared``.

``a * b`` draws as ``×`` and steps through with ``∂/∂a = b`` whether ``a`` is a
``Value`` or a ``Tensor``; these tests walk the registry, so a new op added to
both engines without a table entry (or with its own symbol) fails here.
"""

from __future__ import annotations

import pytest

import minigrad  # noqa: F401  (registers the scalar and tensor ops)
import minigrad.nn.functional  # noqa: F401  (and the functional ones)
from minigrad.core.op import get_op, registered_ops
from minigrad.ops.shared import NOTATION, notation

SCALAR = {op.name for op in registered_ops("scalar")}
TENSOR = {op.name for op in registered_ops("tensor")}
SHARED = sorted(SCALAR & TENSOR)


def test_the_ops_of_both_engines_are_the_ones_in_the_table():
    assert set(SHARED) == set(NOTATION), (
        f"in both engines but not in the table: {sorted(set(SHARED) - set(NOTATION))}; "
        f"in the table but not in both engines: {sorted(set(NOTATION) - set(SHARED))}")


@pytest.mark.parametrize("name", sorted(NOTATION))
def test_every_table_entry_is_registered_in_both_engines(name):
    for engine in ("scalar", "tensor"):
        get_op(name, engine)  # (a KeyError names the missing one)


@pytest.mark.parametrize("name", SHARED)
def test_an_op_of_both_engines_has_one_symbol_one_set_of_formulas_and_one_infix(name):
    scalar, tensor = get_op(name, "scalar"), get_op(name, "tensor")
    assert scalar.symbol == tensor.symbol
    assert scalar.formulas == tensor.formulas
    assert scalar.infix == tensor.infix
    assert scalar.formula == tensor.formula  # (what the lessons print)


@pytest.mark.parametrize("name", sorted(NOTATION))
def test_both_engines_take_their_fields_from_the_table(name):
    shared = notation(name)
    assert set(shared) == {"name", "symbol", "formulas", "infix"}
    for engine in ("scalar", "tensor"):
        op = get_op(name, engine)
        assert (op.name, op.symbol, op.formulas, op.infix) == (
            shared["name"], shared["symbol"], shared["formulas"], shared["infix"])


def test_the_table_gives_one_formula_per_input():
    for name, entry in NOTATION.items():
        assert isinstance(entry["formulas"], tuple), name
        assert len(entry["formulas"]) == get_op(name, "scalar").arity, name

