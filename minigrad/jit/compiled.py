"""A trace compiled to Python: one generated forward, one generated backward, one graph node.

``compile_trace(trace)`` writes the trace out as straight-line Python source:

* the **forward** calls each equation's op in order: a one-ufunc op as its
  ufunc (``np.multiply(x0, p0)``), any other op through its forward, a fused
  equation through its kernel (``kernels.py``); it returns the output and what
  the backward will read;
* the **backward** is the reverse-mode walk unrolled: for each equation, last
  first, the registry's gradient rule of each input that needs a gradient,
  called with the equation's saved values; contributions to a value used twice
  are added (``g5 = g5 + c``), and summed down to the input's shape
  (``unbroadcast``) where the op broadcast it.  Rules that pass ``g`` on
  (``passthrough``) are not called.  Gradients of inputs that need none are
  never computed (the trace knows which do: ``needs``).

The compiled trace runs as ONE registry op per trace (``Compiled.op``, not
registered globally): a call records one graph node, which eager code around it
backpropagates through, and ``viz.draw`` shows as one node.  Its backward runs on
raw arrays, so ``create_graph=True`` through it is a clear error.
``Compiled.source()`` is the generated text, to read.

Two things make a call cheap when a trace has many params (a model's weights):

* **The node declares that its gradients fit** (``grads_fit_inputs``): the
  backward returns each gradient as a new array of its input's shape and dtype
  (``_backward``), so the fast engine stores it with no check and no copy.
  ``apply_op(compiled.op, ...)`` builds the same node without the flag: the
  readable path, where the engine checks and copies;
  ``tests/minigrad/jit/test_compiled_engines.py`` proves the two give the same bits, and
  the reference engine too.
* **Params are checked by identity**: a call reads each param's array; when every
  one is the very array of the last call, none can have a new shape or dtype.
  Only when some array was replaced are shapes and dtypes compared (an array
  reshaped in place, ``a.shape = ...``, is not seen: assign a new array).
"""

from __future__ import annotations

from functools import partial
from operator import is_

import numpy as np

from ..core.accumulate import unbroadcast
from ..core.node import init_node
from ..core.op import OpExample, internal_op, op_example, passthrough
from ..nn.functional.conv import CONV2D
from ..nn.functional.fused import BATCH_NORM2D_RELU, CONV2D_RELU, LINEAR_RELU
from ..nn.functional.linear import LINEAR
from ..nn.functional.norm import BATCH_NORM
from ..ops.tensor import RELU
from ..tensor import Tensor
from ..tensor.arguments import as_array_result, prepare_dtypes
from . import tracing
from .ir import COMPILER, Eqn, Trace, run_eqn, type_text
from .kernels import fast_numpy
from .passes import op_kernel

__all__ = ["Compiled", "compile_trace"]


def _fit(c, shape, dtype):
    """A non-elementwise rule's result in its input's shape and dtype (None stays None)."""
    if c is None:
        return None
    c = np.asarray(c)
    if c.shape != shape:
        c = unbroadcast(c, shape)
    return c if c.dtype == dtype else c.astype(dtype)


def _run(op, attrs, *datas):
    """An equation through ``run_eqn``: dtype preparation and 0-d results, as apply_op does."""
    return run_eqn(Eqn(op, (), None, attrs), list(datas))


class Compiled:
    """A compiled trace: call it like the traced function (see the module doc)."""

    def __init__(self, trace: Trace, needs: tuple | None = None, backend: str | None = None):
        if len(trace.outputs) != 1:
            raise NotImplementedError(
                f"jit.compile: {trace.name} returns {len(trace.outputs)} values; a compiled "
                f"trace is one graph node with one output (return them stacked, or call "
                f"the trace itself, which runs without gradients)")
        self.trace = trace
        self.backend = backend
        parents = [*trace.inputs, *trace.params]
        if needs is None:
            needs = tuple(v.dtype.kind == "f" for v in parents)
        self.needs = tuple(needs)
        self._source, namespace = _generate(trace, parents, self.needs)
        exec(compile(self._source, f"<minigrad.jit {trace.name}>", "exec"), namespace)  # noqa: S102
        self.op = internal_op(
            "jit", name=f"jit_{trace.name}", engine="tensor", symbol=f"jit[{trace.name}]",
            forward=namespace["forward"], vjp=namespace["backward"], variadic=True,
            formulas=(f"the backward of {trace.name}'s trace, unrolled",),
            twice_differentiable=False, doc=self._source)
        self.params = [v.source for v in trace.params]
        self._arrays = [v.value for v in trace.params]  # the params' arrays at the last call

    def param_arrays(self) -> list | None:
        """The params' arrays now, or ``None`` when one has another shape or dtype than
        traced (then this trace is stale: ``jit`` traces again)."""
        arrays = [p.data for p in self.params]
        if all(map(is_, arrays, self._arrays)):  # the same arrays as last time
            return arrays
        for v, a in zip(self.trace.params, arrays):
            if a.shape != v.shape or a.dtype != v.dtype:
                return None
        self._arrays = arrays
        return arrays

    def __call__(self, *args):
        """Run on inputs of the traced shapes and dtypes: one recorded graph node."""
        arrays = self.param_arrays()
        if arrays is None:
            stale = [f"{v.name} {type_text(v.shape, v.dtype)} -> "
                     f"{type_text(v.value.shape, v.value.dtype)}" for v in self.trace.params
                     if v.value.shape != v.shape or v.value.dtype != v.dtype]
            raise ValueError(f"jit.compile: {self.trace.name}'s params changed since it was "
                             f"traced ({', '.join(stale)}); trace it again")
        return self.run(args, arrays)

    def run(self, args, arrays):
        """The node of one call on ``args``, with the params' current ``arrays``."""
        datas = self.trace.check_inputs(args)
        out, saved = self.op.forward(*datas, *arrays)
        if out.__class__ is not np.ndarray:
            out, saved = as_array_result(out, saved)
        inputs = [a if isinstance(a, Tensor) else Tensor(d, dtype=d.dtype)
                  for a, d in zip(args, datas)]
        return init_node(object.__new__(Tensor), out, self.op, (*inputs, *self.params),
                         saved, None, True)

    def source(self) -> str:
        """The generated Python: the fused kernels, then the forward and the backward."""
        kernels = [op_kernel[e.op].source for e in self.trace.eqns if e.op in op_kernel]
        return "\n".join([*kernels, self._source])

    def __repr__(self) -> str:
        return f"<Compiled {self.trace!r}>"


def _example_fn(x, y):
    """The example trace: ``tanh(x·y) + x``, y broadcast over x's rows."""
    return (x * y).tanh() + x


@op_example("jit")
def _jit_examples() -> list:
    """The table tests' inputs for the ops ``Compiled`` makes (one per trace): the trace
    of ``_example_fn`` on float64 (3, 4) and (4,) inputs, compiled and called."""
    x, y = Tensor(np.ones((3, 4)), requires_grad=True), Tensor(np.ones(4), requires_grad=True)
    compiled = compile_trace(tracing.trace(_example_fn, x, y, name="example"))
    return [OpExample(
        op=compiled.op, call=compiled, plain=_example_fn,
        cases=lambda rng: [((rng.uniform(-2, 2, (3, 4)), rng.uniform(-2, 2, (4,))), {})],
        skip={"float32": "a trace is compiled for its inputs' dtypes (float64 here): a "
                         "float32 call is another trace, another op"})]


def compile_trace(trace: Trace, needs: tuple | None = None,
                  backend: str | None = None) -> Compiled:
    """``trace`` as a ``Compiled`` function (``needs``: per input then param, whether it
    needs a gradient; by default every floating one)."""
    return Compiled(trace, needs, backend)


def _generate(trace, parents, needs):
    """The source of ``forward`` and ``backward``, and the names it refers to."""
    ns = {"np": fast_numpy(), "unbroadcast": unbroadcast, "fit": _fit, "run": _run}
    name = {}
    for i, v in enumerate(parents):
        name[v] = f"x{i}" if v.kind == "input" else f"p{i - len(trace.inputs)}"
    fwd = [f"def forward({', '.join(name[v] for v in parents)}):"]
    for i, v in enumerate(trace.consts):
        ns[f"C{i}"] = v.source
        name[v] = f"c{i}"
        fwd.append(f"    c{i} = C{i}{'.data' if isinstance(v.source, Tensor) else ''}")
    # which values need a gradient: those that depend on a parent that needs one
    need = {v for v, n in zip(parents, needs) if n}
    for e in trace.eqns:
        if any(v in need for v in e.ins) and e.out.dtype.kind == "f":
            need.add(e.out)
    saved_names: dict = {}  # eqn -> text of its saved values, for the backward's calls
    for k, e in enumerate(trace.eqns):
        out = name[e.out] = f"v{k}"
        ins = [name[v] for v in e.ins]
        fwd.append(f"    # {e.line()}")
        fwd.append(f"    {_forward_call(e, k, out, ins, ns, saved_names)}")
    bwd, used = _backward(trace, parents, needs, need, name, ns, saved_names)
    keep = [n for n in dict.fromkeys(used)]
    fwd.append(f"    return {name[trace.outputs[0]]}, ({''.join(n + ', ' for n in keep)})")
    head = f"def backward(g, {''.join(n + ', ' for n in keep)}):"
    return "\n".join(fwd + ["", head] + bwd) + "\n", ns


def _forward_call(e, k, out, ins, ns, saved_names) -> str:
    op = e.op
    dtypes = {v.dtype for v in e.ins}
    plain = (len(dtypes) <= 1 and not (op.float_only and e.ins and e.ins[0].dtype.kind != "f")
             and e.out.shape != ())
    if op.ufunc is not None and not e.attrs and plain:
        ns[op.ufunc.__name__] = op.ufunc
        saved_names[e] = {"nothing": [], "inputs": ins, "output": [out]}[op.saves]
        return f"{out} = {op.ufunc.__name__}({', '.join(ins)})"
    saved_names[e] = [f"*s{k}"]
    if not _dtypes_ready(e):  # apply_op would cast an input first: run_eqn does that
        ns[f"OP{k}"] = op
        ns[f"A{k}"] = e.attrs
        return f"{out}, s{k} = run(OP{k}, A{k}, {', '.join(ins)})"
    ns[f"F{k}"] = partial(op.forward, **e.attrs) if e.attrs else op.forward
    call = f"{out}, s{k} = F{k}({', '.join(ins)})"
    if e.attrs:
        call += f"  # attrs {_attrs(e.attrs)}"
    if e.out.shape == ():  # numpy gives a scalar for a 0-d result: made an array
        ns["ndarray"], ns["as_array"] = np.ndarray, as_array_result
        call += (f"\n    if {out}.__class__ is not ndarray:"
                 f"\n        {out}, s{k} = as_array({out}, s{k})")
    return call


def _dtypes_ready(e) -> bool:
    """Whether ``prepare_dtypes`` leaves inputs of ``e``'s traced dtypes as they are (it
    reads only dtypes and ranks: asked once here, on stand-ins of those)."""
    stand_ins = [np.zeros((1,) * len(v.shape), v.dtype) for v in e.ins]
    prepared = list(stand_ins)
    prepare_dtypes(e.op, prepared)
    return all(map(is_, prepared, stand_ins))


def _attrs(attrs) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in attrs.items() if not isinstance(v, np.ndarray))


def _backward(trace, parents, needs, need, name, ns, saved_names):
    """The backward's lines, and the forward names it reads (its arguments).

    Every gradient it returns is a new array in its input's shape and dtype that
    nothing else holds, which lets the engine store it unchecked (``Compiled``'s node
    has ``grads_fit_inputs``): a sum is new, and so is a kernel's gradient that its
    writer marked fresh (``Kernel.fresh``); any other one goes through ``own``, which
    copies it when it may be shared (``g`` itself, a view, read-only, returned twice).
    """
    lines, used = [], []
    grad = {trace.outputs[0]: "g"}
    fresh = set()  # names of gradients known to be new arrays
    for k in range(len(trace.eqns) - 1, -1, -1):
        e = trace.eqns[k]
        g = grad.get(e.out)
        if g is None or not any(v in need for v in e.ins):
            continue
        op = e.op
        saved = saved_names[e]
        used.extend(s.lstrip("*") for s in saved)
        args = ", ".join([g, *saved])
        lines.append(f"    # {e.line()}")
        if e.body is not None:  # a fused kernel: its gradients fit, unpacked in one go
            ns[f"V{k}"] = op.vjp
            kernel_fresh = op_kernel[op].fresh
            targets = [f"c{k}_{slot}" if v in grad else f"g{name[v]}" if v in need else "_"
                       for slot, v in enumerate(e.ins)]
            lines.append(f"    {', '.join(targets)}, = V{k}({args})")
            for slot, (v, target) in enumerate(zip(e.ins, targets)):
                if target.startswith("c"):
                    _add(lines, grad, fresh, v, target)
                elif target != "_":
                    grad[v] = target
                    if kernel_fresh[slot]:
                        fresh.add(target)
            continue
        if op.vjp is not None:
            ns[f"V{k}"] = partial(op.vjp, **e.attrs) if e.attrs else op.vjp
            lines.append(f"    r{k} = V{k}({args})")
            parts = [f"r{k}[{slot}]" for slot in range(len(e.ins))]
        else:
            rules = op.grads
            layer = _layer_of(op)
            if layer is not None and saved == [f"*s{k}"]:  # a layer+ReLU op: relu's rule once
                ns["relu_rule"] = RELU.grads[0]
                lines.append(f"    m{k} = relu_rule({g}, s{k}[-1])  # g·[out > 0], for each rule")
                rules, args = layer.grads, f"m{k}, *s{k}[:-1]"
            parts = []
            for slot, rule in enumerate(rules):
                if rule is passthrough:
                    parts.append(g)
                    continue
                ns[f"R{k}_{slot}"] = partial(rule, **e.attrs) if e.attrs else rule
                parts.append(f"R{k}_{slot}({args})")
        for slot, (v, part) in enumerate(zip(e.ins, parts)):
            if v not in need:
                continue
            c = f"c{k}_{slot}"
            lines.append(f"    {c} = {_fitted(e, v, part)}")
            if v in grad:
                _add(lines, grad, fresh, v, c)
            else:
                grad[v] = f"g{name[v]}"
                lines.append(f"    {grad[v]} = {c}")
    results = [grad.get(v, "None") if n else "None" for v, n in zip(parents, needs)]
    if any(r != "None" and r not in fresh for r in results):
        ns["own"] = _own
        lines.append("    taken = set()  # (what own() handed out)")
        results = [r if r == "None" or r in fresh else f"own({r}, g, taken)" for r in results]
    lines.append(f"    return ({''.join(r + ', ' for r in results)})")
    return lines, used


def _layer_of(op):
    """The layer of a fused layer+ReLU op (``functional/fused.py``), else ``None``.

    Each rule of such an op is ``layer_rule(relu_rule(g, out), *layer_saved)``: called
    one by one, they would mask ``g`` once per input; the backward masks it once and
    calls the layer's rules, the very same calls (``test_train_step.py``, with eager).
    """
    return {LINEAR_RELU: LINEAR, CONV2D_RELU: CONV2D, BATCH_NORM2D_RELU: BATCH_NORM}.get(op)


def _add(lines, grad, fresh, v, c) -> None:
    """``grad[v] += c`` as a new array (a 0-d sum is a numpy scalar: made an array)."""
    total = f"{grad[v]} + {c}" if v.shape else f"np.asarray({grad[v]} + {c})"
    lines.append(f"    {grad[v]} = {total}")
    fresh.add(grad[v])


def _own(x, g, taken):
    """``x`` as an array nothing else holds: a copy when it may be shared (see _backward)."""
    if x is g or x.__class__ is not np.ndarray or x.base is not None or (
            not x.flags.writeable or id(x) in taken):
        x = np.array(x)
    taken.add(id(x))
    return x


def _fitted(e, v, part) -> str:
    """A contribution to input ``v`` of ``e`` in ``v``'s shape and dtype."""
    if e.body is not None:  # a kernel's backward already fits its inputs
        return part
    if not e.op.elementwise:
        return f"fit({part}, {v.shape!r}, np.{v.dtype.name})"
    text = part
    if v.shape != e.out.shape:
        text = f"unbroadcast({text}, {v.shape!r})"
    elif v.shape == ():
        text = f"np.asarray({text})"
    if v.dtype != e.out.dtype:
        text = f"{text}.astype(np.{v.dtype.name})"
    return text


COMPILER[0] = compile_trace
