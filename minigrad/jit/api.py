"""``jit(fn)``: trace once per input signature, optimise, compile, then reuse.

A signature is each input's shape, dtype and ``requires_grad``: a call with a
new one traces again (a different shape is a different program; which inputs
need gradients decides which gradients the backward computes).  Captured
params are checked too (``Compiled.param_arrays``): a model whose weights
changed shape retraces.

When tracing refuses (``TraceError``: value-dependent control flow, a random
op, ... see ``tracing.py``), ``jit`` warns once and runs that signature eagerly
from then on: slower, never wrong.  ``stats`` counts what happened, for the
lesson: traces, cache hits, eager fallbacks, and the time the first call took.
"""

from __future__ import annotations

import functools
import time
import warnings

import numpy as np

from ..tensor import Tensor
from .compiled import Compiled
from .passes import optimize
from .tracing import TraceError, trace

__all__ = ["jit", "Jitted"]


def _signature(args) -> tuple:
    sig = []
    for a in args:
        d = a.data if isinstance(a, Tensor) else np.asarray(a)
        sig.append((d.shape, d.dtype, bool(getattr(a, "requires_grad", False))))
    return tuple(sig)


class Jitted:
    """``fn`` with a cache of compiled traces, one per input signature."""

    def __init__(self, fn, passes=optimize, backend: str | None = None):
        self.fn = fn
        self.passes = passes
        self.backend = backend
        self.cache: dict = {}
        self.stats = {"traces": 0, "hits": 0, "fallbacks": 0, "trace_seconds": 0.0}
        functools.update_wrapper(self, fn)

    def __call__(self, *args):
        compiled, arrays = self.program(args)
        if compiled is None:
            return self.fn(*args)
        return compiled.run(args, arrays)

    def program(self, args) -> tuple:
        """``(compiled, param arrays)`` to run ``args`` with, traced and compiled if
        needed; ``(None, None)`` when this signature runs eagerly.  Counts in ``stats``."""
        key = _signature(args)
        compiled = self.cache.get(key)
        if compiled.__class__ is Compiled:
            arrays = compiled.param_arrays()  # None: a param changed shape or dtype
            if arrays is not None:
                self.stats["hits"] += 1
                return compiled, arrays
        if compiled is not _EAGER:
            start = time.perf_counter()
            compiled = self.compile(key, args)
            self.stats["trace_seconds"] += time.perf_counter() - start
        if compiled is _EAGER:
            self.stats["fallbacks"] += 1
            return None, None
        return compiled, compiled.param_arrays()

    def compile(self, key, args):
        """Trace ``fn`` on ``args``, run the passes, compile; cache under ``key``."""
        self.stats["traces"] += 1
        try:
            t = trace(self.fn, *args)
        except TraceError as err:
            warnings.warn(f"jit({self.__name__}): running eagerly for this input signature: "
                          f"{err}", stacklevel=3)
            self.cache[key] = _EAGER
            return _EAGER
        t = self.passes(t, self.backend) if self.passes is optimize else self.passes(t)
        needs = tuple(r for _, _, r in key) + tuple(True for _ in t.params)
        compiled = Compiled(t, needs, self.backend)
        self.cache[key] = compiled
        return compiled

    def trace_for(self, *args):
        """The optimised trace ``fn`` runs for inputs like ``args`` (traced if needed)."""
        key = _signature(args)
        if key not in self.cache:
            self.compile(key, args)
        compiled = self.cache[key]
        if compiled is _EAGER:
            raise TraceError(f"jit({self.__name__}) runs eagerly for this signature")
        return compiled.trace

    def source(self, *args) -> str:
        """The generated source for inputs like ``args``."""
        key = _signature(args)
        self.trace_for(*args)
        return self.cache[key].source()

    def __repr__(self) -> str:
        return f"<jit {self.__name__}: {len(self.cache)} signatures, {self.stats}>"


_EAGER = object()  # a cache entry: this signature runs eagerly


def jit(fn=None, *, passes=optimize, backend: str | None = None):
    """Compile ``fn`` on its first call for each input signature (see the module doc).

    ``passes`` is a function from a Trace to a Trace (``passes.optimize`` by
    default; ``lambda t: t`` compiles the trace as traced).  ``backend`` picks the
    fused kernels' backend: ``"numexpr"``, ``"numpy"`` or ``None`` (numexpr for
    large arrays when it is installed).  Usable as ``@jit`` or ``@jit(backend=...)``.
    """
    if fn is None:
        return lambda f: Jitted(f, passes, backend)
    return Jitted(fn, passes, backend)

