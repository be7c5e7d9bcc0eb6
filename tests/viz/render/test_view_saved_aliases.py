"""What an op saved is labelled by what it is: ``out`` only for what its rule calls out
(``build_view``'s saved aliases), over the whole op table."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import minigrad
import viz
from minigrad import Tensor, Value
from minigrad.core.op import registered_ops


def saved_aliases(node) -> list:
    view = viz.build_view(node, show_saved=True)
    return [s.alias for s in view.node(node).saved]


def test_scalar_relu_saves_its_output_and_maximum_its_weights():
    # (ops.shared: as the tensor engine's.)  For x > 0 the scalar forward returns x
    # itself, the same float object as out, which is labelled out, as relu's rule names it.
    assert saved_aliases(Value(1.5).relu()) == ["out"]
    assert saved_aliases(Value(-1.5).relu()) == ["out"]
    a, b = Value(1.5), Value(0.5)
    assert saved_aliases(a.maximum(b)) == [None, None]  # the weights 1.0 and 0.0
    src = viz.draw(Value(1.5).relu(), show_saved=True).source
    assert ">out<" in src and "= input 0" not in src  # (relu's rule calls it out)


@pytest.mark.parametrize("make", [lambda v: Value(v), lambda v: Tensor(np.array([v, 2 * v]),
                                                                        requires_grad=True),
                                  lambda v: Tensor(np.array(v), requires_grad=True)],
                         ids=["scalar", "tensor", "tensor-0d"])
def test_ops_that_save_their_output_still_say_out(make):
    # (a 0-d numpy op returns a scalar, which the tensor engine makes an array: the saved
    # output must be that same array, not the scalar, to be recognised as out)
    for fn in (lambda x: x.tanh(), lambda x: x.exp(), lambda x: x.sigmoid(),
               lambda x: x.sqrt(), lambda x: x.relu() if isinstance(x, Tensor) else x.tanh()):
        assert saved_aliases(fn(make(0.7))) == ["out"]
    assert saved_aliases(make(0.7) ** 2) == ["input 0", "input 1", "out"]
    x = make(0.7)
    assert saved_aliases(x * x) == ["input 0", "input 0"]


def _rule_names(op) -> list[str] | None:
    """The names a rule gives the saved values: ``rule(g, x)`` -> ``["x"]``."""
    try:
        params = list(inspect.signature(op.grads[0]).parameters.values())
    except (TypeError, ValueError, IndexError):
        return None
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return None
    return [p.name for p in params[1:] if p.kind is p.POSITIONAL_OR_KEYWORD]


def _scalar_nodes(op):
    for t in (0.2, 0.8):  # both halves of the domain: ReLU's kink, max's tie side
        xs = [Value(lo + t * (hi - lo)) for lo, hi in op.domain]
        yield xs[0]._unary(op) if op.arity == 1 else xs[0]._binary(op, xs[1])


def _tensor_nodes(op):
    for inputs, attrs in op.cases(np.random.default_rng(0))[:3]:
        xs = [Tensor(np.asarray(x), requires_grad=np.asarray(x).dtype.kind == "f")
              for x in inputs]
        if not any(x.requires_grad for x in xs):
            continue
        out = minigrad.apply_op(op, *xs, **attrs)
        # (a multi-output op's saved values are its record's, its outputs' one parent)
        yield out[0].parents[0] if isinstance(out, tuple) else out


BUILT_IN_OPS = [op for op in registered_ops()
                if op.engine in ("scalar", "tensor") and (op.domain or op.cases)]


@pytest.mark.parametrize("op", BUILT_IN_OPS, ids=lambda op: f"{op.engine}.{op.name}")
def test_every_ops_saved_values_are_labelled_as_its_rules_name_them(op):
    """A saved value the rule calls ``out`` is labelled out; one it calls anything
    else (x, a, b, p, a mask ...) is never labelled out.  (Unlabelled is allowed: a
    0-d tensor op saves a numpy scalar, not the array its node holds.)"""
    names = _rule_names(op)
    nodes = _scalar_nodes(op) if op.engine == "scalar" else _tensor_nodes(op)
    for node in nodes:
        if node.op is not op or not node.saved or names is None:
            continue
        for name, alias in zip(names, saved_aliases(node)):
            if alias is not None:
                assert (alias == "out") == (name == "out"), (op.name, name, alias)
