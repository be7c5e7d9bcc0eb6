"""An op both engines have is ONE entry of ``ops.shared``: its math is written once.

Each test walks the registry, so an op registered in both engines whose rules are
written anywhere but its shared entry (a second ``define_op(name="mul", ...)``) fails
here, and so does an engine's own code for an entry that is not a recorded override,
or an override that does not compute the shared math.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad  # noqa: F401  (registers the scalar and tensor ops)
import minigrad.nn.functional  # noqa: F401  (and the functional ones)
from minigrad.core.op import get_op, passthrough, registered_ops
from minigrad.ops.scalar import FLOAT
from minigrad.ops.shared import PRIMITIVES, SHARED, Override, Primitives
from minigrad.ops.tensor import ARRAY
from minigrad.ops.tensor.elementwise import _LARGE

BOTH = sorted({op.name for op in registered_ops("scalar")}
              & {op.name for op in registered_ops("tensor")})
BOUND = {"scalar": FLOAT, "tensor": ARRAY}


def _codes(fn):
    """Every code object defined inside ``fn`` (its nested functions and lambdas)."""
    out, todo = [], [fn.__code__]
    while todo:
        code = todo.pop()
        out.append(code)
        todo.extend(c for c in code.co_consts if hasattr(c, "co_code"))
    return out


def test_the_ops_of_both_engines_are_the_shared_entries():
    assert BOTH == sorted(SHARED), (
        f"in both engines but not shared: {sorted(set(BOTH) - set(SHARED))}; "
        f"shared but not in both engines: {sorted(set(SHARED) - set(BOTH))}")
    assert len(BOTH) == 17


def test_both_engines_bind_every_primitive():
    for engine, m in BOUND.items():
        assert isinstance(m, Primitives) and m.engine == engine
        for name in PRIMITIVES:
            assert callable(getattr(m, name)), (engine, name)


@pytest.mark.parametrize("name", BOTH)
def test_each_engines_op_is_built_from_the_entry(name):
    """The registered op is the one the entry built, and its forward and every rule are the
    entry's code (the same ``__code__`` in both engines), unless recorded as an override."""
    entry = SHARED[name]
    codes = _codes(entry.math)
    per_engine = {}
    for engine, m in BOUND.items():
        op = get_op(name, engine)
        assert entry.ops.get(engine) is op, f"{engine}.{name} was registered apart from its entry"
        assert (op.symbol, op.formulas, op.infix, op.doc) == (
            entry.symbol, entry.formulas, entry.infix, entry.doc)
        forward, rules = entry.bind(m)
        overrides = entry.overrides[engine]
        for what, mine, shared in [("forward", op.forward, forward)] + [
                (f"grads[{i}]", r, s) for i, (r, s) in enumerate(zip(op.grads, rules))]:
            if what in overrides:
                code, why = overrides[what]
                assert mine is code and isinstance(why, Override) and why.why, (engine, what)
                continue
            if shared is passthrough:
                assert mine is passthrough, (engine, what)
                continue
            assert mine.__code__ is shared.__code__ and mine.__code__ in codes, (
                f"{engine}.{name} {what} is not the shared math")
            per_engine.setdefault(what, set()).add(mine.__code__)
        assert len(op.grads) == len(rules)
    for what, code in per_engine.items():
        assert len(code) == 1, (name, what)  # one source for both engines


def test_an_op_defined_apart_from_its_entry_is_caught():
    """What the walk above catches: the same math written again, outside the entry."""
    entry = SHARED["mul"]
    copy = minigrad.core.op.Op(name="mul", engine="tensor", symbol="×",
                               formulas=entry.formulas, forward=lambda a, b: (a * b, (a, b)),
                               grads=(lambda g, a, b: g * b, lambda g, a, b: g * a))
    assert copy is not entry.ops["tensor"]
    assert copy.grads[0].__code__ not in _codes(entry.math)


# --- every override computes the shared math -----------------------------------------------------
EDGES = [0.0, -0.0, 1.0, -1.0, 2.5, -3.0, 40.0, -40.0, 800.0, -800.0, math.inf, -math.inf,
         math.nan, 1e-300, -1e-300]


def _inputs(op, dtype, rng):
    """Every registry case in ``dtype``, plus large arrays (the in-place paths) and edges."""
    out = [(tuple(np.asarray(x).astype(dtype) for x in xs), attrs) for xs, attrs in op.cases(rng)]
    n = _LARGE + 5
    big = tuple(rng.uniform(0.3, 2.5, n).astype(dtype) for _ in op.grads)
    out.append((big, {}))
    edge = np.array(EDGES, dtype)
    if len(op.grads) == 1:
        out.append(((edge,), {}))
    else:
        a, b = np.meshgrid(edge, edge)
        out.append(((a.ravel(), b.ravel()), {}))
    return out


def _same(got, want, exact, where):
    got, want = np.asarray(got), np.asarray(want)  # (floats: 0-d float64 arrays)
    assert got.dtype == want.dtype and got.shape == want.shape, where
    if exact:
        np.testing.assert_array_equal(got, want, err_msg=str(where))
        assert (np.signbit(got) == np.signbit(want)).all(), where
    else:  # (a stated tolerance: an override that rounds differently says so)
        tol = 4 * np.finfo(got.dtype).eps
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=str(where))


OVERRIDES = [(name, engine, what) for name in BOTH for engine in BOUND
             for what in SHARED[name].overrides.get(engine, {})]


def test_the_overrides_are_listed():
    """Each is here on purpose; a new one is reviewed (and gets its reason)."""
    assert OVERRIDES == [("div", "tensor", "forward"), ("pow", "tensor", "grads[0]"),
                         ("relu", "scalar", "forward"), ("relu", "scalar", "grads[0]"),
                         ("sigmoid", "tensor", "forward"), ("sigmoid", "tensor", "grads[0]"),
                         ("tanh", "tensor", "grads[0]")]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name, engine, what", OVERRIDES)
def test_every_override_computes_the_shared_math(name, engine, what, dtype):
    """Values and gradients, on the registry's cases, on arrays large enough for the in-place
    paths and on every pairing of edge values (0, −0, ±inf, NaN, overflow), in float32 and
    float64 (floats: float64 only), for a random, an inf and a NaN upstream gradient: bit
    for bit, sign of zero included, where the override says ``exact``."""
    entry = SHARED[name]
    op = entry.ops[engine]
    code, why = entry.overrides[engine][what]
    forward, rules = entry.bind(BOUND[engine])
    rng = np.random.default_rng(0)
    if engine == "scalar":
        if dtype != np.float64:
            pytest.skip("the scalar engine's numbers are Python floats")
        edges = ([(e,) for e in EDGES] if len(op.grads) == 1
                 else [(a, b) for a in EDGES for b in EDGES])
        cases = [(xs, {}) for xs in edges] + op.cases(rng)
    else:
        cases = _inputs(op, dtype, rng)
    with np.errstate(all="ignore"):
        for xs, attrs in cases:
            out, saved = forward(*xs, **attrs)
            if what == "forward":
                mine, mine_saved = code(*xs, **attrs)
                _same(mine, out, why.exact, (what, xs))
                for a, b in zip(mine_saved, saved):
                    _same(a, b, why.exact, (what, "saved", xs))
                continue
            slot = int(what[6:-1])
            g = np.asarray(rng.standard_normal(np.shape(out))).astype(dtype)
            for upstream in (g, np.full_like(g, np.inf), np.full_like(g, np.nan)):
                if engine == "scalar":
                    upstream = float(upstream)
                _same(code(upstream, *saved, **attrs), rules[slot](upstream, *saved, **attrs),
                      why.exact, (what, xs, upstream))


def test_a_division_of_integers_is_the_shared_division_in_float32():
    """The one thing div's tensor forward adds: integer inputs are cast first."""
    a, b = np.array([1, 2, 7]), np.array([2, 0, 3])
    forward, _ = SHARED["div"].bind(ARRAY)
    with np.errstate(divide="ignore"):
        out, _ = get_op("div", "tensor").forward(a, b)
        want, _ = forward(a.astype(np.float32), b.astype(np.float32))
    _same(out, want, True, "int")


@pytest.mark.parametrize("name", [n for n in BOTH if get_op(n, "tensor").ufunc is not None])
def test_a_ufunc_is_the_shared_forward(name):
    """A one-ufunc tensor op's operators call the ufunc inline: it gives the shared forward's
    output bit for bit and keeps what the shared forward saves."""
    op = get_op(name, "tensor")
    forward, _ = SHARED[name].bind(ARRAY)
    rng = np.random.default_rng(1)
    for dtype in (np.float32, np.float64):
        with np.errstate(all="ignore"):
            for xs, _ in _inputs(op, dtype, rng):
                out, saved = forward(*xs)
                _same(op.ufunc(*xs), out, True, (name, xs))
                keep = {"nothing": (), "inputs": xs, "output": (out,)}[op.saves]
                assert len(keep) == len(saved) and all(
                    a is b or np.array_equal(a, b, equal_nan=True) for a, b in zip(keep, saved))


# --- the two engines compute the same numbers ---------------------------------------------------
@pytest.mark.parametrize("name", BOTH)
def test_floats_and_arrays_give_the_same_values_and_gradients(name):
    """The scalar op on each float and the tensor op on a float64 array of them: the same
    values and gradients, edges included, to a few ulps (libm's exp, log and tanh, which
    the float primitives use, and numpy's may round their last bit differently)."""
    scalar, tensor = get_op(name, "scalar"), get_op(name, "tensor")
    edge = np.array(EDGES)
    if scalar.arity == 1:
        columns = (edge,)
    else:
        a, b = np.meshgrid(edge, edge)
        columns = (a.ravel(), b.ravel())
    g = np.random.default_rng(2).standard_normal(columns[0].shape)
    with np.errstate(all="ignore"):
        out, saved = tensor.forward(*columns)
        grads = [rule(g, *saved) for rule in tensor.grads]
    for i in range(columns[0].size):
        xs = [float(c[i]) for c in columns]
        s_out, s_saved = scalar.forward(*xs)
        _close(s_out, out[i], (name, xs))
        for slot, rule in enumerate(scalar.grads):
            _close(rule(float(g[i]), *s_saved), np.broadcast_to(grads[slot], g.shape)[i],
                   (name, xs, slot))


def _close(a, b, where):
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b):
        assert math.isnan(a) and math.isnan(b), where
    else:
        assert a == pytest.approx(b, rel=1e-14, abs=1e-300), where
