"""Recording a function for the stepper: leaves from plain inputs, the forward pass,
then one or two backward passes, all inside one ``minigrad.record()`` tape.

``record_call`` is what ``viz.step_through`` runs.  Its passes:

* ``create_graph=False`` (the default): ``out.backward()``, the chain rule on numbers;
* ``create_graph=True``: ``minigrad.autograd.grad(out, leaves, create_graph=True)``,
  the same walk, but each rule's result is a new node: the graph of the first
  derivative is *built* as the backward pass goes (its nodes have order 1).
  ``autograd.grad`` hands the gradients back and leaves every ``.grad`` as it
  was, so no leaf ends up referring to its own gradient's graph;
* ``second=True`` as well: then ``backward()`` through that graph, from the
  gradient (for one scalar input, the second derivative lands in ``x.grad``);
  with several inputs, or a tensor, from the sum of all their gradients'
  elements, ``s = Σᵢ Σ ∂f/∂xᵢ``, which gives ``x.grad = H·1`` (the Hessian
  times ones).  That sum is recorded as part of the gradient's graph (its
  nodes have order 1, and no edge's rule made them: ``made_by`` is ``None``).

A vmapped function (``minigrad.func.vmap(f)``) returns one result per example,
stacked: with a scalar per example its pass starts from ones, one per example, and
``vmap(grad(f))`` shows the backward pass ``grad`` ran inside the vmap
(``_vmap_start``; the words: ``viz.stepper.batch_steps``).
"""

from __future__ import annotations

import inspect
import numbers

import numpy as np

__all__ = ["record_call", "record_forward_mode", "GradsSetAside", "parameter_names", "as_leaf",
           "check_scalar", "check_callable"]


def record_call(fn, inputs, *, create_graph: bool = False, second: bool = False,
                scheduler: str = "sorted"):
    """Record ``fn(*inputs)`` and its backward pass(es); returns ``(tape, names)``.

    ``names`` are the names the inputs got (``fn``'s parameter names).  See the
    module doc for the passes; ``second=True`` needs ``create_graph=True``.
    ``scheduler`` is the order backward runs in (``"sorted"`` or ``"ready-queue"``:
    ``minigrad.engines.ready_queue``, whose pending counts and queue the replay shows).
    """
    import minigrad
    from minigrad.engines.choose import SCHEDULERS, scheduler_name

    try:
        scheduler = scheduler_name(scheduler)  # ("dfs", the older name, is "sorted")
    except ValueError:
        raise ValueError(f"step_through: scheduler must be one of "
                         f"{', '.join(map(repr, SCHEDULERS))}, got {scheduler!r}") from None
    if scheduler == "ready-queue" and create_graph:
        raise ValueError("step_through: create_graph=True records autograd.grad, which runs "
                         "the sorted order only; leave scheduler out (or record "
                         "loss.backward(create_graph=True, scheduler='ready-queue') in a "
                         "tape and pass it to viz.Stepper)")

    if second and not create_graph:
        raise ValueError("step_through: second=True steps through the backward pass of a "
                         "gradient's graph, which only create_graph=True builds; pass "
                         "create_graph=True (or leave it out: second=True implies it)")
    check_callable(fn, inputs)
    names = parameter_names(fn, len(inputs))
    with minigrad.record() as tape:
        args = [as_leaf(x, name) for x, name in zip(inputs, names)]
        out = _call_with_scopes(tape, fn, args)
        run, gradient = (True, None) if create_graph else _vmap_start(out, tape, fn)
        if not run:  # (a backward pass ran inside the vmap, vmap(grad(f)): that one is shown)
            return tape, names
        if gradient is None:
            check_scalar(out, fn, args, names)
        with GradsSetAside(out, tape) as aside:
            # Nodes of an earlier graph keep their saved values, so that graph's own
            # backward() still works after this one.  (The replay shows what the
            # recorded ops saved from the tape, which kept it when they were created.)
            retain = aside.reaches_earlier_graph
            if not create_graph:
                out.backward(gradient, retain_graph=retain, scheduler=scheduler)
            else:
                grads = _gradients(out)
                if second:
                    _gradient_sum(grads, fn).backward(retain_graph=retain)
    return tape, names


def _vmap_start(out, tape, fn) -> tuple[bool, object]:
    """``(run a backward pass?, its starting gradient)`` for ``fn``'s output ``out``.

    A vmapped function (``minigrad.func.vmap``) returns its examples' results stacked
    (a ``move_batch`` node out of the vmap, ``viz.stepper.batch_steps``).  With one scalar
    per example, the pass starts from ones, one per example: each example's own
    backward, all at once (a mapped input's gradient is per example; an input not
    mapped gets the sum over the examples, as ``vmap(f)(...).sum()`` would give it).
    When ``fn`` already ran a backward pass inside the vmap (``vmap(grad(f))``: the
    per-example gradients are the result), that pass is the one to step through.
    Anything else: ``(True, None)``, the usual scalar start.
    """
    from .batch_steps import is_move

    ran = any(e.kind == "seeded" for e in tape.events)
    if ran and getattr(out, "op", 0) is None:  # (grad's result is no graph's node)
        return False, None
    if not is_move(out) or (out.attrs or {}).get("into"):
        return True, None
    each = out
    while is_move(each) and not each.attrs.get("into"):  # (nested vmaps: the innermost)
        each = each.parents[0]
    scalar = tuple(each.data.shape) == ()
    if ran and not (out.requires_grad and scalar):
        return False, None
    if scalar and out.requires_grad:
        return True, np.ones_like(out.data)
    raise ValueError(
        f"step_through: {getattr(fn, '__name__', 'fn')} returns one value of shape "
        f"{tuple(each.data.shape)} per example (stacked: {tuple(out.shape)}); the "
        f"backward pass starts from one scalar per example, so reduce inside the vmapped "
        f"function (e.g. return out.sum()), or step through lambda *a: vmapped(*a).sum()")


def record_forward_mode(fn, inputs, tangents=None):
    """Record ``fn(*inputs)`` in forward mode; returns ``(tape, names)``.

    Inside ``forward_ad.dual_level()`` each input becomes a leaf (``x (primal)``), then
    ``make_dual(leaf, tangent)``, named after ``fn``'s parameter (``tangents``: one per
    input, ones by default), so the tape holds every node's tangent as it was made
    (``viz.stepper.tangent_frames``).  ``fn`` may return any tensor: forward mode gives the
    derivative of every output element along the tangents (J·v), no scalar needed.
    """
    import minigrad
    from minigrad.autograd import forward_ad

    check_callable(fn, inputs)
    names = parameter_names(fn, len(inputs))
    if tangents is None:
        tangents = [None] * len(inputs)
    elif not isinstance(tangents, (tuple, list)) or len(tangents) != len(inputs):
        count = len(tangents) if isinstance(tangents, (tuple, list)) else "not a sequence"
        raise ValueError(f"step_through: tangents gives one tangent per input, as a tuple "
                         f"(like torch.func.jvp's): {len(inputs)} input(s), tangents: {count}")
    with minigrad.record() as tape, forward_ad.dual_level():
        # fn's x is the dual value; the value it was made from is "x (primal)"
        args = [as_leaf(x, f"{name} (primal)") for x, name in zip(inputs, names)]
        duals = [forward_ad.make_dual(a, _ones_like(a) if t is None else t)
                 for a, t in zip(args, tangents)]
        for dual, name in zip(duals, names):
            dual.label = name
        out = _call_with_scopes(tape, fn, duals)
        _check_node(out, fn, duals, names)
    return tape, names


def _call_with_scopes(tape, fn, args):
    """``fn(*args)``, noting which modules ran: ``tape.scopes``, a ``ScopeMap`` whose
    ``param_names`` are the parameters' full paths (``layers.0.neurons.1.w.0``).

    A parameter's label is only its name inside its own module (``w.0``, ``weight``),
    so every neuron's first weight is ``w.0``; the replay names parameters by path,
    as ``viz.draw(params=model)`` does (``viz.stepper.frames``).  The ``ScopeMap``
    knows the modules the function called, even ones held only in a closure.
    (``viz.render.view.build_view`` reads ``tape.scopes`` the same way.)
    """
    from minigrad.nn import record_scopes

    with record_scopes() as scopes:
        out = fn(*args)
    tape.scopes = scopes
    return out


def _ones_like(leaf):
    data = leaf.data
    return np.ones_like(data) if isinstance(data, np.ndarray) else 1.0


def _gradients(out) -> list:
    """``d out / d leaf`` for every leaf that requires grad, each a node (create_graph)."""
    from minigrad import topological_order
    from minigrad.autograd import grad

    leaves = [n for n in topological_order(out) if n.op is None and n.requires_grad]
    found = grad(out, leaves, create_graph=True, allow_unused=True)
    return [g for g in found if g is not None]


def _gradient_sum(grads, fn):
    """The scalar the second backward starts from: the gradient itself for one scalar
    input, else the sum of every gradient's elements (recorded as order-k nodes)."""
    from minigrad.engines.higher_order import differentiating

    live = [g for g in grads if g.requires_grad]
    if not live:
        raise ValueError(
            f"step_through(second=True): the gradient of {getattr(fn, '__name__', 'fn')} "
            f"does not depend on its inputs (the function is linear in them), so it has no "
            f"graph to go back through; its second derivative is zero")
    if len(live) == 1 and np.size(live[0].data) == 1:
        return live[0]
    with differentiating(max(g.order for g in live)):
        total = None
        for g in live:
            part = g.sum() if isinstance(g.data, np.ndarray) else g
            total = part if total is None else total + part
    return total


class GradsSetAside:
    """Empty the ``.grad`` of the nodes ``out`` uses that existed before the
    recording, and restore them on exit.

    Leaves accumulate, so a student's ``a`` that already holds ``a.grad`` from
    their own ``c.backward()`` would otherwise get this pass added on top: the
    panel would show a sum of two passes, and ``a.grad`` would change behind
    their back.  The frames are computed from the tape's events, which hold
    this pass's values, so putting the old gradients back changes nothing shown.
    """

    def __init__(self, out, tape):
        from minigrad import topological_order

        recorded = {id(n) for n in tape.nodes}
        self.saved = [(n, n.grad) for n in topological_order(out) if id(n) not in recorded]
        #: whether ``out`` was built on an op's output from before the recording
        self.reaches_earlier_graph = any(n.op is not None for n, _ in self.saved)

    def __enter__(self):
        for n, _ in self.saved:
            n.grad = None
        return self

    def __exit__(self, *exc):
        for n, grad in self.saved:
            n.grad = grad
        return False


def check_callable(fn, inputs) -> None:
    """``fn`` is a function to run, not a result already computed.

    ``step_through(loss)`` is natural to type after building ``loss``, but the stepper
    replays events recorded *while* the graph is built (each node appearing, what it
    saved), and a minigrad graph built before the recording left no such events.  So
    the error says what to pass instead (PyTorch tensors are taken as they are: their
    graph and backward are read with hooks, ``viz.stepper.torch_recording``).
    """
    if callable(fn):
        return
    kind = type(fn).__name__
    if hasattr(fn, "parents") and hasattr(fn, "backward"):
        made = "a leaf" if fn.op is None else f"the result of {fn.op.name!r}"
        raise TypeError(
            f"step_through: the first argument is a {kind} ({made}), not a function. The "
            "stepper records the computation as it runs, so pass the function that computes "
            "it and its inputs: step_through(f, x, y), or step_through(lambda a, b: a * b + a, "
            f"a, b). To look at the graph this {kind} already has, draw it: viz.draw(...) on it. "
            "(A PyTorch loss can be passed as it is, because PyTorch's backward is recorded "
            "with hooks; a minigrad graph is recorded while it is built.)")
    raise TypeError(f"step_through: the first argument must be a function, got a {kind}; pass "
                    "the function and then its inputs: step_through(f, x, y)"
                    + (f" ({len(inputs)} input(s) given)" if inputs else ""))


def parameter_names(fn, n: int) -> list[str]:
    try:
        params = [
            p.name for p in inspect.signature(fn).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
    except (TypeError, ValueError):
        params = []
    if len(params) >= n:
        return params[:n]
    default = ["x"] if n == 1 else [f"x{i + 1}" for i in range(n)]
    return params + default[len(params):]


def as_leaf(x, name: str):
    import minigrad

    if hasattr(x, "parents") and hasattr(x, "op"):
        return x
    if isinstance(x, numbers.Real) and not isinstance(x, bool):
        return minigrad.Value(float(x), label=name)
    if isinstance(x, (np.ndarray, list, tuple)):
        tensor = getattr(minigrad, "Tensor", None)
        if tensor is None:
            raise TypeError("step_through: array inputs need minigrad.Tensor, which is missing")
        try:
            data = np.asarray(x)
        except ValueError as exc:  # a ragged list
            raise TypeError(f"step_through: input {name!r} is not an array of numbers ({exc})"
                            ) from None
        if data.dtype.kind not in "iubf":
            raise TypeError(f"step_through: input {name!r} is an array of dtype {data.dtype}; "
                            "pass numbers (integers become float32)")
        if data.dtype.kind != "f" or not isinstance(x, np.ndarray):
            # only floats can require grad: integers (and lists, as Tensor([...])
            # does) become float32, so that arange(3) works like [0, 1, 2]
            data = data.astype(np.float32)
        return tensor(data, requires_grad=True, name=name)
    raise TypeError(
        f"step_through: input {name!r} is a {type(x).__name__}; pass numbers, numpy arrays "
        "or minigrad Values/Tensors"
    )


def check_scalar(out, fn, args=(), names=()) -> None:
    _check_node(out, fn, args, names)
    data = out.data
    if isinstance(data, np.ndarray) and data.size != 1:
        raise ValueError(
            f"step_through: {getattr(fn, '__name__', 'fn')} returned a tensor of shape "
            f"{tuple(data.shape)}; backward needs a scalar, so reduce it first (e.g. return "
            "out.sum() or out.mean())"
        )


def _check_node(out, fn, args=(), names=()) -> None:
    """``out`` is an op's result: a node, made by an operation (what a replay shows)."""
    fname = getattr(fn, "__name__", "fn")
    if not (hasattr(out, "parents") and hasattr(out, "backward")):
        raise TypeError(
            f"step_through: {fname} returned a {type(out).__name__}, not a minigrad Value or "
            "Tensor; return the result of minigrad operations on its arguments"
        )
    if out.op is None:  # a leaf: backward has no edge to replay
        given = next((n for a, n in zip(args, names) if a is out), None)
        nodes = [(a, n) for a, n in zip(args, names) if hasattr(a, "requires_grad")]
        if given is None and nodes and not any(a.requires_grad for a, _ in nodes):
            # ops ran, but on values that need no gradient no graph is recorded
            listed = ", ".join(repr(n) for _, n in nodes)
            raise ValueError(
                f"step_through: none of {fname}'s inputs ({listed}) requires a gradient, so "
                f"its operations recorded no graph (as in PyTorch) and there is nothing to step "
                f"through; pass numpy arrays or numbers (step_through makes them require one) "
                f"or a Tensor(..., requires_grad=True)")
        what = f"its input {given!r} unchanged" if given else "a leaf (made by no operation)"
        raise ValueError(
            f"step_through: {fname} returned {what}, so there is no computation to step "
            "through; return an expression of its arguments, e.g. lambda a: a * 2"
        )
