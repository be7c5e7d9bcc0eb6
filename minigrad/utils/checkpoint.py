"""Activation checkpointing: trade compute for memory (``torch.utils.checkpoint``).

A deep network's backward pass needs what every op saved in the forward pass,
so a graph of *n* layers holds *n* layers of activations until backward frees
them.  ``checkpoint(fn, *args)`` keeps a block out of the graph instead:

* **forward**: ``fn`` runs once; of the block, the graph keeps *one* node (op
  ``checkpoint``) whose parents are the tensors the block read (its arguments,
  and what it reached from outside: parameters, tensors in a closure), whose
  ``saved`` are its arguments, and which remembers the state of the random
  generators the block may draw from (dropout).  The block's intermediates are
  freed as soon as it returns;
* **backward**: when the engine reaches that node, it runs ``fn`` again with
  the same arguments and random state, grad mode on (the *recompute*), runs a
  backward pass through the recomputed block only, and hands each parent its
  gradient.  The recomputed block is freed as that pass goes, like any graph.

Memory: cut a chain of *n* layers into segments of *k* and the graph holds the
*n/k* segment inputs plus, during backward, one segment's activations: about
``n/k + k``, smallest at ``k = √n``, for one extra forward pass
(``checkpoint_sequential``, ``benchmarks/checkpoint.py``).

These are PyTorch's *non-reentrant* semantics (``use_reentrant=False``): the
gradients are those of the plain graph (bit for bit when each parent's
gradient comes from inside the block alone, as in an MLP; a parent also used
outside the block gets the block's sum as one contribution, so the last bit
may differ), to parameters too, under ``autograd.grad``, with either
scheduler, gradient hooks, recorders, and ``create_graph=True`` (the recompute
is recorded, so the gradient can be differentiated again).  Non-tensor and
keyword arguments are passed again as they were.

Where minigrad differs: the block's first run records its graph (to find what
it reads from outside) and drops it when it returns, so the forward pass's peak
is one block, not one op; the random state restored covers minigrad's default
generator and the generators of the ``Module``\\ s the block reaches (``fn``
itself, the object of a bound method, modules in its closure or arguments:
``nn.Dropout`` draws from its own); The drawing sees one node ``checkpoint`` with attrs ``fn`` (the
block's name) and ``ops`` (how many ops it ran), until backward recomputes it.
A block may return a tuple of Tensors (or Values): the node is then a
multi-output record (``autograd/outputs.py``) with one output node each, and an
output that backward does not reach gets zeros, as in PyTorch.

This module is ``minigrad.utils.checkpoint`` (PyTorch's path);
``minigrad.checkpoint`` and ``minigrad.checkpoint_sequential`` are the same functions.
"""

from __future__ import annotations

import numpy as np

from ..autograd.outputs import record_outputs
from ..autograd.saved import set_saved_hooks
from ..core.modes import grad_enabled, set_recorders
from ..core.node import Node, init_node, next_id
from ..core.op import OpExample, define_op, op_example
from ..engines.choose import run_loop
from ..engines.higher_order import building_order, differentiating
from ..engines.output_grads import OutputGrads
from ..random import default_generator

__all__ = ["checkpoint", "checkpoint_sequential", "CHECKPOINT"]


def _vjp(g, /, *saved, ctx, **settings):
    return ctx.backward(g, saved)


def _label(attrs) -> str:
    """What a drawing writes in the node: ``checkpoint block (2 ops)``."""
    ops = attrs.get("ops", 0)
    return f"checkpoint {attrs.get('fn', '?')} ({ops} op{'' if ops == 1 else 's'})"


#: the op of a checkpointed block's one node (an internal op: it has no forward of its
#: own, only the block it recomputes; its example for the table tests is below)
CHECKPOINT = define_op(
    internal=True, name="checkpoint", engine="custom", symbol="checkpoint", vjp=_vjp,
    label=_label, formulas=("the block's own rules, on its recomputed graph",), variadic=True,
    doc="A checkpointed block: recomputed in backward, then differentiated.")


def _example_block(x, w):
    """The example block: ``tanh(x·w)`` summed over the last axis (w broadcast over rows)."""
    return (x * w).tanh().sum(axis=-1)


@op_example("checkpoint")
def _checkpoint_examples() -> list:
    """The table tests' inputs for ``CHECKPOINT``: a small block, checkpointed."""
    return [OpExample(
        op=CHECKPOINT,
        cases=lambda rng: [((rng.uniform(-2, 2, (3, 4)), rng.uniform(-1, 1, (4,))), {})],
        call=lambda x, w: checkpoint(_example_block, x, w), plain=_example_block)]


def checkpoint(function, *args, use_reentrant: bool = False, preserve_rng_state: bool = True,
               **kwargs):
    """``function(*args, **kwargs)`` as one graph node that recomputes it in backward.

    See the module doc.  Without grad mode, or when nothing the block reads requires
    grad, this is just ``function(*args, **kwargs)``.
    """
    if use_reentrant:
        raise ValueError("checkpoint: only the non-reentrant variant exists here "
                         "(use_reentrant=False, PyTorch's recommended one)")
    if not callable(function):
        raise TypeError(f"checkpoint: function must be callable, got {type(function).__name__}")
    if not grad_enabled():
        return function(*args, **kwargs)
    block = Block(function, args, kwargs, preserve_rng_state)
    start = next_id()  # every node the block makes gets a larger id
    prev_recorders = set_recorders(())  # (a recording sees the block as its one node)
    prev_hooks = set_saved_hooks(())  # (saved-tensor hooks pack the node's inputs, not these)
    try:
        out = function(*args, **kwargs)
    finally:
        set_saved_hooks(prev_hooks)
        set_recorders(prev_recorders)
    outs = _outputs(out, function)
    if not any(o.requires_grad for o in outs):
        return out
    ops, reached = _walk(outs, start)
    nodes = block.node(outs, ops, reached, several=isinstance(out, tuple))
    return nodes if isinstance(out, tuple) else nodes[0]


def checkpoint_sequential(functions, segments: int, input, use_reentrant: bool = False,
                          preserve_rng_state: bool = True):
    """Run ``functions`` (a ``Sequential`` or a list of callables) one after the other,
    cut into ``segments`` chunks; every chunk but the last is ``checkpoint``-ed.

    PyTorch's split: chunks of ``len(functions) // segments``, the remainder in the
    last one, which runs plainly (its activations are needed first in backward)."""
    if callable(getattr(functions, "children", None)):
        functions = functions.children()
    functions = list(functions)
    if isinstance(segments, bool) or not isinstance(segments, int) or segments < 1:
        raise ValueError(f"checkpoint_sequential: segments must be an int >= 1, got {segments!r}")
    if segments > len(functions):
        raise ValueError(f"checkpoint_sequential: {segments} segments for {len(functions)} "
                         f"functions; give at most one segment per function")
    size = len(functions) // segments
    end = 0
    for begin in range(0, size * (segments - 1), size):
        end = begin + size
        input = checkpoint(_segment(functions, begin, end), input,
                           use_reentrant=use_reentrant, preserve_rng_state=preserve_rng_state)
    return _segment(functions, end, len(functions))(input)


def _segment(functions, begin: int, end: int):
    """``functions[begin:end]`` applied in turn, named for the drawing."""
    chunk = functions[begin:end]

    def run(x):
        for f in chunk:
            x = f(x)
        return x

    run.__name__ = run.__qualname__ = f"segment[{begin}:{end}]"
    return run


def _outputs(out, function) -> tuple:
    """What the block returned, as a tuple of nodes (one Tensor or Value, or a tuple)."""
    name = getattr(function, "__name__", type(function).__name__)
    if isinstance(out, Node):
        return (out,)
    if isinstance(out, tuple) and out and all(isinstance(o, Node) for o in out):
        return out
    kind = f"a {type(out).__name__}" if isinstance(out, (tuple, list)) else type(out).__name__
    raise TypeError(f"checkpoint: {name} returned {kind}, not a Tensor or Value or a "
                    f"non-empty tuple of them")


def _walk(outs, start: int) -> tuple[list, list]:
    """The block's op nodes (made after ``start``), sorted by id, and the nodes from
    outside it that it reached and that require grad (its inputs), by id."""
    inside, reached = [], []
    seen = {o.id for o in outs}
    stack = list({o.id: o for o in outs}.values())
    while stack:
        node = stack.pop()
        if node.id < start:
            if node.requires_grad:
                reached.append(node)
            continue
        if node.op is None:
            continue
        inside.append(node)
        for p in node.parents:
            if p.id not in seen:
                seen.add(p.id)
                stack.append(p)
    inside.sort(key=lambda n: n.id)
    reached.sort(key=lambda n: n.id)
    return inside, reached


class Block:
    """What a checkpoint node keeps to run its block again (its ``attrs["ctx"]``)."""

    def __init__(self, function, args, kwargs, preserve_rng_state: bool):
        self.function = function
        self.name = getattr(function, "__qualname__", None) or type(function).__name__
        self.args = args
        self.kwargs = kwargs
        self.order = building_order()  # the derivative order its nodes belong to
        self.rng = _rng_states(function, args, kwargs) if preserve_rng_state else ()
        self.parents: tuple = ()
        self.n_args = 0  # parents[:n_args] are arguments (and saved); the rest were reached

    def node(self, outs, ops, reached, several: bool) -> tuple:
        """The block's node holding the values of ``outs`` (one node, or with ``several``
        a record and one output node each), as a tuple of what it returns."""
        args = []
        for a in self.args:
            if isinstance(a, Node) and a.requires_grad and all(a is not b for b in args):
                args.append(a)
        self.n_args = len(args)
        self.parents = tuple(args) + tuple(n for n in reached
                                           if all(n is not a for a in args))
        attrs = {"fn": self.name, "ops": len(ops), "ctx": self}
        saved = tuple(a.data for a in args)
        cls = outs[0].engine_class
        if several:
            return record_outputs(cls, CHECKPOINT, self.parents, [o.data for o in outs],
                                  saved, attrs)
        return (init_node(object.__new__(cls), outs[0].data, CHECKPOINT, self.parents,
                          saved, attrs, False),)

    def backward(self, g, saved) -> list:
        """The node's vjp: recompute the block, backpropagate ``g`` through it alone
        (for a block that returned a tuple, ``g`` has one gradient per output)."""
        grads = g.filled() if isinstance(g, OutputGrads) else (g,)
        create_graph = any(isinstance(x, Node) for x in grads)
        stand_in = {}  # id(argument) -> the node the recompute gets in its place
        for arg, value in zip(self.parents, saved):
            if isinstance(value, Node):  # create_graph: the input itself, or its unpacked value
                stand_in[id(arg)] = value
            elif value is not arg.data:  # unpacked by a saved-tensor hook: a copy
                stand_in[id(arg)] = init_node(object.__new__(arg.engine_class), value,
                                              requires_grad=True)
        call = [stand_in.get(id(a), a) for a in self.args]
        start = next_id()
        prev_hooks = set_saved_hooks(())
        try:
            with _rng_restored(self.rng), differentiating(self.order):
                out = self.function(*call, **self.kwargs)
        finally:
            set_saved_hooks(prev_hooks)
        outs = _outputs(out, self.function)
        order, reached = _walk(outs, start)
        inputs = [stand_in.get(id(p), p) for p in self.parents]
        known = {n.id for n in inputs}
        strange = [n for n in reached if n.id not in known]
        if strange:
            raise RuntimeError(f"checkpoint: recomputing {self.name} in backward did not give "
                               f"the block of its first run (it reached node #{strange[0].id} "
                               f"this time)")
        first = [np.shape(getattr(x, "data", x)) for x in grads]
        if [np.shape(o.data) for o in outs] != first:
            raise RuntimeError(f"checkpoint: recomputing {self.name} gave shapes "
                               f"{[np.shape(o.data) for o in outs]}, the first run {first}; "
                               f"the block must compute the same thing twice")
        kept = [(n, n.grad) for n in {id(n): n for n in (*inputs, *outs)}.values()]
        for n, _ in kept:
            n.grad = None
        try:
            for o, x in zip(outs, grads):  # (an output returned twice gets both)
                if x is not None:
                    o.grad = x if o.grad is None else o.grad + x
            if order:
                _run_block(tuple({id(o): o for o in outs}.values()), order, create_graph)
            results = [n.grad for n in inputs]
        finally:
            for n, grad in kept:
                n.grad = grad
        for k, r in enumerate(results):  # two parents never share one gradient array
            if isinstance(r, np.ndarray) and any(r is other for other in results[:k]):
                results[k] = r.copy()
        return results


def _run_block(outs, order, create_graph: bool) -> None:
    """Backward through the recomputed block only (``order``), with the loop ``choose``
    picks (a ``create_graph`` pass keeps the block's graph: the gradient's goes through it)."""
    run_loop(outs, order, create_graph, create_graph, hooks=False)


def _rng_states(function, args, kwargs) -> tuple:
    """``(generator, state)`` for every generator the block may draw from (module doc)."""
    objects = [function, getattr(function, "__self__", None), *args, *kwargs.values()]
    for cell in getattr(function, "__closure__", None) or ():
        try:
            objects.append(cell.cell_contents)
        except ValueError:  # an empty cell
            pass
    found = {id(default_generator()): default_generator()}
    for obj in objects:
        for item in (obj if isinstance(obj, (list, tuple)) else (obj,)):
            if isinstance(item, np.random.Generator):
                found[id(item)] = item
            modules = getattr(item, "modules", None)
            if callable(modules) and hasattr(item, "parameters"):  # a Module
                for m in modules():
                    for v in vars(m).values():
                        if isinstance(v, np.random.Generator):
                            found[id(v)] = v
    return tuple((g, g.bit_generator.state) for g in found.values())


class _rng_restored:
    """The block's random state for the recompute; the current one again afterwards."""

    def __init__(self, states):
        self.states = states

    def __enter__(self):
        self.current = [(g, g.bit_generator.state) for g, _ in self.states]
        for g, state in self.states:
            g.bit_generator.state = state

    def __exit__(self, *exc):
        for g, state in self.current:
            g.bit_generator.state = state
        return False
