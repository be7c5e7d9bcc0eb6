"""The step-through panel in words: what each frame of ``viz.stepper.frames.Frames`` says.

Everything here turns a node, an op or a recorded event into a sentence; the
state machine in ``viz.stepper.frames`` decides *when* each sentence is said.  Numbers
are written by ``minigrad.formatting.format_number`` with the stepper's
``digits`` (4), exactly as ``viz.draw`` and ``viz.text`` write them, and node
names are the ones the ``GraphView`` gives (``viz.render.view``), so the panel and the
picture agree.

The op formulas are read off ``op.formulas``, one per input (``_slots``,
``_formula_var``, ``_deriv_text``): ``("∂/∂a = b", "∂/∂b = a")``.  Those letters
are the op's, not the graph's: the general rule keeps them (a visit's "Local
derivatives of mul: ∂/∂a = b, ..."), but one edge's derivative is said in the
graph's own names (``∂e/∂w = x = 2.0000``), since a graph may have its own ``b``.

One output of an op with several (``split``) is named ``#3[k]``, with its own shape:
``k`` is the number ``viz.draw`` writes on the edge from the op (``read_output``).
minigrad's ops read an ``output`` node (``output: #4 = #3[0]``), PyTorch's Nodes the
op's record itself (``MulBackward0: #5 = #1[0] × w``); the words are the same.
"""

from __future__ import annotations

import re

import numpy as np

from minigrad.formatting import DIGITS, format_number

from ..render.batches import FIRST, Examples, is_batched, physical, shape_of, shape_text
from ..render.derivative_orders import order_mark
from ..render.multi_output import (
    OutputGrads,
    Outputs,
    edge_output_nr,
    is_record,
    output_grads_text,
    output_nr,
    record_summary,
    unused_outputs,
)
from ..render.numbers import NO_GRAD, format_array, format_shape, visible
from ..render.view import is_node
from .batch_steps import is_move, move_text, seed_note, shared_note, vmap_summary

__all__ = ["Narrator", "fmt_num", "fmt_value", "node_name", "distinct_names"]


# --- numbers and values ------------------------------------------------------------
def fmt_num(x, digits: int = DIGITS) -> str:
    """A number as a float, by the one rule (``minigrad.formatting``): ``6.0000``,
    ``0.7616``, ``1.2345e+05``, ``3.0000e-06``."""
    return format_number(float(x), digits)


def fmt_value(x, max_items: int = 6, digits: int = DIGITS, examples: Examples = FIRST) -> str:
    """A float as ``fmt_num``; an array as its values when tiny, else shape and a preview.
    Inside ``vmap``, both shapes and one example's values (``examples`` says which)."""
    if x is None:
        return "None"
    if isinstance(x, (OutputGrads, Outputs)):  # a multi-output op's: one per output
        return output_grads_text(x, lambda g: fmt_value(g, max_items, digits, examples))
    if is_node(x):  # a gradient after create_graph=True: a node; its value
        x = x.data
    if is_batched(x):  # inside vmap: both shapes, then one example (viz.render.batches)
        return (f"{shape_text(x)}; {examples.word(x)}: "
                f"{fmt_value(examples.of(x), max_items, digits)}")
    if isinstance(x, np.ndarray) or hasattr(x, "shape") and hasattr(x, "dtype"):
        a = np.asarray(x)
        if a.ndim == 0:
            return fmt_num(a, digits)
        if a.size <= max_items:
            return format_array(a, digits, None, max_items)
        head = ", ".join(fmt_num(v, digits) for v in a.reshape(-1)[:3])
        return f"shape {format_shape(a.shape)} [{head}, …]"
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (int, float, np.integer, np.floating)):
        return fmt_num(x, digits)
    return repr(x)


def _raw(x):
    """A gradient's value: after ``create_graph=True`` gradients are nodes."""
    return x.data if is_node(x) else x


def _is_array(x) -> bool:
    """An array with axes, or a batch inside vmap (a batch of scalars too: it has one)."""
    return isinstance(x, np.ndarray) and x.ndim > 0 or is_batched(x)


def _plain(v) -> bool:
    """Settings a student set (axis=1, keepdims=True), not internals such as a ctx."""
    if isinstance(v, tuple):
        return all(_plain(i) for i in v)
    return v is None or isinstance(v, (int, float, str, bool, np.integer, np.floating))


def _fmt_attr(v, digits: int = DIGITS) -> str:
    if isinstance(v, (np.integer, int)) and not isinstance(v, bool):
        return str(int(v))
    if isinstance(v, (np.floating, float)):
        return fmt_num(v, digits)
    if isinstance(v, tuple):
        inner = ", ".join(_fmt_attr(i, digits) for i in v)
        return "(" + inner + ("," if len(v) == 1 else "") + ")"
    if isinstance(v, (str, bool)) or v is None:
        return repr(v)
    if isinstance(v, np.ndarray):
        return f"<array {format_shape(v.shape)}>"
    return type(v).__name__


def node_name(node, names: dict | None = None, digits: int = DIGITS) -> str:
    """How the panel names a node: its label (or a name from ``names``), else ``#<id>``.

    ``viz.Stepper`` draws the same ``#<id>`` in unnamed nodes, so the panel
    and the picture agree.  An unnamed scalar constant is just its value
    (``2.0000``), which is how a student wrote it.  Control characters are
    written as escapes (``x\\ny``), as ``viz.draw`` and ``viz.text`` show them.
    (``Frames`` reads the same from its ``GraphView``: ``view_name``.)
    """
    if names and node.id in names:
        return visible(str(names[node.id]))
    if node.label:
        return visible(str(node.label))
    if node.op is None and not node.requires_grad and not _is_array(node.data):
        return fmt_num(node.data, digits)
    return f"#{node.id}"


def distinct_names(view, parameters=()) -> dict[int, str]:
    """Give every name in ``view`` one node: ``{node id: new name}`` for the nodes renamed.

    A step-through talks about nodes by name ("w.0.grad = 0.38"), so two nodes
    with one name make its words ambiguous: four neurons' ``w.0`` labels, two
    ``Linear`` layers' ``weight``, a function's input ``b`` beside a neuron's bias.
    Parameters are named by their full paths first (``layers.0.neurons.1.w.0``,
    ``viz.render.view.param_names``, as ``viz.draw(params=model)`` shows them); a
    name still shared after that keeps its bare form for one node (a function's
    input before a parameter in ``parameters``, a leaf before an op's result,
    then the oldest) and the others get their id, ``b #7``: ``#<id>`` is how
    the picture and the panel name an unnamed node.  The view's nodes are renamed
    in place, so every renderer reading it agrees.
    """
    parameters = set(parameters)
    by_name: dict[str, list] = {}
    for vn in view.nodes:
        if vn.name is not None:
            by_name.setdefault(vn.name, []).append(vn)
    renamed = {}
    for name, group in by_name.items():
        if len(group) < 2:
            continue
        group.sort(key=lambda vn: (vn.id in parameters, not vn.is_leaf, vn.id))
        for vn in group[1:]:
            vn.name = renamed[vn.id] = f"{name} #{vn.id}"
    return renamed


def view_name(vn) -> str:
    """``node_name`` read off a ``ViewNode``: its name, an unnamed constant's value, ``#<id>``."""
    if vn.name is not None:
        return vn.name
    if vn.is_leaf and not vn.requires_grad and (vn.kind == "scalar" or vn.shape == "()"):
        return vn.data
    return f"#{vn.id}"


def view_kind(vn) -> str:
    """``op``, ``leaf`` (requires grad) or ``constant``, from a ``ViewNode``."""
    if not vn.is_leaf:
        return "op"
    return "leaf" if vn.requires_grad else "constant"


# --- op formulas -------------------------------------------------------------------
_PART = re.compile(r"^∂[^/\s]*/∂(\w+)\s*=")


def _slots(op, arity: int) -> tuple[list[str], list[str] | None]:
    """Input names and one formula per input, from the op's ``formulas``.

    Each formula names its input (``"∂/∂a = b"``, ``"∂/∂b = a"``).  When they do
    not (a custom Function's one docstring formula, a variadic op's ``xₖ``),
    inputs are called x (unary), a, b (binary) or x1, x2, ... and the whole
    formula is shown.
    """
    formulas = list(op.formulas)
    if formulas and len(formulas) == arity and all(_PART.match(f) for f in formulas):
        return [_PART.match(f).group(1) for f in formulas], formulas
    if arity == 1:
        names = ["x"]
    elif arity == 2:
        names = ["a", "b"]
    else:
        names = [f"x{i + 1}" for i in range(arity)]
    return names, None


def _formula_var(op, slot: int, arity: int) -> str:
    """``, called a in the formula``: which variable of the op's formula this slot is."""
    names, _ = _slots(op, arity)
    return f", called {names[slot]} in the formula" if slot < len(names) else ""


# Words a general rule may use besides its letters; any other word ("on a tie",
# "where", "the gradient") marks prose, in which a letter cannot safely be renamed.
_KEEP = frozenset({"exp", "log", "ln", "tanh", "sin", "cos", "sign", "σ", "if", "else"})
_WORD = re.compile(r"[A-Za-z\u0370-\u03FF]+")  # Latin and Greek letters: "tanh", "b" of "b²"
_NOTE = re.compile(r"\s+\([^()]*\)\s*$")  # a closing remark: "p·x^(p−1) (0 where p = 0)"


def _sym(name: str) -> str:
    """A node name fit to stand in a formula: ``w``, ``#7``, ``fc1.weight``, ``#3[0]``
    (output 0 of a multi-output op, ``read_output``); anything else (``-3.0000``,
    ``my loss``) in parentheses."""
    return name if re.fullmatch(r"[#\w.]+(\[\d+\])?", name) else f"({name})"


def read_output(node, slot: int) -> int | None:
    """Which output of a multi-output op ``node`` reads in input ``slot`` (``None``: that
    input is a node of its own).  A minigrad op reads an ``output`` node, which reads the
    op's record; a PyTorch Node reads the record directly (``output_nrs``).  Either way the
    number is the one ``viz.draw`` writes on the edge from the record."""
    if slot >= len(node.parents) or not is_record(node.parents[slot]):
        return None
    return edge_output_nr(node, slot)


def _in_names(part: str, letters: dict[str, str]) -> str | None:
    """The right-hand side of a rule ``∂/∂a = b`` with its letters replaced by the
    graph's names (``letters``: ``{"a": "w", "b": "x", "out": "e"}``); ``None`` when
    the rule is prose, so renaming its letters could change its words."""
    rhs = _NOTE.sub("", part.split("=", 1)[1]).strip()
    if not set(_WORD.findall(rhs)) <= set(letters) | _KEEP:
        return None

    def name(m) -> str:
        new = letters.get(m.group(0), m.group(0))
        # "3x²" with x named w reads "3w²", but with x named weight "3·weight²"
        glue = "·" if len(new) > 1 and m.start() and rhs[m.start() - 1].isdigit() else ""
        return glue + new

    return _WORD.sub(name, rhs)


def _deriv_text(op, slot: int, derivative, arity: int, digits: int = DIGITS, *,
                out: str = "out", inputs=()) -> str:
    """One edge's local derivative in the graph's own names: ``∂e/∂w = x = 2.0000``.

    ``out`` names the op's result and ``inputs`` its inputs, in slot order.  The
    op's rule is written with its own letters (``∂/∂a = b``); here each letter
    becomes the node it stands for, so a graph with its own ``b`` reads right.
    When the rule is prose (``1 if a > b, ½ on a tie``) it is quoted as the
    general rule, letters and all, after the specific derivative's value.
    """
    letters, parts = _slots(op, arity)
    inputs = list(inputs) or letters
    pname = inputs[slot] if slot < len(inputs) else f"x{slot + 1}"
    head = f"∂{_sym(out)}/∂{_sym(pname)}"
    value = ("" if derivative is None or _is_array(derivative)
             else f" = {fmt_num(derivative, digits)}")
    if parts is not None:
        names = {letter: _sym(name) for letter, name in zip(letters, inputs)}
        # a letter with a subscript ("xᵢ") stands for its node too
        names.update({_WORD.match(k).group(0): v for k, v in names.items() if _WORD.match(k)})
        names["out"] = _sym(out)
        rhs = _in_names(parts[slot], names)
        if rhs is not None:
            if value and _is_number(rhs):
                value = ""  # "∂e/∂c = 1" needs no "= 1.0000" after it
            return f"{head} = {rhs}{value}"
        return f"{head}{value} ({op.name}'s rule: {parts[slot]})"
    formula = op.formula.strip()
    if formula:
        return f"{head}{value} (rule: {formula})"
    return f"{head}{value} (from {op.name}'s backward)"


def _is_number(text: str) -> bool:
    try:
        float(text.strip().replace("−", "-"))
    except ValueError:
        return False
    return True


def count_of(n: int, word: str) -> str:
    """``1 node``, ``3 nodes``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def not_a_tape(obj) -> str:
    """Stepping needs the order things happened in, which only a tape keeps."""
    what = type(obj).__name__
    if is_node(obj):
        what = f"a {what} (a graph node, not a tape)"
    else:
        what = f"a {what}"
    return (f"expected a tape from `with minigrad.record() as tape:`, got {what}. Use "
            "viz.step_through(fn, *inputs), which records fn and its backward for you, or "
            "build the graph inside `with minigrad.record() as tape:` (calling loss.backward() "
            "there) and pass the tape")


def _d(name: str) -> str:
    """``dL/da`` reads well; ``d(#7)``, ``d(loss)`` and ``d(d)`` need parentheses."""
    return name if len(name) == 1 and name != "d" else f"({name})"



# --- the sentences -----------------------------------------------------------------
class Narrator:
    """Writes the panel text of each step.

    ``name(node)`` names a node (``Frames.name``: read off the ``GraphView``);
    ``digits`` is the number of decimals every number gets; ``examples`` which example
    of a batch inside ``vmap`` the values are read from (``GraphView.examples``).
    """

    def __init__(self, name=node_name, digits: int = DIGITS, examples: Examples = FIRST):
        self.name = name
        self.digits = digits
        self.examples = examples

    def _inputs(self, node) -> list[str]:
        """Every input of ``node`` by name, in slot order (``input_name``)."""
        return [self.input_name(node, i) for i in range(len(node.parents))]

    def num(self, x) -> str:
        return fmt_num(x, self.digits)

    def value(self, x) -> str:
        return fmt_value(x, digits=self.digits, examples=self.examples)

    def grad(self, g) -> str:
        """A gradient; ``None`` (nothing flowed in yet) reads ``—``, "not computed", as
        in the drawing: before a first contribution there is no gradient, not a zero."""
        return NO_GRAD if g is None else self.value(g)

    def data(self, node) -> str:
        """A node's value; arrays with their shape and dtype (and values when tiny)."""
        d = node.data
        if getattr(d, "no_value", False):  # (a torch Node's output, a traced value: none kept)
            return f"{format_shape(d.shape)} {d.dtype} (no value kept)"
        if is_batched(d):
            return f"{self.value(d)} ({d.dtype})"
        if _is_array(d):
            text = f"{format_shape(d.shape)} {d.dtype}"
            if d.size <= 6:
                return f"{text} {format_array(d, self.digits, None, 6)}"
            head = ", ".join(self.num(v) for v in d.reshape(-1)[:3])
            return f"{text} [{head}, …]"
        return self.value(d)

    def input_name(self, node, slot: int) -> str:
        """``node``'s input ``slot`` by name; output ``k`` of a multi-output op is
        ``#3[k]``, the ``k`` on that edge in the picture (``read_output``)."""
        k = read_output(node, slot)
        name = self.name(node.parents[slot])
        return name if k is None else f"{name}[{k}]"

    def operand(self, node, slot: int | None = None) -> str:
        """Input ``slot`` of ``node`` as its value (tiny) or shape; ``slot=None``: ``node``
        itself."""
        d = node.data if slot is None else _input_data(node, slot)
        if is_batched(d):  # (each example's own: its shape; the batch is said below)
            return format_shape(d.shape)
        if _is_array(d) and not getattr(d, "no_value", False):
            return self.value(d) if d.size <= 3 else format_shape(d.shape)
        if getattr(d, "no_value", False):
            return format_shape(d.shape)
        return self.value(d)

    def expr(self, node) -> tuple[str, str]:
        """The forward expression in names and in values: ``a × b`` and ``2.0000 × 3.0000``."""
        op, slots = node.op, range(len(node.parents))
        if output_nr(node) is not None:  # minigrad's output k of a record: #3[k]
            return self.input_name(node, 0), self.operand(node, 0)
        attrs = node.attrs or {}
        kw = ", ".join(f"{k}={_fmt_attr(v, self.digits)}" for k, v in sorted(attrs.items())
                       if _plain(v))
        if op.infix and len(slots) == 2 and not kw:
            s = f" {op.symbol} "
            return (s.join(self.input_name(node, i) for i in slots),
                    s.join(self.operand(node, i) for i in slots))
        args = [self.input_name(node, i) for i in slots]
        vals = [self.operand(node, i) for i in slots]
        if kw:
            args.append(kw)
            vals.append(kw)
        # (a torch Node's op is named for its backward, MulBackward0; the call is mul's)
        fname = getattr(op, "forward_name", op.name)
        return f"{fname}({', '.join(args)})", f"{fname}({', '.join(vals)})"

    # --- forward -------------------------------------------------------------------
    def forward_start(self, created, given) -> str:
        if len(created) == 1:
            text = "Forward pass: 1 node is created, from values that already exist."
        else:
            text = (f"Forward pass: {len(created)} nodes are created one at a time, each "
                    "from values that already exist.")
        if given:
            names = ", ".join(self.name(n) for n in given[:8]) + (", …" if len(given) > 8 else "")
            text += f"\nAlready there before recording (shown from the start): {names}."
        batches = vmap_summary(list(given) + list(created), self.name)
        return f"{text}\n{batches}" if batches else text

    def created(self, n, kind: str) -> str:
        """A node appears: a leaf, a constant, or an op's result (``kind``: ``view_kind``)."""
        name = self.name(n)
        if kind == "leaf":
            return (f"{name} = {self.data(n)}: a leaf parameter (requires_grad=True, "
                    "so a gradient will flow into it).")
        if kind == "constant":
            what = name if name == self.data(n) else f"{name} = {self.data(n)}"
            return (f"constant {what} (requires_grad=False, so no gradient flows into it).")
        op = n.op
        if is_move(n):  # into or out of a vmap: which axis is the batch
            return move_text(n, self.name)
        names, values = self.expr(n)
        if is_record(n):  # an op with several outputs (viz.render.multi_output)
            return f"{op.name}: {names} {record_summary(n)}"
        k = output_nr(n)
        if k is not None:  # (which op's output it is: the record's title names the op)
            names += f" (output {k} of {n.parents[0].op.name})"
            values = None  # (its value is the output's own: said once, below)
        if any(isinstance(x.data, np.ndarray) or is_batched(x.data) for x in (n, *n.parents)):
            shapes = ", ".join(_shape_text(n, i) for i in range(len(n.parents)))
            return (f"{op.name}: {name} = {names}\nshapes {shapes} → "
                    f"{format_shape(n.data.shape)}; {name} = {self.data(n)}")
        expr = names if values is None else f"{names} = {values}"
        return f"{op.name}: {name} = {expr} = {self.value(n.data)}"

    def forward_end(self, outs, both: bool) -> str:
        results = "; ".join(f"{self.name(r)} = {self.data(r)}" for r in outs[:4])
        if len(outs) > 4:
            results += "; …"
        text = f"Forward pass complete: {results}."
        if both:
            text += "\nNext: the backward pass sends gradients from the output back to the inputs."
        return text

    # --- backward ------------------------------------------------------------------
    def backward_start(self, root) -> str:
        rname = self.name(root)
        return (
            f"Backward pass: gradients flow from the output {rname} back to the inputs, one "
            f"edge at a time. Each node's grad becomes d{_d(rname)}/d(that node).\n"
            "A node is visited once all the nodes that use it have passed their share to it."
        )

    def seed(self, e, label: str, builds: int = 0) -> str:
        """The first step of a pass; ``builds``: the order of the graph it builds (0: none)."""
        rname = self.name(e.node)
        grad = _raw(e.grad)
        if _is_array(grad):
            what = ("ones" if np.all(physical(grad) == 1) else "the given gradient")
            shape = "" if is_batched(grad) else f" of shape {format_shape(grad.shape)}"
            text = (f"{label}: d{_d(rname)}/d{_d(rname)} = {what}{shape}: "
                    f"{self.value(grad)}.{seed_note(e.node)}")
        else:
            text = (f"{label}: d{_d(rname)}/d{_d(rname)} = {self.value(grad)}: the "
                    "output's gradient with respect to itself.")
        if builds:
            text += (f"\nThis pass builds a graph (create_graph=True): every rule's result "
                     f"is a new node of order {builds} (marked {order_mark(builds)}), which "
                     f"appears as it is made; the gradient it ends with can be differentiated "
                     f"again.")
        return text

    def built(self, n, kind: str, child=None, slot=None) -> str:
        """A node a create_graph pass built: what it is, and which edge's rule made it
        (``child``/``slot``: ``node.origin.made_by``, read as nodes by the frames)."""
        what = self.created(n, kind)
        mark = f"a node of order {n.order} ({order_mark(n.order)})"
        if child is None:
            return (f"{what}\nMade from the gradients after the pass, outside any rule (the "
                    f"sum the next backward starts from): {mark}.")
        if slot is None:
            return f"{what}\nBuilt by {child.op.name}'s vjp at {self.name(child)}: {mark}."
        return (f"{what}\nBuilt by the rule of edge {self.name(child.parents[slot])} → "
                f"{self.name(child)} (slot {slot} of {child.op.name}): {mark}.")

    def visit(self, e, root, uses: int) -> str:
        n = e.node
        name = self.name(n)
        text = (f"{n.op.name}: {name} = {self.expr(n)[0]} holds its full gradient "
                f"d{_d(self.name(root))}/d{_d(name)} = {self.value(e.upstream)}.")
        if uses > 1:
            text += f"\n{name} is used {uses} times, so this is the sum of {uses} contributions."
        if isinstance(e.upstream, OutputGrads):
            text += self._unused(e.upstream, n)
        formula = n.op.formula.strip()
        if formula:
            text += f"\nLocal derivatives of {n.op.name}: {formula}."
        return text + "\nNext: each input gets upstream gradient × local derivative."

    def _unused(self, og, n) -> str:
        """What a multi-output op does about outputs no gradient reached."""
        unused = unused_outputs(og)
        if not unused:
            return ""
        which = ", ".join(map(str, unused))
        return (f"\nNothing used output{'s' * (len(unused) > 1)} {which} of {self.name(n)}: "
                f"its backward takes zeros in {'their' if len(unused) > 1 else 'its'} place, "
                f"as PyTorch does.")

    def contribute(self, e, upstream, count: int) -> str:
        """One edge's contribution, then which slot it is (``count``: how many so far)."""
        n, p = e.node, e.parent
        pname = self.name(p)
        text = self.contribution(e, upstream) + (
            f"\nEdge {pname} → {self.name(n)}: slot {e.slot} of {n.op.name}"
            f"{_formula_var(n.op, e.slot, len(n.parents))}."
        )
        if count > 1:
            text += (f" {pname} is used more than once: contribution {count} "
                     "adds to what is already there.")
        return text

    def contribution(self, e, upstream) -> str:
        """``mul: ∂out/∂a = b = 3.0000; 2.0000 × 3.0000 = 6.0000 added to a.grad: …``."""
        n, p = e.node, e.parent
        op = n.op
        if isinstance(_raw(e.local_grad), OutputGrads):  # output k of a multi-output op
            k = next(i for i, g in enumerate(_raw(e.local_grad).grads) if g is not None)
            return (f"{op.name} {k} of {self.name(p)} passes its gradient on unchanged, "
                    f"into place {k} of {self.name(p)}'s gradients (one per output): "
                    f"{self.grad(_raw(e.before))} → {self.value(e.after)}")
        derivative = e.derivative
        upstream = _raw(upstream)
        scalar = not _is_array(_raw(e.local_grad)) and not _is_array(upstream)
        if derivative is None and scalar and upstream and not isinstance(upstream, OutputGrads):
            # A custom Function's backward is user code, so the tape does not call it
            # again for the bare derivative; for a scalar it is contribution / upstream
            # (not for several outputs: one contribution, an upstream gradient per output).
            derivative = _raw(e.local_grad) / upstream
        deriv = _deriv_text(op, e.slot, derivative, len(n.parents), self.digits,
                            out=self.name(n), inputs=self._inputs(n))
        pname = self.name(p)
        before = self.grad(e.before)
        after = self.value(e.after)
        if is_node(e.after):  # create_graph: the gradient is a node of the gradient's graph
            after += f" (node {self.name(e.after)}, {order_mark(e.after.order)})"
        local = _raw(e.local_grad)
        if _is_array(local) or _is_array(p.data):
            shape = shape_of(local)
            line = f"{op.name}: {deriv}; upstream × local derivative = {self.value(local)}"
            if not is_record(p) and tuple(shape) != tuple(shape_of(p.data)):
                line += (f", summed over the broadcast axes from {format_shape(shape)} to "
                         f"{format_shape(shape_of(p.data))}")
            line += shared_note(local, _raw(e.after), p, self.name)
            return line + f", added to {pname}.grad: {before} → {after}"
        if derivative is not None and upstream is not None:
            prod = f"{self.value(upstream)} × {self.num(derivative)} = {self.value(local)}"
        else:
            prod = f"upstream × local derivative = {self.value(local)}"
        return f"{op.name}: {deriv}; {prod} added to {pname}.grad: {before} → {after}"

    # --- forward mode (viz.stepper.tangent_frames): the backward panel's words, reversed -------
    def tangent_start(self) -> str:
        return ("Forward mode: every node is created with its tangent ṫ, its derivative "
                "along the direction the inputs' tangents give. Each edge adds local "
                "derivative × incoming tangent into the new node's ṫ: the chain rule, run "
                "forward, with no backward pass.")

    def tangent_created(self, n, kind: str, dual, edges: int) -> str:
        """A node appears (``dual``: the tangent ``make_dual`` gave it; ``edges``: how
        many edges bring it a tangent, in the steps that follow)."""
        text = self.created(n, kind)
        name = self.name(n)
        if dual is not None:
            return text + (f"\nmake_dual attaches the tangent ṫ{_d(name)} = {self.value(dual)}: "
                           f"the direction the derivative is taken in.")
        if edges:
            return text + (f"\nIts tangent comes next, edge by edge: ṫ{_d(name)} = "
                           f"Σ ∂{_sym(name)}/∂input · ṫinput.")
        if n.op is not None:
            return text + "\nNo input carries a tangent, so it has none."
        return text

    def tangent(self, e, before, after) -> str:
        """One edge: ``tanh: ∂#6/∂#5 = 1 − #6² = 0.4200; 0.4200 × 2.0000 = 0.8400 added
        to ṫ(#6): — → 0.8400``, then which edge and slot (``e``: a ``Tangent`` note)."""
        n, p, op = e.node, e.parent, e.op
        name, pname = self.name(n), self.name(p)
        inputs = self._inputs(n) or [pname]
        arity = len(n.parents) or 1
        deriv = _deriv_text(op, e.slot, e.derivative, arity, self.digits, out=name,
                            inputs=inputs)
        if e.derivative is not None and not _is_array(_raw(e.contribution)):
            prod = f"{self.num(e.derivative)} × {self.value(e.incoming)}"
        else:
            prod = "local derivative × incoming tangent"
        return (f"{op.name}: {deriv}; {prod} = {self.value(e.contribution)} added to "
                f"ṫ{_d(name)}: {self.grad(before)} → {self.value(after)}\n"
                f"Edge {pname} → {name}: slot {e.slot} of {op.name}"
                f"{_formula_var(op, e.slot, arity)}: ṫ{_d(name)} += ∂{_sym(name)}/∂"
                f"{_sym(pname)} · ṫ{_d(pname)}.")

    def tangent_all(self, e, parents) -> str:
        """An op whose forward rule takes every input's tangent at once (one ``jvp``)."""
        name = self.name(e.node)
        given = ", ".join(f"ṫ{_d(self.name(p))} = {self.value(t)}" for p, t in parents)
        what = ("every input's tangent at once" if len(parents) > 1 else
                "its input's tangent whole (one jvp, no share per edge)")
        return (f"{e.op.name}: its forward rule takes {what} "
                f"({given}): ṫ{_d(name)} = {self.value(e.total)}.\n"
                f"Edges {', '.join(self.name(p) for p, _ in parents)} → {name}.")

    def tangent_end(self, outs) -> str:
        results = "; ".join(f"ṫ{_d(self.name(n))} = {self.value(t)}" for n, t in outs[:4])
        return (f"Forward-mode pass complete: {results}: the derivative of the output in "
                f"the direction of the inputs' tangents (J·v), in one forward pass.")

    def leaves(self, held) -> str:
        """The end: the gradients the leaves hold (``held``: ``(node, grad)`` pairs)."""
        grads = ", ".join(f"{self.name(n)}.grad = {self.value(g)}" for n, g in held[:8])
        if len(held) > 8:
            grads += ", …"
        text = "Backward pass complete."
        if grads:
            text += f" Gradients of the leaves: {grads}."
        return text


def _input_data(node, slot: int):
    """The value ``node`` reads in input ``slot``: the parent's, or the one output of a
    multi-output op's record it reads (``read_output``)."""
    k = read_output(node, slot)
    data = node.parents[slot].data
    return data if k is None else data[k]


def _shape_text(node, slot: int) -> str:
    """The shape of input ``slot`` of ``node``, ``(2, 3)``: for output k of a multi-output
    op, that output's; for a whole record an op reads (which no op of minigrad or PyTorch
    does), its outputs' shapes (``split`` into unequal parts has no one shape)."""
    data = _input_data(node, slot)
    if isinstance(data, (tuple, Outputs)):
        return "(" + ", ".join(format_shape(shape_of(x)) for x in data) + ")"
    return format_shape(shape_of(data))
