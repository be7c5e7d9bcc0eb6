"""``minigrad.jit``: trace a function, rewrite its program, run it fused and compiled.

    from minigrad import jit

    t = jit.trace(f, x, y)        # the op records of one run, as a program
    print(t)                      # one line per op
    t = jit.fuse_elementwise(jit.cse(jit.dce(t)))   # passes: print before and after
    print(jit.compile(t).source())                  # the generated forward and backward
    fast_f = jit.jit(f)           # all of it, cached per input signature
    step = jit.train_step(loss_fn, optimizer)      # forward, backward and update, no graph

Modules: ``ir`` (Trace, Eqn, Var), ``tracing`` (trace, guards), ``passes``
(dce, cse, fold_constants, fuse_elementwise), ``symbolic`` (op code run on
symbols), ``kernels`` (fused kernels: numexpr or numpy with reused buffers),
``compiled`` (a trace as one graph node), ``api`` (jit), ``train`` (train_step), ``picture``
(a trace as graph nodes, for ``viz.draw``).
"""

from .api import Jitted, jit
from .compiled import Compiled, compile_trace
from .ir import Eqn, Trace, Var
from .kernels import numexpr_module
from .passes import PASSES, cse, dce, fold_constants, freeze, fuse_elementwise, optimize
from .tracing import TraceError, trace
from .train_step import TrainStep, train_step

compile = compile_trace  # noqa: A001  (jit.compile(trace), as the lessons say it)

__all__ = ["jit", "Jitted", "train_step", "TrainStep", "trace", "Trace", "Eqn", "Var",
           "TraceError", "compile",
           "compile_trace", "Compiled", "dce", "cse", "fold_constants", "freeze",
           "fuse_elementwise", "optimize", "PASSES", "numexpr_module"]
