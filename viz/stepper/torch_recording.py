"""Recording PyTorch's own backward for the stepper: ``viz.step_through`` of torch tensors.

``record_torch`` turns a torch graph and its real backward into a tape of the kit's
trace events (``minigrad.autograd.tape``: ``created``, ``seeded``, ``visit``,
``contribute``, and the ``scheduled``/``ready`` notes of a ready-queue pass), so the
frames, the widget and the HTML player replay it with no torch branch of their own.

How:

* **the graph** is read by the torch adapter (``viz.render.torch_graph.torch_view``):
  its nodes, ids, leaf names and module scopes.  Each view node becomes a
  ``TorchNode``, a record shaped like the kit's node (``id``, ``op``, ``parents``,
  ``data``, ``grad`` ...) that keeps the autograd Node in ``fn``.  Every Node gets a
  gradient field; a Node with several outputs (``split``) holds one per output
  (``OutputGrads``: PyTorch has no node per output), and the edges from it carry the
  ``input_nr`` of ``next_functions``, which output they read (``output_nrs``);
* **values**: the root and the leaves have theirs, copied to numpy.  PyTorch keeps
  no value in an op's Node, so ``step_through(f, x)`` captures them as ``f`` runs
  (``viz.stepper.torch_capture``, a ``TorchFunctionMode``); a Node made inside one
  call (the transpose inside ``F.linear``), and every op of ``step_through(loss)``
  (a graph built before we could watch), shows its shape and dtype only
  (``NoValue``), and the forward's first step says why (``NO_FORWARD_VALUES``);
* **no-grad inputs** (``(None, 0)`` in ``next_functions``: data, the ``2.0`` of
  ``x * 2.0``) are leaf records that require no grad, parents of their op like any
  other input; their value comes from the captured call, else from the tensor the
  Node saved for that input, else they show their place (``Unknown``);
* **saved tensors** are read before backward frees them (``read_saved_values``:
  each ``_saved_*``, defensively) and kept as a kit op keeps its saved values:
  numpy copies (a saved leaf input or ``_saved_result`` is that node's own array, so
  the drawing says ``input 0`` / ``out``), sizes as shapes.  A backward without
  ``retain_graph`` then releases them as minigrad's engine does: a ``freed`` note
  once each Node has run (the memory strip weighs them), ``tape.released`` for the
  drawing's struck-through boxes, and ``saved = None`` on the records;
* **the forward order** is the order autograd made the Nodes: their sequence numbers
  (``node._sequence_nr()``, a private method, read defensively: if it cannot be read,
  the walk's order, inputs first, is used and ``notes`` says so once), leaves first;
* **the backward** is PyTorch's own ``loss.backward()``, run once with a pre-hook
  and a hook on every Node (``register_prehook``: the Node's incoming gradient, a
  ``visit``; ``register_hook``: its ``grad_inputs``, one ``contribute`` per edge into
  ``next_functions``, ``None`` ones skipped), in the order the engine ran them, as
  ``torch.autograd.graph._register_logging_hooks_on_whole_graph`` does.  An
  ``AccumulateGrad`` Node is a leaf: what flows into it is the leaf's ``.grad``
  update (its ``before`` is the ``.grad`` the leaf already had: leaves accumulate).
  Pending counts are the graph's dependencies (how many edges that carry a gradient
  lead into each Node); a Node is ready when its last one arrived.  Tensors are
  copied to numpy as they are seen.  Every hook is removed afterwards, also when backward raises.

What it does to the user's graph: exactly what ``loss.backward(retain_graph=...)``
does.  The leaves' ``.grad`` end as a plain backward leaves them (accumulated onto
what they held), and without ``retain_graph=True`` the graph's saved tensors are
freed, so a second backward through it raises, as in PyTorch.  The panel's first
backward step says so (``ran_backward_note``).

torch is imported only here, when a torch tensor is given.
"""

from __future__ import annotations

import numpy as np

from minigrad.autograd.tape import (
    Contribute,
    Created,
    Freed,
    Ready,
    Scheduled,
    Seeded,
    Tape,
    Visit,
)
from minigrad.engines.output_grads import OutputGrads, Outputs
from minigrad.jit.picture import NoValue

from ..render.numbers import format_shape
from ..render.torch_graph import (
    NOT_SAVED,
    NoGradInput,
    Unreadable,
    forward_name,
    host_array,
    is_leaf_node,
    is_torch,
    kit_op,
    node_inputs,
    node_outputs,
    same_tensor,
    saved_entries,
    torch_node_name,
    torch_view,
)
from .recording import parameter_names
from .torch_capture import capture_forward

__all__ = ["TorchNode", "TorchOp", "BackwardRecorder", "record_torch", "torch_op",
           "ran_backward_note", "PYTORCH_RULE", "NO_FORWARD_VALUES", "Unknown",
           "read_saved_values"]

#: what the panel says for a Node whose op the kit does not have
PYTORCH_RULE = "PyTorch's rule"


# --------------------------------------------------------------------- the records


class TorchOp:
    """What the panel needs of an autograd Node's op: the Node's name (``MulBackward0``),
    the kit's symbol and formulas when the kit has the same op (``kit``), else
    "PyTorch's rule".  Not registered in the kit's op table: it runs nothing."""

    engine = "tensor"
    grads = ()
    vjp = None
    function = None
    label = None

    def __init__(self, name: str, symbol: str, kit=None, custom: bool = False):
        self.name = name  # the Node's own name: the panel names the PyTorch Node
        self.kit = kit
        self.symbol = symbol
        self.infix = bool(kit is not None and kit.infix)
        #: the names of what the Node saved, in order (``self``, ``dim``): ``saved_names``
        self.saved_attrs = ()
        base = forward_name(name)
        #: the function the forward called (``mul``), for the panel's expressions
        self.forward_name = kit.name if kit is not None else (symbol if custom else base)
        if kit is not None:
            self.formulas = tuple(kit.formulas)
            self.formula = f"the kit's {kit.name} rule, {kit.formula.strip()}"
        elif custom:
            self.formulas = ()
            self.formula = f"{PYTORCH_RULE}: {symbol}.backward, your Function's own"
        else:
            self.formulas = ()
            self.formula = f"{PYTORCH_RULE} (the kit has no {base} op)"

    def saved_names(self, count: int) -> tuple[str, ...] | None:
        """What the Node's ``count`` saved values are called: its ``_saved_<name>``
        attributes' ``<name>`` (``read_saved_values`` keeps them), as ``Op.saved_names``."""
        return self.saved_attrs if len(self.saved_attrs) == count else None

    def display(self, attrs=None) -> str:
        """``× MulBackward0``: the kit's symbol beside the Node's name, unless the symbol
        is a word the name already says (``tanh``: ``TanhBackward0``)."""
        if self.symbol == self.name or self.symbol.replace("_", "").isalpha():
            return self.name
        return f"{self.symbol} {self.name}"

    def __repr__(self) -> str:
        return f"<TorchOp {self.name}>"


def torch_op(fn, symbol: str, custom: bool) -> TorchOp:
    """The ``TorchOp`` of autograd Node ``fn`` (its kit op looked up by name)."""
    name = torch_node_name(fn)
    return TorchOp(name, symbol, None if custom else kit_op(name), custom)


class TorchNode:
    """One autograd Node as a kit node record (see the module doc); ``fn`` is the Node."""

    __slots__ = ("id", "data", "grad", "requires_grad", "op", "parents", "saved", "attrs",
                 "label", "origin", "order", "grads_fit_inputs", "fn", "scope", "slots",
                 "output_nrs")

    #: a Node with several outputs (``split``) holds their gradients itself: PyTorch
    #: has no node per output (``viz.render.multi_output.show_record``)
    holds_output_grads = True

    def __init__(self, vid, fn, data, op, label, scope=()):
        self.id = vid
        self.fn = fn
        self.data = data
        self.grad = None
        self.requires_grad = True
        self.op = op
        self.parents = ()
        self.saved = ()
        self.attrs = None
        self.label = label
        self.origin = None
        self.order = 0
        self.grads_fit_inputs = False
        self.scope = scope
        #: ``{index in next_functions: index in parents}``
        self.slots = {}
        #: per input, which output of a multi-output parent it reads (``None``: the only
        #: one): ``next_functions``' ``input_nr``, written on the edge
        self.output_nrs = ()

    @property
    def is_leaf(self) -> bool:
        return self.op is None

    def __repr__(self) -> str:
        return f"<TorchNode #{self.id} {self.op.name if self.op else 'leaf'}>"


class Scopes:
    """Module scopes for the drawing (a ``ScopeMap``'s reading side): ``get(node)``,
    ``modules`` (``{"0": kind}``) and ``param_names`` ({leaf id: name})."""

    class _Info:
        def __init__(self, kind):
            self.kind = kind

    def __init__(self, view):
        self._scopes = {vn.id: ".".join(vn.scope) for vn in view.nodes if vn.scope}
        self.modules = {}
        for c in view.clusters:
            qualified = ".".join(c.path)
            kind = c.title.split(": ", 1)[1] if ": " in c.title else None
            self.modules[qualified] = self._Info(kind)
        self.param_names = {}

    def get(self, node):
        return self._scopes.get(node.id)

    def __bool__(self) -> bool:
        return bool(self._scopes)


def _placeholder(shape, dtype: str):
    try:
        dt = np.dtype(dtype)
    except TypeError:
        dt = np.dtype("float32")
    return np.broadcast_to(np.zeros((), dt), shape).view(NoValue)


def _array(t):
    """A torch tensor as an owned numpy array (``.numpy()`` would share its memory)."""
    a = host_array(t)
    return None if a is None else np.array(a, copy=True)


class Unknown:
    """The value of a no-grad input nothing could tell: shown as ``value not saved``
    (the record is named by its place, ``input 1``)."""

    def __init__(self, slot: int):
        self.slot = slot

    def __repr__(self) -> str:
        return NOT_SAVED


def _input_data(inp, captured):
    """A no-grad input's value: captured from the call, else saved by its Node, else
    ``Unknown`` (its place only)."""
    value = None if captured is None else captured.input_value(inp.fn, inp.slot)
    if value is None:
        value = inp.value
    if value is None:
        return Unknown(inp.slot)
    if isinstance(value, np.ndarray):
        return value
    if is_torch(value):
        a = _array(value)
        return Unknown(inp.slot) if a is None else a
    return float(value)


def _op_data(fn, root_fn, root_tensor, captured):
    """An op's output(s): the root's value, else what the capture saw, else a shape."""
    outs = node_outputs(fn)
    if fn is root_fn:
        return _array(root_tensor)

    def one(k, shape, dtype):
        seen = None if captured is None else captured.value(fn, k)
        return _placeholder(shape, dtype) if seen is None else seen

    if len(outs) > 1:
        return Outputs(one(k, *o) for k, o in enumerate(outs))
    return one(0, *outs[0]) if outs else _placeholder((), "float32")


def nodes_of(view, root_tensor, captured=None) -> tuple[list, dict]:
    """``(records, {autograd Node: record})``: one ``TorchNode`` per view node, same ids;
    a no-grad input is a leaf record that requires no grad (keyed by its ``NoGradInput``).
    ``captured``: the forward values a ``torch_capture`` saw (``None``: none)."""
    records, by_fn, inputs_of = [], {}, {}
    root_fn = root_tensor.grad_fn
    for vn in view.nodes:
        fn = vn.node
        if isinstance(fn, NoGradInput):
            data = _input_data(fn, captured)
            rec = TorchNode(vn.id, fn, data, None,
                            f"input {fn.slot}" if isinstance(data, Unknown) else None, vn.scope)
            rec.requires_grad = False
            inputs_of[fn.fn, fn.slot] = rec
        elif is_leaf_node(fn):
            rec = TorchNode(vn.id, fn, _array(fn.variable), None, vn.name, vn.scope)
        else:
            op = torch_op(fn, vn.symbol or torch_node_name(fn), vn.custom)
            rec = TorchNode(vn.id, fn, _op_data(fn, root_fn, root_tensor, captured), op, None,
                            vn.scope)
        records.append(rec)
        by_fn[fn] = rec
    for rec in records:
        if rec.op is None:
            continue
        parents, nrs = [], []
        for k, (parent, nr) in enumerate(node_inputs(rec.fn)):
            p = inputs_of.get((rec.fn, k)) if parent is None else by_fn.get(parent)
            if p is None:
                continue
            rec.slots[k] = len(parents)
            parents.append(p)
            nrs.append(nr if isinstance(p.data, Outputs) else None)
        rec.parents = tuple(parents)
        rec.output_nrs = tuple(nrs)
    return records, by_fn


# --------------------------------------------------------------------- saved values


def read_saved_values(records, torch, notes: dict) -> None:
    """Each op record's ``saved``: what its Node saved for backward, read now, before
    backward frees it (``torch_graph.read_saved``), as the kit's ops keep theirs: arrays
    (copied to numpy; a saved input or output is the same array as that node's value,
    so the drawing says ``input 0`` / ``out``), sizes as shape tuples, numbers; each
    named by its attribute (``_saved_self``: ``self``), which the op record keeps."""
    for r in records:
        if r.op is None:
            continue
        saved, names = [], []
        for name, v in saved_entries(r.fn, torch, notes):
            if not isinstance(v, Unreadable):
                saved.append(_saved_value(name, v, r, torch))
                names.append(name)
        r.saved = tuple(saved)
        r.op.saved_attrs = tuple(names)  # (each record has its own TorchOp)


def _saved_value(name: str, v, r, torch):
    """One saved value as the kit keeps it; a saved output or leaf input is that node's
    own array (the output: ``_saved_result``, when the capture saw its value)."""
    if isinstance(v, torch.Tensor):
        if name == "result" and isinstance(r.data, np.ndarray) and not getattr(
                r.data, "no_value", False):
            return r.data
        for p in r.parents:  # a leaf's tensor, or the no-grad input it was read from
            held = (p.fn.variable if is_leaf_node(p.fn) else
                    p.fn.value if isinstance(p.fn, NoGradInput) else None)
            if is_torch(held) and same_tensor(v, held) and isinstance(p.data, np.ndarray):
                return p.data
        a = _array(v)
        return a if a is not None else f"{format_shape(tuple(v.shape))} (unreadable)"
    if isinstance(v, (tuple, list)) and all(isinstance(n, int) for n in v):
        return tuple(int(n) for n in v)
    if isinstance(v, int) and 2**63 <= v < 2**64:  # an int64 read back unsigned
        return v - 2**64
    return v


# --------------------------------------------------------------------- the forward


def forward_order(records, notes: dict) -> list:
    """Leaves first (in the walk's order), then ops by sequence number: the order
    autograd made them.  Unreadable sequence numbers: the walk's order, noted once."""
    leaves = [r for r in records if r.op is None]
    ops = [r for r in records if r.op is not None]
    try:
        keyed = [(int(r.fn._sequence_nr()), r.id, r) for r in ops]
    except Exception:
        notes.setdefault("sequence", "this torch cannot say the order its Nodes were made "
                                     "(node._sequence_nr()): the forward replay shows them "
                                     "in the graph's order, inputs first")
        return leaves + ops
    return leaves + [r for _, _, r in sorted(keyed, key=lambda k: k[:2])]


# --------------------------------------------------------------------- the backward


class BackwardRecorder:
    """Hooks on every Node of a graph; ``raw`` collects what they saw, in order:
    ``("pre", fn, grad_outputs)`` and ``("post", fn, grad_inputs)``, as numpy copies.
    ``run(loss)`` registers the hooks, runs ``loss.backward`` and removes them all."""

    def __init__(self, fns):
        self.fns = list(fns)
        self.raw: list = []

    def _pre(self, fn):
        raw = self.raw

        def hook(grad_outputs):
            raw.append(("pre", fn, tuple(None if g is None else _array(g)
                                         for g in grad_outputs)))
        return hook

    def _post(self, fn):
        raw = self.raw

        def hook(grad_inputs, grad_outputs):
            raw.append(("post", fn, tuple(None if g is None else _array(g)
                                          for g in grad_inputs)))
        return hook

    def run(self, loss, retain_graph=None) -> None:
        handles = []
        try:
            for fn in self.fns:
                handles.append(fn.register_prehook(self._pre(fn)))
                handles.append(fn.register_hook(self._post(fn)))
            loss.backward(retain_graph=retain_graph)
        except RuntimeError as exc:
            if "second time" in str(exc) or "freed" in str(exc):
                raise ValueError(FREED) from None
            raise
        finally:
            for h in handles:
                h.remove()


def ran_backward_note(retain_graph) -> str:
    """What the first backward step says the step-through did to the user's graph."""
    if retain_graph:
        return ("This step-through ran the loss's backward once, as "
                "loss.backward(retain_graph=True): .grad accumulated as after that call, and "
                "PyTorch kept the graph, so it can run backward again.")
    return ("This step-through ran the loss's backward once, as loss.backward(): .grad "
            "accumulated as after that call, and without retain_graph=True PyTorch freed the "
            "graph (its saved tensors), so a second backward through it raises.")


NO_FORWARD_VALUES = (
    "PyTorch keeps no forward values in its Nodes, and this graph was built before the "
    "step-through began, so op nodes show only their shape and dtype (\"no value kept\"); "
    "the root and the leaves show theirs. step_through(f, x, w) runs f itself and captures "
    "each op's value as it is computed.")


FREED = ("step_through: this torch graph was already freed by an earlier backward() (its "
         "saved tensors are gone), so PyTorch cannot run its backward again. Pass "
         "retain_graph=True to that earlier backward, or compute the loss again and step "
         "through the new one.")


def _counts(records) -> dict:
    """``{id: pending contributions}``: how many edges lead into each node."""
    counts = {r.id: 0 for r in records if r.requires_grad}
    for r in records:
        for p in r.parents:
            if p.requires_grad:  # (a no-grad input gets nothing: PyTorch has no edge to it)
                counts[p.id] += 1
    return counts


def build_tape(records, by_fn, order, raw, leaf_grads, frees: bool = False) -> Tape:
    """The kit's tape of PyTorch's recorded backward (see the module doc); ``leaf_grads``:
    ``{leaf record: its .grad before the backward}`` (numpy, ``None``: none).  ``frees``:
    the backward ran without ``retain_graph``, so each Node's saved values are released
    once it has run (a ``freed`` note, as minigrad's engine records one)."""
    tape = Tape()
    events = tape.events
    for r in order:
        events.append(Created(r, r.saved if r.op is not None else None))
    counts = _counts(records)
    pending = dict(counts)
    runs = [by_fn[fn] for kind, fn, _ in raw if kind == "pre" and fn in by_fn
            and by_fn[fn].op is not None]
    run_at = {r.id: k for k, r in reversed(list(enumerate(runs)))}
    ready: list = []  # ids ready and not yet run, next first
    ran: set = set()

    def note_ready(r):
        if r.op is not None and r.id not in ran:
            ready.append(r.id)
            ready.sort(key=lambda i: run_at.get(i, len(runs)))
        tape.notes.append((len(events), Ready(r, tuple(ready))))

    # what each node holds so far in this pass: {id: array, or OutputGrads for a Node
    # with several outputs}; a leaf starts from the .grad it already had (PyTorch
    # accumulates into it)
    held = {r.id: g for r, g in leaf_grads.items()}
    seeded = False
    for kind, fn, grads in raw:
        r = by_fn.get(fn)
        if r is None or r.op is None:  # an AccumulateGrad: its leaf's update came as edges
            continue
        if kind == "pre":
            if not seeded:
                seeded = True
                tape.notes.append((len(events), Scheduled(counts)))
                events.append(Seeded(r, grads[0]))
                note_ready(r)
            if r.id in ready:
                ready.remove(r.id)
            ran.add(r.id)
            upstream = grads[0] if len(grads) == 1 else OutputGrads(r.data, grads)
            events.append(Visit(r, upstream))
            continue
        inputs = list(getattr(fn, "next_functions", ()))
        for k, g in enumerate(grads):
            if g is None or k >= len(inputs) or k not in r.slots:
                continue
            p = r.parents[r.slots[k]]
            nr = inputs[k][1]
            before = held.get(p.id)
            part = OutputGrads.one(p.data, nr, g) if isinstance(p.data, Outputs) else g
            after = (g.copy() if not isinstance(part, OutputGrads) else part) \
                if before is None else before + part
            held[p.id] = after
            events.append(Contribute(r, p, r.slots[k], g, before, after))
            pending[p.id] -= 1
            if pending[p.id] == 0:
                note_ready(p)
        if frees:  # its saved tensors go once it has run (the memory strip weighs them)
            tape.notes.append((len(events), Freed(r)))
    # which Nodes' saved values the recorded backward released: every one that ran
    tape.released = ran if frees else set()
    return tape


# --------------------------------------------------------------------- the entry point


def record_torch(fn, inputs, *, params=None, retain_graph=None):
    """Record a torch computation and PyTorch's backward of it; returns
    ``(tape, names, scopes, notes)``.

    ``fn`` is a function of torch tensors ``inputs`` (it is run here), or, with no
    inputs, the loss tensor itself (its existing graph is recorded).  ``names`` are
    the inputs' names (``fn``'s parameters), ``scopes`` the module scopes for the
    drawing (``None``: none), ``notes`` what could not be read, said once each.
    """
    import torch

    names: list[str] = []
    captured = None
    if isinstance(fn, torch.Tensor):
        if inputs:
            raise TypeError("step_through(loss) takes the torch loss alone; to run a "
                            "function, pass it first: step_through(f, x, w)")
        loss = fn
        _check_loss(loss, None, torch)
        if params is None:  # the caller's Module names the leaves, as viz.draw does,
            params = _caller_names(loss, torch)  # and the caller's variables the others
    else:
        names = parameter_names(fn, len(inputs))
        args = [_as_torch_leaf(x, name, torch) for x, name in zip(inputs, names)]
        with capture_forward(torch) as mode:  # the ops' forward values, as f runs
            loss = fn(*args)
        captured = mode.seen
        _check_loss(loss, fn, torch)
        if params is None:
            params = [(name, a) for name, a in zip(names, args) if a.requires_grad]
            params += _caller_names(loss, torch)
    view = torch_view(loss, params=params if params is not None else (), show_grad=False,
                      show_saved=False)
    notes = dict.fromkeys(view.notes)
    records, by_fn = nodes_of(view, loss, captured)
    note_texts: dict = {}
    read_saved_values(records, torch, note_texts)  # now: backward frees them
    order = forward_order(records, note_texts)
    leaf_grads = {r: (None if r.fn.variable.grad is None else _array(r.fn.variable.grad))
                  for r in records if is_leaf_node(r.fn)}
    recorder = BackwardRecorder(fn for fn in by_fn if not isinstance(fn, NoGradInput))
    recorder.run(loss, retain_graph=retain_graph)
    tape = build_tape(records, by_fn, order, recorder.raw, leaf_grads, frees=not retain_graph)
    if not retain_graph:  # as a minigrad node's after backward: its saved values are gone
        for r in records:
            if r.id in tape.released:
                r.saved = None
    tape.recorder = recorder  # (the tests count what its hooks saw)
    tape.seed_note = ran_backward_note(retain_graph)  # (the panel's first backward step)
    if captured is None:  # (the panel's forward start says why ops show no value)
        tape.forward_note = NO_FORWARD_VALUES
    notes.update(dict.fromkeys(note_texts.values()))
    scopes = Scopes(view)
    return tape, names, (scopes or None), tuple(notes)


def _as_torch_leaf(x, name, torch):
    """An input as given if it is a torch tensor that requires grad (or any graph node);
    a float tensor that does not: a copy that does, named after ``fn``'s parameter;
    numbers and arrays: a float64 torch tensor that requires grad."""
    if isinstance(x, torch.Tensor):
        if x.requires_grad:
            return x
        if not (x.is_floating_point() or x.is_complex()):
            x = x.double()
        return x.detach().clone().requires_grad_(True)
    try:
        return torch.tensor(np.asarray(x, dtype=np.float64), requires_grad=True)
    except (TypeError, ValueError):
        raise TypeError(f"step_through: input {name!r} is a {type(x).__name__}; with torch "
                        f"tensors, pass torch tensors (or numbers/arrays)") from None


def _check_loss(loss, fn, torch) -> None:
    what = "step_through" if fn is None else f"step_through: {getattr(fn, '__name__', 'fn')}"
    if not isinstance(loss, torch.Tensor):
        raise TypeError(f"{what} returned a {type(loss).__name__}, not a torch tensor; "
                        f"return the result of torch operations on its arguments")
    if loss.grad_fn is None:
        if loss.requires_grad:
            raise ValueError(f"{what}: this torch tensor is a leaf (requires_grad=True, "
                             f"grad_fn=None): no op made it, so there is no backward to step "
                             f"through; pass a result computed from it, e.g. (x * w).sum()")
        raise ValueError(f"{what}: this torch tensor has no grad_fn, so autograd recorded no "
                         f"graph for it (computed under torch.no_grad(), or from tensors "
                         f"that do not require grad); make a leaf with requires_grad=True "
                         f"and compute the loss from it outside no_grad")
    if loss.numel() != 1:
        raise ValueError(f"{what}: the loss has shape {tuple(loss.shape)}; backward needs a "
                         f"scalar, so reduce it first (e.g. .sum() or .mean())")


def _caller_names(loss, torch) -> list:
    """``(name, leaf)`` pairs from the caller's variables: a torch Module's parameters
    (as ``viz.draw`` finds them), then leaves held in a variable of their own."""
    import sys

    from ..render.torch_graph import model_in_caller, walk_nodes

    leaves = [fn.variable for fn in walk_nodes([loss.grad_fn]) if is_leaf_node(fn)]
    pairs = []
    model = model_in_caller(set(leaves), torch)
    if model is not None:
        pairs += list(model.named_parameters())
    frame = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__", "").split(".")[0] == "viz":
        frame = frame.f_back
    if frame is not None:
        space = {**frame.f_globals, **frame.f_locals}
        for var in sorted(space):
            obj = space[var]
            if isinstance(obj, torch.Tensor) and not var.startswith("_") and any(
                    obj is leaf for leaf in leaves):
                pairs.append((var, obj))
    return pairs


def wants_torch(fn, inputs) -> bool:
    """Whether ``step_through(fn, *inputs)`` is a torch step-through."""
    return is_torch(fn) or any(is_torch(x) for x in inputs)
