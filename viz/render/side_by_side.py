"""``viz.side_by_side``: one function run in minigrad and in PyTorch, compared.

>>> sbs = viz.side_by_side(lambda x, w: (x * w).tanh().sum(), x, w)
>>> sbs                 # in Jupyter: both graphs, minigrad left, PyTorch right
>>> print(sbs)          # the table: every gradient agrees, or where and why not
>>> sbs.pairs           # which torch Node is which minigrad op

What runs
---------
``f`` is written once against the API both engines share (operators, ``@``,
``.tanh()``, ``.sum()``, calling a model ...) and is called twice: on minigrad
tensors, then on torch copies of them.  Where the two APIs differ, pass two
functions, ``(f_minigrad, f_torch)``.  ``inputs`` are numpy arrays, numbers or
minigrad ``Tensor``s: each becomes a new leaf on both sides (cast to
``dtype``, float64 by default; crossed with ``minigrad.interop``), a leaf that
requires grad unless it is a ``Tensor`` made with ``requires_grad=False``
(data).  Each is named by ``f``'s parameter names (``names=`` overrides).

``params`` adds parameters:

* a minigrad ``nn.Module``: each function gets a copy of it as its first argument
  (minigrad's, then its ``interop.to_torch`` copy), both cast to ``dtype``; your model
  is left as it was;
* ``(model, torch_model)``: the two models your functions use (closures); they are
  used as they are (no cast) and their ``.grad`` is cleared first;
* a dict ``{name: array or Tensor}``: more leaves, passed as keyword arguments.

Both outputs are differentiated (``backward()``, with a gradient of ones for an
output that is not a scalar), drawn with ``viz.draw`` (every ``DisplayOptions``
keyword passes through: ``layout``, ``rankdir``, ``show_saved`` ...) and compared.
With a model (``params``: a Module or a pair), minigrad's call is recorded with
``minigrad.nn.record_scopes``, so its drawing frames each module's nodes (``modules=
"box"`` / ``"cluster"``), and PyTorch's frames them from the torch model's parameter
names (``torch_view``'s ``scopes=``).

Several outputs: ``f`` may return a tuple (or list) of tensors, the same number on
both sides.  Each output gets a row of the table, and both graphs are drawn with all
of them as roots.  The gradients are seeded as for the sum of every element of every
output, ``L = Σₖ Σᵢ outₖ[i]``: each output's backward starts from ones (minigrad runs
one backward per output, keeping the graph until the last; PyTorch one
``torch.autograd.backward`` over all), so a leaf's gradient row compares
``∂L/∂leaf = Σₖ (its gradient through output k)``.  An output that does not depend on
any leaf (no ``grad_fn`` in PyTorch) is compared but not differentiated.

How nodes are paired (deterministic, bottom-up)
-----------------------------------------------
1. **Leaves by name**: the minigrad leaf named ``w`` pairs with the torch
   ``AccumulateGrad`` of the copy of ``w``.
2. **Ops by kind and inputs**, minigrad's ops taken in graph order (inputs
   first): an op pairs with the first unpaired torch Node (in the torch view's
   order) that (a) differentiates the same op of the kit (``MulBackward0`` is
   ``mul``, via ``minigrad.core.op``'s table; PyTorch's ``addmm`` stands for
   ``linear``, or an ``add`` of a ``matmul``: the fusions in ``FUSED``) and
   (b) has the same *paired inputs*.  An op's paired inputs are the pair numbers
   of its inputs, where an unpaired input op is looked through (its own paired
   inputs stand in) and an unpaired leaf (data, a constant) adds nothing.  So
   torch's separate transpose of a ``Linear`` weight (``TBackward0``), or an extra
   ``× 1.0001``, is left unpaired without stopping its neighbours from pairing.

Pairs are numbered in minigrad's graph order; both drawings show ``#k`` beside
paired nodes, and their SVG groups carry the classes ``pair pair_k``
(``unpaired`` for the others), on both sides.

The verdict
-----------
One row for the forward output and one per input and parameter: shape, the
largest absolute difference ``max |Δ|`` and the relative one (``max |Δ|`` over
the largest magnitude in PyTorch's value).  A row *agrees* when either is at most
``tol`` (by dtype: 1e-10 for float64, 1e-5 for float32, 1e-2 below); otherwise it
*differs*, with the reason where one is known: a shape or a missing gradient,
an output that already differs, ops found on one side only between that leaf
and the output.  Unpaired nodes are listed with why (data has no torch Node,
PyTorch fuses ``addmm`` ...).

torch is imported only when ``side_by_side`` runs; without it the error names
the ``[torch]`` extra.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import inspect
import re
from dataclasses import dataclass
from html import escape

import numpy as np

from .dot import render_dot
from .draw import Graph, draw
from .torch_graph import torch_op_name

__all__ = ["side_by_side", "SideBySide", "Pair", "Unpaired", "Row", "FUSED", "TOLERANCES"]

#: the largest difference that still agrees, by dtype (anything else: 1e-2)
TOLERANCES = {"float64": 1e-10, "float32": 1e-5}

#: torch Nodes standing for a group of the kit's ops: torch name (``Backward0`` dropped,
#: snake_case) -> (the kit ops it may pair with, what the table says about it)
FUSED = {
    "addmm": (("linear", "add"),
              "PyTorch fuses matmul + add into one Node (addmm = bias + x @ Wᵀ), its Linear "
              "transposing the weight in a Node of its own (TBackward0); minigrad records "
              "one op"),
}

_SIDES = ("minigrad", "PyTorch")


@dataclass(frozen=True)
class Pair:
    """Pair ``number``: minigrad's node ``minigrad`` (a view id) is torch's ``torch``."""

    number: int
    minigrad: int
    torch: int
    what: str  # "w", or "× mul ↔ MulBackward0"
    note: str | None = None  # for a pairing across a fusion (addmm ↔ linear)

    @property
    def css(self) -> str:
        return f"pair_{self.number}"


@dataclass(frozen=True)
class Unpaired:
    """A node found on one side only, and why."""

    side: str  # "minigrad" or "PyTorch"
    node: int
    what: str
    reason: str


@dataclass(frozen=True)
class Row:
    """One compared value: the forward output, or an input's or a parameter's gradient."""

    name: str
    shape: tuple | None
    max_abs: float | None
    rel: float | None
    agrees: bool
    verdict: str


# --------------------------------------------------------------------- the result


class SideBySide:
    """Both graphs, the pairing and the comparison; see the module docstring.

    ``minigrad`` and ``torch`` are the two drawings (``viz.Graph``, pair classes
    in their SVG), ``pairs`` and ``unpaired`` the pairing, ``output`` and ``grads``
    the rows of the table, ``agrees`` whether every row agrees.
    """

    def __init__(self, minigrad: Graph, torch: Graph, pairs, unpaired, outputs, grads,
                 dtype: str, tol: float):
        self.minigrad, self.torch = minigrad, torch
        self.pairs: list[Pair] = pairs
        self.unpaired: list[Unpaired] = unpaired
        #: one row per output of ``f`` (``output``: the first, the only one usually)
        self.outputs: list[Row] = [outputs] if isinstance(outputs, Row) else list(outputs)
        self.grads = list(grads)
        self.dtype, self.tol = dtype, tol

    @property
    def output(self) -> Row:
        return self.outputs[0]

    @property
    def agrees(self) -> bool:
        return all(r.agrees for r in self.outputs) and all(r.agrees for r in self.grads)

    # --- text --------------------------------------------------------------------
    def table(self) -> str:
        """The comparison as text: output, one row per gradient, the graphs' pairing."""
        rows = [("", "shape", "max |Δ|", "rel Δ", "verdict")]
        rows.extend(_cells(r, r.name) for r in self.outputs)
        rows.extend(_cells(r, f"grad {r.name}") for r in self.grads)
        widths = [max(len(r[k]) for r in rows) for k in range(4)]
        lines = [f"minigrad vs PyTorch ({self.dtype}, tol {_num(self.tol)})"]
        for r in rows:
            lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[4])
        lines.append(self._summary())
        lines.extend("  " + text for text in self.notes())
        return "\n".join(line.rstrip() for line in lines)

    def _summary(self) -> str:
        mg, pt = len(self.minigrad.view.nodes), len(self.torch.view.nodes)
        bad = [r.name for r in self.grads if not r.agrees]
        outputs_agree = all(r.agrees for r in self.outputs)
        head = ("every gradient agrees" if not bad and outputs_agree else
                f"{len(bad)} of {len(self.grads)} gradients differ ({', '.join(bad)})" if bad
                else "the gradients agree but the output differs")
        return (f"{head}; graphs: minigrad {mg} nodes, PyTorch {pt} nodes, "
                f"{len(self.pairs)} paired")

    def notes(self) -> list[str]:
        """What the pairing found: each fusion once, then each unpaired node and why."""
        out = []
        for note in dict.fromkeys(p.note for p in self.pairs if p.note):
            fused = [f"#{p.number} {p.what}" for p in self.pairs if p.note == note]
            out.append(f"fused: {', '.join(fused)}: {note}")
        counts: dict = {}
        for u in self.unpaired:  # the same node and reason twice (each Linear's ᵀ): once
            counts[(u.side, u.what, u.reason)] = counts.get((u.side, u.what, u.reason), 0) + 1
        for (side, what, reason), k in counts.items():
            out.append(f"only in {side}: {what}{f' (×{k})' if k > 1 else ''}: {reason}")
        return out

    def __str__(self) -> str:
        return self.table()

    def __repr__(self) -> str:
        return (f"<SideBySide {'agrees' if self.agrees else 'differs'}: {len(self.pairs)} "
                f"pairs, {len(self.unpaired)} unpaired>")

    # --- HTML --------------------------------------------------------------------
    def _repr_html_(self) -> str:
        columns = "".join(
            f'<div class="sbs-side sbs-{side.lower()}" style="flex:1 1 0;min-width:0">'
            f'<div style="font:bold 14px sans-serif;margin:4px 0">{side}</div>'
            f'<div style="overflow:auto">{graph.svg()}</div></div>'
            for side, graph in zip(_SIDES, (self.minigrad, self.torch)))
        return (f'<div class="minigrad-side-by-side">{_STYLE}'
                f'<div style="display:flex;gap:24px;align-items:flex-start">{columns}</div>'
                f'<pre style="font-size:12px;line-height:1.35;white-space:pre-wrap">'
                f"{escape(self.table())}</pre>"
                f"</div>")

    def save(self, path):
        """Write a self-contained HTML page of the side-by-side view; returns the path."""
        from pathlib import Path

        path = Path(path)
        path.write_text(f'<!doctype html><html><head><meta charset="utf-8">'
                        f"<title>minigrad vs PyTorch</title></head><body>"
                        f"{self._repr_html_()}</body></html>\n", encoding="utf-8")
        return path


# unpaired nodes get a dashed red outline (grey for data, which torch never records);
# paired ones keep their colours
_STYLE = ("<style>.minigrad-side-by-side g.unpaired > polygon,"
          ".minigrad-side-by-side g.unpaired > rect{stroke:#dc2626;stroke-dasharray:4 2}"
          ".minigrad-side-by-side g.unpaired.input > polygon,"
          ".minigrad-side-by-side g.unpaired.input > rect{stroke:#94a3b8}"
          ".minigrad-side-by-side svg{max-width:100%;height:auto}</style>")


def _cells(row: Row, label: str) -> tuple:
    shape = "" if row.shape is None else str(row.shape)
    return (label, shape, _num(row.max_abs), _num(row.rel), row.verdict)


def _num(x) -> str:
    if x is None:
        return "—"
    return "0" if x == 0 else f"{x:.1e}"


class _PairedGraph(Graph):
    """A ``Graph`` whose SVG node groups also carry pairing classes (``pair pair_3``)."""

    def __init__(self, graph: Graph, view, classes: dict):
        o = graph.options
        dot = render_dot(view, rankdir=o.rankdir, show_attrs=o.show_attrs, modules=o.modules,
                         depth=o.depth, highlight=graph._highlight, legend=o.legend,
                         edge_labels=o.edge_labels, title=o.title)
        super().__init__(view, dot.source, o, (dot.nodes, dot.edges), graph._highlight)
        self.pair_classes = classes  # {node key: "pair pair_3" or "unpaired"}

    def svg(self) -> str:
        if self._svg is None:
            svg = super().svg()

            def add(m):
                extra = self.pair_classes.get(m.group(1))
                return m.group(0) if extra is None else f'{m.group(0)[:-1]} {extra}"'

            self._svg = re.sub(r'<g id="(n_\d+)" class="node[^"]*"', add, svg)
        return self._svg


# --------------------------------------------------------------------- running both


def side_by_side(f, *inputs, params=None, names=None, dtype="float64", tol=None,
                 **draw_options) -> SideBySide:
    """Run ``f`` in minigrad and in PyTorch, differentiate both, draw and compare them.

    ``f`` is one function for both engines or a pair ``(f_minigrad, f_torch)``;
    ``inputs`` its positional arguments; see the module docstring for ``params``,
    ``names``, ``dtype`` (``None``: keep each input's own), ``tol`` and the pairing.
    Other keywords go to ``viz.draw`` for both pictures.
    """
    from minigrad import Tensor
    from minigrad.interop import from_torch, import_torch, to_torch
    from minigrad.nn import Module, record_scopes

    torch = import_torch("viz.side_by_side")
    f_mg, f_t = _functions(f)
    dt = None if dtype is None else np.dtype(dtype)

    def leaf(value):
        if isinstance(value, Tensor):
            data, rg = value.data, bool(value.requires_grad)
        else:
            data, rg = value, True
        data = np.array(data, dtype=dt, copy=True)
        if data.dtype.kind != "f":  # (dtype=None: integers still become float64)
            data = data.astype(np.float64)
        t = Tensor(data, requires_grad=rg)
        return t, to_torch(t)

    # the leaves, on both sides: inputs, then keyword leaves
    arg_names = _names(f_mg, len(inputs), names, skip=isinstance(params, Module))
    mg_args, t_args, mg_named, t_named = [], [], {}, {}
    for name, value in zip(arg_names, inputs):
        a, b = leaf(value)
        mg_args.append(a)
        t_args.append(b)
        mg_named[name], t_named[name] = a, b
    mg_kw, t_kw = {}, {}
    mg_model = t_model = None
    if isinstance(params, Module):  # copies of the model, cast, as the first argument
        t_model = to_torch(params)
        if dt is not None:
            t_model = t_model.to(getattr(torch, dt.name))
        mg_model = from_torch(t_model)
        mg_args.insert(0, mg_model)
        t_args.insert(0, t_model)
    elif isinstance(params, (tuple, list)) and len(params) == 2 and isinstance(params[0], Module):
        mg_model, t_model = params
        mg_model.zero_grad()
        t_model.zero_grad(set_to_none=True)
    elif isinstance(params, dict):
        for name, value in params.items():
            a, b = leaf(value)
            mg_kw[name], t_kw[name] = a, b
            mg_named[str(name)], t_named[str(name)] = a, b
    elif params is not None:
        raise TypeError("side_by_side: params= takes a minigrad nn.Module, a pair (model, "
                        "torch_model) or a dict {name: array}; got "
                        f"{type(params).__name__}")
    if mg_model is not None:
        mg_named.update(mg_model.named_parameters())
        t_named.update(_torch_names(mg_model, t_model))

    with (record_scopes() if mg_model is not None else contextlib.nullcontext()) as scopes:
        outs_mg = _outputs(f_mg(*mg_args, **mg_kw), Tensor, "minigrad")
    outs_t = _outputs(f_t(*t_args, **t_kw), torch.Tensor, "PyTorch")
    if len(outs_mg) != len(outs_t):
        raise ValueError(f"side_by_side: the minigrad function returned {len(outs_mg)} "
                         f"outputs and the PyTorch one {len(outs_t)}")
    _backward_both(outs_mg, outs_t, torch)

    options = draw_options.get("options")
    if draw_options.get("rankdir", "auto") == "auto" and (
            options is None or options.rankdir == "auto"):  # one direction for both: top-down
        draw_options["rankdir"] = "TB"  # fits a half-width column
    one = len(outs_mg) == 1
    g_mg = draw(outs_mg[0] if one else outs_mg, params=mg_named,
                **({"scopes": scopes} if scopes else {}), **draw_options)
    g_t = draw(outs_t[0] if one else outs_t, params=t_named,
               **({"scopes": t_model} if t_model is not None else {}), **draw_options)
    pairs, unpaired = pair_views(g_mg.view, g_t.view)
    comparison_dtype = str(outs_mg[0].data.dtype)
    tol = TOLERANCES.get(comparison_dtype, 1e-2) if tol is None else float(tol)
    outputs = []
    for k, (a, b) in enumerate(zip(outs_mg, outs_t)):
        row = _compare("output" if one else f"output {k}", a.data, _host(b), comparison_dtype,
                       tol)
        if not row.agrees and row.verdict == "differs":
            row = dataclasses.replace(row, verdict="differs: " + "; ".join(_graph_reasons(
                None, g_mg.view, g_t.view, unpaired)))
        outputs.append(row)
    output = outputs[0] if all(r.agrees for r in outputs) else next(
        r for r in outputs if not r.agrees)
    grads = []
    for name in mg_named:
        a, b = mg_named[name], t_named.get(name)
        if not getattr(a, "requires_grad", False):
            continue
        row = _compare(name, a.grad, None if b is None or b.grad is None else _host(b.grad),
                       comparison_dtype, tol, missing=b is None)
        if not row.agrees and row.verdict == "differs":
            reasons = ([] if output.agrees else ["the outputs already differ"])
            reasons += _graph_reasons(name, g_mg.view, g_t.view, unpaired)
            row = dataclasses.replace(row, verdict="differs: " + "; ".join(reasons))
        grads.append(row)
    tags = _tags(pairs, unpaired)
    return SideBySide(_tagged(g_mg, tags["minigrad"]), _tagged(g_t, tags["PyTorch"]), pairs,
                      unpaired, outputs, grads, comparison_dtype, tol)


def _functions(f):
    if callable(f):
        return f, f
    if isinstance(f, (tuple, list)) and len(f) == 2 and all(callable(g) for g in f):
        return f[0], f[1]
    raise TypeError("side_by_side: f is a function (written against the API both engines "
                    "share) or a pair (f_minigrad, f_torch)")


def _names(f, count, names, skip) -> list[str]:
    """Input names: ``names=``, else ``f``'s positional parameter names, else ``input<k>``."""
    if names is not None:
        names = [str(n) for n in names]
        if len(names) != count:
            raise ValueError(f"side_by_side: names= gives {len(names)} names for {count} inputs")
        return names
    try:
        found = [p.name for p in inspect.signature(f).parameters.values()
                 if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        found = []
    found = found[1:] if skip else found
    return [found[k] if k < len(found) else f"input{k}" for k in range(count)]


def _torch_names(mg_model, t_model) -> dict:
    """``{minigrad parameter name: torch parameter}`` (``interop``'s key map where it has one)."""
    try:
        from minigrad.interop import torch_state_dict_keys

        keys = torch_state_dict_keys(mg_model)
    except Exception:
        keys = {}
    by_torch_name = dict(t_model.named_parameters())
    out = {}
    for name, _ in mg_model.named_parameters():
        p = by_torch_name.get(keys.get(name, name))
        if p is not None:
            out[name] = p
    return out


def _outputs(out, kind, side) -> list:
    """``f``'s result as a list of tensors: one tensor, or a tuple/list of them."""
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    bad = [type(o).__name__ for o in outs if not isinstance(o, kind)]
    if bad or not outs:
        raise TypeError(f"side_by_side: the {side} function must return a tensor or a tuple "
                        f"of tensors, got {type(out).__name__}"
                        + (f" holding a {bad[0]}" if bad and isinstance(out, (tuple, list))
                           else ""))
    return outs


def _backward_both(outs_mg, outs_t, torch) -> None:
    """Both backward passes, seeded as for ``Σₖ Σᵢ outₖ[i]`` (ones into every output that
    depends on a leaf; the module docstring says why)."""
    live_t = [o for o in outs_t if o.grad_fn is not None]
    if not live_t:
        raise ValueError("side_by_side: PyTorch's output has no grad_fn: it does not depend "
                         "on any input that requires grad")
    live_mg = [o for o in outs_mg if o.requires_grad]
    for k, o in enumerate(live_mg):  # (the graph is kept until the last output's pass)
        o.backward(None if o.data.size == 1 else np.ones_like(o.data),
                   retain_graph=k < len(live_mg) - 1)
    torch.autograd.backward(live_t, [torch.ones_like(o) for o in live_t])


def _host(t) -> np.ndarray:
    return t.detach().cpu().numpy()


# --------------------------------------------------------------------- comparing


def _compare(name, a, b, dtype, tol, missing=False) -> Row:
    if a is None and b is None:
        return Row(name, None, None, None, True, "no gradient on either side (not reached)")
    if a is None or b is None:
        which = "minigrad" if a is None else "PyTorch"
        why = ("PyTorch has no such leaf" if missing else
               f"{which} computed no gradient for it")
        return Row(name, None, None, None, False, f"differs: {why}")
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return Row(name, a.shape, None, None, False,
                   f"differs: shapes {a.shape} (minigrad) and {b.shape} (PyTorch)")
    diff = float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64)), initial=0.0))
    scale = float(np.max(np.abs(b.astype(np.float64)), initial=0.0))
    rel = diff / scale if scale else (0.0 if diff == 0 else None)
    if diff <= tol:
        return Row(name, a.shape, diff, rel, True, f"agrees ({dtype}, max |Δ| ≤ {_num(tol)})")
    if rel is not None and rel <= tol:
        return Row(name, a.shape, diff, rel, True, f"agrees ({dtype}, rel Δ ≤ {_num(tol)})")
    return Row(name, a.shape, diff, rel, False, "differs")


def _graph_reasons(name, mg, pt, unpaired) -> list[str]:
    """Why a row may differ: ops found on one side only between leaf ``name`` (``None``:
    any leaf) and the output; else the graphs pair node for node."""
    found = []
    for side, view in (("minigrad", mg), ("PyTorch", pt)):
        below = _downstream(view, name)
        found += [f"{u.what} only in {side}" for u in unpaired
                  if u.side == side and not view.by_id[u.node].is_leaf and u.node in below]
    return found or ["the graphs pair node for node, so a paired op computes other numbers"]


def _downstream(view, name) -> set:
    """Ids of the nodes that use leaf ``name`` (every node when ``name`` is None)."""
    if name is None:
        return set(view.by_id)
    reached = {vn.id for vn in view.nodes if vn.is_leaf and vn.name == name}
    for vn in view.nodes:  # inputs come first
        if any(p in reached for p in vn.inputs):
            reached.add(vn.id)
    return reached


# --------------------------------------------------------------------- pairing


def pair_views(mg, pt) -> tuple[list[Pair], list[Unpaired]]:
    """Pair the nodes of minigrad's view ``mg`` with PyTorch's view ``pt`` (module docstring)."""
    mg_order = [vn.id for vn in _topological(mg)]
    pt_order = [vn.id for vn in pt.nodes]
    partner: dict[int, int] = {}  # minigrad id -> torch id
    taken: set[int] = set()
    note: dict[int, str] = {}
    # 1. leaves by name
    pt_leaves = {}
    for vn in pt.nodes:
        if vn.is_leaf and vn.name is not None:
            pt_leaves.setdefault(vn.name, vn.id)
    for i in mg_order:
        vn = mg.by_id[i]
        if vn.is_leaf and vn.name is not None and pt_leaves.get(vn.name) not in (None, *taken):
            partner[i] = pt_leaves[vn.name]
            taken.add(partner[i])
    # 2. ops by kind and paired inputs, minigrad's in graph order
    back = {}  # torch id -> minigrad id, kept in step with partner
    for i, j in partner.items():
        back[j] = i
    for i in mg_order:
        vn = mg.by_id[i]
        if vn.is_leaf:
            continue
        want = _paired_inputs(mg, i, partner)
        for j in pt_order:
            if j in taken or pt.by_id[j].is_leaf:
                continue
            fused = _fused_kinds(pt.by_id[j].op)
            if vn.op != _kit_name(pt.by_id[j].op) and (fused is None or vn.op not in fused[0]):
                continue
            if {partner[p] for p in want} != _paired_inputs(pt, j, back):
                continue
            partner[i], back[j] = j, i
            taken.add(j)
            if fused is not None:
                note[i] = fused[1]
            break
    numbers = {i: k for k, i in enumerate((i for i in mg_order if i in partner), start=1)}
    pairs = [Pair(numbers[i], i, partner[i], _what_pair(mg.by_id[i], pt.by_id[partner[i]]),
                  note.get(i)) for i in mg_order if i in partner]
    unpaired = [Unpaired("minigrad", i, _what(mg.by_id[i]), _mg_reason(mg.by_id[i]))
                for i in mg_order if i not in partner]
    # (PyTorch's no-grad inputs, drawn grey, are minigrad's data and constants: those
    # are listed once, on minigrad's side)
    unpaired += [Unpaired("PyTorch", j, _what(pt.by_id[j]), _pt_reason(pt, j, back))
                 for j in pt_order if j not in back and pt.by_id[j].requires_grad]
    return pairs, unpaired


def _topological(view):
    """The view's nodes, inputs before the nodes using them (a minigrad view is in creation
    order already; kept stable)."""
    return sorted(view.nodes, key=lambda vn: vn.id)


def _kit_name(torch_op: str | None) -> str | None:
    return None if torch_op is None else torch_op_name(torch_op)


def _fused_kinds(torch_op: str | None):
    if torch_op is None:
        return None
    base = re.sub(r"Backward\d*$", "", torch_op)
    return FUSED.get(re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", base).lower())


def _paired_inputs(view, nid, paired: dict) -> set:
    """The paired nodes node ``nid`` reads, looking through unpaired ops (iteratively);
    an unpaired leaf (data, a constant) adds nothing."""
    out, seen = set(), set()
    todo = list(view.by_id[nid].inputs)
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        if p in paired:
            out.add(p)
        elif not view.by_id[p].is_leaf:
            todo.extend(view.by_id[p].inputs)
    return out


def _what(vn) -> str:
    if vn.is_leaf:
        return f"leaf {vn.name}" if vn.name else f"unnamed leaf {vn.shape or ''}".rstrip()
    if vn.name and vn.symbol and vn.symbol != vn.name:  # a torch Node: "× MulBackward0"
        return f"{vn.symbol} {vn.name}"
    return f"{vn.symbol} {vn.op}" if vn.symbol and vn.symbol != vn.op else str(vn.op)


def _what_pair(a, b) -> str:
    if a.is_leaf:
        return a.name
    return f"{a.op} ↔ {b.op}"


def _mg_reason(vn) -> str:
    if vn.is_leaf and not vn.requires_grad:
        return ("data or a constant (needs no gradient): PyTorch records no Node for it "
                "(its drawing shows a grey input)")
    if vn.is_leaf:
        return "a leaf PyTorch's graph does not have"
    return "no PyTorch Node of this kind reads the same paired inputs"


def _pt_reason(pt, j, back) -> str:
    vn = pt.by_id[j]
    if vn.is_leaf:
        return "a leaf minigrad's graph does not have"
    users = [pt.by_id[u.child] for u in pt.edges if u.parent == j]
    kit = _kit_name(vn.op)
    if kit == "transpose" and any(_fused_kinds(u.op) for u in users):
        return ("PyTorch's Linear transposes its weight in a Node of its own; minigrad's "
                "linear does it inside the op")
    if kit is None and _fused_kinds(vn.op) is None:
        return "an op the kit does not have"
    return "no minigrad op of this kind reads the same paired inputs"


def _tags(pairs, unpaired) -> dict:
    """Per side: ``{node id: (label tag, SVG classes)}``."""
    tags = {side: {} for side in _SIDES}
    for p in pairs:
        tags["minigrad"][p.minigrad] = (f"#{p.number}", f"pair {p.css}")
        tags["PyTorch"][p.torch] = (f"#{p.number}", f"pair {p.css}")
    for u in unpaired:
        tags[u.side][u.node] = (None, "unpaired")
    return tags


def _tagged(graph: Graph, tags: dict) -> _PairedGraph:
    """``graph`` redrawn with ``#k`` after each paired node's name and its pair classes."""
    view = copy.copy(graph.view)
    view.nodes = []
    for vn in graph.view.nodes:
        tag = tags.get(vn.id, (None, None))[0]
        if tag is not None:
            vn = dataclasses.replace(vn, name=f"{vn.name} {tag}" if vn.name else tag)
        view.nodes.append(vn)
    view.by_id = {vn.id: vn for vn in view.nodes}
    classes = {f"n_{i}": cls for i, (_, cls) in tags.items()}
    return _PairedGraph(graph, view, classes)
