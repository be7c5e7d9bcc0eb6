"""What every check uses: the failure type, calling student code, comparing answers.

A check fails by raising ``ExerciseFailure`` with a message a student can act
on: the call that went wrong (with its arguments), what came back, what was
expected, and, where a common mistake can be recognised from the numbers, a
hint naming it.  Checks use seeded random inputs and random upstream
gradients, because an all-ones upstream hides a rule that forgets to multiply
by it.
"""

from __future__ import annotations

import contextlib
import math
import os
import sys

import numpy as np

from .._traceback import student_frame

__all__ = [
    "ExerciseFailure", "fail", "fmt", "fmt_typed", "type_name", "is_number", "call", "close",
    "expect_close", "expect_tuple", "expect_array", "expect_scalar", "expect_returned",
    "rng_for", "forbidding",
]

class ExerciseFailure(AssertionError):
    """The student's answer is wrong; the message says how (and often why)."""


def fail(message: str, hint: str | None = None):
    """Stop the check with ``message`` (and a hint on its own line)."""
    if hint:
        message = f"{message}\nhint: {hint}"
    raise ExerciseFailure(message)


def rng_for(name: str) -> np.random.Generator:
    """A generator seeded from a check's name: fixed inputs, different per check."""
    return np.random.default_rng(sum(ord(c) * 31**i for i, c in enumerate(name)) % 2**32)


# --- formatting ------------------------------------------------------------------
def fmt(x) -> str:
    """Short, stable text for a number, array, tuple or node in a message."""
    if isinstance(x, bool) or x is None:
        return repr(x)
    if isinstance(x, (float, np.floating)):
        return f"{float(x):.6g}"
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    if isinstance(x, np.ndarray):
        if x.ndim == 0:
            return fmt(x.item())
        return f"{_array_body(x)} (shape {x.shape})"
    if isinstance(x, (tuple, list)):
        inner = ", ".join(fmt(v) for v in x)
        return f"({inner})" if isinstance(x, tuple) else f"[{inner}]"
    if hasattr(x, "parents") and hasattr(x, "id"):  # a graph node
        label = f" '{x.label}'" if getattr(x, "label", None) else ""
        op = x.op.name if getattr(x, "op", None) is not None else "leaf"
        return f"node #{x.id}{label} ({op})"
    return repr(x)


def _array_body(x: np.ndarray, **options) -> str:
    body = np.array2string(x, **{"precision": 4, "suppress_small": True, "threshold": 12,
                                 "edgeitems": 2, "separator": ", ", **options})
    return " ".join(body.split())


def type_name(x) -> str:
    """What kind of thing ``x`` is, as a student would write it: ``int``, ``float``,
    ``numpy.int64``, ``0-d numpy array, dtype int64``, ``numpy array, dtype float32``."""
    if isinstance(x, np.ndarray):
        return f"{'0-d ' if x.ndim == 0 else ''}numpy array, dtype {x.dtype}"
    if isinstance(x, np.generic):
        return f"numpy.{type(x).__name__}"
    return type(x).__name__


def fmt_typed(x) -> str:
    """``fmt(x)`` with the type it came as, for answers whose *type* may be the mistake:
    ``376.0 (float)``, ``376 (numpy.int64)``, ``True (0-d numpy array, dtype bool)``,
    ``[1, 2] (shape (2,), dtype int64)``.  A whole float keeps its ``.0``."""
    if isinstance(x, np.ndarray) and x.ndim:
        return f"{_array_body(x)} (shape {x.shape}, dtype {x.dtype})"
    text = fmt(x)
    value = x.item() if isinstance(x, (np.ndarray, np.generic)) else x
    if isinstance(value, float) and text.lstrip("-").isdigit():
        text += ".0"
    return f"{text} ({type_name(x)})"


def signature_text(name: str, args: dict) -> str:
    return f"{name}(" + ", ".join(f"{k}={fmt(v)}" for k, v in args.items()) + ")"


# --- calling student code -----------------------------------------------------------
def _student_frame(tb):
    """``file.py:line`` of the student's innermost frame (see ``exercises/_traceback.py``)."""
    where = student_frame(tb)
    return f"{os.path.basename(where[0])}:{where[1]}" if where else None


def call(fn, name: str, args: dict, hint_on_error=None, context: str | None = None):
    """Call student code as ``fn(*args.values())``; turn a crash into a clear failure.

    ``context`` names the call in messages (default: the call with its arguments).
    ``hint_on_error`` is the hint for a crash, or a function of the exception that
    returns one (or ``None``: the usual hint), for hints that depend on what went wrong.

    ``NotImplementedError`` passes through untouched: it is how an untouched
    stub says "not attempted yet".
    """
    try:
        return fn(*args.values())
    except NotImplementedError:
        raise
    except ExerciseFailure:
        raise
    except RecursionError as exc:
        hint_on_error = _hint(hint_on_error, exc)
        where = _student_frame(exc.__traceback__)
        fail(f"{context or signature_text(name, args)} hit Python's recursion limit"
             + (f" (at {where})" if where else ""),
             hint_on_error or "walk the graph with an explicit stack (a list) instead of "
             "recursion: a deep graph has thousands of nodes")
    except Exception as exc:
        hint_on_error = _hint(hint_on_error, exc)
        where = _student_frame(exc.__traceback__)
        at = f" at {where}" if where else ""
        fail(f"{context or signature_text(name, args)} raised {type(exc).__name__}: {exc}{at}",
             hint_on_error or _none_arithmetic_hint(exc))


def _hint(hint_on_error, exc: Exception) -> str | None:
    """``call``'s hint for ``exc``: as given, or computed from the exception."""
    return hint_on_error(exc) if callable(hint_on_error) else hint_on_error


def _none_arithmetic_hint(exc: Exception) -> str | None:
    """The usual cause of ``unsupported operand type(s) for +=: 'NoneType' and 'float'``."""
    if isinstance(exc, TypeError) and "'NoneType'" in str(exc) and "operand" in str(exc):
        return ("a value is None where a number is expected: a .grad is None until a "
                "gradient flows in, so the first contribution is assigned, not added "
                "(grad = local if grad is None else grad + local); a function without "
                "`return` also gives None")
    return None


@contextlib.contextmanager
def forbidding(impl, places, why: str):
    """While active, calling the functions at ``places`` (``(owner, attribute)`` pairs)
    fails with ``why``, also where the student's module imported them by name.

    It keeps an exercise honest ("write the loop yourself") without reading source code.
    """
    originals = [(owner, name, getattr(owner, name)) for owner, name in places]
    wanted = {id(fn) for _, _, fn in originals}
    module = sys.modules.get(getattr(impl, "__module__", None) or "")
    namespace = getattr(impl, "__globals__", None) or (vars(module) if module else {})
    aliases = [(key, value) for key, value in namespace.items() if id(value) in wanted]

    def blocked(*args, **kwargs):
        fail(why)

    try:
        for owner, name, _ in originals:
            setattr(owner, name, blocked)
        for key, _ in aliases:
            namespace[key] = blocked
        yield
    finally:
        for owner, name, fn in originals:
            setattr(owner, name, fn)
        for key, value in aliases:
            namespace[key] = value


# --- comparing answers --------------------------------------------------------------------
def close(got, expected, atol=1e-9, rtol=1e-7) -> bool:
    """Numbers or arrays equal up to tolerance; NaN matches NaN, inf matches inf."""
    try:
        g = np.asarray(got, dtype=np.float64)
        e = np.asarray(expected, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    if g.shape != e.shape:
        return False
    return bool(np.allclose(g, e, atol=atol, rtol=rtol, equal_nan=True))


def is_number(x) -> bool:
    """A Python or numpy number, or a 0-d array (not a bool): something ``float()`` reads."""
    return isinstance(x, (int, float, np.floating, np.integer)) and not isinstance(x, bool) or (
        isinstance(x, np.ndarray) and x.ndim == 0)


def diagnose(got, expected, upstream=None) -> str | None:
    """Recognise common slips from the numbers alone."""
    try:
        g = np.asarray(got, dtype=np.float64)
        e = np.asarray(expected, dtype=np.float64)
    except (TypeError, ValueError):
        return None
    if g.shape != e.shape or not np.all(np.isfinite(g)):
        return None
    slip = _dtype_slip(got, expected, g, e)
    if slip:
        return slip
    if np.any(e != 0) and close(g, -e):
        return "the sign is flipped"
    if upstream is not None:
        u = np.asarray(upstream, dtype=np.float64)
        if np.all(u != 0) and g.shape == np.broadcast_shapes(g.shape, u.shape):
            if close(g * u, e):
                return ("this is the local derivative alone: multiply it by the upstream "
                        "gradient g (the chain rule)")
            if close(g, e * u):
                return "the upstream gradient g is multiplied in twice"
    return None


def _dtype_slip(got, expected, g, e) -> str | None:
    """A numpy result whose dtype cannot hold the expected floats: integers (each value
    cut to a whole number) or a narrower float (right only to its own precision)."""
    if not isinstance(got, (np.ndarray, np.generic)):
        return None
    have, want = got.dtype, np.asarray(expected).dtype
    if want.kind != "f" or have == want:
        return None
    if have.kind in "biu":
        return (f"the result has an integer dtype ({have}), so each value was cut to a whole "
                f"number when stored: create it with a float dtype (np.zeros(shape) is "
                f"{want})")
    if have.kind == "f" and have.itemsize < want.itemsize:
        eps = float(np.finfo(have).eps)
        if close(g, e, atol=100 * eps, rtol=100 * eps):
            return (f"the values are right to {have} precision (about "
                    f"{np.finfo(have).precision} digits), which is not enough: keep the result "
                    f"{want} (do not create it as, or convert it to, {have})")
    return None


def expect_returned(got, context: str):
    """Fail when a value was expected and ``None`` came back: almost always a missing
    ``return``, which the number checks below would misreport (as nan, or a wrong type)."""
    if got is None:
        fail(f"{context} returned None", "is a `return` missing? (a function without one "
             "returns None)")


def expect_scalar(got, *, what: str, context: str, hint: str | None = None):
    """Fail unless ``got`` is one number (a Python or numpy scalar, or a 0-d array)."""
    expect_returned(got, context)
    if is_number(got):
        return
    if isinstance(got, np.ndarray):
        fail(f"{context}: {what} should be a single number, got an array of shape "
             f"{got.shape} (dtype {got.dtype}): {fmt(got)}", hint)
    fail(f"{context}: {what} should be a single number, got {type(got).__name__} {fmt(got)}",
         hint)


def expect_close(got, expected, *, what: str, context: str, hint: str | None = None,
                 upstream=None, atol=1e-9, rtol=1e-7):
    """Fail unless ``got`` matches the number or array ``expected``."""
    expect_returned(got, context)
    if isinstance(expected, np.ndarray) and expected.ndim > 0:
        expect_array(got, expected.shape, what=what, context=context, hint=hint)
    elif not is_number(got):
        fail(f"{context}: {what} should be a number, got {type(got).__name__} {fmt(got)}", hint)
    if close(got, expected, atol=atol, rtol=rtol):
        return
    if isinstance(got, np.ndarray) and got.ndim:
        detail = _array_mismatch(got, np.asarray(expected), what, atol, rtol)
    else:
        got_text, expected_text = _pair_texts(got, expected, typed=_dtype(got) != _dtype(expected))
        detail = f"{what} = {got_text}, expected {expected_text}"
    slip = diagnose(got, expected, upstream)
    if slip:
        hint = slip
    fail(f"{context}: {detail}", hint)


def _dtype(x) -> np.dtype:
    """The dtype numpy gives ``x`` (a Python float is float64, like np.float64)."""
    return x.dtype if isinstance(x, (np.ndarray, np.generic)) else np.asarray(x).dtype


def _pair_texts(got, expected, *, typed: bool) -> tuple[str, str]:
    """Two numbers as text, with enough digits to tell them apart (6 usually do; a float32
    next to its float64 needs more), and with their types when ``typed``."""
    texts = fmt(got), fmt(expected)
    if texts[0] == texts[1]:
        try:
            a, b = float(got), float(expected)
        except (TypeError, ValueError):
            a = b = None
        if a is not None and a != b:
            digits = next((d for d in range(7, 18) if f"{a:.{d}g}" != f"{b:.{d}g}"), 17)
            texts = f"{a:.{digits}g}", f"{b:.{digits}g}"
    if typed:
        texts = tuple(f"{t} ({_scalar_kind(x)})" for t, x in zip(texts, (got, expected)))
    return texts


def _scalar_kind(x) -> str:
    if isinstance(x, (np.ndarray, np.generic)):
        return str(x.dtype)
    return type(x).__name__


def _array_mismatch(got: np.ndarray, expected: np.ndarray, what: str, atol, rtol) -> str:
    """Where an array answer is wrong: the first wrong element, how many are wrong, and
    either both arrays (when they are small enough to read) or, for bigger ones, their
    shape and dtype, the largest difference and the neighbourhood of the first wrong
    element along the last axis.  Dtypes are named wherever they differ."""
    g = np.asarray(got, np.float64)
    e = np.asarray(expected, np.float64)
    bad = np.argwhere(~np.isclose(g, e, atol=atol, rtol=rtol, equal_nan=True))
    at = tuple(int(i) for i in bad[0])
    typed = got.dtype != expected.dtype
    got_text, expected_text = _pair_texts(got[at], expected[at], typed=typed)
    first = (f"{what} is wrong at index {at}: got {got_text}, expected {expected_text} "
             f"({len(bad)} of {got.size} elements differ)")
    if got.ndim <= 2 or got.size <= 12:
        dtypes = (f", dtype {got.dtype}", f", dtype {expected.dtype}") if typed else ("", "")
        return (f"{first}\n  got      {_array_body(got)} (shape {got.shape}{dtypes[0]})\n"
                f"  expected {_array_body(expected)} (shape {expected.shape}{dtypes[1]})")
    dtype = f"dtype {got.dtype}, expected {expected.dtype}" if typed else f"dtype {got.dtype}"
    summary = f"  shape {got.shape}, {dtype}"
    with np.errstate(invalid="ignore"):
        diff = np.abs(g - e)
    diff[~np.isfinite(diff)] = -1.0  # nan or inf on either side: no size to compare
    if diff.max() > 0:
        worst = tuple(int(i) for i in np.unravel_index(int(np.argmax(diff)), diff.shape))
        summary += f"; largest difference {fmt(diff[worst])}, at index {worst}"
    # up to 8 neighbours of the first wrong element along the last axis
    n = got.shape[-1]
    lo = max(0, min(at[-1] - 3, n - 8))
    hi = min(n, lo + 8)
    cut = ":" if (lo, hi) == (0, n) else f"{lo}:{hi}"
    index = ", ".join([*map(str, at[:-1]), cut])
    labels = f"got[{index}]", f"expected[{index}]"
    width = max(map(len, labels)) + 1
    rows = [_array_body(a[at[:-1]][lo:hi], threshold=1000) for a in (got, expected)]
    return (f"{first}\n{summary}\n  {labels[0]:<{width}}{rows[0]}\n"
            f"  {labels[1]:<{width}}{rows[1]}")


def expect_tuple(result, n: int, *, names: tuple[str, ...], context: str):
    """Fail unless ``result`` is a tuple/list of ``n`` items (named in the message)."""
    expect_returned(result, context)
    if not isinstance(result, (tuple, list)) or len(result) != n:
        got = (f"a {type(result).__name__} of length {len(result)}"
               if isinstance(result, (tuple, list)) else f"{type(result).__name__} {fmt(result)}")
        fail(f"{context}: should return a pair ({', '.join(names)}), got {got}"
             if n == 2 else f"{context}: should return {n} values ({', '.join(names)}), got {got}")
    return tuple(result)


def expect_array(got, shape: tuple, *, what: str, context: str, hint: str | None = None):
    """Fail unless ``got`` is a numpy array of exactly ``shape``."""
    expect_returned(got, context)
    if not isinstance(got, np.ndarray):
        fail(f"{context}: {what} should be a numpy array of shape {shape}, got "
             f"{type(got).__name__} {fmt(got)}", hint)
    if got.shape != tuple(shape):
        fail(f"{context}: {what} has shape {got.shape}, expected {tuple(shape)}", hint)


def is_finite_number(x) -> bool:
    return is_number(x) and math.isfinite(float(x))
