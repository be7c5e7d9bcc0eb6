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
import traceback

import numpy as np

__all__ = [
    "ExerciseFailure", "fail", "fmt", "call", "close", "expect_close", "expect_tuple",
    "expect_array", "expect_scalar", "expect_returned", "rng_for", "forbidding",
]

_HERE = os.path.dirname(os.path.abspath(__file__))
_PACKAGE = os.path.dirname(_HERE)


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
        body = np.array2string(x, precision=4, suppress_small=True, threshold=12, edgeitems=2,
                               separator=", ")
        return f"{' '.join(body.split())} (shape {x.shape})"
    if isinstance(x, (tuple, list)):
        inner = ", ".join(fmt(v) for v in x)
        return f"({inner})" if isinstance(x, tuple) else f"[{inner}]"
    if hasattr(x, "parents") and hasattr(x, "id"):  # a graph node
        label = f" '{x.label}'" if getattr(x, "label", None) else ""
        op = x.op.name if getattr(x, "op", None) is not None else "leaf"
        return f"node #{x.id}{label} ({op})"
    return repr(x)


def signature_text(name: str, args: dict) -> str:
    return f"{name}(" + ", ".join(f"{k}={fmt(v)}" for k, v in args.items()) + ")"


# --- calling student code -----------------------------------------------------------
def _student_frame(tb):
    """The innermost traceback frame outside the exercise machinery (the student's line)."""
    where = None
    for frame, lineno in traceback.walk_tb(tb):
        path = os.path.abspath(frame.f_code.co_filename)
        if not path.startswith(_HERE) and "/numpy/" not in path and "/minigrad/" not in path:
            where = f"{os.path.basename(path)}:{lineno}"
    return where


def call(fn, name: str, args: dict, hint_on_error: str | None = None, context: str | None = None):
    """Call student code as ``fn(*args.values())``; turn a crash into a clear failure.

    ``context`` names the call in messages (default: the call with its arguments).

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
        where = _student_frame(exc.__traceback__)
        fail(f"{context or signature_text(name, args)} hit Python's recursion limit"
             + (f" (at {where})" if where else ""),
             hint_on_error or "walk the graph with an explicit stack (a list) instead of "
             "recursion: a deep graph has thousands of nodes")
    except Exception as exc:
        where = _student_frame(exc.__traceback__)
        at = f" at {where}" if where else ""
        fail(f"{context or signature_text(name, args)} raised {type(exc).__name__}: {exc}{at}",
             hint_on_error or _none_arithmetic_hint(exc))


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


def _is_number(x) -> bool:
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


def expect_returned(got, context: str):
    """Fail when a value was expected and ``None`` came back: almost always a missing
    ``return``, which the number checks below would misreport (as nan, or a wrong type)."""
    if got is None:
        fail(f"{context} returned None", "is a `return` missing? (a function without one "
             "returns None)")


def expect_scalar(got, *, what: str, context: str, hint: str | None = None):
    """Fail unless ``got`` is one number (a Python or numpy scalar, or a 0-d array)."""
    expect_returned(got, context)
    if _is_number(got):
        return
    if isinstance(got, np.ndarray):
        fail(f"{context}: {what} should be a single number, got an array of shape "
             f"{got.shape}{_dtype_note(got)}: {fmt(got)}", hint)
    fail(f"{context}: {what} should be a single number, got {type(got).__name__} {fmt(got)}",
         hint)


def _dtype_note(x) -> str:
    return f" (dtype {x.dtype})" if isinstance(x, np.ndarray) else ""


def expect_close(got, expected, *, what: str, context: str, hint: str | None = None,
                 upstream=None, atol=1e-9, rtol=1e-7):
    """Fail unless ``got`` matches the number or array ``expected``."""
    expect_returned(got, context)
    if isinstance(expected, np.ndarray) and expected.ndim > 0:
        expect_array(got, expected.shape, what=what, context=context, hint=hint)
    elif not _is_number(got):
        fail(f"{context}: {what} should be a number, got {type(got).__name__} {fmt(got)}", hint)
    if close(got, expected, atol=atol, rtol=rtol):
        return
    if isinstance(got, np.ndarray) and got.ndim:
        bad = np.argwhere(~np.isclose(np.asarray(got, np.float64), expected, atol=atol,
                                      rtol=rtol, equal_nan=True))
        at = tuple(int(i) for i in bad[0])
        detail = (f"{what} is wrong at index {at}: got {fmt(got[at])}, expected "
                  f"{fmt(expected[at])} ({len(bad)} of {got.size} elements differ)\n"
                  f"  got      {fmt(got)}\n  expected {fmt(expected)}")
    else:
        detail = f"{what} = {fmt(got)}, expected {fmt(expected)}"
    slip = diagnose(got, expected, upstream)
    if slip:
        hint = slip
    fail(f"{context}: {detail}", hint)


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
    return _is_number(x) and math.isfinite(float(x))
