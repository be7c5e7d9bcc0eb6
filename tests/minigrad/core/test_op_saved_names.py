"""``Op.saved_names``: what an op saved is named by its rules' parameters, over the whole table."""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest

import minigrad  # noqa: F401  (registers every op)
from minigrad.core import op as op_module
from minigrad.core.op import Op, no_gradient, passthrough, registered_ops
from tests._helpers import INTERNAL_EXAMPLES, example_leaves, example_node

NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\[\d+\])?$")
OPS = list(registered_ops())


def _check_names(where, names, saved, attrs):
    """Either a fallback (``None``) or one distinct name per saved value, none of them a
    setting the case passed (that would be a setting read as a saved value)."""
    if names is None:
        return
    assert len(names) == len(saved), f"{where}: {len(names)} names for {len(saved)} saved"
    assert len(set(names)) == len(names), f"{where}: repeated names {names}"
    for name in names:
        assert NAME.match(name), f"{where}: {name!r} is not a parameter name"
        assert name.split("[")[0] not in attrs, f"{where}: {name!r} is a setting, not saved"


@pytest.mark.parametrize("op", OPS, ids=lambda op: f"{op.engine}.{op.name}")
def test_every_registered_op_names_what_forward_saves_or_falls_back(op):
    rng = np.random.default_rng(0)
    for inputs, attrs in op.cases(rng):
        _, saved = op.forward(*inputs, **attrs)
        _check_names(f"{op.engine}.{op.name}", op.saved_names(len(saved)), saved, attrs)


def _first_case(op):
    """``(out, saved, attrs, names)`` of the op's first example case."""
    inputs, attrs = op.cases(np.random.default_rng(1))[0]
    out, saved = op.forward(*inputs, **attrs)
    return out, saved, attrs, op.saved_names(len(saved))


def _named_plainly(op) -> bool:
    """The op names every saved value by a parameter (no fallback, no ``*rest``)."""
    names = _first_case(op)[3]
    return bool(names) and not any("[" in n for n in names)


# (the ops that fall back to indices, or name a ``*rest``, have nothing to pass by name;
# the test above checks them)
NAMED = [op for op in OPS if op.grads and _named_plainly(op)]


def test_most_ops_name_their_saved_values_plainly():
    """The plain names are the rule, not the exception: the by-name test below covers
    nearly every op with gradient rules."""
    with_rules = [op for op in OPS if op.grads]
    assert len(NAMED) >= 0.8 * len(with_rules), (len(NAMED), len(with_rules))


@pytest.mark.parametrize("op", NAMED, ids=lambda op: f"{op.engine}.{op.name}")
def test_the_names_are_the_rules_own_parameters(op):
    """Each rule, given the saved values by those names, computes what it computes
    given them by position: the names are what the math calls them."""
    out, saved, attrs, names = _first_case(op)
    g = np.ones_like(out) if isinstance(out, np.ndarray) else 1.0
    for rule in op.grads:
        if rule in (passthrough, no_gradient):
            continue
        by_position = rule(g, *saved, **attrs)
        by_name = rule(g, **dict(zip(names, saved)), **attrs)
        if by_position is None:
            assert by_name is None
        else:
            np.testing.assert_array_equal(np.asarray(by_name), np.asarray(by_position))


@pytest.mark.parametrize("example", INTERNAL_EXAMPLES, ids=lambda e: e.name)
def test_every_internal_op_names_what_its_node_saved_or_falls_back(example):
    rng = np.random.default_rng(0)
    for inputs, attrs in example.cases(rng):
        node = example_node(example, *example_leaves(example, inputs), **attrs)
        saved = node.saved or ()
        _check_names(example.name, node.op.saved_names(len(saved)), saved, attrs)


def test_the_math_names_the_common_ops():
    """The table's own rules give the names a student reads in the drawing."""
    def names(name, engine="tensor", count=None):
        op = op_module.get_op(name, engine)
        rng = np.random.default_rng(0)
        inputs, attrs = op.cases(rng)[0]
        return op.saved_names(len(op.forward(*inputs, **attrs)[1]) if count is None else count)

    assert names("mul", "scalar") == names("mul") == ("a", "b")
    assert names("div") == ("b", "out")
    assert names("sum") == ("shape",)  # (axis and keepdims are settings, past the count)
    assert names("tanh") == ("out",)
    assert names("maximum") == ("share_a", "share_b")
    assert names("max_dim") == ("shape", "index")  # (a multi-output vjp: its rule's names)
    assert names("cat", count=3) == ("lengths[0]", "lengths[1]", "lengths[2]")
    assert names("linear_relu") is None  # (a fused op's rules take *saved: indices)


def _op(**fields):
    base = dict(name="t", engine="tensor", symbol="t", forward=lambda x: (x, (x, x)),
                formulas=("∂/∂x = 1",))
    return Op(**{**base, **fields})


def test_rules_that_say_nothing_or_disagree_fall_back_to_indices():
    assert _op(grads=(lambda g, *saved: g,)).saved_names(2) is None
    assert _op(grads=(passthrough,)).saved_names(1) is None
    two = dict(forward=lambda a, b: (a, (a, b)), formulas=("", ""))
    assert _op(grads=(lambda g, a, b: g, lambda g, x, y: g), **two).saved_names(2) is None
    assert _op(grads=(lambda g, a, b: g, lambda g, a, b: g), **two).saved_names(2) == ("a", "b")
    # a rule that names the first and takes the rest as *saved cannot name them all
    assert _op(grads=(lambda g, a, *saved: g,)).saved_names(2) is None
    assert _op(grads=(lambda g, a, *saved: g,)).saved_names(1) == ("a",)
    # a passthrough beside a rule that names them does not overrule it
    assert _op(grads=(passthrough, lambda g, a, b: g), **two).saved_names(2) == ("a", "b")
    # keyword-only settings are not saved values
    assert _op(grads=(lambda g, x, *, axis=0: g,)).saved_names(1) == ("x",)
    assert _op(grads=(lambda g, x, *, axis=0: g,)).saved_names(2) is None


def test_a_custom_function_names_them_as_pytorch_does():
    class Twice(minigrad.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    y = Twice.apply(minigrad.tensor([1.0, 2.0], requires_grad=True))
    assert y.op.saved_names(len(y.saved)) == ("saved_tensors[0]",)


def test_the_signature_is_read_once_per_op(monkeypatch):
    op = _op(grads=(lambda g, a, b: g,))
    calls = []
    real = inspect.signature
    monkeypatch.setattr(op_module.inspect, "signature", lambda f: calls.append(f) or real(f))
    assert op.saved_names(2) == op.saved_names(2) == ("a", "b")
    assert op.saved_names(1) == ("a",)
    assert len(calls) == 1
