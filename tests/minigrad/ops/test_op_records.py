"""Every registered op is a complete record: a symbol, one formula per input, test cases.

The renderers show the symbol, the step-through panel shows the formula of the
edge it is on (and names the input from it), and the registry-wide gradient
tests run the cases: an op missing any of them is caught here, whatever module
defined it.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import minigrad  # noqa: F401  (registers the scalar and tensor ops)
import minigrad.nn.functional  # noqa: F401  (and the functional ones)
from minigrad.core.op import define_op, get_op, passthrough, registered_ops

OPS = list(registered_ops())
IDS = [f"{op.engine}.{op.name}" for op in OPS]

#: how the stepper's panel reads an input's name off its formula (``viz/stepper/narration.py``)
NAMES_AN_INPUT = re.compile(r"^∂[^/\s]*/∂(\w+)\s*=")

#: the separator ``Op.formula`` joins the formulas with
JOIN = ",  "


@pytest.mark.parametrize("op", OPS, ids=IDS)
def test_every_op_has_a_symbol_and_one_formula_per_input(op):
    assert isinstance(op.symbol, str) and op.symbol.strip()
    wanted = 1 if op.variadic else op.arity
    assert len(op.formulas) == wanted
    for formula in op.formulas:
        assert formula.strip(), "an empty formula"
        assert JOIN not in formula, f"{formula!r} contains the join separator {JOIN!r}"
    assert op.formula.split(JOIN) == list(op.formulas)


@pytest.mark.parametrize("op", OPS, ids=IDS)
def test_every_formula_names_its_input(op):
    """``∂/∂a = ...``: the panel calls the edge's input by that name; distinct names
    for distinct inputs (a formula that named the wrong slot would repeat one)."""
    names = []
    for formula in op.formulas:
        match = NAMES_AN_INPUT.match(formula)
        assert match, f"{formula!r} does not start with ∂/∂<input> ="
        names.append(match.group(1))
    assert len(set(names)) == len(names), f"two inputs share a name: {names}"


@pytest.mark.parametrize("op", OPS, ids=IDS)
def test_every_op_has_cases_with_one_value_per_input(op):
    assert op.cases is not None
    cases = op.cases(np.random.default_rng(0))
    assert cases, "no cases"
    for case in cases:
        inputs, attrs = case
        assert isinstance(attrs, dict)
        if op.variadic:
            assert len(inputs) >= 1
        else:
            assert len(inputs) == op.arity


@pytest.mark.parametrize("op", list(registered_ops("scalar")), ids=lambda op: op.name)
def test_a_scalar_op_draws_its_cases_from_its_domain(op):
    assert op.domain is not None and len(op.domain) == op.arity
    for inputs, _attrs in op.cases(np.random.default_rng(0)):
        assert all(lo <= x <= hi for x, (lo, hi) in zip(inputs, op.domain, strict=True))


def test_the_infix_ops_are_the_ones_written_between_their_operands():
    infix = {(op.engine, op.name) for op in OPS if op.infix}
    binary = {"add", "sub", "mul", "div", "pow"}
    assert infix == ({("scalar", n) for n in binary} | {("tensor", n) for n in binary}
                     | {("tensor", "matmul")})


# --- define_op refuses a record it cannot use -------------------------------------------
def _fields(**changes):
    fields = dict(name="__test_op_records_twice", engine="scalar", symbol="2·",
                  forward=lambda x: (2 * x, ()), grads=(lambda g: 2 * g,),
                  formulas=("∂/∂x = 2",), domain=((-1.0, 1.0),))
    fields.update(changes)
    return fields


def _is_registered(name, engine="scalar"):
    return any(op.name == name for op in registered_ops(engine))


def test_define_op_refuses_a_name_already_registered():
    mul = get_op("mul", "scalar")
    with pytest.raises(ValueError, match="already registered"):
        define_op(**_fields(name="mul", grads=mul.grads, formulas=mul.formulas,
                            forward=mul.forward, domain=mul.domain))
    assert get_op("mul", "scalar") is mul


@pytest.mark.parametrize("formulas", [(), ("∂/∂a = 1", "∂/∂b = 1")], ids=["none", "two"])
def test_define_op_refuses_a_wrong_number_of_formulas(formulas):
    with pytest.raises(ValueError, match="one formula per input"):
        define_op(**_fields(formulas=formulas))
    assert not _is_registered("__test_op_records_twice")


def test_define_op_refuses_one_string_for_several_formulas():
    """The old single string, ``"∂/∂a = 1,  ∂/∂b = 1"``, is not a tuple of formulas."""
    with pytest.raises(TypeError, match="tuple of str"):
        define_op(**_fields(name="__test_op_records_pair", grads=(passthrough, passthrough),
                            formulas="∂/∂a = 1,  ∂/∂b = 1", domain=((-1.0, 1.0),) * 2))
    assert not _is_registered("__test_op_records_pair")


def test_a_variadic_op_takes_exactly_one_formula():
    cat = get_op("cat", "tensor")
    with pytest.raises(ValueError, match="one for all inputs of a variadic op"):
        define_op(name="__test_op_records_cat", engine="tensor", symbol="cat",
                  forward=cat.forward, vjp=cat.vjp, variadic=True,
                  formulas=("∂/∂x₁ = ...", "∂/∂x₂ = ..."), cases=cat.cases)
    assert not _is_registered("__test_op_records_cat", "tensor")
