"""PyTorch's backward graph in the kit's view: ``viz.draw(loss)`` for a torch tensor.

``torch_view(t)`` reads the autograd graph behind a torch tensor's ``grad_fn``
into the same ``GraphView`` that ``build_view`` makes of a minigrad graph, so
``viz.draw`` (both layouts), ``viz.text`` and every ``DisplayOptions`` field work
on it unchanged: ``graph_view`` picks the reader, and ``draw`` and ``text``
call it.

How the graph is read (PyTorch 2.x; private attributes are read defensively,
in a ``try``, never trusted to exist):

* **nodes**: one view node per autograd Node, found by walking
  ``node.next_functions`` (``(node, input_nr)`` pairs; ``None`` for an input
  that needs no gradient) iteratively, so a 100,000-node chain is fine.  Ids
  come from a counter in walk order (post-order: a node's inputs before it,
  the root last), never from ``id()``: the same graph gets the same ids;
* **kinds**: the root's Node is the ``output``, ``AccumulateGrad`` Nodes are
  leaves (``param``: the tensor they accumulate into, ``.variable``, with its
  values and ``.grad``), every other Node is an op (``intermediate``);
* **labels**: an op shows the kit's symbol for the same op (``MulBackward0``
  → ``×``, looked up in ``minigrad.core.op``'s table) and the Node's own name
  beside it; an op the kit does not have shows its name.  A custom
  ``torch.autograd.Function`` shows its class name (class ``function``).
  Leaves are named from ``params=`` (a ``torch.nn.Module``'s
  ``named_parameters()``, a dict ``{name: tensor}`` or pairs; not given: a
  Module the calling code holds in a variable, as for minigrad);
* **values**: torch keeps no value in its Nodes, so an op shows the shape and
  dtype of what it produced (``_input_metadata``); the root shows its value,
  leaves show values and gradients (copied to the host: ``.detach().cpu()``, then
  numpy, in ``host_array``).  A CUDA tensor is drawn the same way, its values copied
  to the host for the picture and the panel.  That path is **untested on real CUDA**
  (there is no GPU where this was written): the tests run it with a tensor subclass
  that reports a ``cuda:0`` device and refuses ``.numpy()`` until ``.cpu()`` is
  called, as a CUDA tensor does.
  Gradients live on leaves only (and on a root that ``retain_grad()``s):
  other nodes have no grad field;
* **no-grad inputs**: an input that needs no gradient is ``(None, 0)`` in
  ``next_functions`` and has no Node; it is drawn as a grey ``input`` leaf
  (``NoGradInput``, numbered just before the Node reading it), so ``x * 2.0`` shows
  both arguments: with its value when the Node saved it (``_saved_other`` of
  ``MulBackward0``, ``_saved_mat1`` of ``AddmmBackward0``: ``saved_input``), else
  with its place only (named ``input 1``, its value ``value not saved``);
* **edges**: ``e_<child>_<parent>_<slot>``, ``slot`` the input's place in
  ``next_functions``; from a Node with several outputs (``split``) an edge is
  numbered by ``input_nr``, which output it carries (class ``multi`` on the node);
* **saved values** (``show_saved=True``; ``None``: custom Functions only): each
  ``_saved_<name>`` attribute (a custom Function's ``saved_tensors``), named
  ``<name>`` (``self``, ``dim``, ``self_sym_sizes``, ``result``), tensors as
  shape, dtype and bytes, other values as text.  After ``backward()`` without
  ``retain_graph=True`` a saved tensor reads "released by backward"; an
  attribute this torch version cannot read is left out.  ``GraphView.notes``
  says either once;
* **modules**: given a Module, each parameter's module is its scope, and an op
  that uses parameters of one module (its ``addmm``, the transpose of its
  weight) joins it, so ``modules="box"`` / ``"cluster"`` work.  A torch graph
  records no module calls: parameterless modules (``ReLU``) stay outside.

torch is imported only when a torch tensor is given (``is_torch`` looks at the
type's module name), so ``import viz`` never loads it.
"""

from __future__ import annotations

import re
import sys

import numpy as np

from minigrad.memory import format_bytes

from .derivative_orders import select_orders
from .numbers import NO_GRAD, clip, format_array, format_number, format_shape, visible
from .options import UNSET, DisplayOptions, resolve
from .view import (
    Cluster,
    GraphView,
    SavedItem,
    ViewEdge,
    ViewNode,
    build_view,
    cluster_key,
    grad_label,
    node_key,
    saved_key,
)

__all__ = ["is_torch", "graph_view", "torch_view", "torch_symbol", "torch_op_name", "kit_op",
           "forward_name",
           "walk_nodes", "number_nodes", "node_inputs", "node_outputs", "torch_node_name",
           "is_leaf_node",
           "host_array", "model_in_caller", "RELEASED", "NoGradInput", "saved_input",
           "read_saved", "saved_entries", "saved_alias", "same_tensor", "Unreadable",
           "setting_text", "NOT_SAVED"]

#: what a saved tensor freed by ``backward()`` reads as
RELEASED = "released by backward"

# torch Node names (``Backward<k>`` dropped, snake_case) that name a kit op differently
SAME_OP = {"mm": "matmul", "bmm": "matmul", "t": "transpose", "permute": "transpose",
            "view": "reshape", "unsafe_view": "reshape", "reshape_alias": "reshape",
            "split_with_sizes": "split", "clamp": "clip", "native_layer_norm": "layer_norm",
            "native_batch_norm": "batch_norm", "select": "getitem", "index": "getitem",
            "slice": "getitem", "amax": "max", "amin": "min"}


def is_torch(obj) -> bool:
    """A torch tensor (or a non-empty list of them), told by its type's module name alone."""
    if isinstance(obj, (list, tuple)) and obj:
        return all(_torch_type(x) for x in obj)
    return _torch_type(obj)


def _torch_type(obj) -> bool:
    """torch's own types by module name, and subclasses of ``torch.Tensor`` (a library's
    tensor subclass) by their bases: no import of torch either way."""
    cls = type(obj)
    return cls.__module__.split(".")[0] == "torch" or any(
        c.__module__ == "torch" and c.__name__ == "Tensor" for c in cls.__mro__)


def graph_view(root, *, options: DisplayOptions | None = None, **keywords) -> GraphView:
    """The view of ``root``: ``torch_view`` for torch tensors, else ``build_view``."""
    if is_torch(root):
        if options is not None and options.example is not None:
            raise ValueError(f"viz: example={options.example!r} picks one example of a batch "
                             f"computed inside minigrad.func.vmap; a torch graph has no such "
                             f"batch")
        return torch_view(root, options=options, **keywords)
    return build_view(root, options=options, **keywords)


def torch_symbol(name: str) -> str | None:
    """The kit's symbol for the op a torch Node named ``name`` differentiates
    (``"MulBackward0"`` → ``"×"``), ``None`` when the kit has no such op."""
    op = kit_op(name)
    if op is None:
        return None
    try:
        return op.display({})
    except Exception:  # a label that needs settings this Node does not give
        return op.symbol or op.name


def forward_name(name: str) -> str:
    """The function a Node named ``name`` differentiates, snake_case: ``AddmmBackward0``
    → ``addmm``."""
    base = re.sub(r"Backward\d*$", "", name)
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", base).lower()


def kit_op(name: str):
    """The kit's tensor op for the op a torch Node named ``name`` differentiates
    (``"MulBackward0"`` → mul), ``None`` when the kit has no such op."""
    from minigrad.core.op import get_op

    snake = forward_name(name)
    try:
        return get_op(SAME_OP.get(snake, snake), "tensor")
    except KeyError:
        return None


def torch_op_name(name: str) -> str | None:
    """The name of the kit's op that a torch Node named ``name`` differentiates
    (``"MulBackward0"`` → ``"mul"``, ``"MmBackward0"`` → ``"matmul"``), ``None`` when
    the kit has no such op (``"AddmmBackward0"``)."""
    return None if (op := kit_op(name)) is None else op.name


# --------------------------------------------------------------------- the walk


def node_inputs(fn) -> tuple:
    """``next_functions`` as read: ``((node or None, input_nr), ...)``; ``()`` if unreadable."""
    try:
        return tuple(fn.next_functions)
    except Exception:
        return ()


def walk_nodes(roots) -> list:
    """Every Node behind ``roots``, inputs before the Nodes using them (iterative DFS)."""
    order, seen = [], set()
    for root in roots:
        if root in seen:
            continue
        seen.add(root)
        stack = [(root, iter(node_inputs(root)))]
        while stack:
            fn, todo = stack[-1]
            for parent, _ in todo:
                if parent is not None and parent not in seen:
                    seen.add(parent)
                    stack.append((parent, iter(node_inputs(parent))))
                    break
            else:
                stack.pop()
                order.append(fn)
    return order


def number_nodes(order) -> tuple[dict, dict]:
    """``({Node: id}, {(Node, slot): id})``: a counter in walk order, each Node's no-grad
    inputs (``(None, 0)`` in its ``next_functions``) numbered just before it, so inputs
    come before the Nodes using them, and the same graph gets the same ids."""
    ids, input_ids = {}, {}
    for fn in order:
        for slot, (parent, _) in enumerate(node_inputs(fn)):
            if parent is None:
                input_ids[fn, slot] = len(ids) + len(input_ids)
        ids[fn] = len(ids) + len(input_ids)
    return ids, input_ids


def torch_node_name(fn) -> str:
    try:
        return str(fn.name())
    except Exception:
        return type(fn).__name__


# --------------------------------------------------------------------- the view


def torch_view(
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
) -> GraphView:
    """The ``GraphView`` of the autograd graph behind torch tensor(s) ``roots``.

    Takes ``build_view``'s keywords (see the module docstring for what each
    part of the view is); ``saved_values`` is minigrad's and is ignored here, and
    ``scopes`` may be a ``torch.nn.Module`` whose modules frame the nodes when
    ``params`` names the leaves some other way (a dict: ``viz.side_by_side``).  A
    tensor without ``grad_fn`` has no graph: a ``ValueError`` says why.
    """
    import torch

    opts = resolve("viz", options, dict(
        params=params, scopes=scopes, show_grad=show_grad, show_saved=show_saved,
        digits=digits, width=width, preview=preview, saved_values=saved_values, orders=orders))
    tensors = list(roots) if isinstance(roots, (list, tuple)) else [roots]
    if not tensors:
        raise ValueError("viz: nothing to show (the list of roots is empty)")
    for t in tensors:
        _check_has_graph(t, torch)
    root_fns = list(dict.fromkeys(t.grad_fn for t in tensors))
    order = walk_nodes(root_fns)
    ids, input_ids = number_nodes(order)
    leaves = [fn for fn in order if is_leaf_node(fn)]
    model = opts.params if isinstance(opts.params, torch.nn.Module) else None
    if model is None and isinstance(opts.scopes, torch.nn.Module):
        model = opts.scopes  # (names from params=, module boxes from this model)
    if opts.params is None:
        model = model_in_caller({fn.variable for fn in leaves}, torch)
        names = _param_names(model)
    else:
        names = _param_names(opts.params)
    modules = {n: type(m).__name__ for n, m in model.named_modules()} if model else {}
    outputs = {fn: node_outputs(fn) for fn in order}
    notes: dict[str, str] = {}
    nodes, edges, uses_data = [], [], set()
    root_of = {t.grad_fn: t for t in reversed(tensors)}  # the first tensor of each root Node
    for fn in order:
        nid = ids[fn]
        vn = (_leaf_node(fn, nid, names, opts) if is_leaf_node(fn)
              else _op_node(fn, nid, root_of.get(fn), outputs[fn], opts, torch))
        inputs = []
        for slot, (parent, input_nr) in enumerate(node_inputs(fn)):
            if parent is None:  # an input that needs no gradient (data, a constant)
                uses_data.add(nid)
                cid = input_ids[fn, slot]
                nodes.append(_no_grad_node(NoGradInput(fn, slot, torch), cid, opts))
                inputs.append(cid)
                edges.append(ViewEdge(nid, cid, slot))
                continue
            inputs.append(ids[parent])
            multi = len(outputs[parent]) > 1
            edges.append(ViewEdge(nid, ids[parent], slot, input_nr if multi else None))
        vn.inputs = tuple(inputs)
        if not vn.is_leaf and (opts.show_saved or (opts.show_saved is None and vn.custom)):
            vn.saved = _saved_items(fn, nid, opts, notes, torch)
        nodes.append(vn)
    if modules:
        _infer_scopes(nodes, names, leaves, ids, uses_data)
    root_ids = tuple(ids[fn] for fn in root_fns)
    nodes, edges, root_ids = select_orders(nodes, edges, root_ids, opts.orders)
    view = GraphView(nodes, edges, root_ids, _clusters(nodes, modules))
    view.notes = tuple(notes.values())
    return view


def _check_has_graph(t, torch) -> None:
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"viz: a list of roots mixes torch tensors with a {type(t).__name__}")
    if t.grad_fn is not None:
        return
    if t.requires_grad:  # a leaf (a parameter, or a tensor made with requires_grad=True)
        raise ValueError(
            "viz: this torch tensor is a leaf (requires_grad=True, grad_fn=None): no op made "
            "it, so it has no backward graph of its own. Draw a result computed from it, "
            "e.g. viz.draw(loss) with loss = model(x).sum().")
    raise ValueError(
        "viz: this torch tensor has no grad_fn, so autograd recorded no graph for it: it was "
        "computed under torch.no_grad() or torch.inference_mode(), or from tensors that do "
        "not require grad. Make a leaf with requires_grad=True (x.requires_grad_()) and "
        "compute the result outside no_grad, then draw it.")


def is_leaf_node(fn) -> bool:
    return hasattr(fn, "variable")  # AccumulateGrad (its name varies: torch::autograd::...)


def node_outputs(fn) -> list:
    """``[(shape, dtype), ...]`` per output of Node ``fn`` (its ``_input_metadata``)."""
    try:
        return [(tuple(int(n) for n in m.shape), str(m.dtype).removeprefix("torch."))
                for m in fn._input_metadata]
    except Exception:
        return []


def host_array(t):
    """A torch tensor's values as a numpy array (``None`` if they cannot be read)."""
    try:
        t = t.detach()
        if getattr(t, "is_sparse", False):
            t = t.to_dense()
        t = t.cpu().resolve_conj().resolve_neg()
        try:
            return t.numpy()
        except TypeError:  # bfloat16 and friends: numpy has no such dtype
            return t.float().numpy()
    except Exception:
        return None


def _fill_values(vn, t, grad, opts) -> None:
    """Shape, dtype, value preview and grad field of view node ``vn`` from tensor ``t``."""
    data = host_array(t)
    vn.shape = format_shape(tuple(t.shape))
    vn.dtype = str(t.dtype).removeprefix("torch.")
    vn.size = int(t.numel())
    vn.tiny = data is not None and vn.size <= opts.preview
    vn.data = ("(no value)" if data is None
               else format_array(data, opts.digits, opts.width, opts.preview))
    if not opts.show_grad or grad is False:
        return
    g = None if grad is None else host_array(grad)
    vn.grad_label = grad_label(data if data is not None else np.zeros(()), g,
                               digits=opts.digits, preview=opts.preview, width=opts.width)
    if g is None:
        vn.grad = NO_GRAD
    else:
        vn.grad = format_array(g, opts.digits, opts.width, opts.preview)
        vn.grad_norm = format_number(float(np.sqrt(np.sum(np.square(g, dtype=float)))),
                                     opts.digits)


def _leaf_node(fn, nid, names, opts) -> ViewNode:
    var = fn.variable
    name = names.get(var)
    vn = ViewNode(nid, node_key(nid), "param", True, True, "tensor", None, None,
                  None if name is None else visible(name), "", None, node=fn, multi=False)
    _fill_values(vn, var, var.grad, opts)
    return vn


def _op_node(fn, nid, root, outputs, opts, torch) -> ViewNode:
    name = torch_node_name(fn)
    custom = isinstance(fn, torch.autograd.function.BackwardCFunction)
    if custom:
        cls = getattr(fn, "_forward_cls", None)
        symbol = getattr(cls, "__name__", None) or name
    else:
        symbol = torch_symbol(name) or name
    vn = ViewNode(nid, node_key(nid), "output" if root is not None else "intermediate", False,
                  True, "tensor", name, symbol, None if symbol == name else name, None, None,
                  custom=custom, node=fn, multi=len(outputs) > 1)
    vn.tiny = False
    if root is not None:  # the one node whose value we hold
        _fill_values(vn, root, root.grad if root.retains_grad else False, opts)
    elif len(outputs) > 1:
        vn.data = (f"→ {len(outputs)} outputs: "
                   + " · ".join(format_shape(shape) for shape, _ in outputs))
    elif outputs:
        vn.shape, vn.dtype = format_shape(outputs[0][0]), outputs[0][1]
        vn.size = int(np.prod(outputs[0][0], dtype=np.int64))
    return vn


# --------------------------------------------------------------------- no-grad inputs

#: what a no-grad input shows when nothing tells its value
NOT_SAVED = "value not saved"

#: the saved attribute holding each input of a Node, in ``next_functions`` order, where
#: they are not ``self, other`` (the names of ATen's arguments, which ``_saved_*`` keep)
INPUT_NAMES = {"AddmmBackward0": ("self", "mat1", "mat2"), "MmBackward0": ("self", "mat2"),
               "BmmBackward0": ("self", "mat2"), "MvBackward0": ("self", "vec"),
               "AddmvBackward0": ("self", "mat", "vec"), "PowBackward1": ("self", "exponent"),
               "MseLossBackward0": ("self", "target"), "L1LossBackward0": ("self", "target"),
               "BinaryCrossEntropyBackward0": ("self", "target", "weight")}


class NoGradInput:
    """Input ``slot`` of Node ``fn`` that needs no gradient: ``next_functions`` says
    ``(None, 0)`` for it (data, a constant such as the ``2.0`` of ``x * 2.0``), so it has
    no Node of its own.  ``value``: the tensor or number it was, when it can be known: a
    value given (the stepper's capture of the forward call), else the Node's saved
    tensor of that input's name (``_saved_other`` of ``MulBackward0``), else ``None``:
    the view shows its position only."""

    __slots__ = ("fn", "slot", "value")

    def __init__(self, fn, slot: int, torch, value=None):
        self.fn, self.slot = fn, slot
        self.value = value if value is not None else saved_input(fn, slot, torch)


def saved_input(fn, slot: int, torch):
    """The tensor Node ``fn`` saved for its input ``slot`` (``None``: it saved none)."""
    names = INPUT_NAMES.get(torch_node_name(fn), ("self", "other"))
    if slot >= len(names):
        return None
    try:
        v = getattr(fn, f"_saved_{names[slot]}")
    except Exception:  # not saved, unreadable in this version, or freed by backward
        return None
    return v if isinstance(v, torch.Tensor) else None


def _no_grad_node(inp: NoGradInput, nid: int, opts) -> ViewNode:
    """A grey ``input`` leaf for a no-grad input: its value when known, else named by
    its place (``input 1``)."""
    vn = ViewNode(nid, node_key(nid), "input", True, False, "tensor", None, None, None, "",
                  None, node=inp, multi=False)
    v = inp.value
    if v is None:  # named by its place, so the op's expression reads "x + input 1"
        vn.kind, vn.name, vn.data = "scalar", f"input {inp.slot}", NOT_SAVED
    elif _torch_type(v):
        _fill_values(vn, v, False, opts)
    else:
        vn.kind, vn.data = "scalar", format_number(v, opts.digits)
    return vn


# --------------------------------------------------------------------- saved values


class Unreadable(str):
    """A saved value that could not be read, as the text the view shows for it."""


def read_saved(fn, torch, notes: dict | None = None) -> list:
    """``[(name, value)]``: what Node ``fn`` saved for backward, ``_saved_self`` and
    ``_saved_other`` first, the rest by name (a custom Function: its ``saved_tensors``).

    A value is what the attribute gives (a tensor, a tuple of tensors, a size, a
    number), ``RELEASED`` (as an ``Unreadable``) once a backward without
    ``retain_graph=True`` freed it, or an ``Unreadable`` reason.  An attribute this
    torch version lists but cannot read is left out, and ``notes`` says so once.
    """
    notes = {} if notes is None else notes
    if isinstance(fn, torch.autograd.function.BackwardCFunction):
        attrs = ["saved_tensors"]
    else:
        try:
            attrs = sorted((a for a in dir(fn) if a.startswith("_saved_")), key=_saved_order)
        except Exception:
            attrs = []
    out = []
    for attr in attrs:
        name = attr.removeprefix("_saved_")
        try:
            v = getattr(fn, attr)
        except AttributeError:  # listed, but this torch version cannot read it
            notes.setdefault("missing", f"some saved attributes cannot be read in torch "
                                        f"{torch.__version__} (e.g. {torch_node_name(fn)}.{attr}): "
                                        f"left out")
            continue
        except RuntimeError as exc:
            if "freed" in str(exc) or "second time" in str(exc):
                v = Unreadable(RELEASED)
                notes.setdefault("released", f"saved tensors {RELEASED}(): call "
                                             f"backward(retain_graph=True) to keep them")
            else:
                v = Unreadable(f"(unreadable: {clip(str(exc), 40)})")
        except Exception as exc:
            v = Unreadable(f"(unreadable: {type(exc).__name__})")
        out.append((name, v))
    return out


def saved_entries(fn, torch, notes: dict | None = None) -> list:
    """``[(name, value)]``, one per value Node ``fn`` saved, as a view shows them: a
    tuple of tensors is one entry per tensor (``tensors[0]``, ``tensors[1]``) and
    ``None`` (nothing saved) is left out.  The drawing and the stepper's record both
    number what it saved this way, so ``s_<id>_<k>`` is the same value in each."""
    out = []
    for name, v in read_saved(fn, torch, notes):
        if (isinstance(v, (tuple, list)) and v and not isinstance(v, Unreadable)
                and all(isinstance(x, torch.Tensor) for x in v)):
            out.extend((f"{name}[{k}]", x) for k, x in enumerate(v))
        elif v is not None:
            out.append((name, v))
    return out


def _saved_items(fn, nid, opts, notes, torch) -> tuple:
    """What Node ``fn`` saved for backward: one ``SavedItem`` per value, named by its
    attribute and saying what it is, as minigrad's drawing does: ``result = out``,
    ``self = input 0`` (``saved_alias``) with its shape under it, else the value itself
    (``dim = (1,)``, ``self_sym_sizes = (3, 4)``)."""
    items = []
    for k, (name, v) in enumerate(saved_entries(fn, torch, notes)):
        alias = None
        if isinstance(v, Unreadable):
            text = str(v)
        elif isinstance(v, torch.Tensor):
            text = _tensor_text(v)
            alias = saved_alias(fn, name, v, torch)
        else:
            text = clip(setting_text(v, opts.digits), min(opts.width or 48, 48))
        setting = not isinstance(v, (Unreadable, torch.Tensor))
        items.append(SavedItem(saved_key(nid, k), k, text, alias, name, setting))
    return tuple(items)


def saved_alias(fn, name: str, v, torch) -> str | None:
    """Which of Node ``fn``'s own values the saved tensor ``v`` is: ``"out"`` for
    ``_saved_result`` (autograd's name for the output an op keeps: tanh, exp, sigmoid),
    ``"input k"`` when it is the tensor of a leaf feeding input ``k`` (its
    ``AccumulateGrad``'s ``variable``) or of a no-grad input there, else ``None``.

    A saved tensor is unpacked as a new Python object, so "is" cannot tell: the same
    storage, offset, shape, strides and dtype can (``same_tensor``).  An input made by
    another op has no tensor to compare with in the graph, so it stays unnamed."""
    if name == "result":
        return "out"
    for slot, (parent, _) in enumerate(node_inputs(fn)):
        if parent is None:
            held = saved_input(fn, slot, torch)
        elif is_leaf_node(parent):
            held = getattr(parent, "variable", None)
        else:
            continue
        if held is not None and same_tensor(v, held):
            return f"input {slot}"
    return None


def same_tensor(a, b) -> bool:
    """Do torch tensors ``a`` and ``b`` show the same numbers of the same memory (one
    storage, offset, shape, strides and dtype)?  What a saved tensor shares with the
    tensor it was saved from."""
    try:
        return (a.data_ptr() == b.data_ptr() and a.shape == b.shape
                and a.stride() == b.stride() and a.storage_offset() == b.storage_offset()
                and a.dtype == b.dtype)
    except Exception:  # (a tensor without storage: a meta or sparse one)
        return False


def setting_text(v, digits) -> str:
    if isinstance(v, float):
        return format_number(v, digits)
    if isinstance(v, int) and 2**63 <= v < 2**64:  # an int64 read back unsigned (-100: 2**64-100)
        v -= 2**64
    return repr(v)


def _saved_order(attr: str):
    """``_saved_self`` and ``_saved_other`` first (the inputs, in order), the rest by name."""
    rank = {"_saved_self": 0, "_saved_other": 1}
    return (rank.get(attr, 2), attr)


def _nbytes(t) -> int:
    try:
        return int(t.numel() * t.element_size())
    except Exception:
        return 0


def _tensor_text(t) -> str:
    dtype = str(t.dtype).removeprefix("torch.")
    return f"{format_shape(tuple(t.shape))} {dtype} {format_bytes(_nbytes(t))}"


# --------------------------------------------------------------------- names and modules


def _param_names(params) -> dict:
    """``{tensor: name}`` from a Module, a dict ``{name: tensor}`` or ``(name, tensor)`` pairs."""
    if not params:
        return {}
    if hasattr(params, "named_parameters"):
        pairs = params.named_parameters()
    elif isinstance(params, dict):
        pairs = params.items()
    else:
        pairs = params
    names = {}
    for pair in pairs:
        try:
            name, p = pair
        except (TypeError, ValueError):
            raise TypeError(
                "params= takes a torch.nn.Module, a dict {name: tensor} or (name, tensor) "
                f"pairs; got an item of type {type(pair).__name__}") from None
        if not _torch_type(p):
            raise TypeError(f"params=: {name!r} is a {type(p).__name__}, not a torch tensor")
        names.setdefault(p, str(name))
    return names


def model_in_caller(leaf_tensors, torch):
    """The ``torch.nn.Module`` in the caller's variables naming the most of these leaves
    (ties: the first variable name), as ``viz.render.view.model_param_names`` does."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__", "").split(".")[0] == "viz":
        frame = frame.f_back
    if frame is None or not leaf_tensors:
        return None
    space = {**frame.f_globals, **frame.f_locals}
    found = []
    for var in sorted(space):
        obj = space[var]
        if isinstance(obj, torch.nn.Module):
            hits = sum(1 for p in obj.parameters() if p in leaf_tensors)
            if hits:
                found.append((-hits, var, obj))
    return min(found, key=lambda f: f[:2])[2] if found else None


def _infer_scopes(nodes, names, leaves, ids, uses_data) -> None:
    """Module scopes: a parameter's from its name; an op's from the parameters it uses.

    An op made from parameters only (the transpose of a weight) belongs to their
    module; an op where data (any other input, ``uses_data``: one that needs no
    gradient) meets the parameters of one module (``addmm``) belongs to that module.
    """
    by_id = {vn.id: vn for vn in nodes}
    pure: dict[int, tuple] = {}  # node made from parameters only -> their common scope
    for fn in leaves:
        name = names.get(fn.variable)
        scope = tuple(name.split(".")[:-1]) if name else ()
        pure[ids[fn]] = by_id[ids[fn]].scope = scope
    for vn in nodes:  # inputs before the ops that use them
        if vn.is_leaf or not vn.inputs:
            continue
        # made from parameters only: their module (a transpose of a weight)
        if vn.id not in uses_data and all(p in pure for p in vn.inputs):
            scopes = {pure[p] for p in vn.inputs}
            scope = pure[vn.id] = scopes.pop() if len(scopes) == 1 else ()
        else:  # data meets the parameters of one module: that module's op
            scopes = {pure[p] for p in vn.inputs if p in pure} - {()}
            scope = scopes.pop() if len(scopes) == 1 else ()
        vn.scope = scope


def _natural(path: tuple) -> tuple:
    return tuple((0, int(p), "") if str(p).isdigit() else (1, 0, str(p)) for p in path)


def _clusters(nodes, modules: dict) -> list:
    """One ``Cluster`` per module scope and enclosing scope, titled ``0: Linear``."""
    direct: dict[tuple, list] = {}
    for vn in nodes:
        if vn.scope:
            direct.setdefault(vn.scope, []).append(vn.id)
    paths = {path[:i] for path in direct for i in range(1, len(path) + 1)}
    out = []
    for path in sorted(paths, key=_natural):
        qualified = ".".join(path)
        kind = modules.get(qualified)
        title = f"{qualified}: {kind}" if kind else qualified
        out.append(Cluster(path, cluster_key(path), title, direct.get(path, [])))
    return out
