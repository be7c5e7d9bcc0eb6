"""The graph view: one neutral description of a graph that every renderer reads.

``build_view(roots)`` walks the graph behind ``roots`` (a ``Value`` or
``Tensor``, a list of them, or a recorded ``minigrad.Tape``) without
recursion and returns a ``GraphView``:

* ``nodes``: one ``ViewNode`` per graph node, in creation order, with its
  ``role`` and its label parts already formatted (op, name, data, grad,
  shape, dtype, attrs, saved values);
* ``edges``: one ``ViewEdge`` per (child, parent, slot): ``x*x`` has two;
* ``clusters``: the module scopes nodes were created in.

The DOT renderer, the text printer and the stepper all read this view, so a
node looks the same everywhere.

Roles (the legend)
------------------
============  ===================================================  ============
role          what it is                                           colour
============  ===================================================  ============
param         a leaf that requires grad (weights, your ``Value``)  blue
input         a leaf that needs no gradient (data, constants)      grey
intermediate  a node made by an op                                 white
output        a root you asked to see (the loss)                   green
saved         a value an op kept for backward (``show_saved``)     orange
============  ===================================================  ============

Derivative orders: ``ViewNode.order`` is the pass that built the node (0: the
forward computation, 1: a first derivative's graph ...; ``viz.render.derivative_orders``), and
``orders=`` keeps some orders only, with stubs for the nodes they use.

Element names are stable: node ``n_<id>``, edge ``e_<child>_<parent>_<slot>``,
saved value ``s_<id>_<k>``, where ``<id>`` is the node's counter id (never
Python's ``id()``).
"""

from __future__ import annotations

import gc
import re
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from minigrad.formatting import DIGITS

from .batches import FIRST, Examples, batch_text, choose_example, is_batched
from .derivative_orders import order_class, select_orders
from .multi_output import (
    OutputGrads,
    edge_output_nr,
    is_record,
    output_grads_label,
    output_nr,
    show_record,
)
from .numbers import (
    NO_GRAD,
    clip,
    format_array,
    format_number,
    format_shape,
    format_value,
    visible,
)
from .options import UNSET, DisplayOptions, resolve

__all__ = [
    "ROLES",
    "GraphView",
    "ViewNode",
    "ViewEdge",
    "SavedItem",
    "Cluster",
    "build_view",
    "node_key",
    "edge_key",
    "saved_key",
    "saved_names",
    "cluster_key",
    "as_roots",
    "param_names",
    "model_param_names",
    "grad_label",
    "DRAW_WIDTH",
    "collector_paused",
]

#: Preview width (characters) of values inside drawn nodes.
DRAW_WIDTH = 80

#: The node roles, in legend order.
ROLES = ("param", "input", "intermediate", "output", "saved")


def node_key(node) -> str:
    """The SVG/DOT id of a node: ``n_<id>`` (accepts a node or its integer id)."""
    return f"n_{node if isinstance(node, int) else node.id}"


def edge_key(child, parent, slot: int) -> str:
    """The SVG/DOT id of the edge feeding ``parent`` into ``child``'s input ``slot``."""
    c = child if isinstance(child, int) else child.id
    p = parent if isinstance(parent, int) else parent.id
    return f"e_{c}_{p}_{slot}"


def saved_key(node, k: int) -> str:
    """The SVG/DOT id of the ``k``-th value ``node``'s op saved for backward."""
    return f"s_{node if isinstance(node, int) else node.id}_{k}"


def cluster_key(path: tuple) -> str:
    """The SVG/DOT id of a module cluster: ``c_`` + the scope path, ``_``-joined."""
    return "c_" + "_".join(re.sub(r"[^A-Za-z0-9]", "_", str(p)) for p in path)


@dataclass(slots=True)
class SavedItem:
    """One value an op saved for backward (``node.saved[k]``), and how it is shown.

    Every view writes it the same way: its ``name`` (the op's rule calls it that:
    ``Op.saved_names``; a PyTorch Node's ``_saved_<name>``; else ``saved[k]``), then
    what it is: a node's own value by its place (``x = input 0``, ``out``), with the
    value under it, or else the value itself (``dim = 0``, ``shape = (3, 4)``).
    """

    key: str  # "s_<id>_<k>"
    index: int
    text: str  # formatted value (or shape and dtype for a big array)
    alias: str | None  # "out", "input 0" when it is the same object as those
    name: str = ""  # "x", "shape", "dim" ...; "" (not given): "saved[<index>]"
    #: a setting, not an array: a shape, sizes, strides, a dim, a flag (``saved_boxes``)
    setting: bool = False

    def __post_init__(self):
        if not self.name:
            self.name = f"saved[{self.index}]"

    @property
    def head(self) -> str:
        """The first row of its box: ``x = input 0``, ``out``, ``dim = 0``."""
        if self.alias is None:
            return f"{self.name} = {self.text}"
        return self.name if self.alias == self.name else f"{self.name} = {self.alias}"

    @property
    def rows(self) -> list[str]:
        """Its box's rows: ``head``, then, for a node's own value, that value."""
        return [self.head] if self.alias is None else [self.head, self.text]

    @property
    def line(self) -> str:
        """On one line (the inspector, the text tree): ``x = input 0: (3, 4) float32``."""
        return self.head if self.alias is None else f"{self.head}: {self.text}"



@dataclass(slots=True)
class ViewNode:
    """One graph node as every renderer sees it: role and formatted label parts."""

    id: int
    key: str  # "n_<id>"
    role: str  # one of ROLES (never "saved")
    is_leaf: bool
    requires_grad: bool
    kind: str  # "scalar" | "tensor"
    op: str | None  # the op's name ("mul", or a custom Function's class name)
    symbol: str | None  # what the op shows: op.display(attrs)
    name: str | None  # label / name / parameter name
    data: str | None  # formatted value (tensors: a one-line preview, cut to width); None:
    # no value kept (a torch graph's op node, viz.render.torch_graph)
    grad: str | None  # formatted grad, NO_GRAD if not computed yet, None if no field
    shape: str | None = None  # tensors only, e.g. "(3, 4)"
    dtype: str | None = None  # tensors only, e.g. "float32"
    size: int = 1
    tiny: bool = True  # few enough elements (<= preview) to print them in full
    grad_norm: str | None = None  # tensors with a grad: its L2 norm, formatted
    grad_label: str | None = None  # the drawn grad field, see grad_label(); None: no field
    attrs: str | None = None  # "axis=1, keepdims=True"
    saved: tuple | None = ()  # SavedItems; None once released after backward
    custom: bool = False  # made by a custom Function
    scope: tuple = ()  # module path the node was created in
    inputs: tuple = ()  # parent ids, in slot order (duplicates kept)
    node: Any = field(default=None, repr=False)  # the graph node itself
    order: int = 0  # derivative order: 0 forward, 1 built by a create_graph backward ...
    stub: bool = False  # of an order not shown, kept because a shown node uses it
    multi: bool | None = None  # several outputs (class ``multi``); None: ask ``node``
    detail: tuple = ()  # a group box's lines under its title (kind "group": viz.render.overview)
    holds: tuple = ()  # a group box: (ops, params) among the nodes it stands for
    #: inside ``vmap``: "batch of 5 → (5, 3)" (``shape`` is one example's, ``data`` shows
    #: one example; ``viz.render.batches``); None for a plain value
    batch: str | None = None
    #: inside ``vmap``: which example ``data`` shows, "example 2 of 5" (``example=``)
    example: str | None = None

    @property
    def shape_lines(self) -> list[str]:
        """The shape rows a card draws: ``(3,) float32``, and inside ``vmap``
        ``(3,) float32 per example`` then ``batch of 5 → (5, 3)``."""
        if self.batch is None:
            return [f"{self.shape} {self.dtype}"]
        return [f"{self.shape} {self.dtype} per example", self.batch]

    @property
    def data_word(self) -> str:
        """What the data row starts with: ``data``, or inside ``vmap`` the example shown
        (``example 2 of 5``)."""
        return "data" if self.example is None else self.example

    @property
    def classes(self) -> str:
        """CSS classes of this node's SVG group (after graphviz's own ``node``)."""
        parts = ["leaf" if self.is_leaf else "op", self.role, self.kind]
        if self.custom:
            parts.append("function")
        if self.order:
            parts.append(order_class(self.order))
        if self.stub:
            parts.append("stub")
        if self.op == "checkpoint":  # a checkpointed block, collapsed (viz.checkpoint_view)
            parts.append("checkpoint")
        if self.multi if self.multi is not None else (
                self.node is not None and is_record(self.node)):
            parts.append("multi")  # the op node of a multi-output op (viz.render.multi_output)
        return " ".join(parts)


@dataclass(frozen=True, slots=True)
class ViewEdge:
    """``parent`` feeds ``child``'s input number ``slot``."""

    child: int
    parent: int
    slot: int
    #: into an output of a multi-output op: which (``viz.render.multi_output``)
    output_nr: int | None = None

    @property
    def key(self) -> str:
        return edge_key(self.child, self.parent, self.slot)


@dataclass(slots=True)
class Cluster:
    """A module scope: the nodes created while that module ran."""

    path: tuple  # e.g. ("encoder", "fc1")
    key: str  # "c_encoder_fc1"
    title: str  # what the cluster's label says
    nodes: list  # ids of nodes directly in this scope (not in a sub-scope)


class GraphView:
    """Nodes, edges and clusters of a graph; see the module docstring."""

    def __init__(self, nodes, edges, roots, clusters, notes=(), examples: Examples = FIRST):
        self.nodes: list[ViewNode] = nodes
        self.edges: list[ViewEdge] = edges
        self.roots: tuple[int, ...] = roots
        self.clusters: list[Cluster] = clusters
        self.by_id: dict[int, ViewNode] = {n.id: n for n in nodes}
        #: what the reader of this graph could not show, said once each (a torch graph's
        #: released saved tensors, ``viz.render.torch_graph``); the text tree prints them
        self.notes: tuple[str, ...] = tuple(notes)
        #: inside ``vmap``: which example of each batch the nodes show (``example=``), for
        #: the texts written later from the same graph (the stepper's panel and grads)
        self.examples: Examples = examples

    def node(self, which) -> ViewNode:
        """Look a node up by graph node, integer id or key ``"n_<id>"``."""
        if isinstance(which, str):
            which = int(which.removeprefix("n_"))
        elif not isinstance(which, int):
            which = which.id
        return self.by_id[which]

    def __len__(self) -> int:
        return len(self.nodes)

    def __repr__(self) -> str:
        return f"<GraphView {len(self.nodes)} nodes, {len(self.edges)} edges>"


def grad_label(data, grad, *, digits: int = DIGITS, preview: int = 6,
               width: int | None = DRAW_WIDTH, examples: Examples = FIRST) -> str:
    """The exact ``grad …`` text ``viz.draw`` writes in a node holding ``data``.

    ``grad`` is any gradient value for that node (``None``: not computed,
    ``grad —``).  Tensors with at most ``preview`` elements show their values
    on one line; bigger ones show the gradient's L2 norm (``grad norm 9.4868``).
    Inside ``vmap``, one example's: ``examples`` (``GraphView.examples``) says which.
    The stepper uses this to rewrite the text as gradients flow in, so pass the
    same ``digits``/``preview`` as to ``draw``.
    """
    if grad is None:
        return f"grad {NO_GRAD}"
    grad = _raw(grad)
    if is_batched(grad) or is_batched(data):  # inside vmap: one example's gradient
        g = examples.of(grad)
        word = f"grad ({examples.short(grad)})" if is_batched(grad) else "grad"
        if g.size <= preview:
            return f"{word} " + format_array(g, digits, width, preview)
        return f"{word} norm " + format_number(_norm(g), digits)
    if isinstance(grad, OutputGrads):  # a record holding its outputs' (a torch Node)
        return output_grads_label(grad, lambda g: grad_label(
            np.asarray(g), g, digits=digits, preview=preview, width=width)[len("grad "):])
    if isinstance(data, np.ndarray):
        g = np.asarray(grad)
        if data.size <= preview:
            return "grad " + format_array(g, digits, width, preview)
        return "grad norm " + format_number(_norm(g), digits)
    return "grad " + format_value(grad, digits, width, preview)


# --------------------------------------------------------------------- inputs


def as_roots(obj) -> tuple[tuple, list | None]:
    """``(roots, nodes)`` for a node, several nodes, or a recorded tape.

    ``nodes`` is the tape's list of recorded nodes (``None`` otherwise); the
    walk then starts from all of them, so nothing recorded is left out.
    """
    if is_node(obj):
        return (obj,), None
    if hasattr(obj, "events") and hasattr(obj, "nodes") and hasattr(obj, "roots"):
        if not obj.nodes:  # same as an empty list of roots: an empty picture hides a mistake
            raise ValueError(
                "viz: nothing to show (the tape recorded no nodes: build the graph inside "
                "`with minigrad.record() as tape:`, or pass the output node itself)"
            )
        return tuple(obj.roots), list(obj.nodes)
    if type(obj).__module__.split(".")[0] == "torch":  # viz.draw / viz.text take it as is
        raise TypeError("build_view reads minigrad graphs; for a torch tensor use "
                        "viz.torch_view(t) (viz.draw(t) and viz.text(t) read it themselves)")
    if isinstance(obj, (str, bytes)) or not hasattr(obj, "__iter__"):
        raise TypeError(
            f"viz expects a graph node (Value or Tensor), a list of them or a recorded "
            f"minigrad.Tape, got {type(obj).__name__}"
        )
    roots = tuple(obj)
    for r in roots:
        if not is_node(r):
            raise TypeError(
                f"viz expects graph nodes (Value or Tensor), got a {type(r).__name__} "
                f"in the list of roots"
            )
    if not roots:
        raise ValueError("viz: nothing to show (the list of roots is empty)")
    return roots, None


def is_node(obj) -> bool:
    """A graph node (a Value or a Tensor), recognised by its record: parents, op, id."""
    return hasattr(obj, "parents") and hasattr(obj, "op") and hasattr(obj, "id")


def param_names(params) -> dict[int, str]:
    """``{node id: name}`` from a Module (``named_parameters()``), a dict or ``(name, p)`` pairs.

    A dict keyed by node ids (``{7: "w"}``, what ``Frames.names`` holds) is taken as it is.
    """
    if params is None:
        return {}
    if hasattr(params, "named_parameters"):
        pairs = params.named_parameters()
    elif isinstance(params, dict):
        if params and all(isinstance(k, int) and not isinstance(k, bool) for k in params):
            return {k: str(v) for k, v in params.items()}
        pairs = params.items()
    else:
        pairs = params
    names = {}
    for pair in pairs:
        try:
            name, p = pair
        except (TypeError, ValueError):
            raise TypeError(
                "params= takes a Module (with named_parameters()), a dict {name: parameter} "
                f"or (name, parameter) pairs; got an item of type {type(pair).__name__}"
            ) from None
        if not is_node(p):
            raise TypeError(f"params=: {name!r} is a {type(p).__name__}, not a graph node")
        names.setdefault(p.id, str(name))
    return names


def model_param_names(leaf_ids, frame=None) -> dict[int, str]:
    """``{node id: "layers.0.weight"}`` from the Modules in the caller's variables.

    Why look there: a graph does not know which model made it (a module's
    call records nothing unless ``record_scopes()`` listens, so training pays
    nothing), but the code drawing it almost always holds the model in a
    variable, a notebook's ``model``.  The first frame outside ``viz`` is
    searched (its locals, then globals); every ``minigrad.nn.Module`` there
    whose parameters are among ``leaf_ids`` names them as ``params=model``
    would.  The module naming the most leaves wins a clash, then the variable
    name, so the result does not depend on dict order.
    """
    from minigrad.nn import Module

    leaf_ids = set(leaf_ids)
    frame = frame or sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__", "").split(".")[0] == "viz":
        frame = frame.f_back
    if frame is None or not leaf_ids:
        return {}
    space = {**frame.f_globals, **frame.f_locals}
    found = []
    for var in sorted(space):
        obj = space[var]
        if isinstance(obj, Module):
            names = {p.id: name for name, p in obj.named_parameters() if p.id in leaf_ids}
            if names:
                found.append((-len(names), var, names))
    out: dict[int, str] = {}
    for _, _, names in sorted(found, key=lambda t: t[:2]):
        for node_id, name in names.items():
            out.setdefault(node_id, name)
    return out


# --------------------------------------------------------------------- building


def build_view(
    roots,
    *,
    options: DisplayOptions | None = None,
    params=UNSET,
    scopes=UNSET,
    show_grad: bool = UNSET,
    show_saved: bool | None = UNSET,
    digits: int = UNSET,
    width: int | None = UNSET,
    preview: int = UNSET,
    saved_values: dict | None = UNSET,
    orders=UNSET,
    example=UNSET,
) -> GraphView:
    """Walk the graph behind ``roots`` (iteratively) into a ``GraphView``.

    ``options`` is a ``viz.DisplayOptions``; keywords given here override its
    fields.  ``params`` names leaves (a Module, a dict or pairs; not given:
    the parameters of a Module the calling code holds in a variable, see
    ``model_param_names``; ``params=()`` turns that off); ``scopes``
    says which module made each node (a ``minigrad.nn.ScopeMap`` from
    ``record_scopes()``, or a dict ``{node id: "fc1"}``) and gives the
    clusters; ``show_grad=False`` gives a forward-only view; ``show_saved``
    collects the values ops saved for backward (``None``: only for custom
    Functions); ``digits``, ``width`` and ``preview`` control number
    formatting, preview width and how many tensor elements numpy prints
    before summarising.  ``saved_values`` (``{node id: saved tuple}``) stands
    in for what a node's backward already released: ``viz.Stepper`` passes
    the values it kept at record time, so a replay shows what backward used.
    ``orders`` keeps some derivative orders only (``viz.render.derivative_orders``).
    ``example`` picks the example a node computed inside ``vmap`` shows
    (``viz.render.batches``; default: the first).
    """
    opts = resolve("viz", options, dict(
        params=params, scopes=scopes, show_grad=show_grad, show_saved=show_saved,
        digits=digits, width=width, preview=preview, saved_values=saved_values, orders=orders,
        example=example))
    with collector_paused():
        return _build(roots, opts)


@contextmanager
def collector_paused():
    """Python's cyclic garbage collector off while a big graph is walked, as it was after.

    Walking a graph allocates a few objects per node, and every few hundred allocations
    the collector traverses all live containers, the graph being walked included: for a
    66,000-node graph that was ~40 % of ``viz.draw``'s time.  Nothing the walk makes is
    garbage in a cycle, so there is nothing for the collector to find meanwhile."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def _build(roots, opts) -> GraphView:
    from minigrad.core.order import topological_order
    from minigrad.memory import derivative_orders

    root_nodes, recorded = as_roots(roots)
    order = topological_order(recorded if recorded is not None else root_nodes)
    root_ids = tuple(dict.fromkeys(r.id for r in root_nodes))
    root_set = set(root_ids)
    # an unused piece of a split next to a real result is a by-product, not an output
    root_set = (root_set - {r.id for r in root_nodes if output_nr(r) is not None}) or root_set
    scopes = opts.scopes
    if scopes is None:
        scopes = getattr(roots, "scopes", None)  # a tape that also kept module scopes
    names = {}
    if opts.params is None:
        names = model_param_names([n.id for n in order if n.op is None and n.requires_grad])
    names.update(getattr(scopes, "param_names", None) or {})
    names.update(param_names(opts.params))
    scope_of = _scope_reader(scopes)

    nodes, edges = [], []
    orders = derivative_orders(order)
    examples = FIRST if opts.example is None else choose_example(
        [v for n in order for v in (n.data, _raw(n.grad))], opts.example)
    for node in order:
        vn = _view_node(node, node.id in root_set, names, scope_of, opts, examples)
        vn.order = orders[node.id]
        nodes.append(vn)
        for slot, parent in enumerate(node.parents):
            edges.append(ViewEdge(node.id, parent.id, slot, edge_output_nr(node, slot)))
    nodes, edges, root_ids = select_orders(nodes, edges, root_ids, opts.orders)
    return GraphView(nodes, edges, root_ids, _clusters(nodes, scopes), examples=examples)


def _view_node(node, is_root, names, scope_of, opts, examples=FIRST):
    digits, width, preview = opts.digits, opts.width, opts.preview
    op = node.op
    leaf = op is None
    requires_grad = bool(node.requires_grad)
    if is_root:
        role = "output"
    elif leaf:
        role = "param" if requires_grad else "input"
    else:
        role = "intermediate"
    data = node.data
    grad = _raw(node.grad)
    batched = is_batched(data)  # inside vmap: one example's shape, the whole batch
    tensor = batched or isinstance(data, np.ndarray)
    label = node.label
    vn = ViewNode(
        node.id,
        node_key(node),
        role,
        leaf,
        requires_grad,
        "tensor" if tensor else "scalar",
        None if leaf else op.name,
        None if leaf else _display(op, node.attrs),
        # (control characters as escapes: dot refuses them, and "x\ny" reads the same
        # in the picture, the text tree and the stepper's panel)
        _visible_name(names.get(node.id) or (None if label is None or label == "" else label)),
        "",
        None,
        inputs=tuple([p.id for p in node.parents]),
        scope=scope_of(node),
        custom=False if leaf else _is_custom(op),
        node=node,
    )
    show_grad = opts.show_grad and (requires_grad or grad is not None)
    if show_grad:
        vn.grad_label = grad_label(data, grad, digits=digits, preview=preview, width=width,
                                   examples=examples)
    if tensor:
        vn.shape = format_shape(data.shape)
        vn.dtype = str(data.dtype)
        vn.size = int(data.size)
        no_value = getattr(data, "no_value", False)  # (a traced program's value: jit)
        vn.tiny = vn.size <= preview and not no_value
        if batched:  # (a batch is never made one plain array: one example is shown)
            vn.batch = batch_text(data)
            vn.example = examples.word(data)
            data = examples.of(data)
        vn.data = "(no value)" if no_value else format_array(data, digits, width, preview)
        if show_grad:
            if grad is None:
                vn.grad = NO_GRAD
            else:
                g = examples.of(grad)
                vn.grad = format_array(g, digits, width, preview)
                vn.grad_norm = format_number(_norm(g), digits)
    else:
        vn.data = format_value(data, digits, width, preview)
        if show_grad:
            vn.grad = NO_GRAD if grad is None else format_value(grad, digits, width, preview)
    if not leaf and is_record(node):  # an op with several outputs: no value of its own
        show_record(vn, node)
    if not leaf:
        if node.attrs:
            vn.attrs = ", ".join(
                f"{k}={_attr_text(v, digits)}"
                for k, v in node.attrs.items()
                if k not in _BOOKKEEPING
            ) or None
        show_saved = opts.show_saved
        if show_saved or (show_saved is None and vn.custom):
            saved = node.saved
            if saved is None and opts.saved_values:
                saved = opts.saved_values.get(node.id)
            vn.saved = _saved_items(node, saved, digits, width, preview)
    return vn


def _raw(grad):
    """A gradient as numbers: after ``create_graph=True`` it is a node; show its data."""
    if grad is None or type(grad) is float or isinstance(grad, np.ndarray):
        return grad  # (the common cases first: a failed hasattr costs an exception)
    return grad.data if is_node(grad) else grad


def _norm(g) -> float:
    """The L2 norm a big tensor's gradient is summarised by."""
    return float(np.sqrt(np.sum(np.square(g, dtype=float))))


# attrs kept for a custom Function's backward (its ctx): not an op setting a reader
# wants to see
_BOOKKEEPING = frozenset({"ctx"})


def _display(op, attrs) -> str:
    try:
        return op.display(attrs)
    except Exception:  # a broken label function must not break drawing
        return op.symbol or op.name


def _attr_text(v, digits) -> str:
    if isinstance(v, np.ndarray):
        return format_array(v, digits, 30)
    if isinstance(v, (float, np.floating)):
        return format_number(v, digits)
    return clip(repr(v), 30)


def _visible_name(name):
    return None if name is None else visible(str(name))


def _saved_items(node, saved, digits, width, preview):
    if saved is None:
        return None
    names = saved_names(node.op, len(saved))
    items = []
    for k, v in enumerate(saved):
        # The output first: an op that saves its output (relu, tanh, exp ...) may return
        # one of its inputs as that output (scalar ReLU of x > 0 returns x itself), and
        # its rules call the value out.  No built-in op saves an input that is also its
        # output under another name.
        alias = "out" if v is node.data or v is node else next(
            (f"input {slot}" for slot, p in enumerate(node.parents)
             if v is p.data or v is p), None)
        v_data = v.data if is_node(v) else v
        if is_batched(v_data):
            text = f"{format_shape(v_data.shape)} {v_data.dtype} per example · {batch_text(v_data)}"
        elif isinstance(v_data, np.ndarray) and v_data.size > preview:
            text = f"{format_shape(v_data.shape)} {v_data.dtype}"
        elif _is_shape(v_data):  # sum, reshape ... keep only their input's shape
            text = format_shape(v_data) if names else f"shape {format_shape(v_data)}"
        else:
            text = format_value(v_data, digits, width, preview)
        # (an axis, a shape, a flag: not an array, not a number the rules compute with)
        setting = alias is None and isinstance(v_data, (bool, int, str, tuple))
        items.append(SavedItem(saved_key(node, k), k, text, alias, names[k] if names else "",
                               setting))
    return tuple(items)


def saved_names(op, count: int) -> tuple[str, ...] | None:
    """What ``op``'s ``count`` saved values are called (``Op.saved_names``: its rules'
    parameter names; a PyTorch Node's record gives its ``_saved_*`` names), or ``None``
    when it cannot say: each is then shown by its index, ``saved[k]``."""
    ask = getattr(op, "saved_names", None)
    names = ask(count) if ask is not None else None
    return tuple(names) if names is not None and len(names) == count else None


def _is_shape(v) -> bool:
    return isinstance(v, tuple) and all(isinstance(n, int) for n in v)


def _is_custom(op) -> bool:
    """Was this node made by a user-defined ``minigrad.Function``?"""
    if op is None:
        return False
    return op.function is not None


# --------------------------------------------------------------------- module scopes


def _no_scope(node) -> tuple:
    return ()


def _scope_reader(scopes):
    """``node -> scope path tuple`` from a ScopeMap-like object, a dict, or nothing."""
    if scopes is None:
        return _no_scope
    if hasattr(scopes, "get") and not isinstance(scopes, dict):
        lookup = scopes.get  # minigrad.nn.ScopeMap: get(node) -> "fc1" / "net.0" / None
    else:
        table = scopes

        def lookup(node):
            return table.get(node.id)

    def scope(node):
        path = lookup(node)
        if not path:
            return ()
        return tuple(path.split(".")) if isinstance(path, str) else tuple(path)

    return scope


def _natural(path: tuple) -> tuple:
    """Sort key putting ``net.2`` before ``net.10`` and a scope before its sub-scopes."""
    return tuple((0, int(p), "") if str(p).isdigit() else (1, 0, str(p)) for p in path)


def _clusters(nodes, scopes) -> list[Cluster]:
    """One cluster per module scope (and per enclosing scope), sorted by path."""
    infos = getattr(scopes, "modules", None) or {}
    direct: dict[tuple, list] = {}
    for n in nodes:
        if n.scope:
            direct.setdefault(n.scope, []).append(n.id)
    paths = set()
    for path in direct:
        paths.update(path[:i] for i in range(1, len(path) + 1))
    out = []
    for path in sorted(paths, key=_natural):
        qualified = ".".join(map(str, path))
        info = infos.get(qualified)
        title = f"{qualified}: {info.kind}" if getattr(info, "kind", None) else qualified
        out.append(Cluster(path, cluster_key(path), title, direct.get(path, [])))
    return out
