"""Gradient hooks: your function sees, and may replace, a gradient while backward runs.

PyTorch's names and semantics (checked against torch 2.13 by
``tests/minigrad/autograd/test_differentiable_hooks_match_torch.py``):

* ``t.register_hook(fn)`` (``Tensor`` and ``Value``): ``fn(grad)`` is called once
  per backward pass with ``t``'s *complete* gradient for that pass, dL/dt, the
  sum of every contribution that reached it.  It returns ``None`` (keep it) or a
  replacement of the same shape and dtype.  Several hooks run in the order they
  were registered, each given the previous one's result.

  - On a node made by an op, the hooks run when its gradient is complete, just
    before its op's rules use it: a replacement changes what flows upstream.
    ``node.grad`` keeps the replacement (PyTorch's ``retain_grad`` sees it too).
  - On a leaf, the hooks run on this pass's sum before it is added into
    ``.grad``: ``.grad`` becomes ``old .grad + hooks(sum)``.  (A hooked leaf sums
    its contributions apart and adds them to ``.grad`` once, as PyTorch does, so
    its ``.grad`` after a second pass may differ in the last bit from an unhooked
    leaf's, which adds each contribution in turn.)

* ``leaf.register_post_accumulate_grad_hook(fn)``: ``fn(leaf)`` runs after the
  leaf's ``.grad`` was updated (an optimizer step fused into backward).  It must
  return ``None``; it runs with grad mode off, unless the pass builds a graph.

* Both return a ``RemovableHandle``: ``handle.remove()`` (or ``with handle:``).

* ``t.retain_grad()`` on a node made by an op: its ``.grad`` *accumulates* across
  backward passes (and ``autograd.grad`` calls), as a leaf's does, instead of holding
  the latest pass's sum; ``t.retains_grad`` says so.  PyTorch implements it as a hook;
  here it needs none inside the loop, since every loop already leaves each non-leaf
  its pass's gradient: ``choose.py`` takes the retaining nodes' ``.grad`` before the
  pass and adds it back after (``retained_grads``, ``add_retained``), so any loop may
  run, the fast one included, and a ``register_hook`` replacement is what is added.
  ``switches.SWITCHES.retaining_nodes`` counts the live retaining nodes, so a pass
  with none pays one check.  On a leaf it does nothing; on a node that does not
  require grad it is an error, as in PyTorch.

Where minigrad differs from PyTorch:

* A first-order gradient is a numpy array (a float for ``Value``), like
  minigrad's ``.grad``, and the hook gets it **read-only**: backward may share
  one array between nodes (``a + b`` hands the same gradient to both inputs),
  so changing it in place would change others.  Return a new array instead.
  A returned ``Tensor``/``Value`` is accepted for its data.  In a
  ``create_graph`` pass the gradient is a node, as in PyTorch.
* In the sorted order (``scheduler="sorted"``, the default) a hooked leaf's hooks run at
  the end of the pass; in the ready-queue order, when its last contribution
  arrives (PyTorch's time).  The values are the same.
* ``minigrad.autograd.grad`` runs the gradient hooks but not the
  post-accumulate ones (no ``.grad`` is accumulated), as in PyTorch.

**Where hooks live.**  In the node's ``origin`` slot (an ``Origin`` made on
first registration), not in a module-level dict keyed by node id.  A hook
often closes over its own node (``x.register_hook(lambda g: g * x.data)``):
held by the node, that cycle is freed with it by Python's collector; held by a
global dict, the node could never be freed.  No slot is added to any node.
A ``weakref.finalize`` per hooked node keeps ``SWITCHES.hooked_nodes`` right when a hooked
node dies with its hooks still on (a hooked activation in every training step).

**Cost.**  ``switches.SWITCHES.hooked_nodes`` counts live hooked nodes.  While it is zero,
backward checks it once and runs the fast engine; nodes are built as before.
Otherwise backward runs the announced loop (``core.backward.run_reference`` or
the ready queue) with ``HookedPass`` as its steps: simplest, and honest
about where the time goes.
"""

from __future__ import annotations

import weakref

import numpy as np

from ..core.backward import Steps
from ..core.modes import set_grad_mode
from ..core.node import origin_of
from .switches import count_hooked, count_retaining

__all__ = ["RemovableHandle", "GradHooks", "add_hook", "hooks_of", "HookedPass",
           "describe", "hook_name", "retain_grad", "retains_grad", "retained_grads",
           "add_retained", "added"]


class GradHooks:
    """A node's hooks: ``pre`` (``register_hook``) and ``post`` (post-accumulate), as handles,
    and whether it retains its gradient (``retain_grad()``).  ``finalizer`` and ``retain``
    count the node in ``SWITCHES.hooked_nodes`` (while it has hooks) and
    ``SWITCHES.retaining_nodes`` until it dies (``None``: not counted there)."""

    __slots__ = ("pre", "post", "retain", "finalizer")

    def __init__(self):
        self.pre: list = []
        self.post: list = []
        self.retain = None
        self.finalizer = None


class RemovableHandle:
    """What ``register_hook`` returns: ``.remove()`` takes the hook off (twice is harmless)."""

    __slots__ = ("fn", "node_ref", "post")

    def __init__(self, fn, node, post: bool):
        self.fn = fn
        self.node_ref = weakref.ref(node)
        self.post = post

    def remove(self) -> None:
        node = self.node_ref()
        hooks = hooks_of(node) if node is not None else None
        if hooks is None:
            return
        handles = hooks.post if self.post else hooks.pre
        if self in handles:
            handles.remove(self)
        if not hooks.pre and not hooks.post:
            if hooks.finalizer is not None and hooks.finalizer.detach() is not None:
                count_hooked(-1)
            hooks.finalizer = None
            if hooks.retain is None:  # (a retaining node keeps its record)
                node.origin.hooks = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
        return False

    def __repr__(self) -> str:
        kind = "post-accumulate-grad hook" if self.post else "hook"
        return f"<RemovableHandle of {kind} {hook_name(self.fn)!r}>"


def hooks_of(node):
    """The node's ``GradHooks``, or ``None``."""
    origin = node.origin
    return None if origin is None else origin.hooks


def add_hook(node, fn, post: bool) -> RemovableHandle:
    """Register ``fn`` on ``node`` (kept in its ``Origin``, see the module doc)."""
    what = "register_post_accumulate_grad_hook" if post else "register_hook"
    if not callable(fn):
        raise TypeError(f"{what}: expected a function, got {type(fn).__name__}")
    if not node.requires_grad:
        raise RuntimeError(f"{what}: {describe(node)} does not require grad, so no gradient "
                           f"will ever reach it; create it with requires_grad=True")
    if post and node.op is not None:
        raise RuntimeError(f"{what}: {describe(node)} is not a leaf; post-accumulate-grad "
                           f"hooks run after a leaf's .grad is updated, and only leaves "
                           f"accumulate .grad (use register_hook on it instead)")
    handle = RemovableHandle(fn, node, post)
    hooks = _hooks_made(node)
    if hooks.finalizer is None:  # its first hook: a hooked node from now on
        hooks.finalizer = _counted(node, count_hooked)
    (hooks.post if post else hooks.pre).append(handle)
    return handle


def _hooks_made(node) -> GradHooks:
    """The node's ``GradHooks``, made on first use."""
    origin = origin_of(node)
    if origin.hooks is None:
        origin.hooks = GradHooks()
    return origin.hooks


def _counted(node, count) -> weakref.finalize:
    """``count(1)`` now and ``count(-1)`` when ``node`` dies (unless detached first)."""
    finalizer = weakref.finalize(node, count, -1)
    finalizer.atexit = False
    count(1)
    return finalizer


def retain_grad(node) -> None:
    """``node.retain_grad()`` (see the module doc): a non-leaf's ``.grad`` accumulates."""
    if not node.requires_grad:
        raise RuntimeError(f"can't retain_grad on {type(node).__name__} that has "
                           f"requires_grad=False ({describe(node)}: no gradient will ever "
                           f"reach it)")
    if node.op is None:  # a leaf accumulates its .grad already: nothing to do (PyTorch too)
        return
    hooks = _hooks_made(node)
    if hooks.retain is None:
        hooks.retain = _counted(node, count_retaining)


def retains_grad(node) -> bool:
    """Whether ``retain_grad()`` was called on this non-leaf (always ``False`` on a leaf)."""
    hooks = hooks_of(node)
    return hooks is not None and hooks.retain is not None


def retained_grads(order) -> list:
    """``[(node, its .grad now)]`` for the nodes of ``order`` that retain their gradient,
    taken before a pass resets every non-leaf's ``.grad`` (``core.backward.start``)."""
    return [(n, n.grad) for n in order if retains_grad(n)]


def add_retained(kept) -> None:
    """After a pass: each retaining node's ``.grad`` is what it held before plus this
    pass's gradient (``None`` if the pass did not reach it), a new sum, as for a leaf."""
    for node, old in kept:
        node.grad = added(old, node.grad)


def added(old, new):
    """``old + new`` for gradients, either of which may be ``None``; an array sum is a new
    array, and a node (a ``create_graph`` gradient) stays a node whichever side it is on."""
    if old is None:
        return new
    if new is None:
        return old
    if isinstance(old, np.ndarray) and isinstance(new, np.ndarray):
        return np.asarray(old + new)  # (0-d + 0-d gives a numpy scalar)
    return new + old if hasattr(new, "engine_class") else old + new


class HookedPass(Steps):
    """What one backward pass does about hooks; made only while some node has hooks.

    The reference loop's steps (``core.backward.Steps``) with hooks in them:
    ``complete(node, g)`` runs a node's hooks on its complete gradient, a leaf
    ``receiving`` a contribution starts its sum for this pass, and
    ``leaf_done(leaf)`` runs once the leaf has all its contributions (the ready
    queue knows when; ``finish()`` does it for the leaves left).
    """

    def __init__(self, recorders, create_graph: bool, post_hooks: bool = True):
        self.announce = [r.hooked for r in recorders if callable(getattr(r, "hooked", None))]
        self.create_graph = create_graph
        self.post_hooks = post_hooks
        #: hooked leaves that received something: id -> (leaf, its .grad before the pass)
        self.leaves: dict = {}

    def complete(self, node, g):
        """Run ``node``'s hooks on its complete gradient ``g``; the result is also ``node.grad``."""
        hooks = hooks_of(node)
        if hooks is None or not hooks.pre:
            return g
        g = self._run(node, hooks.pre, g)
        node.grad = g
        return g

    def before_add(self, node, parent, slot) -> None:
        if parent.op is None:
            self.receiving(parent)

    def receiving(self, leaf) -> None:
        """Before a contribution is added into ``leaf``: a hooked leaf sums this pass's
        contributions from nothing, so that its hooks see the pass's gradient alone."""
        if leaf.id not in self.leaves and hooks_of(leaf) is not None:
            self.leaves[leaf.id] = (leaf, leaf.grad)
            leaf.grad = None

    def leaf_done(self, leaf) -> None:
        """Every contribution reached ``leaf``: hooks on the sum, into ``.grad``, post hooks."""
        entry = self.leaves.pop(leaf.id, None)
        if entry is None:
            return
        old = entry[1]
        total = leaf.grad
        hooks = hooks_of(leaf)
        g = self._run(leaf, hooks.pre, total) if hooks is not None and hooks.pre else total
        if old is not None:
            g = np.asarray(old + g) if isinstance(g, np.ndarray) else old + g
        elif g is not total and isinstance(g, np.ndarray):
            g = g.copy()  # a leaf's .grad is its own, not an array the hook kept
        leaf.grad = g
        if self.post_hooks and hooks is not None and hooks.post:
            self._run_post(leaf, hooks.post)

    def finish(self) -> None:
        for leaf, _ in list(self.leaves.values()):
            self.leaf_done(leaf)

    def _run(self, node, handles, g):
        prev = None if self.create_graph else set_grad_mode(False)
        try:
            for handle in list(handles):  # (a hook may remove itself)
                arg = _read_only(g)
                result = handle.fn(arg)
                if result is None or result is arg:
                    continue
                result = checked(node, handle.fn, g, result, self.create_graph)
                for announce in self.announce:
                    announce(node, hook_name(handle.fn), g, result)
                g = result
        finally:
            if prev is not None:
                set_grad_mode(prev)
        return g

    def _run_post(self, leaf, handles) -> None:
        prev = None if self.create_graph else set_grad_mode(False)
        try:
            for handle in list(handles):
                result = handle.fn(leaf)
                if result is not None:
                    raise TypeError(
                        f"post-accumulate-grad hook '{hook_name(handle.fn)}' on "
                        f"{describe(leaf)} returned a {type(result).__name__}; it must "
                        f"return None (it is given the leaf itself: read or change leaf.grad)")
        finally:
            if prev is not None:
                set_grad_mode(prev)


def checked(node, fn, g, result, create_graph: bool):
    """A hook's replacement for ``g``, checked to be a gradient like ``g`` (shape, dtype)."""
    value = result.data if hasattr(result, "engine_class") else result
    expected = g.data if create_graph else g
    where = f"hook '{hook_name(fn)}' on {describe(node)}"
    if isinstance(expected, np.ndarray):
        if isinstance(value, np.generic):  # (a 0-d array times 2 is a numpy scalar)
            value = np.asarray(value)
        if not isinstance(value, np.ndarray):
            raise TypeError(f"{where} returned a {type(result).__name__}; a hook returns None "
                            f"or a numpy array like the gradient it was given "
                            f"(shape {expected.shape}, dtype {expected.dtype})")
        if value.shape != expected.shape:
            raise RuntimeError(f"{where} returned a gradient of shape {value.shape}, but the "
                               f"gradient it was given has shape {expected.shape}; a hook may "
                               f"change the values, not the shape")
        if value.dtype != expected.dtype:
            raise RuntimeError(f"{where} returned a gradient of dtype {value.dtype}, but the "
                               f"gradient it was given is {expected.dtype}; cast it back "
                               f"(e.g. .astype(g.dtype))")
    elif isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{where} returned a {type(result).__name__}; a Value's hook returns "
                        f"None or a number")
    else:
        value = float(value)
    if not create_graph:
        return value
    return result if isinstance(result, node.engine_class) else node.engine_class.constant(value)


def _read_only(g):
    if isinstance(g, np.ndarray):
        g = g.view()
        g.flags.writeable = False
    return g


def hook_name(fn) -> str:
    return getattr(fn, "__name__", None) or type(fn).__name__


def describe(node) -> str:
    """``node #7 'h' (tanh)``: how errors name a node."""
    label = f" '{node.label}'" if node.label else ""
    kind = node.op.name if node.op is not None else "leaf"
    return f"node #{node.id}{label} ({kind})"
