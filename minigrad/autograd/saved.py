"""Saved-tensor hooks: what an op keeps for backward, packed when it is saved, unpacked when used.

Inside ``with saved_tensors_hooks(pack, unpack):`` (``graph.py``, PyTorch's name)
every value an op saves for backward goes through ``pack`` the moment the node
is made, and the node keeps only what ``pack`` returned: a float16 copy, a key
into an "offload" store, a file name.  When backward reaches the node, each
packed value goes through ``unpack``, which must give back the value in its
original shape and dtype.  That is how PyTorch trades compute or precision for
memory (``save_on_cpu``, activation compression), and how checkpointing works.

What is packed: every numpy array (the ``Tensor`` engine) and every float (the
``Value`` engine) in a node's ``saved``, whatever the op, a custom Function's
``save_for_backward`` included.  Anything else it saved (a shape, ``None``) is
kept as it is.  Contexts nest; the innermost one packs, like PyTorch's.

**Inside ``vmap``.**  There a saved value may be a batch (``minigrad.batching``:
it looks like one example and holds them all).  It is packed *whole*: ``pack``
gets the plain array of every example, batch axis in front (one per nested vmap,
outermost first: ``every_example``), so a hook that measures or offloads sees all
the memory the graph holds, not one example of it.  ``unpack`` must give back that
array's shape and dtype, and it is made a batch of the same vmap levels again
(``batching.array.rebatched``).  ``vmap(grad(f))``, ``grad(vmap(f))`` and nested
vmaps all pack this way.  (PyTorch 2.13 refuses ``vmap(grad(f))`` under hooks:
"torch.func.{grad, vjp, jacrev, hessian} don't yet support saved tensor hooks".)

**How it is wired, and what it costs when unused.**  An active context is a
watcher of new nodes at the last stage, ``STORE`` (``core/modes.py``), which
calls ``pack_saved``: nothing new on the hot path.  The node's ``saved``
becomes a ``Packed`` record, a tuple of the packed items that also remembers
``unpack``, each item's shape and dtype, and which items were the op's output
or one of its inputs (its *role*).  ``engines.switches.SWITCHES.packed_records``
counts live records; while it is not zero backward takes the reference loop
(``core.backward.local_gradients`` calls ``Packed.unpack``, once per node per
pass): one check per backward call when no hooks were ever used.

**Derivatives of derivatives.**  A ``create_graph`` pass hands rules the saved
inputs and output as graph nodes (``engines/higher_order.py``).  A packed one comes back from
``unpack`` as an array; if it is the very array that was saved, the node itself
(for a batch: the same array of every example) is used, otherwise a one-input
``unpack`` node holding the unpacked value,
whose gradient flows to the input unchanged (PyTorch gives the unpacked tensor
the original's ``grad_fn`` the same way).
"""

from __future__ import annotations

import numbers
import threading

import numpy as np

from ..batching.array import BatchedArray, batch_levels, rebatched
from ..core.modes import STORE, unwatch, watch
from ..core.op import OpExample, define_op, op_example, passthrough
from ..engines.hooked import hook_name
from ..engines.switches import count_packed
from .forward_ad import flow_tangent, set_tangent, tangent_of

__all__ = ["Packed", "SavedTensorHookError", "pack_saved", "unpacked_node", "UNPACK_OPS",
           "saved_hooks", "set_saved_hooks"]


class _Hooks(threading.local):
    #: the active ``saved_tensors_hooks`` as ``(pack, unpack)`` pairs, innermost last
    stack: tuple = ()
    #: the token of ``pack_saved``'s watcher while the stack is not empty
    entry = None


_HOOKS = _Hooks()


def saved_hooks() -> tuple:
    """This thread's active ``(pack, unpack)`` pairs, innermost last."""
    return _HOOKS.stack


def set_saved_hooks(hooks: tuple) -> tuple:
    """Set this thread's ``saved_tensors_hooks`` stack; returns the previous one.  While
    it is not empty, every new node is shown to ``pack_saved``."""
    prev = _HOOKS.stack
    if hooks and not prev:
        _HOOKS.entry = watch(STORE, pack_saved)
    elif prev and not hooks:
        unwatch(_HOOKS.entry)
        _HOOKS.entry = None
    _HOOKS.stack = hooks
    return prev


class SavedTensorHookError(RuntimeError):
    """An unpack hook gave back something that cannot stand for the value that was saved."""


def _identity(x):
    return x, ()


#: the op of a node that stands for an unpacked saved value in a ``create_graph`` pass,
#: per engine: its value is what ``unpack`` returned, its gradient flows to the original
UNPACK_OPS = {
    engine: define_op(
        internal=True, name="unpack", engine=engine, symbol="unpack", forward=_identity,
        grads=(passthrough,), formulas=("∂/∂x = 1 (the saved value, unpacked)",),
        linear=True, elementwise=engine == "tensor",
        doc="A saved value as a saved-tensor hook's unpack gave it back.",
        **({"cases": lambda rng: [((rng.uniform(-2, 2, s),), {}) for s in ((), (3, 4))]}
           if engine == "tensor" else {"domain": ((-2.0, 2.0),)}))
    for engine in ("tensor", "scalar")
}


@op_example("unpack")
def _unpack_examples() -> list:
    """The table tests' inputs for ``unpack``: the op itself (the identity) on each engine."""
    return [OpExample(op=op, cases=op.cases) for op in UNPACK_OPS.values()]


def _packable(s) -> bool:
    return isinstance(s, (np.ndarray, BatchedArray)) or s.__class__ is float


def _as_saved(s, value) -> bool:
    """Whether ``value`` (an unpacked item) is the very value ``s`` (a node's data): the
    same object, or, for a batch, a batch rebuilt around the same array of examples."""
    if value is s:
        return True
    return (value.__class__ is BatchedArray and s.__class__ is BatchedArray
            and value.every_example() is s.every_example())


class Packed(tuple):
    """A node's ``saved`` after ``pack``: the packed items, the rest as they were.

    ``specs[k]`` is ``None`` for an item kept as it was, else the saved value's
    ``(shape, dtype)`` (``None, None`` for a float): what ``unpack`` must give back.
    ``levels[k]`` are a batch's vmap levels, outermost first (``()`` for a plain array
    or a float), and ``shape`` then is the whole batch's (``every_example``).
    ``roles[k]`` says which value item ``k`` was: ``-1`` the op's output, ``j`` its
    ``j``-th input, ``None`` anything else.  ``hook`` names the pair, for errors.
    """

    def __new__(cls, items, unpack, hook: str, specs: tuple, roles: tuple,
                levels: tuple | None = None):
        self = super().__new__(cls, items)
        self.unpack_hook = unpack
        self.hook = hook
        self.specs = specs
        self.roles = roles
        self.levels = levels if levels is not None else ((),) * len(specs)
        count_packed(1)
        return self

    def __del__(self):
        try:
            count_packed(-1)
        except Exception:  # pragma: no cover  (interpreter shutdown: the module is gone)
            pass

    def unpack(self, node) -> tuple:
        """The saved values, each packed one through ``unpack`` (called once each) and checked."""
        out = []
        for k, (item, spec, levels) in enumerate(zip(self, self.specs, self.levels)):
            out.append(item if spec is None else
                       self._checked(self.unpack_hook(item), spec, levels, k, node))
        return tuple(out)

    def as_nodes(self, node) -> tuple[list, bool]:
        """For a ``create_graph`` pass: the unpacked values with the op's inputs and output as
        nodes (see the module doc), and whether some float value was neither."""
        out, derived = [], False
        for v, spec, role in zip(self.unpack(node), self.specs, self.roles):
            if spec is None or not (v.__class__ is float or v.dtype.kind in "fc"):
                out.append(v)
            elif role is None:
                derived = True
                out.append(v)
            else:
                source = node if role < 0 else node.parents[role]
                out.append(source if _as_saved(source.data, v) else unpacked_node(source, v))
        return out, derived

    def _checked(self, value, spec, levels, k, node):
        shape, dtype = spec
        if hasattr(value, "engine_class"):  # a Tensor or Value: its data
            value = value.data
        if dtype is None:  # a float (the Value engine)
            if isinstance(value, numbers.Real) and not isinstance(value, bool):
                return float(value)
            got = type(value).__name__
            want = "a float"
        else:
            if (isinstance(value, np.ndarray) and value.shape == shape
                    and value.dtype == dtype):
                return rebatched(value, levels) if levels else value
            got = (f"an array of shape {value.shape} and dtype {value.dtype}"
                   if isinstance(value, np.ndarray) else type(value).__name__)
            want = f"an array of shape {shape} and dtype {dtype}"
            if levels:
                n = len(levels)
                axes = "the batch axis" if n == 1 else f"{n} batch axes"
                want += (f" (a batch inside vmap: {axes} in front of one example's shape "
                         f"{shape[n:]})")
        label = f" '{node.label}'" if node.label else ""
        raise SavedTensorHookError(
            f"saved_tensors_hooks: the unpack hook of {self.hook} returned {got} for saved "
            f"value {k} of op '{node.op.name}' (node #{node.id}{label}), which saved {want}; "
            f"unpack must give back what was saved, in its shape and dtype (e.g. cast back "
            f"with .astype(np.float32))")


def pack_saved(node) -> None:
    """Pack what ``node``'s op saved with the innermost active hooks (``announce`` calls it).

    The hooks are switched off while ``pack`` runs, so a pack that itself computes
    with minigrad does not pack its own results."""
    saved = node.saved
    if not saved or node.op is None or not any(_packable(s) for s in saved):
        return
    hooks = _HOOKS.stack
    if not hooks:  # (a node made by a pack hook itself: hooks are off while it runs)
        return
    pack, unpack = hooks[-1]
    data, parents = node.data, node.parents
    items, specs, roles, batches = [], [], [], []
    _HOOKS.stack = ()
    try:
        for s in saved:
            if not _packable(s):
                items.append(s)
                specs.append(None)
                roles.append(None)
                batches.append(())
                continue
            role = -1 if s is data else next(
                (j for j, p in enumerate(parents) if s is p.data), None)
            levels = ()
            if s.__class__ is BatchedArray:  # (inside vmap: the whole batch, packed as one)
                levels = batch_levels(s)
                s = s.every_example()
            items.append(pack(s))
            specs.append((s.shape, s.dtype) if isinstance(s, np.ndarray) else (None, None))
            roles.append(role)
            batches.append(levels)
    finally:
        _HOOKS.stack = hooks
    name = f"({hook_name(pack)}, {hook_name(unpack)})"
    node.saved = Packed(items, unpack, name, tuple(specs), tuple(roles), tuple(batches))


def unpacked_node(source, value):
    """A node holding ``value`` whose gradient flows to ``source`` unchanged (op ``unpack``).

    Built as a constant by the one constructor (so it is announced and tagged with
    the pass's derivative order), then given its op.  Under forward mode (``hessian``
    is forward over reverse: tangents ride through this pass) it takes ``source``'s
    tangent too, ``∂/∂x = 1``, as PyTorch's unpack restores a saved tensor's forward
    gradient; without it the second derivative would lose this path silently."""
    node = source.engine_class.constant(value)
    if source.requires_grad:
        node.op = UNPACK_OPS["scalar" if value.__class__ is float else "tensor"]
        node.parents = (source,)
        node.requires_grad = True
        node.grads_fit_inputs = True
        flow_tangent(node, node.op, node.parents, (), {})
    elif tangent_of(source) is not None:
        set_tangent(node, tangent_of(source))
    return node
